#include "tile_fit.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "dlsim/cost/learned_fit.h"
#include "dlsim/cost/tile_search.h"
#include "fit.h"

namespace dlsim::fit {
namespace {

struct Profiled {
  cost::TileDevice dev;
  std::vector<cost::TileConfig> feasible;
};

const Profiled& ProfiledOf(const std::string& arch) {
  static const Profiled* ampere = [] {
    auto* p = new Profiled;
    p->dev = cost::TileDevice::Of(ProfiledGpu("ampere"), hw::DType::kFp16);
    p->feasible = cost::FeasibleTiles(hw::DType::kFp16, p->dev);
    return p;
  }();
  static const Profiled* hopper = [] {
    auto* p = new Profiled;
    p->dev = cost::TileDevice::Of(ProfiledGpu("hopper"), hw::DType::kFp16);
    p->feasible = cost::FeasibleTiles(hw::DType::kFp16, p->dev);
    return p;
  }();
  return arch == "hopper" ? *hopper : *ampere;
}

std::vector<const Sample*> GemmRows(const std::vector<Sample>& samples, const std::string& arch, bool held,
                                    int stride) {
  std::vector<const Sample*> out;
  int i = 0;
  for (const auto& s : samples) {
    if (s.kind != SampleKind::kGemm || s.architecture != arch || s.held_out != held) continue;
    if (i++ % stride == 0) out.push_back(&s);
  }
  return out;
}

double TileLoss(const std::vector<const Sample*>& rows, const cost::ArchCalibration& arch) {
  double sum = 0;
  for (const Sample* s : rows) sum += std::abs(std::log(PredictTile(*s, arch) / s->measured_s));
  return rows.empty() ? 0 : sum / static_cast<double>(rows.size());
}

double Mape(const std::vector<const Sample*>& rows, const cost::ArchCalibration& arch, bool tile) {
  double sum = 0;
  for (const Sample* s : rows) {
    const double p = tile ? PredictTile(*s, arch) : Predict(*s, arch);
    sum += 100.0 * std::abs(p - s->measured_s) / s->measured_s;
  }
  return rows.empty() ? 0 : sum / static_cast<double>(rows.size());
}

constexpr int kLearnedStride = 8;
constexpr size_t kFinetuneRows = 64;
constexpr int kFinetuneRounds = 40;

cost::LearnSet SetOf(const std::vector<const Sample*>& rows) {
  std::vector<cost::LearnSample> ls;
  for (const Sample* s : rows) {
    const Profiled& p = ProfiledOf(s->architecture);
    ls.push_back({s->gemm, hw::DType::kFp16, &p.dev, &p.feasible, s->measured_s});
  }
  return cost::MakeLearnSet(ls);
}

std::vector<const Sample*> TrainRows(const std::vector<Sample>& samples,
                                     std::vector<std::string> archs = {"ampere", "hopper"}) {
  std::vector<const Sample*> out;
  for (const std::string& arch : archs) {
    for (const Sample* s : GemmRows(samples, arch, /*held=*/false, kLearnedStride)) out.push_back(s);
  }
  return out;
}

cost::TreeEnsemble FitLearned(const std::vector<const Sample*>& train,
                              const std::vector<const Sample*>& tune) {
  const cost::LearnSet t = SetOf(train), f = SetOf(tune);
  auto m = cost::FitEnsemble(t, {}, tune.empty() ? nullptr : &f, kFinetuneRounds);
  return m.ok() ? *m : cost::TreeEnsemble{.features = cost::GemmFeatureNames()};
}

cost::ArchCalibration FitBoth(const std::vector<Sample>& samples, const cost::ArchCalibration& start) {
  cost::ArchCalibration a = FitArchitecture(samples, start);
  FitTile(samples, a);
  return a;
}

// Scores the held-out GEMM rows of `arch` (per op) under `fitted` (its architecture renamed to
// the rows' for the cross-GPU split).
void ScoreHeld(const std::vector<Sample>& samples, const std::string& split, const std::string& arch,
               cost::ArchCalibration fitted, const cost::TreeEnsemble& learned,
               std::vector<SplitError>& out) {
  fitted.architecture = arch;
  for (const char* op : kGemmOps) {
    std::vector<const Sample*> rows;
    for (const Sample* s : GemmRows(samples, arch, /*held=*/true, 1))
      if (s->op == op) rows.push_back(s);
    if (rows.empty()) continue;
    out.push_back({split, arch, op, static_cast<int>(rows.size()), Mape(rows, fitted, false),
                   Mape(rows, fitted, true), cost::LearnedMape(learned, SetOf(rows))});
  }
}

}  // namespace

double PredictTile(const Sample& s, const cost::ArchCalibration& arch) {
  if (s.kind != SampleKind::kGemm) return Predict(s, arch);
  const Profiled& p = ProfiledOf(s.architecture);
  return cost::SearchTile(s.gemm, hw::DType::kFp16, p.dev, arch.tile, p.feasible).estimate.seconds;
}

void FitTile(const std::vector<Sample>& samples, cost::ArchCalibration& arch, int stride) {
  const auto rows = GemmRows(samples, arch.architecture, /*held=*/false, stride);
  if (rows.empty()) return;
  auto apply = [&arch](const std::vector<double>& x) {
    arch.tile.mma_efficiency = std::min(1.0, std::exp(x[0]));
    arch.tile.hbm_efficiency = std::min(1.0, std::exp(x[1]));
    arch.tile.launch = Seconds(std::exp(x[2]));
    arch.tile.tile_overhead = Seconds(std::exp(x[3]));
  };
  auto f = [&](const std::vector<double>& x) {
    apply(x);
    return TileLoss(rows, arch);
  };
  std::vector<double> x = {std::log(0.8), std::log(0.8), std::log(4e-6), std::log(0.5e-6)};
  x = NelderMead(f, x, {0.2, 0.2, 0.5, 0.5}, 150);
  x = NelderMead(f, x, {0.05, 0.05, 0.2, 0.2}, 100);
  apply(x);
}

std::vector<SplitError> CompareModels(const std::vector<Sample>& samples,
                                      const std::vector<cost::ArchCalibration>& start) {
  std::vector<SplitError> out;
  const cost::TreeEnsemble tokens = FitLearned(TrainRows(samples), {});
  for (const auto& a : start) ScoreHeld(samples, "tokens", a.architecture, FitBoth(samples, a), tokens, out);
  for (const char* op : kGemmOps) {
    std::vector<Sample> split = samples;
    for (auto& s : split) s.held_out = s.kind == SampleKind::kGemm && s.op == op;
    const cost::TreeEnsemble learned = FitLearned(TrainRows(split), {});
    for (const auto& a : start) {
      std::vector<SplitError> rows;
      ScoreHeld(split, "operator", a.architecture, FitBoth(split, a), learned, rows);
      for (const auto& r : rows)
        if (r.op == op) out.push_back(r);
    }
  }
  std::vector<Sample> cross = samples;
  for (auto& s : cross)
    if (s.architecture == "hopper") s.held_out = true;
  // Fine-tuning rows: KMeans over the H100 rows; they leave the scored set.
  const std::vector<const Sample*> hopper = GemmRows(cross, "hopper", /*held=*/true, 1);
  std::vector<const Sample*> tune;
  for (size_t i : cost::KMeansSelect(SetOf(hopper), kFinetuneRows, 1)) tune.push_back(hopper[i]);
  const cost::TreeEnsemble learned = FitLearned(TrainRows(cross, {"ampere"}), tune);
  for (const Sample* s : tune) cross[static_cast<size_t>(s - cross.data())].held_out = false;
  const cost::ArchCalibration ampere = FitBoth(cross, start.front());
  ScoreHeld(cross, "gpu", "hopper", ampere, learned, out);
  return out;
}

std::string SplitTable(const std::vector<SplitError>& rows) {
  std::ostringstream o;
  char line[200];
  std::snprintf(line, sizeof line, "%-9s %-7s %-15s %6s %9s %9s %9s\n", "split", "arch", "op", "rows",
                "roofline", "tile", "learned");
  o << line;
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%-9s %-7s %-15s %6d %8.2f%% %8.2f%% %8.2f%%\n", r.split.c_str(),
                  r.architecture.c_str(), r.op.c_str(), r.rows, r.roofline_mape, r.tile_mape, r.learned_mape);
    o << line;
  }
  return o.str();
}

}  // namespace dlsim::fit

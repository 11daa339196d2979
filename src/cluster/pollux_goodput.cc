// Pollux goodput: the forms of the AdaptDL artifact's simulator/goodput.py (_predict_accum_time,
// _predict_network_time, _predict_log_optim_time, _obj_fn, GoodputFunction.optimize) and
// simulator.py (Job.step's gain, Job.update_local_bsz), re-implemented; see the header.
#include "dlsim/cluster/pollux_goodput.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace dlsim::cluster {
namespace {

constexpr double kTiny = 1e-8;  // goodput.py's lower bound of every parameter
constexpr double kEps = 1e-8;   // tolerance of its floor/ceil operations

double NetworkTime(const PolluxPerfParams& p, int nodes, int replicas) {
  const double extra = std::max(replicas - 2.0, kTiny);
  if (nodes > 1) return p.alpha_n + p.beta_n * extra;
  if (replicas > 1) return p.alpha_r + p.beta_r * extra;
  return kTiny + kTiny * extra;
}

// Parameters <-> unconstrained search coordinates: logs of the six positive terms and a logistic
// map of gamma onto [1, 10].
using Point = std::array<double, 7>;
PolluxPerfParams FromPoint(const Point& u) {
  auto pos = [](double x) { return std::max(std::exp(std::clamp(x, -40.0, 40.0)), kTiny); };
  return {pos(u[0]), pos(u[1]), pos(u[2]), pos(u[3]), pos(u[4]), pos(u[5]), 1 + 9 / (1 + std::exp(-u[6]))};
}
Point ToPoint(const PolluxPerfParams& p) {
  const double g = std::clamp((p.gamma - 1) / 9, 1e-6, 1 - 1e-6);
  return {std::log(p.alpha_c), std::log(p.beta_c), std::log(p.alpha_n),  std::log(p.beta_n),
          std::log(p.alpha_r), std::log(p.beta_r), std::log(g / (1 - g))};
}

using Simplex = std::array<std::pair<double, Point>, 8>;

// Of every vertex but the last (the worst, once sorted).
Point Centroid(const Simplex& simplex) {
  Point c{};
  for (size_t i = 0; i + 1 < simplex.size(); ++i)
    for (size_t k = 0; k < c.size(); ++k) c[k] += simplex[i].second[k] / 7.0;
  return c;
}

Point Blend(const Point& a, const Point& b, double t) {
  Point r;
  for (size_t k = 0; k < r.size(); ++k) r[k] = a[k] + t * (b[k] - a[k]);
  return r;
}

// Nelder-Mead (standard coefficients) from `start`; deterministic.
Point NelderMead(const std::vector<PolluxStepSample>& s, Point start, int iterations) {
  auto f = [&](const Point& u) { return PolluxFitObjective(FromPoint(u), s); };
  Simplex simplex;
  for (size_t i = 0; i < simplex.size(); ++i) {
    Point u = start;
    if (i > 0) u[i - 1] += 1.0;
    simplex[i] = {f(u), u};
  }
  for (int it = 0; it < iterations; ++it) {
    std::sort(simplex.begin(), simplex.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const Point centroid = Centroid(simplex);
    auto& worst = simplex.back();
    const Point reflected = Blend(centroid, worst.second, -1.0);
    const double fr = f(reflected);
    if (fr < simplex.front().first) {
      const Point expanded = Blend(centroid, worst.second, -2.0);
      const double fe = f(expanded);
      worst = fe < fr ? std::pair{fe, expanded} : std::pair{fr, reflected};
    } else if (fr < simplex[6].first) {
      worst = {fr, reflected};
    } else {
      const Point contracted = Blend(centroid, worst.second, 0.5);
      const double fc = f(contracted);
      if (fc < worst.first) {
        worst = {fc, contracted};
      } else {
        for (size_t i = 1; i < simplex.size(); ++i) {
          simplex[i].second = Blend(simplex[0].second, simplex[i].second, 0.5);
          simplex[i].first = f(simplex[i].second);
        }
      }
    }
  }
  return std::min_element(simplex.begin(), simplex.end(),
                          [](const auto& a, const auto& b) { return a.first < b.first; })
      ->second;
}

std::vector<int> SmallestRotation(std::vector<int> p) {
  std::vector<int> best = p;
  for (size_t i = 1; i < p.size(); ++i) {
    std::rotate(p.begin(), p.begin() + 1, p.end());
    best = std::min(best, p);
  }
  return best;
}

}  // namespace

std::pair<double, double> PolluxStepTimes(const PolluxPerfParams& p, int nodes, int replicas,
                                          double atomic_bsz) {
  const double acc = p.alpha_c + p.beta_c * atomic_bsz;
  const double net = NetworkTime(p, nodes, replicas);
  const double opt = std::exp(std::log(std::pow(acc, p.gamma) + std::pow(net, p.gamma)) / p.gamma);
  return {acc, opt};
}

double PolluxFitObjective(const PolluxPerfParams& p, const std::vector<PolluxStepSample>& samples) {
  double e1 = 0, e2 = 0;
  for (const PolluxStepSample& s : samples) {
    const auto [acc, opt] = PolluxStepTimes(p, s.num_nodes, s.num_replicas, s.local_bsz);
    const double d1 = std::log(acc) - std::log(s.step_time - s.sync_time);
    const double d2 = std::log(opt) - std::log(s.step_time);
    e1 += d1 * d1, e2 += d2 * d2;
  }
  const double n = static_cast<double>(samples.size());
  const double r1 = 1e-3 * (p.gamma - 1) * (p.gamma - 1);
  const double r2 = 1e-2 * (std::pow(p.beta_n / p.alpha_n, 2) + std::pow(p.beta_r / p.alpha_r, 2));
  return std::sqrt(e1 / n) + std::sqrt(e2 / n) + r1 + r2;
}

PolluxPerfParams FitPolluxPerfParams(const std::vector<PolluxStepSample>& samples, int restarts,
                                     int iterations) {
  // One point per (nodes, replicas, local batch): the mean of its measurements, as
  // applications.py groups placements.csv before interpolating.
  std::map<std::tuple<int, int, int>, std::array<double, 3>> groups;
  for (const PolluxStepSample& s : samples) {
    auto& g = groups[{s.num_nodes, s.num_replicas, s.local_bsz}];
    g[0] += s.step_time, g[1] += s.sync_time, g[2] += 1;
  }
  std::vector<PolluxStepSample> means;
  for (const auto& [k, g] : groups)
    means.push_back({std::get<0>(k), std::get<1>(k), {}, std::get<2>(k), g[0] / g[2], g[1] / g[2]});
  Point u = ToPoint(PolluxPerfParams{});  // goodput.py's initial values
  for (int restart = 0; restart < restarts; ++restart) u = NelderMead(means, u, iterations);
  return FromPoint(u);
}

PolluxGoodput::PolluxGoodput(std::shared_ptr<const PolluxApp> app) : app_(std::move(app)) {
  std::vector<PolluxStepSample> all = app_->tables.placements;
  all.insert(all.end(), app_->tables.scalability.begin(), app_->tables.scalability.end());
  params_ = FitPolluxPerfParams(all);
  for (const PolluxStepSample& s : app_->tables.placements)
    measured_[SmallestRotation(s.placement)].push_back({double(s.local_bsz), s.step_time, s.sync_time});
  for (auto& [p, rows] : measured_) std::sort(rows.begin(), rows.end());
}

double PolluxGoodput::StepSeconds(const std::vector<int>& placement, const PolluxBatch& b) const {
  double step = 0, sync = 0;
  auto it = measured_.find(SmallestRotation(placement));
  if (it != measured_.end()) {  // applications.py get_throughput: interp1d over local_bsz
    const auto& rows = it->second;
    const double x = std::clamp<double>(b.atomic_bsz, rows.front()[0], rows.back()[0]);
    auto hi = std::lower_bound(rows.begin(), rows.end(), x, [](const auto& r, double v) { return r[0] < v; });
    auto lo = hi == rows.begin() ? hi : hi - 1;
    const double w = hi == lo || hi->at(0) == lo->at(0) ? 0 : (x - lo->at(0)) / (hi->at(0) - lo->at(0));
    step = lo->at(1) + w * (hi->at(1) - lo->at(1));
    sync = lo->at(2) + w * (hi->at(2) - lo->at(2));
  } else {
    const auto [acc, opt] =
        PolluxStepTimes(params_, static_cast<int>(placement.size()), b.replicas, b.atomic_bsz);
    step = opt, sync = opt - acc;
  }
  return step + (step - sync) * b.accum_steps;  // Job.step: total_time
}

double PolluxGoodput::Gain(int batch_size, int epoch) const {
  const auto [sqr, var] = app_->GradStats(batch_size, epoch);
  const double scale = static_cast<double>(batch_size) / app_->init_batch_size;
  const double denom = var / scale + sqr;
  return denom > 0 ? (var + sqr) / denom : 1.0;
}

double PolluxGoodput::ModelGoodput(int nodes, int replicas, const PolluxBatch& b, int epoch) const {
  const auto [acc, opt] = PolluxStepTimes(params_, nodes, replicas, b.atomic_bsz);
  return Gain(b.Total(), epoch) / (b.accum_steps * acc + opt);
}

PolluxBatch PolluxGoodput::ChooseBatch(int nodes, int replicas, int epoch) const {
  const PolluxApp& a = *app_;
  PolluxBatch best{0, 0, 0};
  if (replicas <= 0 || nodes <= 0 || (a.max_replicas > 0 && replicas > a.max_replicas)) return best;
  const double lo = std::max<double>(a.init_batch_size, double(a.min_local_bsz) * replicas);
  if (a.fixed_batch_size > 0) {  // update_local_bsz with a target batch size
    const int local = static_cast<int>(std::ceil(double(a.fixed_batch_size) / replicas - kEps));
    best = {0, static_cast<int>(std::ceil(double(local) / a.max_local_bsz - kEps)) - 1, replicas};
    if (replicas == 1 && a.fixed_batch_size > a.init_batch_size)
      best.accum_steps = std::max(1, best.accum_steps);
    best.atomic_bsz = static_cast<int>(std::ceil(double(local) / (best.accum_steps + 1) - kEps));
  } else {
    if (lo > a.max_batch_size) return best;
    double best_goodput = -1;
    for (int i = 0; i < 50; ++i) {  // GoodputFunction.optimize: np.geomspace(lo, max, 50)
      const double batch = lo * std::pow(a.max_batch_size / lo, i / 49.0);
      const double local = batch / replicas;
      int accum = static_cast<int>(std::ceil(local / a.max_local_bsz - kEps)) - 1;
      if (replicas == 1 && local > a.init_batch_size + kEps) accum = std::max(accum, 1);
      const PolluxBatch b{static_cast<int>(std::ceil(local / (accum + 1) - kEps)), accum, replicas};
      if (b.atomic_bsz < a.min_local_bsz || b.atomic_bsz > a.max_local_bsz) continue;
      const double g = ModelGoodput(nodes, replicas, b, epoch);
      if (g > best_goodput) best_goodput = g, best = b;
    }
    if (best_goodput < 0) return PolluxBatch{0, 0, 0};
  }
  const int count = replicas * (best.accum_steps + 1);
  best.atomic_bsz = std::min(best.atomic_bsz, a.max_batch_size / count);
  return best.atomic_bsz > 0 ? best : PolluxBatch{0, 0, 0};
}

double PolluxGoodput::Goodput(const std::vector<int>& placement, int epoch) const {
  int replicas = 0;
  for (int k : placement) replicas += k;
  const PolluxBatch b = ChooseBatch(static_cast<int>(placement.size()), replicas, epoch);
  if (b.replicas == 0) return 0;
  return Gain(b.Total(), epoch) / StepSeconds(placement, b);
}

Result<double> PolluxGoodput::StepsPerSecondAt(const PlacementShape& shape, const ClusterSpec&,
                                               double work_done) const {
  std::vector<int> placement;
  for (int g : shape.gpus_per_node)
    if (g > 0) placement.push_back(g);
  const double g = Goodput(placement, app_->EpochAt(work_done));
  if (g > 0) return g;
  return Error::Infeasible("pollux:" + app_->name + " cannot run on this many replicas");
}

void AddPolluxApps(const std::map<std::string, PolluxApp>& apps, SpeedBook& book) {
  for (const auto& [name, app] : apps)
    book.Add("pollux:" + name, std::make_shared<PolluxGoodput>(std::make_shared<PolluxApp>(app)));
}

}  // namespace dlsim::cluster

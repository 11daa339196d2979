#include "dlsim/train/mm_schedule.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <numeric>

namespace dlsim::train {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// The objective: the emulated step times of `batches`, summed; nullopt when a batch cannot run.
class Objective {
 public:
  Objective(MmEmulator& emu, const std::vector<const MmBatch*>& batches) : emu_(emu), batches_(batches) {}
  std::optional<Duration> operator()(const MmPartition& p) {
    ++evaluations;
    if (auto it = seen_.find(p); it != seen_.end()) return it->second;
    std::optional<Duration> total = Duration::Zero();
    for (const MmBatch* b : batches_) {
      const MmStep s = emu_.Emulate(p, *b);
      if (!s.feasible) {
        if (reason.empty()) reason = s.reason;
        total.reset();
        break;
      }
      *total += s.step;
    }
    seen_.emplace(p, total);
    return total;
  }
  // Per-stage load of `p` summed over the batches (seconds).
  std::vector<double> StageLoads(const MmPartition& p) {
    std::vector<double> load(p.units.size(), 0.0);
    for (const MmBatch* b : batches_) {
      const std::vector<Duration> l = emu_.StageLoads(p, *b);
      for (size_t j = 0; j < l.size(); ++j) load[j] += l[j].ToSeconds();
    }
    return load;
  }
  std::vector<double> UnitLoads() {
    std::vector<double> load(emu_.cost().units(), 0.0);
    for (const MmBatch* b : batches_) {
      const std::vector<Duration> l = emu_.UnitLoads(*b);
      for (size_t u = 0; u < l.size(); ++u) load[u] += l[u].ToSeconds();
    }
    return load;
  }
  int64_t evaluations = 0;
  std::string reason;

 private:
  MmEmulator& emu_;
  const std::vector<const MmBatch*>& batches_;
  std::map<MmPartition, std::optional<Duration>> seen_;
};

// Splits of units [begin, end) into k contiguous non-empty parts with the smallest largest part load, for
// every k up to kmax (one dynamic program; Split(k) reads it back).
class BalancedSplits {
 public:
  BalancedSplits(const std::vector<double>& load, int begin, int end, int kmax)
      : n_(end - begin), kmax_(std::min(kmax, end - begin)) {
    std::vector<double> prefix(n_ + 1, 0.0);
    for (int i = 0; i < n_; ++i) prefix[i + 1] = prefix[i] + load[begin + i];
    const double inf = std::numeric_limits<double>::infinity();
    best_.assign(kmax_ + 1, std::vector<double>(n_ + 1, inf));
    cut_.assign(kmax_ + 1, std::vector<int>(n_ + 1, 0));
    best_[0][0] = 0;
    for (int j = 1; j <= kmax_; ++j)
      for (int i = j; i <= n_; ++i)
        for (int t = j - 1; t < i; ++t) {
          const double v = std::max(best_[j - 1][t], prefix[i] - prefix[t]);
          if (v < best_[j][i]) {
            best_[j][i] = v;
            cut_[j][i] = t;
          }
        }
  }
  // Part sizes for k parts (empty when k is out of range).
  std::vector<int> Split(int k) const {
    if (k < 1 || k > kmax_) return {};
    std::vector<int> sizes(k);
    int i = n_;
    for (int j = k; j >= 1; --j) {
      const int t = cut_[j][i];
      sizes[j - 1] = i - t;
      i = t;
    }
    return sizes;
  }

 private:
  int n_, kmax_;
  std::vector<std::vector<double>> best_;
  std::vector<std::vector<int>> cut_;
};

struct Scored {
  MmPartition p;
  Duration obj;
};

// Level 3: first-improvement layer moves from `p`, the busiest rank's stages first.
Scored LayerMoves(Objective& f, Scored cur, int pp, int max_moves, int move_scan) {
  for (int moves = 0; moves < max_moves; ++moves) {
    const std::vector<double> load = f.StageLoads(cur.p);
    std::vector<double> rank(pp, 0.0);
    for (size_t j = 0; j < load.size(); ++j) rank[j % pp] += load[j];
    struct Move {
      int from, to;
    };
    std::vector<Move> candidates;
    const int stages = static_cast<int>(cur.p.units.size());
    for (int j = 0; j < stages; ++j) {
      if (cur.p.units[j] <= 1) continue;
      for (int d :
           {1, 2}) {  // to a neighbour, or through it to the stage beyond (the neighbour keeps its size)
        if (j - d >= 0) candidates.push_back({j, j - d});
        if (j + d < stages) candidates.push_back({j, j + d});
      }
    }
    std::stable_sort(candidates.begin(), candidates.end(), [&](const Move& a, const Move& b) {
      const double ra = rank[a.from % pp] - rank[a.to % pp], rb = rank[b.from % pp] - rank[b.to % pp];
      if (ra != rb) return ra > rb;
      return load[a.from] - load[a.to] > load[b.from] - load[b.to];
    });
    if (move_scan > 0 && static_cast<int>(candidates.size()) > move_scan) candidates.resize(move_scan);
    bool improved = false;
    for (const Move& m : candidates) {
      MmPartition next = cur.p;
      --next.units[m.from];
      ++next.units[m.to];
      const std::optional<Duration> obj = f(next);
      if (obj && *obj < cur.obj) {
        cur = {next, *obj};
        improved = true;
        break;
      }
    }
    if (!improved) break;
  }
  return cur;
}

void Compositions(int left, int parts, std::vector<int>& cur, const std::function<void()>& visit) {
  if (parts == 1) {
    cur.push_back(left);
    visit();
    cur.pop_back();
    return;
  }
  for (int first = 1; first <= left - (parts - 1); ++first) {
    cur.push_back(first);
    Compositions(left - first, parts - 1, cur, visit);
    cur.pop_back();
  }
}

double Binomial(int n, int k) {
  double r = 1;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

// Partitions of `units` units for pp ranks over the depths of `chunks`.
double SpaceSize(int units, int pp, const std::vector<int>& chunks) {
  double total = 0;
  for (int v : chunks)
    if (pp * v <= units) total += Binomial(units - 1, pp * v - 1);
  return total;
}

MmPartition Concat(int chunks, const std::vector<int>& a, const std::vector<int>& b) {
  MmPartition p;
  p.chunks = chunks;
  p.units = a;
  p.units.insert(p.units.end(), b.begin(), b.end());
  return p;
}

class MegatronEven : public MmSchedulePolicy {
 public:
  explicit MegatronEven(const MmSearchOptions& o) : o_(o) {}
  Status Prepare(MmEmulator& emu, const std::vector<MmBatch>& calibration) override {
    if (calibration.empty()) return Error::InvalidArgument("mm-schedule: no calibration batch");
    std::vector<const MmBatch*> batches;
    for (const MmBatch& b : calibration) batches.push_back(&b);
    Objective f(emu, batches);
    std::optional<Duration> best;
    for (int v : o_.chunks) {
      if (emu.pp() * v > emu.cost().units()) continue;
      const MmPartition p = EvenPartition(emu.cost().units(), emu.pp(), v);
      const std::optional<Duration> obj = f(p);
      if (obj && (!best || *obj < *best)) {
        best = obj;
        partition_ = p;
      }
    }
    if (!best) return Error::Infeasible("megatron-even: no interleaving depth runs: " + f.reason);
    return Status::Ok();
  }
  Result<MmDecision> Schedule(MmEmulator& emu, const MmBatch& batch) override {
    MmDecision d;
    d.partition = partition_;
    d.step = emu.Emulate(partition_, batch);
    d.evaluations = 1;
    d.found_by = "start";
    return d;
  }
  std::string_view name() const override { return "megatron-even"; }

 protected:
  MmSearchOptions o_;
  MmPartition partition_;
};

class StaticBest : public MegatronEven {
 public:
  using MegatronEven::MegatronEven;
  Status Prepare(MmEmulator& emu, const std::vector<MmBatch>& calibration) override {
    if (calibration.empty()) return Error::InvalidArgument("mm-schedule: no calibration batch");
    std::vector<const MmBatch*> batches;
    for (const MmBatch& b : calibration) batches.push_back(&b);
    DLSIM_ASSIGN_OR_RETURN(const MmDecision d, SearchPartition(emu, batches, nullptr, o_));
    partition_ = d.partition;
    return Status::Ok();
  }
  std::string_view name() const override { return "static-best"; }
};

class PipeWeaver : public StaticBest {
 public:
  using StaticBest::StaticBest;
  Result<MmDecision> Schedule(MmEmulator& emu, const MmBatch& batch) override {
    return SearchPartition(emu, {&batch}, &partition_, o_);
  }
  std::string_view name() const override { return "pipeweaver"; }
};

}  // namespace

namespace {

using Found = std::pair<Scored, std::string>;  // a candidate and what produced it
using Pool = std::vector<Found>;

// Every partition of the space, after the start (which ties keep).
std::optional<Found> Exhaustive(Objective& f, int n, int pp, const MmPartition* start,
                                const std::vector<int>& chunks) {
  std::optional<Found> best;
  if (start)
    if (const std::optional<Duration> obj = f(*start)) best = Found{{*start, *obj}, "start"};
  for (int v : chunks) {
    if (pp * v > n) continue;
    std::vector<int> cur;
    Compositions(n, pp * v, cur, [&] {
      const MmPartition p{v, cur};
      const std::optional<Duration> obj = f(p);
      if (obj && (!best || *obj < best->first.obj)) best = Found{{p, *obj}, "exhaustive"};
    });
  }
  return best;
}

// Levels 1 and 2, with the start and the even splits: the candidates that run, best first.
Pool OrderingAndInterleaving(Objective& f, const MultimodalCostModel& cost, int pp, const MmPartition* start,
                             const MmSearchOptions& o) {
  const int n = cost.units();
  Pool pool;
  auto consider = [&](const MmPartition& p, const char* level) {
    if (!IsValidPartition(p, n, pp)) return;
    if (const std::optional<Duration> obj = f(p)) pool.push_back({{p, *obj}, level});
  };
  if (start) consider(*start, "start");
  for (int v : o.chunks)
    if (pp * v <= n) consider(EvenPartition(n, pp, v), "ordering+interleaving");
  // The projector with the vision segment or with the LLM's; v; stages per segment.
  const std::vector<double> unit_load = f.UnitLoads();
  const int max_v = o.chunks.empty() ? 1 : *std::max_element(o.chunks.begin(), o.chunks.end());
  for (int with_vision = 1; with_vision >= 0; --with_vision) {
    const int gv = cost.projector_unit() + with_vision;  // units of the vision segment
    if (gv < 1 || gv >= n) continue;
    const BalancedSplits vision(unit_load, 0, gv, pp * max_v), llm(unit_load, gv, n, pp * max_v);
    for (int v : o.chunks)
      for (int kv = 1; kv < pp * v; ++kv) {
        const std::vector<int> a = vision.Split(kv), b = llm.Split(pp * v - kv);
        if (!a.empty() && !b.empty()) consider(Concat(v, a, b), "ordering+interleaving");
      }
  }
  std::stable_sort(pool.begin(), pool.end(),
                   [](const Found& a, const Found& b) { return a.first.obj < b.first.obj; });
  return pool;
}

// Level 3 from the best `keep` distinct candidates of `pool` (not empty) and the start; never worse than the
// start (ties keep it).
Found Refine(Objective& f, const Pool& pool, int pp, const MmPartition* start, const MmSearchOptions& o) {
  Pool starts;
  auto listed = [&](const MmPartition& p) {
    return std::any_of(starts.begin(), starts.end(), [&](const Found& s) { return s.first.p == p; });
  };
  for (const Found& c : pool) {
    if (static_cast<int>(starts.size()) >= o.keep) break;
    if (!listed(c.first.p)) starts.push_back(c);
  }
  const Found* start_found = nullptr;
  for (const Found& c : pool)
    if (start && c.first.p == *start) start_found = &c;
  if (start_found && !listed(*start)) starts.push_back(*start_found);
  Found best = pool.front();
  for (const auto& [s, level] : starts) {
    const Scored moved = LayerMoves(f, s, pp, o.max_moves, o.move_scan);
    if (moved.obj < best.first.obj) best = {moved, moved.obj < s.obj ? "layer moves" : level};
  }
  if (start_found && !(best.first.obj < start_found->first.obj)) best = {start_found->first, "start"};
  return best;
}

}  // namespace

Result<MmDecision> SearchPartition(MmEmulator& emu, const std::vector<const MmBatch*>& batches,
                                   const MmPartition* start, const MmSearchOptions& o) {
  const Clock::time_point t0 = Clock::now();
  Objective f(emu, batches);
  const int pp = emu.pp(), n = emu.cost().units();
  std::optional<Found> best;
  if (SpaceSize(n, pp, o.chunks) <= static_cast<double>(o.exhaustive_limit)) {
    best = Exhaustive(f, n, pp, start, o.chunks);
  } else {
    const Pool pool = OrderingAndInterleaving(f, emu.cost(), pp, start, o);
    if (!pool.empty()) best = Refine(f, pool, pp, start, o);
  }
  if (!best) return Error::Infeasible("no partition runs: " + f.reason);
  MmDecision d;
  d.partition = best->first.p;
  d.evaluations = f.evaluations;
  if (batches.size() == 1) d.step = emu.Emulate(d.partition, *batches.front());
  d.found_by = best->second;
  d.search_ms = Ms(t0);
  return d;
}

Result<MmDecision> BruteForcePartition(MmEmulator& emu, const MmBatch& batch, const std::vector<int>& chunks,
                                       int64_t limit) {
  const Clock::time_point t0 = Clock::now();
  const int n = emu.cost().units(), pp = emu.pp();
  const double total = SpaceSize(n, pp, chunks);
  if (total > static_cast<double>(limit))
    return Error::InvalidArgument("brute force over " + std::to_string(total) +
                                  " partitions exceeds the limit");
  MmDecision d;
  std::optional<Duration> best;
  for (int v : chunks) {
    if (pp * v > n) continue;
    std::vector<int> cur;
    Compositions(n, pp * v, cur, [&] {
      MmPartition p{v, cur};
      const MmStep s = emu.Emulate(p, batch);
      ++d.evaluations;
      if (s.feasible && (!best || s.step < *best)) {
        best = s.step;
        d.partition = p;
        d.step = s;
      }
    });
  }
  if (!best) return Error::Infeasible("no partition runs");
  d.found_by = "brute force";
  d.search_ms = Ms(t0);
  return d;
}

std::vector<int> VisionUnitsPerStage(const MultimodalCostModel& cost, const MmPartition& p) {
  std::vector<int> out;
  int first = 0;
  const int vision_end = cost.projector_unit();
  for (int u : p.units) {
    out.push_back(std::max(0, std::min(first + u, vision_end) - first));
    first += u;
  }
  return out;
}

void RegisterMmSchedulePolicies(MmSchedulePolicyRegistry& reg) {
  reg.RegisterBuiltin(
      "megatron-even",
      "Megatron-LM default: layers spread evenly over pp x v virtual stages, one partition for all batches",
      [](const MmSearchOptions& o) { return std::make_unique<MegatronEven>(o); });
  reg.RegisterBuiltin(
      "static-best",
      "The best static partition (Megatron-style interleaving) chosen once for the dataset sample",
      [](const MmSearchOptions& o) { return std::make_unique<StaticBest>(o); });
  reg.RegisterBuiltin(
      "pipeweaver",
      "PipeWeaver: per-batch hierarchical search (module ordering, stage interleaving, layer moves) "
      "with the step emulator and subgraph reuse (Xue et al. 2025)",
      [](const MmSearchOptions& o) { return std::make_unique<PipeWeaver>(o); });
}

}  // namespace dlsim::train

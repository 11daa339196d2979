// The Pollux policy; see the header. Fitness and penalty as in the AdaptDL artifact's
// simulator/pollux.py (Problem.__init__, Problem._evaluate) and simulator.py
// (get_pollux_job_info: max_replicas), re-implemented.
#include "dlsim/cluster/policies/pollux.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace dlsim::cluster {
namespace {

constexpr double kFitnessEps = 1e-3;  // pollux.py's offset inside the power mean

double Term(double s) { return 1.0 / (s + kFitnessEps); }

class PolluxPolicy final : public SchedulingPolicy, public GpuAllocator {
 public:
  explicit PolluxPolicy(const PolicyParams& p) : PolluxPolicy(p, PolluxParams::From(p.own)) {}
  PolluxPolicy(const PolicyParams& p, const PolluxParams& own)
      : round_(p.round), refresh_(own.refresh), penalty_s_(own.restart_penalty_s) {}
  bool Preemptive() const override { return true; }
  const GpuAllocator* allocator() const override { return this; }
  Duration Round() const override { return round_; }
  Priority Key(const JobSpec& job, const JobProgress& p, TimePoint now) const override {
    return {AttainedAt(job, p, now), job.arrival.ToSeconds()};
  }
  bool KeysChangeInSteps() const override { return refresh_ > Duration::Zero(); }  // refresh wakes
  std::optional<TimePoint> NextKeyChange(const JobSpec&, const JobProgress&, TimePoint now) const override {
    const TimePoint refresh = now + refresh_;
    return refresh_ > Duration::Zero() && refresh < next_round_ ? refresh
                                                                : std::max(next_round_, now + Nanos(1));
  }
  std::vector<AllocationTarget> Allocate(const AllocationView& view) const override;

 private:
  std::vector<double> SpeedupsOf(const AllocationView& view, int j, int fair, int current) const;
  std::vector<AllocationTarget> Cached(const AllocationView& view) const;

  Duration round_, refresh_;
  double penalty_s_;
  // State of the last round: when the next is due, the targets, and per job (by index) the most
  // GPUs it has run on.
  mutable TimePoint next_round_ = TimePoint::Start();
  mutable bool decided_ = false;
  mutable std::vector<AllocationTarget> targets_;
  mutable std::map<int, int> most_run_;
};

int HeldGpus(const JobProgress& p) {
  return p.status == JobStatus::kRunning ? static_cast<int>(p.held_milli / 1000) : 0;
}

// speedups[c] for c = 0..max: scaled and penalised as the header describes.
std::vector<double> PolluxPolicy::SpeedupsOf(const AllocationView& view, int j, int fair, int current) const {
  const ClusterSpec& spec = view.cluster();
  const int gpus = spec.gpus_of_type(0);
  const JobProgress& p = view.progress(j);
  const int seen = most_run_.count(j) ? most_run_.at(j) : 0;
  const int max_c = std::min(std::max(2 * seen, 1), gpus);
  const double scale = static_cast<double>(spec.nodes().size()) / gpus;
  const double age = (view.now() - view.job(j).arrival).ToSeconds();
  const double restarts = p.preemptions + p.resizes;
  const double factor = std::max(age - restarts * penalty_s_, 0.0) / (age + penalty_s_);
  double base = 0;
  for (int c = std::min(fair, gpus); c >= 1 && base <= 0; --c) base = seen > 0 ? view.RateIf(j, 0, c) : c;
  std::vector<double> s(max_c + 1, 0.0);
  for (int c = 1; c <= max_c && base > 0; ++c) {
    const double speedup = seen > 0 ? view.RateIf(j, 0, c) / base : static_cast<double>(c) / fair;
    s[c] = speedup * scale * (c != current ? factor : 1.0);
  }
  return s;
}

std::vector<AllocationTarget> PolluxPolicy::Cached(const AllocationView& view) const {
  std::vector<AllocationTarget> out;
  for (const AllocationTarget& t : targets_)
    if (std::binary_search(view.active().begin(), view.active().end(), t.job)) out.push_back(t);
  return out;
}

std::vector<AllocationTarget> PolluxPolicy::Allocate(const AllocationView& view) const {
  const TimePoint now = view.now();
  for (int j : view.active()) most_run_[j] = std::max(most_run_[j], HeldGpus(view.progress(j)));
  if (decided_ && now < next_round_) return Cached(view);
  const int64_t period = std::max<int64_t>(round_.ToNanos(), 1);
  next_round_ = TimePoint::Start() + Nanos(((now - TimePoint::Start()).ToNanos() / period + 1) * period);
  decided_ = true;
  const std::vector<int>& active = view.active();
  const int gpus = view.cluster().gpus_of_type(0);
  const int jobs = static_cast<int>(active.size());
  const int fair = jobs > 0 ? (gpus + jobs - 1) / jobs : 1;
  std::vector<std::vector<double>> speedups;
  std::vector<int> current;
  for (int j : active) {
    current.push_back(HeldGpus(view.progress(j)));
    speedups.push_back(SpeedupsOf(view, j, fair, current.back()));
  }
  const std::vector<int> counts = SolvePolluxCounts(speedups, gpus, current);
  targets_.clear();
  for (size_t i = 0; i < active.size(); ++i)
    if (counts[i] > 0) targets_.push_back({active[i], 0, counts[i]});
  std::stable_sort(targets_.begin(), targets_.end(),
                   [](const auto& a, const auto& b) { return a.gpus > b.gpus; });
  return targets_;
}

}  // namespace

double PolluxFitnessSum(const std::vector<std::vector<double>>& speedups, const std::vector<int>& counts) {
  double sum = 0;
  for (size_t j = 0; j < speedups.size(); ++j) sum += Term(speedups[j][counts[j]]);
  return sum;
}

std::vector<int> SolvePolluxCounts(const std::vector<std::vector<double>>& speedups, int gpus,
                                   const std::vector<int>& prefer) {
  const size_t n = speedups.size();
  const double inf = std::numeric_limits<double>::infinity();
  // best[j][g]: least sum over jobs j.. with at most g GPUs; pick[j][g]: job j's count there.
  std::vector<std::vector<double>> best(n + 1, std::vector<double>(gpus + 1, 0.0));
  std::vector<std::vector<int>> pick(n, std::vector<int>(gpus + 1, 0));
  for (size_t j = n; j-- > 0;) {
    const int max_c = static_cast<int>(speedups[j].size()) - 1;
    const int pref = j < prefer.size() ? prefer[j] : 0;
    for (int g = 0; g <= gpus; ++g) {
      double v = inf;
      int choice = 0;
      auto consider = [&](int c) {
        if (c < 0 || c > max_c || c > g) return;
        const double cost = Term(speedups[j][c]) + best[j + 1][g - c];
        if (cost < v) v = cost, choice = c;
      };
      consider(pref);
      for (int c = 0; c <= std::min(max_c, g); ++c) consider(c);
      best[j][g] = v, pick[j][g] = choice;
    }
  }
  std::vector<int> counts(n, 0);
  int left = gpus;
  for (size_t j = 0; j < n; ++j) counts[j] = pick[j][left], left -= counts[j];
  return counts;
}

std::unique_ptr<SchedulingPolicy> MakePolluxPolicy(const PolicyParams& params) {
  return std::make_unique<PolluxPolicy>(params);
}

const ParamSpec kRefresh =
    NumberKey("pollux_refresh_s", 10, 0, 1e7,
              "pollux: between rounds, refresh the running jobs' speeds this often (s)");
const ParamSpec kPenalty =
    NumberKey("pollux_restart_penalty_s", 30, 0, 1e9, "pollux: the restart delay its objective charges (s)");

std::vector<ParamSpec> PolluxParams::Keys() { return {kRefresh, kPenalty}; }

PolluxParams PolluxParams::From(const ParamSet& set) {
  return {.refresh = Seconds(set.Number(kRefresh)), .restart_penalty_s = set.Number(kPenalty)};
}

void RegisterPollux(PolicyRegistry& reg) {
  reg.RegisterBuiltin("pollux", "goodput-driven elastic allocation each round (Pollux, OSDI'21)",
                      MakePolluxPolicy, PolluxParams::Keys());
}

}  // namespace dlsim::cluster

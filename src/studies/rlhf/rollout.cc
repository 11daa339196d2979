#include "dlsim/studies/rlhf/rollout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace dlsim::rlhf {
namespace {

// One decode run of an instance from `t0`: the samples' KV lengths at the start and the tokens each
// still has to generate. end[s] is when decode step s ends; sample i is done at end[remaining_i - 1].
std::vector<double> DecodeSteps(double t0, const std::vector<int64_t>& context,
                                const std::vector<int64_t>& remaining, const RolloutCost& cost) {
  std::vector<std::pair<int64_t, int64_t>> by_remaining;  // (remaining, context)
  for (size_t i = 0; i < remaining.size(); ++i) by_remaining.emplace_back(remaining[i], context[i]);
  std::sort(by_remaining.begin(), by_remaining.end());
  const int64_t steps = by_remaining.empty() ? 0 : by_remaining.back().first;
  int64_t active = static_cast<int64_t>(by_remaining.size()), ctx_sum = 0;
  for (const auto& [r, c] : by_remaining) ctx_sum += c;
  std::vector<double> end(steps);
  size_t next_done = 0;
  double t = t0;
  for (int64_t s = 0; s < steps; ++s) {
    while (next_done < by_remaining.size() && by_remaining[next_done].first <= s) {
      ctx_sum -= by_remaining[next_done].second + s;  // its context no longer grows or counts
      --active;
      ++next_done;
    }
    t += cost.DecodeSeconds(active, ctx_sum);
    end[s] = t;
    ctx_sum += active;  // every active sequence gains one token
  }
  return end;
}

// A queue of divisible work: `arrivals` (time, instance-seconds), served from each time in
// `capacity` (time, instances from then on; sorted) on. Returns when the last work is done.
double DrainQueue(std::vector<std::pair<double, double>> arrivals,
                  const std::vector<std::pair<double, int>>& capacity) {
  std::vector<std::pair<double, double>> events = std::move(arrivals);  // (time, +work) or capacity marks
  std::sort(events.begin(), events.end());
  double t = 0, backlog = 0;
  int servers = 0;
  size_t a = 0, c = 0;
  while (a < events.size() || c < capacity.size()) {
    const bool take_capacity =
        c < capacity.size() && (a == events.size() || capacity[c].first <= events[a].first);
    const double next = take_capacity ? capacity[c].first : events[a].first;
    backlog = std::max(0.0, backlog - servers * (next - t));
    t = std::max(t, next);
    if (take_capacity) {
      servers = capacity[c++].second;
    } else {
      backlog += events[a++].second;
    }
  }
  return servers > 0 ? t + backlog / servers : t;
}

Status Check(const RolloutOptions& o) {
  if (o.instances < 1)
    return Error::InvalidArgument(fmt::format("rollout: instances is {}, expected >= 1", o.instances));
  if (o.output_tokens.empty()) return Error::InvalidArgument("rollout: no samples (output_tokens is empty)");
  if (o.prompt_tokens < 1) return Error::InvalidArgument("rollout: prompt_tokens must be >= 1");
  for (int64_t t : o.output_tokens) {
    if (t < 1)
      return Error::InvalidArgument(fmt::format("rollout: an output of {} tokens, expected >= 1", t));
  }
  if (!(o.migration_threshold >= 0 && o.migration_threshold < 1)) {
    return Error::InvalidArgument(
        fmt::format("rollout: migration_threshold {} outside [0, 1)", o.migration_threshold));
  }
  if (o.max_tail_batch < 1) return Error::InvalidArgument("rollout: max_tail_batch must be >= 1");
  return Status::Ok();
}

// The unfused generation: every instance decodes its samples; finish[i] per sample.
std::vector<double> GenerateAll(const RolloutOptions& o, const RolloutCost& cost,
                                std::vector<std::vector<double>>* steps) {
  const size_t n = o.output_tokens.size();
  std::vector<double> finish(n, 0);
  steps->assign(o.instances, {});
  for (int j = 0; j < o.instances; ++j) {
    std::vector<int64_t> ctx, rem;
    for (size_t i = j; i < n; i += o.instances) {
      ctx.push_back(o.prompt_tokens);
      rem.push_back(o.output_tokens[i]);
    }
    const double t0 =
        ctx.empty() ? 0 : cost.PrefillSeconds(static_cast<int64_t>(ctx.size()), o.prompt_tokens);
    (*steps)[j] = DecodeSteps(t0, ctx, rem, cost);
    for (size_t i = j; i < n; i += o.instances) finish[i] = (*steps)[j][o.output_tokens[i] - 1];
  }
  return finish;
}

double InferenceWork(const RolloutOptions& o, size_t i, const RolloutCost& cost) {
  return static_cast<double>(o.prompt_tokens + o.output_tokens[i]) * cost.InferenceSecondsPerToken();
}

}  // namespace

namespace {

// The long tail after the migration: per tail instance, its samples' KV lengths, tokens left and ids.
struct Tail {
  std::vector<std::vector<int64_t>> ctx, left;
  std::vector<std::vector<size_t>> ids;
  int64_t most_moved = 0;  // KV tokens copied into the busiest tail instance
};

// Consolidates `tail` (samples unfinished at t_m) onto k instances, longest remaining first, dealt
// round-robin; a sample keeps the tokens of the decode steps its instance completed by t_m.
Tail Consolidate(const RolloutOptions& o, const std::vector<std::vector<double>>& steps,
                 const std::vector<size_t>& tail, double t_m, int k) {
  std::vector<std::pair<int64_t, size_t>> rem;  // (remaining tokens, sample)
  for (size_t i : tail) {
    const auto& st = steps[i % o.instances];
    const auto done = static_cast<int64_t>(std::upper_bound(st.begin(), st.end(), t_m) - st.begin());
    rem.emplace_back(o.output_tokens[i] - done, i);
  }
  std::sort(rem.rbegin(), rem.rend());
  Tail t{std::vector<std::vector<int64_t>>(k), std::vector<std::vector<int64_t>>(k),
         std::vector<std::vector<size_t>>(k), 0};
  std::vector<int64_t> moved(k, 0);
  for (size_t x = 0; x < rem.size(); ++x) {
    const int d = static_cast<int>(x % k);
    const int64_t c = o.prompt_tokens + o.output_tokens[rem[x].second] - rem[x].first;
    t.ctx[d].push_back(c);
    t.left[d].push_back(rem[x].first);
    t.ids[d].push_back(rem[x].second);
    moved[d] += c;
  }
  t.most_moved = *std::max_element(moved.begin(), moved.end());
  return t;
}

// Decodes the consolidated tail from t0 (updating `finish`); the tail instances' end times, sorted.
std::vector<double> DecodeTail(const Tail& t, double t0, const RolloutCost& cost,
                               std::vector<double>& finish) {
  std::vector<double> end;
  for (size_t d = 0; d < t.ctx.size(); ++d) {
    const std::vector<double> st = DecodeSteps(t0, t.ctx[d], t.left[d], cost);
    for (size_t x = 0; x < t.ids[d].size(); ++x) finish[t.ids[d][x]] = st[t.left[d][x] - 1];
    end.push_back(st.back());
  }
  std::sort(end.begin(), end.end());
  return end;
}

}  // namespace

Result<RolloutResult> SimulateRollout(const RolloutOptions& o, const RolloutCost& cost) {
  if (Status s = Check(o); !s.ok()) return s.error();
  const size_t n = o.output_tokens.size();
  std::vector<std::vector<double>> steps;
  std::vector<double> finish = GenerateAll(o, cost, &steps);
  RolloutResult r;
  for (size_t i = 0; i < n; ++i) r.inference_s += InferenceWork(o, i, cost);
  const auto keep = static_cast<size_t>(std::floor(o.migration_threshold * static_cast<double>(n)));
  std::vector<double> sorted = finish;
  std::sort(sorted.begin(), sorted.end());
  const double t_m = keep > 0 ? sorted[n - keep - 1] : 0;
  std::vector<size_t> tail;
  for (size_t i = 0; keep > 0 && i < n; ++i) {
    if (finish[i] > t_m) tail.push_back(i);
  }
  if (tail.empty()) {  // the baseline: inference on every instance after the last sample
    r.generation_end_s = sorted.back();
    r.end_s = r.inference_end_s = r.generation_end_s + r.inference_s / o.instances;
    return r;
  }
  const int k = static_cast<int>(
      std::min<int64_t>(o.instances, (tail.size() + o.max_tail_batch - 1) / o.max_tail_batch));
  const Tail t = Consolidate(o, steps, tail, t_m, k);
  r.migrate_at_s = t_m;
  r.migration_s = static_cast<double>(t.most_moved) * cost.MigrationSecondsPerToken();
  r.migrated_samples = static_cast<int>(tail.size());
  r.tail_instances = k;
  const std::vector<double> tail_end = DecodeTail(t, t_m + r.migration_s, cost, finish);
  std::vector<std::pair<double, int>> capacity{{t_m, o.instances - k}};
  for (int d = 0; d < k; ++d) capacity.emplace_back(tail_end[d], o.instances - k + d + 1);
  std::vector<std::pair<double, double>> arrivals;
  for (size_t i = 0; i < n; ++i) arrivals.emplace_back(finish[i], InferenceWork(o, i, cost));
  r.generation_end_s = tail_end.back();
  r.end_s = r.inference_end_s = DrainQueue(std::move(arrivals), capacity);
  return r;
}

Result<double> ChooseMigrationThreshold(const RolloutOptions& o, const RolloutCost& cost,
                                        const std::vector<double>& candidates) {
  if (candidates.empty()) return Error::InvalidArgument("migration threshold: no candidates");
  double best = candidates.front(), best_end = 0;
  for (size_t c = 0; c < candidates.size(); ++c) {
    RolloutOptions trial = o;
    trial.migration_threshold = candidates[c];
    DLSIM_ASSIGN_OR_RETURN(RolloutResult r, SimulateRollout(trial, cost));
    if (c == 0 || r.end_s < best_end || (r.end_s == best_end && candidates[c] < best)) {
      best = candidates[c];
      best_end = r.end_s;
    }
  }
  return best;
}

}  // namespace dlsim::rlhf

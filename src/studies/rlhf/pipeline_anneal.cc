#include "dlsim/studies/rlhf/pipeline_anneal.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <tuple>
#include <vector>

#include "dlsim/core/rng.h"

namespace dlsim::rlhf {
namespace {

enum class Move { kSwap, kAdjacent, kMove };

struct Applied {
  Move move;
  int node = 0, a = 0, b = 0;
};

// Applies one random move that changes the order (a no-op draw is redrawn a bounded number of
// times); returns false when the node picked has nothing to change.
bool ApplyRandomMove(const std::vector<Move>& moves, Rng& rng, Schedule& s, Applied& out) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    const Move mv = moves[rng.NextBelow(moves.size())];
    const int n = static_cast<int>(rng.NextBelow(s.order.size()));
    auto& o = s.order[n];
    if (o.size() < 2) continue;
    int a = static_cast<int>(rng.NextBelow(o.size()));
    int b = mv == Move::kAdjacent ? a + 1 : static_cast<int>(rng.NextBelow(o.size()));
    if (mv == Move::kAdjacent && b >= static_cast<int>(o.size())) continue;
    if (mv != Move::kMove && o[a] == o[b]) continue;
    if (mv == Move::kMove) {
      if (a == b) continue;
      const Task t = o[a];
      o.erase(o.begin() + a);
      o.insert(o.begin() + b, t);
    } else {
      std::swap(o[a], o[b]);
    }
    out = {mv, n, a, b};
    return true;
  }
  return false;
}

void Undo(const Applied& m, Schedule& s) {
  auto& o = s.order[m.node];
  if (m.move == Move::kMove) {
    const Task t = o[m.b];
    o.erase(o.begin() + m.b);
    o.insert(o.begin() + m.a, t);
  } else {
    std::swap(o[m.a], o[m.b]);
  }
}

Status CheckOptions(const AnnealOptions& o) {
  if (o.iterations < 0) return Error::InvalidArgument("anneal: iterations must be >= 0");
  if (!o.swap && !o.adjacent_swap && !o.move) return Error::InvalidArgument("anneal: no move enabled");
  if (!(o.final_temperature > 0) || !(o.initial_temperature >= o.final_temperature)) {
    return Error::InvalidArgument(
        "anneal: temperatures must satisfy 0 < final_temperature <= initial_temperature");
  }
  return Status::Ok();
}

// Metropolis: better or an equal makespan always (FlexFusion: exp(0) = 1); d time units worse with
// probability exp(-d / T).
bool Accept(const ScheduleCost& c, const ScheduleCost& cur, double temperature, Rng& rng) {
  if (c.makespan <= cur.makespan) return true;
  const double d = static_cast<double>(c.makespan - cur.makespan);
  return rng.NextDouble() < std::exp(-d / temperature);
}

}  // namespace

Result<AnnealResult> Anneal(const FusedProblem& p, const Schedule& start, const AnnealOptions& o) {
  if (Status v = Validate(p); !v.ok()) return v.error();
  if (Status v = CheckOptions(o); !v.ok()) return v.error();
  const std::optional<ScheduleCost> c0 = Evaluate(p, start);
  if (!c0)
    return Error::InvalidArgument("anneal: the start schedule does not run (missing task or deadlock)");
  std::vector<Move> moves;
  if (o.swap) moves.push_back(Move::kSwap);
  if (o.adjacent_swap) moves.push_back(Move::kAdjacent);
  if (o.move) moves.push_back(Move::kMove);
  AnnealResult r{start, *c0, *c0, 0, 0, 0};
  Schedule cur = start;
  ScheduleCost cur_cost = *c0;
  Rng rng = Rng(o.seed).Stream("rlhf/anneal");
  const double cooling =
      o.iterations > 0 ? std::pow(o.final_temperature / o.initial_temperature, 1.0 / o.iterations) : 1.0;
  double temperature = o.initial_temperature;
  Evaluator evaluate(p);
  for (int64_t i = 0; i < o.iterations; ++i, temperature *= cooling) {
    ++r.iterations;
    Applied m;
    if (!ApplyRandomMove(moves, rng, cur, m)) continue;
    const std::optional<ScheduleCost> c = evaluate(cur);
    if (!c) ++r.invalid;
    const bool accept = c && Accept(*c, cur_cost, temperature, rng);
    if (!accept) {
      Undo(m, cur);
      continue;
    }
    ++r.accepted;
    cur_cost = *c;
    if (cur_cost.BetterThan(r.best_cost)) {
      r.best_cost = cur_cost;
      r.best = cur;
    }
  }
  return r;
}

namespace {

// The state of GreedySchedule's list scheduling.
class Greedy {
 public:
  Greedy(const FusedProblem& p, bool protect_critical) : p_(p) {
    int64_t longest = -1;
    for (size_t q = 0; q < p.pipelines.size() && protect_critical; ++q) {
      const PipelineModel& m = p.pipelines[q];
      const int64_t path = (m.stages() + m.micro_batches - 1) * (m.forward + m.backward);
      if (path > longest) {
        longest = path;
        critical_ = static_cast<int>(q);
      }
    }
    for (const PipelineModel& m : p.pipelines) {
      finish_.emplace_back(2 * m.stages() * m.micro_batches, -1);
      next_.emplace_back(2 * m.stages(), 0);
      total_ += 2 * m.stages() * m.micro_batches;
    }
    idle_.assign(p.nodes, 0);
    s_.order.resize(p.nodes);
  }

  Schedule Run() {
    for (int64_t i = 0; i < total_; ++i) RunBest();
    return std::move(s_);
  }

 private:
  struct Candidate {
    int64_t start;
    bool forward;
    int q, slot, node;
    auto Key() const { return std::tuple(start, forward, q, node); }
  };

  // The earliest start of slot `slot` of pipeline q's next micro-batch there, or -1 when not ready.
  int64_t Ready(int q, int slot, int node) const {
    const PipelineModel& m = p_.pipelines[q];
    const int k = next_[q][slot];
    if (k >= m.micro_batches) return -1;
    const int64_t pred = slot == 0 ? 0 : finish_[q][(slot - 1) * m.micro_batches + k];
    return pred < 0 ? -1 : std::max(pred, idle_[node]);
  }

  // Every ready task; with protect_critical, a task of another pipeline only when it finishes before
  // the earliest ready task of the critical pipeline on its node could start.
  std::vector<Candidate> Candidates() const {
    std::vector<Candidate> all;
    std::vector<int64_t> critical_start(p_.nodes, INT64_MAX);
    for (size_t q = 0; q < p_.pipelines.size(); ++q) {
      const PipelineModel& m = p_.pipelines[q];
      for (int slot = 0; slot < 2 * m.stages(); ++slot) {
        const int node = m.stage_nodes[slot < m.stages() ? slot : 2 * m.stages() - 1 - slot];
        const int64_t t = Ready(static_cast<int>(q), slot, node);
        if (t < 0) continue;
        all.push_back({t, slot < m.stages(), static_cast<int>(q), slot, node});
        if (static_cast<int>(q) == critical_) critical_start[node] = std::min(critical_start[node], t);
      }
    }
    if (critical_ < 0) return all;
    std::vector<Candidate> kept;
    for (const Candidate& c : all) {
      const PipelineModel& m = p_.pipelines[c.q];
      const int64_t end = c.start + (c.forward ? m.forward : m.backward);
      if (c.q == critical_ || end <= critical_start[c.node]) kept.push_back(c);
    }
    return kept.empty() ? all : kept;
  }

  void RunBest() {
    std::optional<Candidate> best;
    for (const Candidate& c : Candidates()) {
      if (!best || c.Key() < best->Key()) best = c;
    }
    const PipelineModel& m = p_.pipelines[best->q];
    const int k = next_[best->q][best->slot]++;
    const int64_t end = best->start + (best->forward ? m.forward : m.backward);
    finish_[best->q][best->slot * m.micro_batches + k] = end;
    idle_[best->node] = end;
    s_.order[best->node].push_back({best->q, best->forward});
  }

  const FusedProblem& p_;
  std::vector<std::vector<int64_t>> finish_;
  std::vector<std::vector<int>> next_;
  std::vector<int64_t> idle_;
  Schedule s_;
  int64_t total_ = 0;
  int critical_ = -1;  // the pipeline with the longest critical path, when protected
};

}  // namespace

Schedule GreedySchedule(const FusedProblem& p, bool protect_critical) {
  return Greedy(p, protect_critical).Run();
}

Schedule BestGreedySchedule(const FusedProblem& p) {
  Schedule a = GreedySchedule(p, false), b = GreedySchedule(p, true);
  return Evaluate(p, b)->BetterThan(*Evaluate(p, a)) ? b : a;
}

}  // namespace dlsim::rlhf

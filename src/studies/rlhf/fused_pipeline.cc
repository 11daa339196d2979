#include "dlsim/studies/rlhf/fused_pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

namespace dlsim::rlhf {

bool ScheduleCost::BetterThan(const ScheduleCost& o) const {
  if (makespan != o.makespan) return makespan < o.makespan;
  return peak_memory < o.peak_memory - 1e-9;
}

Status Validate(const FusedProblem& p) {
  if (p.nodes < 1)
    return Error::InvalidArgument(fmt::format("fused pipeline: nodes is {}, expected >= 1", p.nodes));
  if (p.pipelines.empty()) return Error::InvalidArgument("fused pipeline: no pipelines");
  for (const PipelineModel& m : p.pipelines) {
    const std::string at = fmt::format("fused pipeline '{}': ", m.name);
    if (m.stage_nodes.empty()) return Error::InvalidArgument(at + "stage_nodes is empty");
    std::vector<bool> used(p.nodes, false);
    for (int n : m.stage_nodes) {
      if (n < 0 || n >= p.nodes) {
        return Error::InvalidArgument(at + fmt::format("stage node {} outside [0, {})", n, p.nodes));
      }
      if (used[n]) return Error::InvalidArgument(at + fmt::format("two stages on node {}", n));
      used[n] = true;
    }
    if (m.micro_batches < 1) return Error::InvalidArgument(at + "micro_batches must be >= 1");
    if (m.forward < 1 || m.backward < 1)
      return Error::InvalidArgument(at + "forward and backward must be >= 1");
    if (!(m.memory >= 0)) return Error::InvalidArgument(at + "memory must be >= 0");
  }
  return Status::Ok();
}

// Evaluate()'s executor: each node runs its order until a task waits for a predecessor on another
// node; a finished task wakes the node of its successor. Every task is run once: O(tasks). The
// buffers are sized once per problem and reset per call.
struct Evaluator::State {
  explicit State(const FusedProblem& p) : p(p), stage(p.nodes * p.pipelines.size(), -1) {
    for (size_t q = 0; q < p.pipelines.size(); ++q) {
      const PipelineModel& m = p.pipelines[q];
      for (int st = 0; st < m.stages(); ++st) stage[m.stage_nodes[st] * p.pipelines.size() + q] = st;
      offset.push_back(static_cast<int>(finish.size()));
      finish.resize(finish.size() + 2 * m.stages() * m.micro_batches, -1);
      total += 2 * m.stages() * m.micro_batches;
    }
    counts.assign(2 * stage.size(), 0);
    pos.assign(p.nodes, 0);
    idle.assign(p.nodes, 0);
    mem.assign(p.nodes, 0);
    peak.assign(p.nodes, 0);
  }

  void Reset() {
    std::fill(finish.begin(), finish.end(), -1);
    std::fill(counts.begin(), counts.end(), 0);
    std::fill(pos.begin(), pos.end(), 0);
    std::fill(idle.begin(), idle.end(), 0);
    std::fill(mem.begin(), mem.end(), 0.0);
    std::fill(peak.begin(), peak.end(), 0.0);
    work.clear();
  }

  std::optional<ScheduleCost> Run(const Schedule& s, std::vector<TaskTiming>* trace) {
    if (static_cast<int>(s.order.size()) != p.nodes) return std::nullopt;
    size_t listed = 0;
    for (const auto& o : s.order) listed += o.size();
    if (listed != static_cast<size_t>(total)) return std::nullopt;
    Reset();
    for (int n = p.nodes - 1; n >= 0; --n) work.push_back(n);
    int64_t done = 0;
    while (!work.empty()) {
      const int n = work.back();
      work.pop_back();
      const int ran = RunNode(s, n, trace);
      if (ran < 0) return std::nullopt;
      done += ran;
    }
    if (done != total) return std::nullopt;  // deadlock
    ScheduleCost c;
    for (int n = 0; n < p.nodes; ++n) {
      c.makespan = std::max(c.makespan, idle[n]);
      c.peak_memory = std::max(c.peak_memory, peak[n]);
    }
    return c;
  }

  int64_t& Finish(int q, int slot, int k) {
    return finish[offset[q] + slot * p.pipelines[q].micro_batches + k];
  }
  int NodeOf(int q, int slot) const {
    const PipelineModel& m = p.pipelines[q];
    return m.stage_nodes[slot < m.stages() ? slot : 2 * m.stages() - 1 - slot];
  }

  // Runs node n's tasks until one must wait; returns how many ran, or -1 for an invalid task.
  int RunNode(const Schedule& s, int n, std::vector<TaskTiming>* trace) {
    const size_t np = p.pipelines.size();
    int ran = 0;
    while (pos[n] < s.order[n].size()) {
      const Task t = s.order[n][pos[n]];
      if (t.pipeline < 0 || t.pipeline >= static_cast<int>(np)) return -1;
      const int st = stage[n * np + t.pipeline];
      if (st < 0) return -1;
      const PipelineModel& m = p.pipelines[t.pipeline];
      int& count = counts[2 * (n * np + t.pipeline) + (t.forward ? 0 : 1)];
      if (count >= m.micro_batches) return -1;
      const int slot = t.forward ? st : 2 * m.stages() - 1 - st;
      const int k = count;
      const int64_t ready = slot == 0 ? 0 : Finish(t.pipeline, slot - 1, k);
      if (ready < 0) return ran;  // woken when the predecessor finishes
      const int64_t start = std::max(ready, idle[n]);
      const int64_t end = start + (t.forward ? m.forward : m.backward);
      Finish(t.pipeline, slot, k) = end;
      idle[n] = end;
      mem[n] += t.forward ? m.memory : -m.memory;
      peak[n] = std::max(peak[n], mem[n]);
      ++count;
      ++pos[n];
      ++ran;
      if (trace != nullptr) trace->push_back({n, t.pipeline, k, slot, start, end});
      if (slot + 1 < 2 * m.stages() && NodeOf(t.pipeline, slot + 1) != n)
        work.push_back(NodeOf(t.pipeline, slot + 1));
    }
    return ran;
  }

  const FusedProblem& p;
  std::vector<int> stage;  // [node * pipelines + q]: q's stage on the node, -1 none
  std::vector<int> offset;
  std::vector<int64_t> finish;
  std::vector<int> counts;
  std::vector<size_t> pos;
  std::vector<int64_t> idle;
  std::vector<double> mem, peak;
  std::vector<int> work;
  int64_t total = 0;
};

Evaluator::Evaluator(const FusedProblem& p) : state_(std::make_unique<State>(p)) {}
Evaluator::~Evaluator() = default;
std::optional<ScheduleCost> Evaluator::operator()(const Schedule& s, std::vector<TaskTiming>* trace) {
  return state_->Run(s, trace);
}

namespace {

void AppendOneFOneB(const PipelineModel& m, int q, Schedule& s) {
  for (int st = 0; st < m.stages(); ++st) {
    auto& o = s.order[m.stage_nodes[st]];
    const int warmup = std::min(m.stages() - st - 1, m.micro_batches);
    for (int i = 0; i < warmup; ++i) o.push_back({q, true});
    for (int i = 0; i < m.micro_batches - warmup; ++i) {
      o.push_back({q, true});
      o.push_back({q, false});
    }
    for (int i = 0; i < warmup; ++i) o.push_back({q, false});
  }
}

}  // namespace

std::optional<ScheduleCost> Evaluate(const FusedProblem& p, const Schedule& s,
                                     std::vector<TaskTiming>* trace) {
  return Evaluator(p)(s, trace);
}

Schedule SequentialOneFOneB(const FusedProblem& p) {
  Schedule s;
  s.order.resize(p.nodes);
  for (size_t q = 0; q < p.pipelines.size(); ++q) AppendOneFOneB(p.pipelines[q], static_cast<int>(q), s);
  return s;
}

int64_t SequentialMakespan(const FusedProblem& p) {
  int64_t total = 0;
  int last_model = -1;
  int64_t group = 0;
  std::vector<PipelineModel> sorted = p.pipelines;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.model < b.model; });
  for (const PipelineModel& m : sorted) {
    FusedProblem alone{p.nodes, {m}};
    const int64_t t = Evaluate(alone, SequentialOneFOneB(alone))->makespan;
    if (m.model != last_model) {
      total += group;
      group = 0;
      last_model = m.model;
    }
    group = std::max(group, t);
  }
  return total + group;
}

int64_t LowerBound(const FusedProblem& p) {
  int64_t bound = 0, work = 0;
  std::vector<int64_t> node_work(p.nodes, 0), head(p.nodes, INT64_MAX), tail(p.nodes, INT64_MAX);
  for (const PipelineModel& m : p.pipelines) {
    const int64_t per = m.forward + m.backward;
    bound = std::max(bound, (m.stages() + m.micro_batches - 1) * per);
    work += static_cast<int64_t>(m.stages()) * m.micro_batches * per;
    for (int st = 0; st < m.stages(); ++st) {
      const int n = m.stage_nodes[st];
      node_work[n] += m.micro_batches * per;
      head[n] = std::min(head[n], st * m.forward);
      tail[n] = std::min(tail[n], st * m.backward);
    }
  }
  bound = std::max(bound, (work + p.nodes - 1) / p.nodes);
  for (int n = 0; n < p.nodes; ++n) {
    if (node_work[n] > 0) bound = std::max(bound, head[n] + node_work[n] + tail[n]);
  }
  return bound;
}

Result<FusedProblem> FlexFusionInstance(const FlexFusionParams& f) {
  if (f.pp_actor < 1 || f.pp_critic < 1 || f.mb_actor < 1 || f.mb_critic < 1 || f.fwd_actor < 1 ||
      f.fwd_critic < 1 || !(f.mem_actor >= 0) || !(f.mem_critic >= 0)) {
    return Error::InvalidArgument("FlexFusion instance: every count and time must be >= 1, memory >= 0");
  }
  if (f.pp_actor % f.pp_critic != 0) {
    return Error::InvalidArgument(
        fmt::format("FlexFusion instance: pp_critic {} must divide pp_actor {}", f.pp_critic, f.pp_actor));
  }
  FusedProblem p;
  p.nodes = f.pp_actor;
  PipelineModel actor{"actor", 0, {}, f.mb_actor, f.fwd_actor, 2 * f.fwd_actor, f.mem_actor};
  for (int n = 0; n < f.pp_actor; ++n) actor.stage_nodes.push_back(n);
  p.pipelines.push_back(actor);
  for (int r = 0; r < f.pp_actor / f.pp_critic; ++r) {
    PipelineModel critic{
        fmt::format("critic.{}", r), 1, {}, f.mb_critic, f.fwd_critic, 2 * f.fwd_critic, f.mem_critic};
    for (int n = (r + 1) * f.pp_critic - 1; n >= r * f.pp_critic; --n) critic.stage_nodes.push_back(n);
    p.pipelines.push_back(critic);
  }
  return p;
}

}  // namespace dlsim::rlhf

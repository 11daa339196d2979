#include "dlsim/report/execution_graph.h"

#include <algorithm>
#include <variant>

namespace dlsim::report {
namespace {

const ArgValue* Find(const Args& args, const std::string& name) {
  for (const auto& [k, v] : args)
    if (k == name) return &v;
  return nullptr;
}

std::string StringArg(const Args& args, const std::string& name) {
  const ArgValue* v = Find(args, name);
  return v && std::holds_alternative<std::string>(*v) ? std::get<std::string>(*v) : std::string();
}

double NumberArg(const Args& args, const std::string& name, double fallback) {
  const ArgValue* v = Find(args, name);
  if (!v) return fallback;
  if (const auto* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(v)) return *d;
  return fallback;
}

bool KnownCollective(const std::string& c) {
  return c == "all_reduce" || c == "reduce_scatter" || c == "all_gather" || c == "all_to_all";
}

// Adds to each node of `nodes` (one process, in start order) its dependencies (execution_graph.h). Only the
// dependency lists are written, and they are never read here, so the nodes can be filled in place.
void AddDependencies(std::vector<ExecNode>& nodes) {
  std::map<int, std::vector<size_t>> by_stream;  // node indices; in start order = end order on a stream
  for (size_t i = 0; i < nodes.size(); ++i) by_stream[nodes[i].stream].push_back(i);
  for (const auto& [stream, list] : by_stream) {
    for (size_t k = 0; k < list.size(); ++k) {
      ExecNode& n = nodes[list[k]];
      if (k > 0) n.ctrl_deps = {nodes[list[k - 1]].id};
      for (const auto& [other, olist] : by_stream) {
        if (other == stream) continue;
        // The last node of `other` that ended at or before n started.
        auto it = std::upper_bound(olist.begin(), olist.end(), n.start, [&nodes](TimePoint t, size_t o) {
          return t < nodes[o].start + nodes[o].duration;
        });
        if (it != olist.begin()) n.data_deps.push_back(nodes[*std::prev(it)].id);
      }
      std::sort(n.data_deps.begin(), n.data_deps.end());
    }
  }
}

}  // namespace

size_t ExecutionGraph::nodes() const {
  size_t n = 0;
  for (const auto& [p, list] : processes) n += list.size();
  return n;
}

void ExecutionGraphRecorder::Add(ExecNode node) {
  if (++seen_ > max_nodes_) return;
  node.id = next_id_++;
  graph_.processes[node.process].push_back(std::move(node));
}

void ExecutionGraphRecorder::OnSpan(const SpanEvent& e) {
  ExecNode n{
      .process = e.process, .stream = e.thread, .name = e.name, .start = e.start, .duration = e.duration};
  const std::string comm = StringArg(e.args, "comm");
  n.bytes = std::max(0.0, NumberArg(e.args, "bytes", 0));
  if (comm.empty()) {
    Add(std::move(n));
    return;
  }
  if (comm == "send") {
    const int peer = static_cast<int>(NumberArg(e.args, "peer", -1));
    if (peer < 0 && error_.empty()) error_ = "span '" + e.name + "': a send without a \"peer\" process";
    ExecNode recv = n;
    n.kind = ExecKind::kSend, n.peer = peer, n.tag = next_tag_;
    recv.kind = ExecKind::kRecv, recv.process = peer, recv.stream = ExecutionGraph::kRecvStream;
    recv.peer = e.process, recv.tag = next_tag_++, recv.name = "recv " + e.name;
    Add(std::move(n));
    if (peer >= 0) Add(std::move(recv));
    return;
  }
  if (!KnownCollective(comm) && error_.empty())
    error_ = "span '" + e.name + "': unknown \"comm\" '" + comm + "'";
  n.kind = ExecKind::kCollective, n.collective = comm, n.group = StringArg(e.args, "group");
  Add(std::move(n));
}

Status ExecutionGraphRecorder::Finish() {
  if (seen_ > max_nodes_)
    return Error::InvalidArgument("the execution graph has more than " + std::to_string(max_nodes_) +
                                  " nodes (" + std::to_string(seen_) + " spans): too large to export");
  if (!error_.empty()) return Error::InvalidArgument(error_);
  for (auto& [p, nodes] : graph_.processes) {
    std::stable_sort(nodes.begin(), nodes.end(), [](const ExecNode& a, const ExecNode& b) {
      return a.start != b.start ? a.start < b.start : a.id < b.id;
    });
    AddDependencies(nodes);
  }
  return Status::Ok();
}

}  // namespace dlsim::report

// The run as an execution graph: every span a node, with the dependencies the simulation honoured, ready to
// be written as per-rank execution traces (chakra_trace.h) for tools that replay or re-simulate a run
// (ASTRA-sim and the rest of the Chakra ecosystem).
//
//   report::ExecutionGraphRecorder graph;
//   sinks.Add(graph);                                   // beside a trace file, for example
//   ... run, Begin/Finish ...
//   const report::ExecutionGraph& g = graph.graph();
//
// A span is a compute node unless its args say it is communication (the conventions simulators follow):
//   "comm"  (string) "all_reduce" | "reduce_scatter" | "all_gather" | "all_to_all": a collective;
//           "send": a point-to-point transfer to process "peer" (int), recorded as a send node in the
//           sender's process and a receive node (same time, same tag) in the peer's;
//   "bytes" (int or double) the message size; "group" (string) the process group a collective runs over
//           ("dp", "tp", ...: the writer maps it to ranks).
// Dependencies: a node depends on the node before it on its own stream (program order), and on the last
// node of each other stream of its process that ended at or before it started (what it waited for).
// A node that started part-way through another (a gradient bucket made ready during a backward) therefore
// depends on the one before: the graph can only be looser than the simulation, never tighter.
//
// Not thread-safe (as every sink). Memory: one node per span; the recorder refuses past `max_nodes` (Finish
// then returns the error) so a long run cannot exhaust memory.
#ifndef DLSIM_REPORT_EXECUTION_GRAPH_H_
#define DLSIM_REPORT_EXECUTION_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dlsim/report/sink.h"

namespace dlsim::report {

enum class ExecKind { kCompute, kCollective, kSend, kRecv };

struct ExecNode {
  uint64_t id = 0;  // unique in the graph, in the order the spans arrived
  int process = 0;
  int stream = 0;  // the span's thread; receives get their own stream (ExecutionGraph::kRecvStream)
  ExecKind kind = ExecKind::kCompute;
  std::string name;
  TimePoint start;
  Duration duration;
  double bytes = 0;                                // communication: message size
  std::string collective{};                        // kCollective: "all_reduce", ...
  std::string group{};                             // kCollective: the process group's kind
  int peer = -1;                                   // kSend: the receiving process; kRecv: the sending one
  int64_t tag = -1;                                // kSend / kRecv: pairs a send with its receive
  std::vector<uint64_t> ctrl_deps{}, data_deps{};  // ids of nodes of the same process
};

struct ExecutionGraph {
  static constexpr int kRecvStream = 1 << 20;  // the stream receive nodes are put on
  // Per process, its nodes in start order (ties: id order); every dependency comes earlier in the list.
  std::map<int, std::vector<ExecNode>> processes;
  std::map<int, std::string> process_names;
  size_t nodes() const;
};

class ExecutionGraphRecorder final : public Sink {
 public:
  explicit ExecutionGraphRecorder(size_t max_nodes = 5'000'000) : max_nodes_(max_nodes) {}

  Status Begin(const RunInfo&) override { return Status::Ok(); }
  void OnProcessName(const ProcessName& e) override { graph_.process_names[e.process] = e.name; }
  void OnThreadName(const ThreadName&) override {}
  void OnSpan(const SpanEvent& e) override;
  void OnCounter(const CounterEvent&) override {}
  void OnInstant(const InstantEvent&) override {}
  // Orders each process's nodes and adds the dependencies. Error (kInvalidArgument): more than
  // max_nodes spans, or a span whose "comm" is not one of the conventions above.
  Status Finish() override;

  const ExecutionGraph& graph() const { return graph_; }

 private:
  void Add(ExecNode node);
  size_t max_nodes_;
  uint64_t next_id_ = 0;
  int64_t next_tag_ = 0;
  size_t seen_ = 0;
  std::string error_;
  ExecutionGraph graph_;
};

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_EXECUTION_GRAPH_H_

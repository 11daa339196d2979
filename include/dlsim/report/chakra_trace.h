// Chakra execution traces (MLCommons Chakra, the input of ASTRA-sim and its ecosystem) of an execution graph
// (execution_graph.h): one file per rank, `DIR/dlsim.RANK.et`, each a GlobalMetadata then the rank's nodes in
// protobuf's delimited format, and `DIR/comm_group.json` naming the ranks of every process group the
// collectives run over (ASTRA-sim's --comm-group-configuration).
//
//   report::ChakraLayout layout{.ranks = {{0, {0, 1}}, {1, {2, 3}}}, .groups = {{"dp", {{0, 1}, {2, 3}}}}};
//   DLSIM_ASSIGN_OR_RETURN(report::ChakraSummary s, report::WriteChakraTraces(graph, layout, "out/"));
//   DLSIM_ASSIGN_OR_RETURN(report::ChakraFile f, report::ReadChakraFile("out/dlsim.0.et"));
//
// What a node carries: COMP_NODE (compute spans: duration_micros), COMM_COLL_NODE (comm_type, comm_size in
// bytes, pg_name: the group's id in comm_group.json), COMM_SEND_NODE / COMM_RECV_NODE (comm_src, comm_dst,
// comm_size, comm_tag); every node is_cpu_op = false, start_time_micros and duration_micros from the
// simulation (rounded to whole microseconds, as the schema counts them), ctrl_deps = program order on its
// stream, data_deps = what it waited for on the other streams of its rank.
#ifndef DLSIM_REPORT_CHAKRA_TRACE_H_
#define DLSIM_REPORT_CHAKRA_TRACE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/report/events.h"
#include "dlsim/report/execution_graph.h"

namespace dlsim::report {

struct ChakraLayout {
  // The global ranks that run each process's program. Position k of two processes' lists are peers: a send of
  // process p to process q goes from ranks[p][k] to ranks[q][k] (lists of peers have equal lengths).
  std::map<int, std::vector<int>> ranks;
  // Per group kind (a collective's "group"), the groups of global ranks it runs over.
  std::map<std::string, std::vector<std::vector<int>>> groups;
};

struct ChakraSummary {
  std::string dir;
  size_t files = 0;
  uint64_t nodes = 0;  // written, all files together
  uint64_t bytes = 0;
  // "chakra: 8 files (1,234 nodes, 56.7 KiB) in DIR/dlsim.RANK.et, process groups in DIR/comm_group.json"
  std::string Summary() const;
};

// At most this many nodes are written, all files together (about 60 bytes each).
inline constexpr uint64_t kMaxChakraNodes = 20'000'000;

// Creates `dir` if needed and writes the files. Errors (kInvalidArgument), before anything is written: a
// process of the graph without ranks, peers' rank lists of different lengths, a collective whose group kind
// is not in the layout or whose rank is in none of its groups, more than kMaxChakraNodes nodes (the
// estimate is in the message); and when a file cannot be written (naming it).
Result<ChakraSummary> WriteChakraTraces(const ExecutionGraph& graph, const ChakraLayout& layout,
                                        const std::string& dir);

// One node as read back: the schema's fields and its attributes by name.
struct ChakraNode {
  uint64_t id = 0;
  std::string name;
  int type =
      0;  // ChakraProtoMsg::NodeType: 4 COMP_NODE, 5 COMM_SEND_NODE, 6 COMM_RECV_NODE, 7 COMM_COLL_NODE
  std::vector<uint64_t> ctrl_deps{}, data_deps{};
  uint64_t start_us = 0, duration_us = 0;
  std::map<std::string, ArgValue> attrs{};  // ints as int64, bools, doubles, strings
};

struct ChakraFile {
  std::string version;
  std::map<std::string, ArgValue> metadata{};
  std::vector<ChakraNode> nodes{};
};

// Reads a Chakra file (any writer's). Errors (kParse): the file cannot be read, or a message is truncated or
// not the schema's, naming the file and the message's index.
Result<ChakraFile> ReadChakraFile(const std::string& path);

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_CHAKRA_TRACE_H_

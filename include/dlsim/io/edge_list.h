// Edge-list text files -> gnn::EdgeList: CSV, TSV and SNAP (whitespace-separated) edge lists.
//
//   auto edges = io::ParseEdgeList(text, "cora.cites", {.format = io::EdgeListFormat::kAuto});
//   auto g = gnn::BuildGraph(*edges, {.undirected = true});
//
// One edge per line: "SRC DST" or "SRC DST WEIGHT" (the weight is checked to be a number, then
// ignored). Lines that are empty or start with '#' or '%' are comments; the first `skip_lines`
// lines are skipped; in CSV and auto mode a first data line with no number in its first field
// ("id_1,id_2") is a header. Node ids are non-negative integers below 2^31. With `num_nodes` 0
// the ids are relabelled densely in ascending order (ids 0..n-1 that all appear keep their
// value); with num_nodes > 0 they are used as they are and must be below it.
//
// Every error names the file and line: "FILE:LINE: expected 2 node ids separated by ',', found
// 'a;b'", "FILE:LINE: node id '-3' is not a non-negative integer", "FILE:LINE: node id 40 is out of
// range; the graph has 40 nodes (ids 0..39)". Thread-safe (a pure function).
#ifndef DLSIM_IO_EDGE_LIST_H_
#define DLSIM_IO_EDGE_LIST_H_

#include <string>
#include <string_view>

#include "dlsim/core/result.h"
#include "dlsim/gnn/graph.h"

namespace dlsim::io {

enum class EdgeListFormat { kAuto, kCsv, kTsv, kSnap };
// "auto" | "csv" | "tsv" | "snap"
std::string_view EdgeListFormatName(EdgeListFormat f);

struct EdgeListOptions {
  EdgeListFormat format = EdgeListFormat::kAuto;  // auto: ',' if the line has one, else whitespace
  int skip_lines = 0;                             // leading lines to ignore (a node-count line)
  int64_t num_nodes = 0;                          // 0: relabel ids densely
};

// Errors (kParse) as above, and "FILE: no edge in the file" for a file with none.
Result<gnn::EdgeList> ParseEdgeList(std::string_view text, const std::string& file_name,
                                    const EdgeListOptions& options);

}  // namespace dlsim::io

#endif  // DLSIM_IO_EDGE_LIST_H_

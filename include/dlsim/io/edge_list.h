// Edge-list text files -> gnn::EdgeList: CSV, TSV and SNAP (whitespace-separated) edge lists, and
// WebGraph's ASCII adjacency lists (`.graph-txt`, the LAW datasets' text form).
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
//
// `adjacency` (WebGraph's ASCIIGraph): the first line is the node count n, then line i + 2 lists the
// successors of node i (ids 0..n-1, separated by blanks; an empty line: none). Ids are kept as
// they are (num_nodes must be 0 or n); no comments or headers. Errors: "FILE:1: expected the node
// count ...", "FILE:LINE: node id 9 is out of range; the graph has 5 nodes (ids 0..4)", "FILE: 3 node
// lines, but the first line says 5 nodes", "FILE:LINE: a line after the 5 node lines".
#ifndef DLSIM_IO_EDGE_LIST_H_
#define DLSIM_IO_EDGE_LIST_H_

#include <string>
#include <string_view>

#include "dlsim/core/result.h"
#include "dlsim/gnn/graph.h"

namespace dlsim::io {

enum class EdgeListFormat { kAuto, kCsv, kTsv, kSnap, kAdjacency };
// "auto" | "csv" | "tsv" | "snap" | "adjacency"
std::string_view EdgeListFormatName(EdgeListFormat f);

struct EdgeListOptions {
  EdgeListFormat format = EdgeListFormat::kAuto;  // auto: ',' if the line has one, else whitespace
  int skip_lines = 0;                             // leading lines to ignore (a node-count line)
  int64_t num_nodes = 0;                          // 0: relabel ids densely
};

// Errors (kParse) as above, and "FILE: no edge in the file" for a file with none.
Result<gnn::EdgeList> ParseEdgeList(std::string_view text, const std::string& file_name,
                                    const EdgeListOptions& options);

// Reads and parses the file at `path`, plain or gzipped (told by its magic bytes, io/gzip.h); the
// file and its decompressed text are each limited to kEdgeListLimitFactor x io::MaxInputFileBytes()
// (256 MiB by default). Errors name the path.
inline constexpr int64_t kEdgeListLimitFactor = 16;
Result<gnn::EdgeList> ReadEdgeListFile(const std::string& path, const EdgeListOptions& options);

}  // namespace dlsim::io

#endif  // DLSIM_IO_EDGE_LIST_H_

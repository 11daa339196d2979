#include "dlsim/io/edge_list.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "dlsim/io/gzip.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {
namespace {

using gnn::NodeId;

struct LineContext {
  const std::string& file;
  int64_t line;
  Error Fail(const std::string& message) const {
    return Error::Parse(file + ":" + std::to_string(line) + ": " + message);
  }
};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Splits on `sep`, or on runs of blanks when sep is ' '. At most 4 fields are kept (more is an
// error anyway).
int SplitFields(std::string_view line, char sep, std::string_view (&out)[4]) {
  int n = 0;
  size_t i = 0;
  while (i <= line.size() && n < 4) {
    if (sep == ' ') {
      while (i < line.size() && IsSpace(line[i])) ++i;
      if (i == line.size()) break;
    }
    size_t j = i;
    while (j < line.size() && (sep == ' ' ? !IsSpace(line[j]) : line[j] != sep)) ++j;
    out[n++] = Trim(line.substr(i, j - i));
    if (j >= line.size()) break;
    i = j + 1;
  }
  return n;
}

char SeparatorOf(EdgeListFormat f, std::string_view line) {
  switch (f) {
    case EdgeListFormat::kCsv:
      return ',';
    case EdgeListFormat::kTsv:
      return '\t';
    case EdgeListFormat::kSnap:
    case EdgeListFormat::kAdjacency:
      return ' ';
    case EdgeListFormat::kAuto:
      break;
  }
  return line.find(',') != std::string_view::npos ? ',' : ' ';
}

std::string SeparatorName(char sep) {
  if (sep == ',') return "','";
  if (sep == '\t') return "a tab";
  return "blanks";
}

Result<NodeId> ParseId(std::string_view s, const LineContext& at) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    return at.Fail("node id '" + std::string(s) + "' is not a non-negative integer");
  if (v >= static_cast<uint64_t>(gnn::kMaxNodes))
    return at.Fail("node id " + std::string(s) + " is too large; ids must be below 2^31");
  return static_cast<NodeId>(v);
}

bool LooksNumeric(std::string_view s) { return !s.empty() && (std::isdigit(s[0]) || s[0] == '-'); }

Status CheckWeight(std::string_view s, const LineContext& at) {
  double w = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), w);
  if (ec != std::errc() || end != s.data() + s.size())
    return at.Fail("edge weight '" + std::string(s) + "' is not a number");
  if (!std::isfinite(w)) return at.Fail("edge weight '" + std::string(s) + "' is not a finite number");
  return Status::Ok();
}

// Parses one data line into (src, dst). `header_allowed`: a non-numeric line is a header, not an
// error (returns false through `is_header`).
Status ParseLine(std::string_view line, EdgeListFormat format, bool header_allowed, const LineContext& at,
                 gnn::EdgeList& out, bool& is_header) {
  const char sep = SeparatorOf(format, line);
  std::string_view f[4];
  const int n = SplitFields(line, sep, f);
  is_header = false;
  if (n < 2 || n > 3) {
    if (header_allowed && n >= 2 && !LooksNumeric(f[0])) return (is_header = true), Status::Ok();
    return at.Fail("expected 2 node ids (and an optional weight) separated by " + SeparatorName(sep) +
                   ", found '" + std::string(line) + "'");
  }
  if (header_allowed && !LooksNumeric(f[0]) && !LooksNumeric(f[1])) return (is_header = true), Status::Ok();
  DLSIM_ASSIGN_OR_RETURN(NodeId src, ParseId(f[0], at));
  DLSIM_ASSIGN_OR_RETURN(NodeId dst, ParseId(f[1], at));
  if (n == 3) DLSIM_RETURN_IF_ERROR(CheckWeight(f[2], at));
  out.src.push_back(src);
  out.dst.push_back(dst);
  return Status::Ok();
}

// Ids 0..k-1 in ascending order of the original ids.
void Relabel(gnn::EdgeList& e) {
  std::vector<NodeId> ids(e.src);
  ids.insert(ids.end(), e.dst.begin(), e.dst.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  e.num_nodes = static_cast<int64_t>(ids.size());
  if (!ids.empty() && ids.back() + 1 == ids.size()) return;  // already dense
  auto index = [&ids](NodeId v) {
    return static_cast<NodeId>(std::lower_bound(ids.begin(), ids.end(), v) - ids.begin());
  };
  for (NodeId& v : e.src) v = index(v);
  for (NodeId& v : e.dst) v = index(v);
}

// With a fixed node count: the first edge whose id is out of range is an error at its line.
Status CheckRange(const gnn::EdgeList& e, const std::vector<int64_t>& lines, const std::string& file) {
  for (size_t i = 0; i < e.src.size(); ++i) {
    const NodeId v = std::max(e.src[i], e.dst[i]);
    if (v < e.num_nodes) continue;
    return LineContext{file, lines[i]}.Fail("node id " + std::to_string(v) +
                                            " is out of range; the graph has " + std::to_string(e.num_nodes) +
                                            " nodes (ids 0.." + std::to_string(e.num_nodes - 1) + ")");
  }
  return Status::Ok();
}

// One node line of an adjacency list: every blank-separated id is a successor of `src`.
Status ParseSuccessors(std::string_view line, NodeId src, int64_t n, const LineContext& at,
                       gnn::EdgeList& out) {
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !IsSpace(line[j])) ++j;
    if (j == i) break;
    DLSIM_ASSIGN_OR_RETURN(NodeId dst, ParseId(line.substr(i, j - i), at));
    if (dst >= n)
      return at.Fail("node id " + std::to_string(dst) + " is out of range; the graph has " +
                     std::to_string(n) + " nodes (ids 0.." + std::to_string(n - 1) + ")");
    out.src.push_back(src);
    out.dst.push_back(dst);
    i = j;
  }
  return Status::Ok();
}

// WebGraph's ASCIIGraph: the node count, then one line of successors per node.
Result<gnn::EdgeList> ParseAdjacency(std::string_view text, const std::string& file_name, int64_t num_nodes) {
  const size_t first_nl = text.find('\n');
  const std::string_view first = Trim(text.substr(0, first_nl));
  const LineContext head{file_name, 1};
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(first.data(), first.data() + first.size(), n);
  if (first.empty() || ec != std::errc() || end != first.data() + first.size() || n < 1 ||
      n >= gnn::kMaxNodes)
    return head.Fail(
        "expected the node count (an integer from 1 to 2^31 - 1) on the first line of an adjacency "
        "list, found '" +
        std::string(first.substr(0, 40)) + "'");
  if (num_nodes > 0 && num_nodes != n)
    return head.Fail("the adjacency list has " + std::to_string(n) + " nodes, but num_nodes is " +
                     std::to_string(num_nodes));
  gnn::EdgeList out;
  out.num_nodes = n;
  text = first_nl == std::string_view::npos ? std::string_view() : text.substr(first_nl + 1);
  int64_t node = 0;
  for (int64_t line_no = 2; !text.empty(); ++line_no) {
    const size_t nl = text.find('\n');
    const std::string_view line = Trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (node == n) {
      if (line.empty()) continue;  // trailing blank lines
      return LineContext{file_name, line_no}.Fail("a line after the " + std::to_string(n) + " node lines");
    }
    DLSIM_RETURN_IF_ERROR(ParseSuccessors(line, static_cast<NodeId>(node++), n, {file_name, line_no}, out));
  }
  if (node < n)
    return Error::Parse(file_name + ": " + std::to_string(node) + " node lines, but the first line says " +
                        std::to_string(n) + " nodes");
  if (out.src.empty()) return Error::Parse(file_name + ": no edge in the file");
  return out;
}

}  // namespace

std::string_view EdgeListFormatName(EdgeListFormat f) {
  switch (f) {
    case EdgeListFormat::kAuto:
      return "auto";
    case EdgeListFormat::kCsv:
      return "csv";
    case EdgeListFormat::kTsv:
      return "tsv";
    case EdgeListFormat::kSnap:
      return "snap";
    case EdgeListFormat::kAdjacency:
      return "adjacency";
  }
  return "?";
}

Result<gnn::EdgeList> ParseEdgeList(std::string_view text, const std::string& file_name,
                                    const EdgeListOptions& options) {
  if (options.format == EdgeListFormat::kAdjacency) return ParseAdjacency(text, file_name, options.num_nodes);
  gnn::EdgeList out;
  std::vector<int64_t> lines;  // line of each edge, for range errors
  int64_t line_no = 0;
  bool seen_data = false;
  const bool headers = options.format == EdgeListFormat::kAuto || options.format == EdgeListFormat::kCsv;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = Trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (++line_no <= options.skip_lines || line.empty() || line[0] == '#' || line[0] == '%') continue;
    bool is_header = false;
    DLSIM_RETURN_IF_ERROR(
        ParseLine(line, options.format, headers && !seen_data, {file_name, line_no}, out, is_header));
    seen_data = true;
    if (!is_header && options.num_nodes > 0) lines.push_back(line_no);
  }
  if (out.src.empty()) return Error::Parse(file_name + ": no edge in the file");
  if (options.num_nodes == 0) {
    Relabel(out);
    return out;
  }
  out.num_nodes = options.num_nodes;
  DLSIM_RETURN_IF_ERROR(CheckRange(out, lines, file_name));
  return out;
}

Result<gnn::EdgeList> ReadEdgeListFile(const std::string& path, const EdgeListOptions& options) {
  DLSIM_ASSIGN_OR_RETURN(std::string text,
                         ReadMaybeGzipped(path, MaxInputFileBytes() * kEdgeListLimitFactor));
  return ParseEdgeList(text, path, options);
}

}  // namespace dlsim::io

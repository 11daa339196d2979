// The real graphs compiled into the binary (shipped_graphs.h; data/graphs/README.md).
#include "dlsim/io/shipped_graphs.h"

#include "dlsim/core/strings.h"
#include "dlsim/io/edge_list.h"
#include "dlsim/io/embedded.h"
#include "dlsim/io/gzip.h"

namespace dlsim::io {
namespace {

// Decompressed sizes: 22.2 MB (cnr-2000) and 9.9 MB (ogbl-ddi); the embedded bytes are trusted.
constexpr int64_t kShippedGraphLimit = int64_t{64} << 20;

struct Entry {
  ShippedGraphInfo info;
  std::string_view (*bytes)();
  EdgeListFormat format;
};

const std::vector<Entry>& Entries() {
  static const std::vector<Entry> entries = {
      {{"cnr-2000", "data/graphs/cnr-2000.graph-txt.gz",
        "LAW's 2000 crawl of the Italian CNR web domain (UbiCrawler): 325,557 pages, 3,216,152 links "
        "(2,738,969 undirected edges, no self-loops); vigna/webgraph",
        true},
       embedded::Cnr2000GraphTxtGz,
       EdgeListFormat::kAdjacency},
      {{"ogbl-ddi", "data/graphs/ogbl-ddi.edge.csv.gz",
        "OGB's drug-drug interaction graph (DrugBank), training edges: 4,267 drugs, 1,067,911 undirected "
        "edges (mean degree 500); CC-0",
        false},
       embedded::OgblDdiEdgeCsvGz,
       EdgeListFormat::kCsv}};
  return entries;
}

}  // namespace

const std::vector<ShippedGraphInfo>& ShippedGraphs() {
  static const std::vector<ShippedGraphInfo> infos = [] {
    std::vector<ShippedGraphInfo> out;
    for (const Entry& e : Entries()) out.push_back(e.info);
    return out;
  }();
  return infos;
}

Result<gnn::EdgeList> ReadShippedGraph(std::string_view name) {
  std::vector<std::string> names;
  for (const Entry& e : Entries()) {
    names.push_back(e.info.name);
    if (e.info.name != name) continue;
    DLSIM_ASSIGN_OR_RETURN(std::string text, Gunzip(e.bytes(), e.info.file, kShippedGraphLimit));
    return ParseEdgeList(text, e.info.file, {.format = e.format});
  }
  return Error::NotFound(UnknownNameMessage("shipped graph", name, names));
}

}  // namespace dlsim::io

// Private: the gnn scenario checks that need the graph's node count (gnn_scenario.cc calls them once
// the graph section is read). Each error is recorded at the key the user wrote, with file and line;
// a default the user did not write never fails: it is fitted to the graph instead.
#ifndef DLSIM_SRC_IO_GNN_GRAPH_CHECKS_H_
#define DLSIM_SRC_IO_GNN_GRAPH_CHECKS_H_

#include "dlsim/gnn/options.h"
#include "dlsim/hw/catalog.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io::internal {

// `g` is the `gnn:` section. With the graph known (R-MAT: 2^scale nodes; a file: its node count):
//  - split: the train fraction must take at least one node (at split.train, or at graph for the default);
//  - hardware.machines: at most one machine (partition) per node;
//  - cache.gpu_gib: the machine's GPU caches must not hold more nodes than the graph; an unwritten
//    default is lowered to the graph's features instead.
void CheckAgainstGraph(const MapReader& g, const hw::Catalog& hardware, gnn::GnnOptions& o);

}  // namespace dlsim::io::internal

#endif  // DLSIM_SRC_IO_GNN_GRAPH_CHECKS_H_

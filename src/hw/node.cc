#include "dlsim/hw/node.h"

namespace dlsim::hw {

std::string_view FabricName(IntraNodeFabric f) {
  switch (f) {
    case IntraNodeFabric::kNvSwitch:
      return "nvswitch";
    case IntraNodeFabric::kNvLinkPairwise:
      return "nvlink-pairwise";
    case IntraNodeFabric::kPcie:
      return "pcie";
  }
  return "?";
}

std::string_view TopologyName(NetworkTopology t) {
  switch (t) {
    case NetworkTopology::kFatTree:
      return "fat-tree";
    case NetworkTopology::kRailOptimized:
      return "rail-optimized";
  }
  return "?";
}

}  // namespace dlsim::hw

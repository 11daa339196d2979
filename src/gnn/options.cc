#include "dlsim/gnn/options.h"

namespace dlsim::gnn {

std::string_view GnnLayerName(GnnLayer l) {
  switch (l) {
    case GnnLayer::kSage:
      return "sage";
    case GnnLayer::kGcn:
      return "gcn";
    case GnnLayer::kGat:
      return "gat";
  }
  return "?";
}

std::string_view FeatureStoreName(FeatureStore s) {
  switch (s) {
    case FeatureStore::kHost:
      return "host";
    case FeatureStore::kPartitioned:
      return "partitioned";
    case FeatureStore::kDisk:
      return "disk";
  }
  return "?";
}

std::string_view TopologyStoreName(TopologyStore s) { return s == TopologyStore::kDisk ? "disk" : "memory"; }

GnnVariant PolicyVariant(std::string name, std::string order, std::string cache, std::string partitioner,
                         int isolation) {
  return GnnVariant{.name = std::move(name),
                    .order = std::move(order),
                    .cache_policy = std::move(cache),
                    .partitioner = std::move(partitioner),
                    .isolation = isolation};
}

}  // namespace dlsim::gnn

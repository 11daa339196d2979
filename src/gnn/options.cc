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

}  // namespace dlsim::gnn

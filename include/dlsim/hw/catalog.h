// The hardware catalog: GPUs, nodes and networks by canonical name or alias.
//
// Built from YAML by io::LoadDefaultCatalog() (embedded data) and io::MergeCatalogFile()
// (user additions/overrides); models never open files. Lookups return errors that suggest
// the closest name.
//
//   auto gpu = catalog.FindGpu("h100");       // Result<const GpuSpec*>
//   if (!gpu.ok()) return gpu.error();
//
// Thread-safe for concurrent const use.
#ifndef DLSIM_HW_CATALOG_H_
#define DLSIM_HW_CATALOG_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/hw/node.h"

namespace dlsim::hw {

class Catalog {
 public:
  // Adds or replaces (same canonical name) an entry. Error if an alias collides with
  // another entry's name or alias.
  Status AddGpu(GpuSpec gpu);
  Status AddNode(NodeSpec node);
  Status AddNetwork(NetworkSpec net);

  Result<const GpuSpec*> FindGpu(std::string_view name_or_alias) const;
  Result<const NodeSpec*> FindNode(std::string_view name_or_alias) const;
  Result<const NetworkSpec*> FindNetwork(std::string_view name_or_alias) const;

  // Canonical names, sorted.
  std::vector<std::string> GpuNames() const;
  std::vector<std::string> NodeNames() const;
  std::vector<std::string> NetworkNames() const;
  // Canonical names and aliases, for suggestions.
  std::vector<std::string> GpuNamesAndAliases() const;

 private:
  std::map<std::string, GpuSpec> gpus_;
  std::map<std::string, NodeSpec> nodes_;
  std::map<std::string, NetworkSpec> networks_;
  std::map<std::string, std::string> gpu_alias_, node_alias_, network_alias_;
};

}  // namespace dlsim::hw

#endif  // DLSIM_HW_CATALOG_H_

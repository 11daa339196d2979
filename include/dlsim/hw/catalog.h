// The hardware catalog: GPUs, nodes and networks by canonical name or alias.
//
// Built from YAML by io::LoadCatalogs() (embedded data plus user files given with
// --catalog); models never open files. Lookups are case-insensitive and return errors that
// suggest the closest name.
//
//   auto gpu = catalog.FindGpu("h100");       // Result<const GpuSpec*>
//   if (!gpu.ok()) return gpu.error();
//
// Thread-safe for concurrent const use. Pointers returned by Find* stay valid until that
// entry is replaced by Add*.
#ifndef DLSIM_HW_CATALOG_H_
#define DLSIM_HW_CATALOG_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/named_table.h"
#include "dlsim/core/result.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/hw/node.h"

namespace dlsim::hw {

class Catalog {
 public:
  // Adds or replaces (same canonical name) an entry. Error if the entry is invalid (see
  // ValidateGpu/ValidateNode/ValidateNetwork) or an alias collides with another entry's name
  // or alias. A node may name a GPU or network that is not (yet) in the catalog; CheckReferences
  // verifies them once everything is loaded.
  Status AddGpu(GpuSpec gpu);
  Status AddNode(NodeSpec node);
  Status AddNetwork(NetworkSpec net);

  // Error (kNotFound): "unknown GPU 'x' (did you mean 'y'?); known: ...".
  Result<const GpuSpec*> FindGpu(std::string_view name_or_alias) const;
  Result<const NodeSpec*> FindNode(std::string_view name_or_alias) const;
  Result<const NetworkSpec*> FindNetwork(std::string_view name_or_alias) const;
  const GpuSpec* FindGpuOrNull(std::string_view name_or_alias) const {
    return gpus_.FindOrNull(name_or_alias);
  }

  // Every node's gpu and network name an existing entry. Error names the node and suggests.
  Status CheckReferences() const;

  // Canonical names, sorted.
  std::vector<std::string> GpuNames() const { return gpus_.Names(); }
  std::vector<std::string> NodeNames() const { return nodes_.Names(); }
  std::vector<std::string> NetworkNames() const { return networks_.Names(); }
  // Canonical names and aliases, for suggestions.
  std::vector<std::string> GpuNamesAndAliases() const { return gpus_.NamesAndAliases(); }

  // Entries sorted by canonical name.
  std::vector<const GpuSpec*> Gpus() const { return gpus_.Entries(); }
  std::vector<const NodeSpec*> Nodes() const { return nodes_.Entries(); }
  std::vector<const NetworkSpec*> Networks() const { return networks_.Entries(); }

 private:
  NamedTable<GpuSpec> gpus_{"GPU"};
  NamedTable<NodeSpec> nodes_{"node"};
  NamedTable<NetworkSpec> networks_{"network"};
};

// Range checks of one entry (positive counts and rates, MIG slices within 7/8, ...). Errors
// (kInvalidArgument) name the entry and the field.
Status ValidateGpu(const GpuSpec& gpu);
Status ValidateNode(const NodeSpec& node);
Status ValidateNetwork(const NetworkSpec& net);

}  // namespace dlsim::hw

#endif  // DLSIM_HW_CATALOG_H_

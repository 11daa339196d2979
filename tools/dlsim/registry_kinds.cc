#include "registry_kinds.h"

namespace dlsim::cli {

void AddModuleKinds(std::map<std::string, std::function<RegistryEntries()>>& kinds) {
  (void)kinds;  // e.g. kinds["data-policy"] = [] { ... };
}

}  // namespace dlsim::cli

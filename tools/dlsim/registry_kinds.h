// Registries of modules that arrive with later issues (data policies, serving schedulers, ...)
// add themselves to `dlsim list` here, one line each in registry_kinds.cc.
#ifndef DLSIM_TOOLS_REGISTRY_KINDS_H_
#define DLSIM_TOOLS_REGISTRY_KINDS_H_

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dlsim::cli {

using RegistryEntries = std::vector<std::pair<std::string, std::string>>;  // name, description
void AddModuleKinds(std::map<std::string, std::function<RegistryEntries()>>& kinds);

}  // namespace dlsim::cli

#endif  // DLSIM_TOOLS_REGISTRY_KINDS_H_

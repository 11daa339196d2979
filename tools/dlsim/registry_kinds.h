// Every policy registry `dlsim list KIND` can show; one line each in registry_kinds.cc.
#ifndef DLSIM_TOOLS_REGISTRY_KINDS_H_
#define DLSIM_TOOLS_REGISTRY_KINDS_H_

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dlsim::cli {

using RegistryEntries = std::vector<std::pair<std::string, std::string>>;  // name, description
// Kind name -> a function that builds that registry and lists its entries, sorted by kind.
std::map<std::string, std::function<RegistryEntries()>> RegistryKinds();

}  // namespace dlsim::cli

#endif  // DLSIM_TOOLS_REGISTRY_KINDS_H_

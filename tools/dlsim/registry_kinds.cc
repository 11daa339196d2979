#include "registry_kinds.h"

#include "dlsim/data/data_policy.h"
#include "dlsim/serve/router.h"
#include "dlsim/serve/scheduler.h"

namespace dlsim::cli {
namespace {

template <typename Reg>
RegistryEntries Collect(const Reg &reg) {
  RegistryEntries out;
  for (const auto *e : reg.Entries()) out.emplace_back(e->name, e->description);
  return out;
}

}  // namespace

void AddModuleKinds(std::map<std::string, std::function<RegistryEntries()>> &kinds) {
  kinds["serving-scheduler"] = [] {
    serve::SchedulerRegistry reg("serving-scheduler");
    serve::RegisterSchedulers(reg);
    return Collect(reg);
  };
  kinds["router"] = [] {
    serve::RouterRegistry reg("router");
    serve::RegisterRouters(reg);
    return Collect(reg);
  };
  kinds["data-policy"] = [] {
    data::DataPolicyRegistry reg("data-policy");
    data::RegisterDataPolicies(reg);
    return Collect(reg);
  };
}

}  // namespace dlsim::cli

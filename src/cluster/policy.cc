// The policy registry and the default reclaim rules; the policies themselves live one per file in
// policies/ (builtin_list.inc lists them).
#include "dlsim/cluster/policy.h"

#include <cstdio>
#include <cstdlib>

namespace dlsim::cluster {

std::vector<int> ReclaimRules::ChooseReclaim(const AllocationView&, const std::vector<LentNode>& lent,
                                             int k) const {
  std::vector<int> out;
  for (int i = static_cast<int>(lent.size()) - 1; i >= 0 && static_cast<int>(out.size()) < k; --i)
    out.push_back(lent[i].node);
  return out;
}

const ReclaimRules& SchedulingPolicy::reclaim_rules() const {
  static const ReclaimRules kDefault;
  return kDefault;
}

void PolicyRegistry::RegisterBuiltin(std::string name, std::string description, Factory factory,
                                     std::vector<ParamSpec> keys) {
  keys_[name] = std::move(keys);
  Registry::RegisterBuiltin(std::move(name), std::move(description), std::move(factory));
}

const std::vector<ParamSpec>& PolicyRegistry::Keys(const std::string& name) const {
  static const std::vector<ParamSpec> kNone;
  auto it = keys_.find(name);
  return it == keys_.end() ? kNone : it->second;
}

std::vector<ParamSpec> PolicyRegistry::AllKeys() const {
  std::map<std::string, ParamSpec> by_key;
  for (const auto& [name, keys] : keys_)
    for (const ParamSpec& k : keys) by_key.emplace(k.key, k);
  std::vector<ParamSpec> out;
  for (auto& [key, spec] : by_key) out.push_back(spec);
  return out;
}

const PolicyRegistry& BuiltinPolicies() {
  static const PolicyRegistry* reg = [] {
    auto* r = new PolicyRegistry("cluster-policy");
    RegisterBuiltinPolicies(*r);
    return r;
  }();
  return *reg;
}

}  // namespace dlsim::cluster

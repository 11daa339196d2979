// RegisterBuiltinPolicies: every policy listed in builtin_list.inc registers itself.
#include "dlsim/cluster/policy.h"

namespace dlsim::cluster {

#define DLSIM_POLICY(Name) void Register##Name(PolicyRegistry& reg);
#include "builtin_list.inc"
#undef DLSIM_POLICY

void RegisterBuiltinPolicies(PolicyRegistry& reg) {
#define DLSIM_POLICY(Name) Register##Name(reg);
#include "builtin_list.inc"
#undef DLSIM_POLICY
}

}  // namespace dlsim::cluster

// Routers: which replica a new request goes to (Vidur's global schedulers).
//   round-robin               replicas in turn
//   least-outstanding-tokens  the replica with the fewest prefill + decode tokens still to process
//
//   serve::RouterRegistry reg("router");
//   serve::RegisterRouters(reg);
//   auto r = reg.Create("least-outstanding-tokens");
//   int replica = (*r)->Pick(outstanding);   // outstanding[i]: tokens queued on replica i
//
// Deterministic (ties go to the lowest index). Not thread-safe.
#ifndef DLSIM_SERVE_ROUTER_H_
#define DLSIM_SERVE_ROUTER_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/registry.h"

namespace dlsim::serve {

class Router {
 public:
  virtual ~Router() = default;
  // Index of the chosen replica. Precondition: outstanding is non-empty.
  virtual int Pick(const std::vector<int64_t>& outstanding_tokens) = 0;
};

using RouterRegistry = Registry<Router>;
void RegisterRouters(RouterRegistry& reg);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_ROUTER_H_

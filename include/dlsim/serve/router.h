// Routers: which replica a new request goes to (Vidur's global schedulers).
//   round-robin               replicas in turn
//   least-outstanding-tokens  the replica with the fewest prefill + decode tokens still to process
//   cache-aware               SGLang router's cache_aware policy: the least loaded replica when loads are
//                             out of balance, else the one holding most of the prompt's prefix when that is
//                             over half of it, else the one caching least
//
//   serve::RouterRegistry reg("router");
//   serve::RegisterRouters(reg);
//   auto r = reg.Create("least-outstanding-tokens");
//   int replica = (*r)->Pick(outstanding);   // outstanding[i]: tokens queued on replica i
//   int replica = (*r)->Pick(RouteContext{...});  // what a cache-aware router reads as well
//
// Deterministic (ties go to the lowest index). Not thread-safe.
#ifndef DLSIM_SERVE_ROUTER_H_
#define DLSIM_SERVE_ROUTER_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/registry.h"

namespace dlsim::serve {

// What a router knows of the replicas (index i) when a request arrives. The cache fields are filled only for
// a router that reads_cache(); without prefix caching they are zeros.
struct RouteContext {
  const std::vector<int64_t>& outstanding_tokens;  // prefill + decode tokens still to process
  const std::vector<int64_t>& requests;            // in flight: waiting, running or swapped
  const std::vector<int64_t>& cached_tokens;       // of the new request's prompt, in i's prefix cache
  const std::vector<int64_t>& cache_blocks;        // KV blocks i's prefix cache holds, pinned or not
  int64_t prompt_tokens = 0;
};

class Router {
 public:
  virtual ~Router() = default;
  // Index of the chosen replica. Precondition: outstanding is non-empty.
  virtual int Pick(const std::vector<int64_t>& outstanding_tokens) = 0;
  // The same with all the context; routers that read only the tokens keep this default.
  virtual int Pick(const RouteContext& c) { return Pick(c.outstanding_tokens); }
  // Whether Pick(RouteContext) reads the request counts and the cache fields (each costs a cache lookup per
  // replica per request to fill).
  virtual bool reads_cache() const { return false; }
};

using RouterRegistry = Registry<Router>;
void RegisterRouters(RouterRegistry& reg);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_ROUTER_H_

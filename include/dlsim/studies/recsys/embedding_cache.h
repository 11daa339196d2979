// GPU caches of hot embedding rows (PICASSO's caching): a policy answers, access by access, whether the
// row was already on the GPU. Policies behind a registry ("lru", "static-hot"; `dlsim list
// embedding-cache`); MeasureHitRatio replays a seeded Zipf stream against one.
//
//   recsys::EmbeddingCacheRegistry reg("embedding-cache");
//   recsys::RegisterEmbeddingCaches(reg);
//   auto cache = *reg.Create("lru");
//   cache->Reset(capacity_rows, warmup_ids);
//   bool hit = cache->Access(id);
#ifndef DLSIM_STUDIES_RECSYS_EMBEDDING_CACHE_H_
#define DLSIM_STUDIES_RECSYS_EMBEDDING_CACHE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/studies/recsys/workload.h"

namespace dlsim::recsys {

class EmbeddingCache {
 public:
  virtual ~EmbeddingCache() = default;
  // Empties the cache and sets its capacity in rows (>= 0). `warmup` is an ID sample a static policy
  // profiles (the hottest `capacity` IDs of it are pinned); dynamic policies ignore it.
  virtual void Reset(int64_t capacity, const std::vector<int64_t>& warmup) = 0;
  // True when `id` was cached; a dynamic policy then admits it.
  virtual bool Access(int64_t id) = 0;
};

using EmbeddingCacheRegistry = Registry<EmbeddingCache>;
void RegisterEmbeddingCaches(EmbeddingCacheRegistry& reg);

struct HitRatio {
  int64_t accesses = 0, hits = 0;
  double ratio() const { return accesses ? static_cast<double>(hits) / accesses : 0; }
};

// Replays `batches` batches of `batch` samples (hotness IDs each) of every table against its own cache
// of ceil(cache_fraction x vocab) rows; the warm-up sample is one extra batch drawn first. The stream
// comes from Rng(seed).Stream("recsys/ids/<table>"). Preconditions: batch, batches >= 1,
// cache_fraction in [0, 1]. Errors: an unknown policy.
Result<HitRatio> MeasureHitRatio(const std::vector<EmbeddingTable>& tables, const std::string& policy,
                                 int batch, int batches, double cache_fraction, uint64_t seed);

// The IDs of one table's stream, as MeasureHitRatio draws them (warm-up batch first).
std::vector<int64_t> DrawIds(const EmbeddingTable& t, int batch, int batches, uint64_t seed);

}  // namespace dlsim::recsys

#endif  // DLSIM_STUDIES_RECSYS_EMBEDDING_CACHE_H_

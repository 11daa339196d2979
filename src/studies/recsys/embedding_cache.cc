// GPU embedding caches: LRU and a static hot set profiled on a warm-up sample
// (include/dlsim/studies/recsys/embedding_cache.h).
#include "dlsim/studies/recsys/embedding_cache.h"

#include <algorithm>
#include <cmath>
#include <list>
#include <unordered_map>
#include <unordered_set>

namespace dlsim::recsys {
namespace {

class Lru final : public EmbeddingCache {
 public:
  void Reset(int64_t capacity, const std::vector<int64_t>&) override {
    capacity_ = capacity;
    order_.clear();
    where_.clear();
  }
  bool Access(int64_t id) override {
    if (capacity_ <= 0) return false;
    auto it = where_.find(id);
    if (it != where_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return true;
    }
    order_.push_front(id);
    where_[id] = order_.begin();
    if (static_cast<int64_t>(order_.size()) > capacity_) {
      where_.erase(order_.back());
      order_.pop_back();
    }
    return false;
  }

 private:
  int64_t capacity_ = 0;
  std::list<int64_t> order_;  // most recent first
  std::unordered_map<int64_t, std::list<int64_t>::iterator> where_;
};

// The `capacity` most frequent IDs of the warm-up sample (ties: the smaller ID), pinned.
class StaticHot final : public EmbeddingCache {
 public:
  void Reset(int64_t capacity, const std::vector<int64_t>& warmup) override {
    std::unordered_map<int64_t, int64_t> counts;
    for (int64_t id : warmup) ++counts[id];
    std::vector<std::pair<int64_t, int64_t>> byfreq(counts.begin(), counts.end());
    std::sort(byfreq.begin(), byfreq.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    hot_.clear();
    for (int64_t i = 0; i < std::min<int64_t>(capacity, static_cast<int64_t>(byfreq.size())); ++i)
      hot_.insert(byfreq[i].first);
  }
  bool Access(int64_t id) override { return hot_.count(id) > 0; }

 private:
  std::unordered_set<int64_t> hot_;
};

}  // namespace

void RegisterEmbeddingCaches(EmbeddingCacheRegistry& reg) {
  reg.RegisterBuiltin("lru", "Least-recently-used rows, admitted on every miss",
                      [] { return std::make_unique<Lru>(); });
  reg.RegisterBuiltin("static-hot", "The hottest rows of a warm-up batch, pinned (PICASSO-style hot cache)",
                      [] { return std::make_unique<StaticHot>(); });
}

std::vector<int64_t> DrawIds(const EmbeddingTable& t, int batch, int batches, uint64_t seed) {
  Rng rng = Rng(seed).Stream("recsys/ids/" + t.name);
  const ZipfSampler z(t.vocab, t.zipf);
  std::vector<int64_t> ids(static_cast<size_t>(batch) * (batches + 1) * t.hotness);
  for (int64_t& id : ids) id = z.Sample(rng);
  return ids;
}

Result<HitRatio> MeasureHitRatio(const std::vector<EmbeddingTable>& tables, const std::string& policy,
                                 int batch, int batches, double cache_fraction, uint64_t seed) {
  EmbeddingCacheRegistry reg("embedding-cache");
  RegisterEmbeddingCaches(reg);
  DLSIM_ASSIGN_OR_RETURN(auto cache, reg.Create(policy));
  HitRatio h;
  for (const EmbeddingTable& t : tables) {
    const std::vector<int64_t> ids = DrawIds(t, batch, batches, seed);
    const size_t warm = static_cast<size_t>(batch) * t.hotness;
    const std::vector<int64_t> warmup(ids.begin(), ids.begin() + warm);
    cache->Reset(static_cast<int64_t>(std::ceil(cache_fraction * t.vocab)), warmup);
    for (int64_t id : warmup) cache->Access(id);  // a dynamic cache starts warm too
    for (size_t i = warm; i < ids.size(); ++i) h.hits += cache->Access(ids[i]);
    h.accesses += static_cast<int64_t>(ids.size() - warm);
  }
  return h;
}

}  // namespace dlsim::recsys

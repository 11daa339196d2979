#include "dlsim/cluster/placement.h"

#include <algorithm>
#include <numeric>

namespace dlsim::cluster {
namespace {

// Appends `k` whole free GPUs of `node` (lowest indices first).
void TakeWhole(const ClusterState& s, int node, int k, Allocation& a) {
  const int gpus = s.spec().nodes()[node].gpus;
  for (int g = 0; g < gpus && k > 0; ++g)
    if (s.free_milli(node, g) == 1000) {
      a.grants.push_back({node, static_cast<int16_t>(g), 1000});
      --k;
    }
}

void Normalise(Allocation& a) {
  std::sort(a.grants.begin(), a.grants.end(), [](const GpuGrant& x, const GpuGrant& y) {
    return x.node != y.node ? x.node < y.node : x.gpu < y.gpu;
  });
}

// Nodes of GPU type `type` that the job may use (type and host constraints), in index order.
std::vector<int> Candidates(const ClusterState& s, const JobSpec& job, int type) {
  std::vector<int> out;
  const auto& nodes = s.spec().nodes();
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n)
    if (nodes[n].gpu_type == type && s.free_whole(n) > 0 && s.TypeAllowed(job, n) && s.HostFits(job, n))
      out.push_back(n);
  return out;
}

// GPU types the job may use that have at least its GPUs free, in type-id order.
std::vector<int> FeasibleTypes(const ClusterState& s, const JobSpec& job) {
  std::vector<int> out;
  for (int t = 0; t < static_cast<int>(s.spec().gpu_types().size()); ++t) {
    const bool allowed = job.gpu_types.empty() ||
                         std::find(job.gpu_types.begin(), job.gpu_types.end(), t) != job.gpu_types.end();
    if (allowed && s.free_whole_of_type(t) >= job.gpus) out.push_back(t);
  }
  return out;
}

// Takes GPUs from `order` (nodes) greedily until the job is covered; nullopt if it is not.
std::optional<Allocation> Fill(const ClusterState& s, const std::vector<int>& order, int gpus) {
  Allocation a;
  for (int n : order) {
    const int k = std::min(gpus - static_cast<int>(a.grants.size()), s.free_whole(n));
    TakeWhole(s, n, k, a);
    if (static_cast<int>(a.grants.size()) == gpus) {
      Normalise(a);
      return a;
    }
  }
  return std::nullopt;
}

// The single node with the fewest free GPUs that still holds the whole job; -1 if none.
int BestSingleNode(const ClusterState& s, const std::vector<int>& nodes, int gpus) {
  int best = -1;
  for (int n : nodes)
    if (s.free_whole(n) >= gpus && (best < 0 || s.free_whole(n) < s.free_whole(best))) best = n;
  return best;
}

// A shared-GPU job (gpu_milli < 1000) or a CPU-only job: the first node in `order` with room, on
// its fullest GPU that has the share free.
std::optional<Allocation> PlaceShare(const ClusterState& s, const JobSpec& job,
                                     const std::vector<int>& order) {
  for (int n : order) {
    if (!s.TypeAllowed(job, n) || !s.HostFits(job, n)) continue;
    if (job.gpus == 0) return Allocation{{{n, 0, 0}}};
    int best = -1;
    for (int g = 0; g < s.spec().nodes()[n].gpus; ++g) {
      const int f = s.free_milli(n, g);
      if (f >= job.gpu_milli && (best < 0 || f < s.free_milli(n, best))) best = g;
    }
    if (best >= 0) return Allocation{{{n, static_cast<int16_t>(best), static_cast<int16_t>(job.gpu_milli)}}};
  }
  return std::nullopt;
}

std::vector<int> AllNodes(const ClusterState& s) {
  std::vector<int> v(s.spec().nodes().size());
  std::iota(v.begin(), v.end(), 0);
  return v;
}

bool IsShare(const JobSpec& job) { return job.gpus == 0 || (job.gpus == 1 && job.gpu_milli < 1000); }

// Base for the whole-GPU policies: shares go to the first fitting node in NodeOrder(); whole
// GPUs to PlaceWhole() for each feasible type, keeping the allocation over the fewest nodes.
class WholeGpuPlacement : public PlacementPolicy {
 public:
  std::optional<Allocation> Place(const ClusterState& s, const JobSpec& job, Rng& rng) const override {
    if (IsShare(job)) return PlaceShare(s, job, ShareOrder(s, rng));
    std::optional<Allocation> best;
    for (int type : FeasibleTypes(s, job)) {
      std::optional<Allocation> a = PlaceWhole(s, job, Candidates(s, job, type), rng);
      if (a && (!best || a->NodesSpanned() < best->NodesSpanned())) best = std::move(a);
    }
    return best;
  }

 protected:
  virtual std::vector<int> ShareOrder(const ClusterState& s, Rng& rng) const { return AllNodes(s); }
  virtual std::optional<Allocation> PlaceWhole(const ClusterState& s, const JobSpec& job,
                                               std::vector<int> nodes, Rng& rng) const = 0;
};

class Consolidated final : public WholeGpuPlacement {
  std::optional<Allocation> PlaceWhole(const ClusterState& s, const JobSpec& job, std::vector<int> nodes,
                                       Rng&) const override {
    if (int n = BestSingleNode(s, nodes, job.gpus); n >= 0) return Fill(s, {n}, job.gpus);
    std::stable_sort(nodes.begin(), nodes.end(),
                     [&](int a, int b) { return s.free_whole(a) > s.free_whole(b); });
    return Fill(s, nodes, job.gpus);
  }
};

class FirstFit final : public WholeGpuPlacement {
  std::optional<Allocation> PlaceWhole(const ClusterState& s, const JobSpec& job, std::vector<int> nodes,
                                       Rng&) const override {
    return Fill(s, nodes, job.gpus);
  }
};

class BestFit final : public WholeGpuPlacement {
  std::optional<Allocation> PlaceWhole(const ClusterState& s, const JobSpec& job, std::vector<int> nodes,
                                       Rng&) const override {
    if (int n = BestSingleNode(s, nodes, job.gpus); n >= 0) return Fill(s, {n}, job.gpus);
    std::stable_sort(nodes.begin(), nodes.end(),
                     [&](int a, int b) { return s.free_whole(a) < s.free_whole(b); });
    return Fill(s, nodes, job.gpus);
  }
};

class RandomPlacement final : public WholeGpuPlacement {
  std::vector<int> ShareOrder(const ClusterState& s, Rng& rng) const override {
    std::vector<int> v = AllNodes(s);
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.NextBelow(i)]);
    return v;
  }
  // Draws the job's GPUs uniformly among the free GPUs of the type (partial Fisher-Yates).
  std::optional<Allocation> PlaceWhole(const ClusterState& s, const JobSpec& job, std::vector<int> nodes,
                                       Rng& rng) const override {
    std::vector<GpuGrant> free;
    for (int n : nodes)
      for (int g = 0; g < s.spec().nodes()[n].gpus; ++g)
        if (s.free_milli(n, g) == 1000) free.push_back({n, static_cast<int16_t>(g), 1000});
    if (static_cast<int>(free.size()) < job.gpus) return std::nullopt;
    Allocation a;
    for (int i = 0; i < job.gpus; ++i) {
      std::swap(free[i], free[i + rng.NextBelow(free.size() - i)]);
      a.grants.push_back(free[i]);
    }
    Normalise(a);
    return a;
  }
};

class Spread final : public WholeGpuPlacement {
  // One GPU per node per round, over the nodes with the most free GPUs first.
  std::optional<Allocation> PlaceWhole(const ClusterState& s, const JobSpec& job, std::vector<int> nodes,
                                       Rng&) const override {
    std::stable_sort(nodes.begin(), nodes.end(),
                     [&](int a, int b) { return s.free_whole(a) > s.free_whole(b); });
    std::vector<int> take(nodes.size(), 0);
    int left = job.gpus;
    for (bool progress = true; left > 0 && progress;) {
      progress = false;
      for (size_t i = 0; i < nodes.size() && left > 0; ++i)
        if (take[i] < s.free_whole(nodes[i])) ++take[i], --left, progress = true;
    }
    if (left > 0) return std::nullopt;
    Allocation a;
    for (size_t i = 0; i < nodes.size(); ++i) TakeWhole(s, nodes[i], take[i], a);
    Normalise(a);
    return a;
  }
};

}  // namespace

void RegisterBuiltinPlacements(PlacementRegistry& reg) {
  reg.RegisterBuiltin("consolidated",
                      "fewest nodes: the best-fitting single node, else the emptiest nodes first",
                      [] { return std::make_unique<Consolidated>(); });
  reg.RegisterBuiltin("first-fit", "nodes in order, taking free GPUs until the job is covered",
                      [] { return std::make_unique<FirstFit>(); });
  reg.RegisterBuiltin("best-fit", "the single node with the least left over, else the fullest nodes first",
                      [] { return std::make_unique<BestFit>(); });
  reg.RegisterBuiltin("random", "free GPUs drawn uniformly at random (seeded)",
                      [] { return std::make_unique<RandomPlacement>(); });
  reg.RegisterBuiltin("spread", "one GPU per node, round-robin over the nodes with the most free GPUs",
                      [] { return std::make_unique<Spread>(); });
}

const PlacementRegistry& BuiltinPlacements() {
  static const PlacementRegistry* reg = [] {
    auto* r = new PlacementRegistry("cluster-placement");
    RegisterBuiltinPlacements(*r);
    return r;
  }();
  return *reg;
}

}  // namespace dlsim::cluster

#include "dlsim/hw/mig.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>

#include "dlsim/core/strings.h"

namespace dlsim::hw {
namespace {

std::string SliceList(const std::vector<int>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "}";
}

std::string ProfileNames(const GpuSpec& gpu) {
  std::string s;
  for (const auto& p : gpu.mig) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

Status RequireMig(const GpuSpec& gpu) {
  if (gpu.mig.empty()) return Error::InvalidArgument("GPU '" + gpu.name + "' has no MIG profiles");
  return Status::Ok();
}

Result<int> FindProfileIndex(const GpuSpec& gpu, const std::string& name) {
  for (size_t i = 0; i < gpu.mig.size(); ++i) {
    if (gpu.mig[i].name == name) return static_cast<int>(i);
  }
  return Error::InvalidArgument("GPU '" + gpu.name + "' has no MIG profile '" + name +
                                "'; known: " + ProfileNames(gpu));
}

bool Allowed(const MigProfile& p, int start) {
  return std::find(p.start_slices.begin(), p.start_slices.end(), start) != p.start_slices.end() &&
         start + p.memory_slices <= kMigMemorySlices;
}

// Profile indices from the largest instance to the smallest (compute, then memory slices).
std::vector<int> BySize(const GpuSpec& gpu) {
  std::vector<int> order(gpu.mig.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const MigProfile &x = gpu.mig[a], &y = gpu.mig[b];
    if (x.compute_slices != y.compute_slices) return x.compute_slices > y.compute_slices;
    return x.memory_slices > y.memory_slices;
  });
  return order;
}

// Depth-first placement over memory slices in order: at slice `at` either leave it free or
// start an instance of a profile whose remaining count is positive. `visit` sees every complete
// placement (all of `left` used when `exact`, any subset otherwise); it returns false to stop.
struct Placer {
  const GpuSpec& gpu;
  std::vector<int> left;  // instances still to place, per profile
  bool exact;
  std::vector<MigInstance> cur;
  int compute = 0;

  template <typename Visit>
  bool Run(int at, Visit&& visit) {
    if (at >= kMigMemorySlices) {
      if (exact && std::any_of(left.begin(), left.end(), [](int n) { return n > 0; })) return true;
      return visit(cur);
    }
    for (size_t p = 0; p < gpu.mig.size(); ++p) {
      const MigProfile& prof = gpu.mig[p];
      if (left[p] <= 0 || !Allowed(prof, at) || compute + prof.compute_slices > kMigComputeSlices) continue;
      --left[p];
      compute += prof.compute_slices;
      cur.push_back({static_cast<int>(p), at});
      const bool go_on = Run(at + prof.memory_slices, visit);
      cur.pop_back();
      compute -= prof.compute_slices;
      ++left[p];
      if (!go_on) return false;
    }
    return Run(at + 1, visit);
  }
};

Error NoPlacement(const GpuSpec& gpu, const std::vector<int>& counts) {
  int compute = 0, memory = 0;
  std::string starts;
  for (size_t p = 0; p < counts.size(); ++p) {
    if (counts[p] == 0) continue;
    const MigProfile& prof = gpu.mig[p];
    if (counts[p] > prof.max_instances)
      return Error::Infeasible(std::to_string(counts[p]) + " instances of " + prof.name + " on " + gpu.name +
                               ": at most " + std::to_string(prof.max_instances) + " fit");
    compute += counts[p] * prof.compute_slices;
    memory += counts[p] * prof.memory_slices;
    starts += (starts.empty() ? "" : ", ") + prof.name + " at " + SliceList(prof.start_slices);
  }
  if (compute > kMigComputeSlices)
    return Error::Infeasible("the instances need " + std::to_string(compute) +
                             " compute slices; the GPU has 7");
  if (memory > kMigMemorySlices)
    return Error::Infeasible("the instances need " + std::to_string(memory) +
                             " memory slices; the GPU has 8");
  return Error::Infeasible("no placement of these instances avoids overlapping memory slices (" + starts +
                           ")");
}

std::string Name(const GpuSpec& gpu, const std::vector<int>& counts) {
  std::string s;
  for (int p : BySize(gpu)) {
    if (counts[p] == 0) continue;
    if (!s.empty()) s += "+";
    if (counts[p] > 1) s += std::to_string(counts[p]) + "x";
    s += gpu.mig[p].name;
  }
  return s;
}

// Checks one instance of an explicit placement against the slices already taken.
Status CheckInstance(const GpuSpec& gpu, const MigInstance& in, std::vector<int>& owner) {
  if (in.profile < 0 || in.profile >= static_cast<int>(gpu.mig.size()))
    return Error::InvalidArgument("MIG profile index " + std::to_string(in.profile) + " is out of range 0.." +
                                  std::to_string(gpu.mig.size() - 1));
  const MigProfile& p = gpu.mig[in.profile];
  if (!Allowed(p, in.start))
    return Error::Infeasible(p.name + " cannot start at memory slice " + std::to_string(in.start) +
                             "; allowed: " + SliceList(p.start_slices));
  for (int s = in.start; s < in.start + p.memory_slices; ++s) {
    if (owner[s] >= 0)
      return Error::Infeasible(p.name + "@" + std::to_string(in.start) + " overlaps " +
                               gpu.mig[owner[s]].name + " at memory slice " + std::to_string(s));
    owner[s] = in.profile;
  }
  return Status::Ok();
}

}  // namespace

MigPartition MakeMigPartition(const GpuSpec& gpu, std::vector<MigInstance> instances) {
  MigPartition m;
  std::sort(instances.begin(), instances.end(),
            [](const MigInstance& a, const MigInstance& b) { return a.start < b.start; });
  m.counts_.assign(gpu.mig.size(), 0);
  for (const auto& p : gpu.mig) m.profile_names_.push_back(p.name);
  for (const MigInstance& in : instances) {
    ++m.counts_[in.profile];
    m.compute_slices_ += gpu.mig[in.profile].compute_slices;
    m.memory_slices_ += gpu.mig[in.profile].memory_slices;
  }
  m.instances_ = std::move(instances);
  m.name_ = Name(gpu, m.counts_);
  return m;
}

std::string MigPartition::PlacementString() const {
  std::string s;
  for (const MigInstance& in : instances_)
    s += (s.empty() ? "" : " ") + profile_names_[in.profile] + "@" + std::to_string(in.start);
  return s;
}

Result<MigPartition> MigPartition::Place(const GpuSpec& gpu, const std::vector<std::string>& profiles) {
  DLSIM_RETURN_IF_ERROR(RequireMig(gpu));
  if (profiles.empty()) return Error::InvalidArgument("a MIG partition needs at least one instance");
  std::vector<int> counts(gpu.mig.size(), 0);
  for (const std::string& name : profiles) {
    DLSIM_ASSIGN_OR_RETURN(int p, FindProfileIndex(gpu, name));
    ++counts[p];
  }
  for (size_t p = 0; p < counts.size(); ++p) {
    if (counts[p] > gpu.mig[p].max_instances) return NoPlacement(gpu, counts);
  }
  Placer placer{gpu, counts, /*exact=*/true, {}, 0};
  std::vector<MigInstance> found;
  placer.Run(0, [&](const std::vector<MigInstance>& cur) {
    found = cur;
    return false;
  });
  if (found.empty()) return NoPlacement(gpu, counts);
  return MakeMigPartition(gpu, std::move(found));
}

Result<MigPartition> MigPartition::FromInstances(const GpuSpec& gpu, std::vector<MigInstance> instances) {
  DLSIM_RETURN_IF_ERROR(RequireMig(gpu));
  if (instances.empty()) return Error::InvalidArgument("a MIG partition needs at least one instance");
  std::vector<int> owner(kMigMemorySlices, -1);
  std::vector<int> counts(gpu.mig.size(), 0);
  int compute = 0;
  for (const MigInstance& in : instances) {
    DLSIM_RETURN_IF_ERROR(CheckInstance(gpu, in, owner));
    ++counts[in.profile];
    compute += gpu.mig[in.profile].compute_slices;
  }
  for (size_t p = 0; p < counts.size(); ++p) {
    if (counts[p] > gpu.mig[p].max_instances) return NoPlacement(gpu, counts);
  }
  if (compute > kMigComputeSlices) return NoPlacement(gpu, counts);
  return MakeMigPartition(gpu, std::move(instances));
}

namespace {

// Partitions of `legal` to which no profile with a positive `limit` can be added.
std::vector<MigPartition> Select(const GpuSpec& gpu,
                                 const std::map<std::vector<int>, std::vector<MigInstance>>& legal,
                                 const std::vector<int>& limit, bool maximal_only) {
  std::vector<MigPartition> out;
  for (const auto& [counts, placement] : legal) {
    bool maximal = true;
    for (size_t p = 0; p < counts.size() && maximal; ++p) {
      std::vector<int> more = counts;
      ++more[p];
      if (limit[p] > 0 && legal.count(more)) maximal = false;
    }
    if (!maximal_only || maximal) out.push_back(MakeMigPartition(gpu, placement));
  }
  return out;
}

// Largest instances first: the size-ordered instance lists compared lexicographically.
void SortBySize(const GpuSpec& gpu, std::vector<MigPartition>& parts) {
  const std::vector<int> order = BySize(gpu);
  auto key = [&](const MigPartition& m) {
    std::vector<int> k;
    for (size_t rank = 0; rank < order.size(); ++rank)
      for (int i = 0; i < m.counts()[order[rank]]; ++i) k.push_back(-static_cast<int>(rank));
    return k;
  };
  std::stable_sort(parts.begin(), parts.end(),
                   [&](const MigPartition& a, const MigPartition& b) { return key(a) > key(b); });
}

}  // namespace

Result<std::vector<MigPartition>> EnumerateMigPartitions(const GpuSpec& gpu,
                                                         const MigEnumerateOptions& options) {
  DLSIM_RETURN_IF_ERROR(RequireMig(gpu));
  std::vector<int> limit(gpu.mig.size(), 0);
  if (options.profiles.empty()) {
    for (size_t p = 0; p < gpu.mig.size(); ++p) limit[p] = gpu.mig[p].max_instances;
  }
  for (const std::string& name : options.profiles) {
    DLSIM_ASSIGN_OR_RETURN(int p, FindProfileIndex(gpu, name));
    limit[p] = gpu.mig[p].max_instances;
  }
  std::map<std::vector<int>, std::vector<MigInstance>> legal;  // counts -> first placement
  Placer placer{gpu, limit, /*exact=*/false, {}, 0};
  placer.Run(0, [&](const std::vector<MigInstance>& cur) {
    if (cur.empty()) return true;
    std::vector<int> counts(gpu.mig.size(), 0);
    for (const MigInstance& in : cur) ++counts[in.profile];
    legal.emplace(std::move(counts), cur);
    return true;
  });
  std::vector<MigPartition> out = Select(gpu, legal, limit, options.maximal_only);
  SortBySize(gpu, out);
  return out;
}

const MigProfile* WholeGpuMigProfile(const GpuSpec& gpu) {
  const MigProfile* best = nullptr;
  for (const auto& p : gpu.mig) {
    if (p.compute_slices == kMigComputeSlices && (!best || p.memory_slices > best->memory_slices)) best = &p;
  }
  return best;
}

int MigModeSms(const GpuSpec& gpu) {
  const MigProfile* p = WholeGpuMigProfile(gpu);
  return p ? p->sms : 0;
}

GpuSpec MigInstanceSpec(const GpuSpec& gpu, const MigProfile& profile) {
  GpuSpec s = gpu;
  s.name = gpu.name + "/" + profile.name;
  s.aliases.clear();
  s.mig.clear();
  const double sm_share = static_cast<double>(profile.sms) / gpu.sm_count;
  const double mem_share = static_cast<double>(profile.memory_slices) / kMigMemorySlices;
  for (auto& peak : s.dense_peak) peak = peak * sm_share;
  s.sm_count = profile.sms;
  s.hbm_capacity = profile.memory;
  s.hbm_bandwidth = gpu.hbm_bandwidth * mem_share;
  s.l2_size = gpu.l2_size * mem_share;
  s.l2_bandwidth = gpu.l2_bandwidth * mem_share;
  s.nvlink_bandwidth = BytesPerSecond(0);
  s.nvls = false;
  return s;
}

}  // namespace dlsim::hw

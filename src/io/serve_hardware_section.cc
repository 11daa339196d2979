#include "serve_hardware_section.h"

#include <string>
#include <vector>

#include "dlsim/hw/mig.h"
#include "dlsim/hw/sm_clock.h"
#include "dlsim/io/limits.h"

namespace dlsim::io::internal {
namespace {

// hardware.mig: a partition of every GPU into instances of one profile, each instance a replica
// (tp 1, pp 1); `replicas` counts the partitioned GPUs. The device becomes the instance
// (hw::MigInstanceSpec: its SMs, memory, bandwidth and L2 share).
void ReadServeMig(const MapReader& h, serve::ServeOptions& o) {
  const std::vector<std::string> mig = h.FindList<std::string>("mig").value_or(std::vector<std::string>{});
  if (mig.empty()) return h.AddError("mig", "expected a list of MIG profiles, e.g. [3g.40gb, 3g.40gb]");
  Result<hw::MigPartition> part = hw::MigPartition::Place(o.gpu, mig);
  if (!part.ok()) return h.AddError("mig", part.error().message);
  for (const std::string& name : mig) {
    if (name != mig[0])
      return h.AddError("mig", "instances of different profiles (" + mig[0] + ", " + name +
                                   ") would be replicas of different speeds; give one profile");
  }
  if (o.hardware.tp != 1 || o.hardware.pp != 1)
    return h.AddError("mig", "MIG instances do not share NVLink: each instance is one replica (tp 1, pp 1)");
  const int64_t replicas = static_cast<int64_t>(o.hardware.replicas) * part->size();
  if (replicas > serve::kMaxReplicas)
    return h.AddError("mig", std::to_string(replicas) + " replicas (" + std::to_string(o.hardware.replicas) +
                                 " GPUs x " + std::to_string(part->size()) + " instances); at most " +
                                 std::to_string(serve::kMaxReplicas));
  o.hardware.replicas = static_cast<int>(replicas);
  o.gpu = hw::MigInstanceSpec(o.gpu, *o.gpu.FindMigProfile(mig[0]));
}

}  // namespace

void ReadServeHardware(const MapReader& h, const hw::Catalog& hardware, serve::ServeOptions& o) {
  const std::string gpu = h.Get<std::string>("gpu", "a100-sxm4-80gb");
  if (auto g = hardware.FindGpu(gpu); g.ok())
    o.gpu = **g;
  else
    h.AddError("gpu", g.error().message);
  o.hardware.tp = h.Get<int>("tp", 1, limits::kServeDegree);
  o.hardware.pp = h.Get<int>("pp", 1, limits::kServeDegree);
  o.hardware.ep = h.Get<int>("ep", 1, limits::kServeDegree);
  o.hardware.replicas = h.Get<int>("replicas", 1, limits::kServeReplicas);
  o.hardware.memory_margin = h.Get<double>("memory_margin", 0.1, limits::kMemoryMargin);
  if (auto mhz = h.Find<double>("sm_clock_mhz", limits::kSmClockMhz)) {
    o.hardware.sm_clock_mhz = *mhz;
    if (Status locked = o.gpu.name.empty() ? Status() : hw::LockSmClock(*mhz, o.gpu); !locked.ok())
      h.AddError("sm_clock_mhz", locked.error().message);
  }
  if (h.Has("mig") && !o.gpu.name.empty()) ReadServeMig(h, o);  // the instances of the (locked) GPU
  h.Finish();
}

void CheckServeLayout(const serve::ServeOptions& o, const MapReader& h, const Document& doc) {
  if (o.model.heads % o.hardware.tp != 0 || o.model.kv_heads % o.hardware.tp != 0) {
    doc.AddError(h.LocationOf("tp"), h.PathOf("tp"),
                 "tp " + std::to_string(o.hardware.tp) + " does not divide the model's " +
                     std::to_string(o.model.heads) + " heads and " + std::to_string(o.model.kv_heads) +
                     " KV heads");
  }
  if (o.model.layers % o.hardware.pp != 0) {
    doc.AddError(h.LocationOf("pp"), h.PathOf("pp"),
                 "pp " + std::to_string(o.hardware.pp) + " does not divide the model's " +
                     std::to_string(o.model.layers) + " layers");
  }
}

}  // namespace dlsim::io::internal

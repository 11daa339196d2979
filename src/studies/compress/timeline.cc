// Pricing of compression options and the per-tensor timeline (include/dlsim/studies/compress/timeline.h).
#include "dlsim/studies/compress/timeline.h"

#include <algorithm>
#include <array>

namespace dlsim::compress {
namespace {

int GroupSize(const Testbed& bed, Scope s) {
  switch (s) {
    case Scope::kFlat:
      return bed.gpus();
    case Scope::kIntra:
      return bed.gpus_per_node;
    case Scope::kInter:
      return bed.nodes;
  }
  return 1;
}

}  // namespace

const char* ResourceName(Resource r) {
  switch (r) {
    case Resource::kCompute:
      return "compute";
    case Resource::kGpuComm:
      return "gpu-comm";
    case Resource::kCpu:
      return "cpu";
    case Resource::kHostComm:
      return "host-comm";
  }
  return "?";
}

Duration PassCost::Time(Bytes b) const {
  const Duration by_rate = b / rate;
  return std::max(floor, by_rate);
}

CostModel::CostModel(const Testbed& bed, const CompressorSpec& comp, const net::CollectiveModel& model)
    : bed_(bed), comp_(comp), model_(&model) {}

Duration CostModel::Forward(const std::vector<GradientTensor>& tensors) const {
  Duration total;
  for (const GradientTensor& t : tensors) total += t.backward_gap;
  return Seconds(total.ToSeconds() * bed_.forward_fraction);
}

Duration CostModel::Comm(net::Collective c, Bytes size, Scope scope, int per_node) const {
  net::Fabric f;
  f.intra_bw = bed_.intra_bw;
  f.pcie_only = true;  // no NVLS; intra links are plain point-to-point bandwidth
  const int k = bed_.gpus_per_node;
  net::GroupLayout g{.size = GroupSize(bed_, scope), .ranks_per_node = scope == Scope::kInter ? 1 : k};
  // The ranks of a machine that take part share its NIC.
  const int sharing = scope == Scope::kInter ? std::max(1, per_node) : k;
  f.inter_bw_per_gpu = bed_.nic_bw / static_cast<double>(sharing);
  return bed_.alpha + model_->Time(c, size, g, f);
}

Step CostModel::PriceCompression(const Op& op, Share& s, double full) const {
  const bool cpu = op.device == Device::kCpu;
  const DeviceCost& dev = cpu ? comp_.cpu : comp_.gpu;
  const double volume = op.kind == OpKind::kCompress ? 1.0 : s.pieces;
  const Bytes bytes = ByteCount(s.frac * full * volume * (cpu ? s.per_node : 1));
  const PassCost& pass = op.kind == OpKind::kCompress ? dev.compress : dev.decompress;
  const Resource r = cpu ? Resource::kCpu : (s.started_comm ? Resource::kGpuComm : Resource::kCompute);
  if (op.kind == OpKind::kDecompress) s.pieces = 1;
  s.on_host = cpu;
  return {r, pass.Time(bytes)};
}

Step CostModel::PriceComm(const Op& op, Share& s, double full) const {
  const int n = GroupSize(bed_, op.scope);
  const Bytes wire = ByteCount(s.frac * full * (op.compressed ? comp_.ratio : 1.0));
  const bool intra = op.scope == Scope::kIntra;
  using C = net::Collective;
  Duration time;
  switch (op.routine) {
    case Routine::kAllReduce:
      time = Comm(C::kAllReduce, wire, op.scope, s.per_node);
      break;
    case Routine::kReduceScatter:
      time = Comm(C::kReduceScatter, wire, op.scope, s.per_node);
      s.frac /= n;
      break;
    case Routine::kReduce:  // priced as a broadcast of the buffer (a pipelined ring reduce)
      time = Comm(C::kBroadcast, wire, op.scope, s.per_node);
      if (intra) s.per_node = 1;
      break;
    case Routine::kAllToAll:
      time = Comm(C::kAllToAll, wire, op.scope, s.per_node);
      s.frac /= n;
      s.pieces = n;
      break;
    case Routine::kGather:  // the root receives what an all-gather delivers
      time = Comm(C::kAllGather, wire * n, op.scope, s.per_node);
      if (intra) s.per_node = 1;
      s.pieces = n;
      break;
    case Routine::kAllGather:
      time = Comm(C::kAllGather, wire * n, op.scope, s.per_node);
      if (op.role == StepRole::kSecond) {
        s.frac *= n;
      } else {
        s.pieces = n;
      }
      break;
    case Routine::kBroadcast:
      time = Comm(C::kBroadcast, wire, op.scope, s.per_node);
      if (intra) s.per_node = bed_.gpus_per_node;
      break;
  }
  s.started_comm = true;
  return {op.compressed && s.on_host ? Resource::kHostComm : Resource::kGpuComm, time};
}

StepList CostModel::Price(const GradientTensor& t, const Option& o) const {
  StepList steps;
  Share s{.per_node = bed_.gpus_per_node};
  const double full = t.bytes().ToBytes();
  for (const Op& op : o.ops)
    steps.push_back(op.kind == OpKind::kComm ? PriceComm(op, s, full) : PriceCompression(op, s, full));
  return steps;
}

Timeline Simulate(const std::vector<GradientTensor>& tensors, const std::vector<const StepList*>& steps,
                  Duration forward) {
  Timeline tl;
  tl.forward = forward;
  tl.busy.assign(kResources, Duration::Zero());
  std::array<Duration, kResources> free{};
  Duration last_done;
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto& compute = free[static_cast<int>(Resource::kCompute)];
    compute += tensors[i].backward_gap;
    TensorTimes times;
    times.ready = compute;
    Duration t = compute;
    bool first_comm = true;
    for (const Step& st : *steps[i]) {
      const int r = static_cast<int>(st.resource);
      if (st.resource == Resource::kGpuComm && first_comm) {
        times.bubble_before = free[r] < t || (i == 0 && free[r] <= t);
        first_comm = false;
      }
      const Duration start = std::max(t, free[r]);
      t = start + st.time;
      free[r] = t;
      tl.busy[r] += st.time;
    }
    times.done = t;
    if (times.bubble_before) tl.last_bubble = static_cast<int>(i);
    last_done = std::max(last_done, t);
    tl.tensors.push_back(times);
  }
  tl.backward_end = free[static_cast<int>(Resource::kCompute)];
  tl.iteration = forward + std::max(tl.backward_end, last_done);
  return tl;
}

}  // namespace dlsim::compress

#include "algorithms.h"

#include <algorithm>
#include <cmath>

namespace dlsim::net::internal {
namespace {

Link MakeLink(double peak, double wire_latency, const LinkCalibration* cal) {
  Link l;
  l.peak = peak;
  l.alpha = wire_latency;
  if (cal != nullptr) {
    l.efficiency = cal->efficiency;
    l.ramp_half = cal->ramp_half_size.ToBytes();
    l.ramp_exponent = cal->ramp_exponent;
    l.alpha += cal->step_latency.ToSeconds();
    l.small_group_loss = cal->small_group_loss;
  }
  return l;
}

// Ring over the ranks of one node (intra link), for the phases of hierarchical algorithms.
GroupLinks SingleNode(const GroupLinks& l, int ranks) {
  GroupLinks one = l;
  one.n = ranks;
  one.r = ranks;
  one.nodes = 1;
  return one;
}

// One rank per node on N nodes: every rank drives its own NIC (one rail).
GroupLinks OnePerNode(const GroupLinks& l, int nodes) {
  GroupLinks rail = l;
  rail.n = nodes;
  rail.r = 1;
  rail.nodes = nodes;
  return rail;
}

}  // namespace

double Link::Bandwidth(double msg) const {
  double bw = peak * efficiency;
  if (ramp_half > 0 && msg > 0) {
    const double x = std::pow(msg, ramp_exponent);
    bw *= x / (x + std::pow(ramp_half, ramp_exponent));
  }
  return bw;
}

Link GroupLinks::RingLink() const {
  if (nodes <= 1) {
    Link l = intra;
    l.efficiency *= 1.0 - l.small_group_loss / (static_cast<double>(n) * n);
    return l;
  }
  Link l = inter;
  l.peak = inter.peak * r;
  if (r > 1 && intra.peak * intra.efficiency < l.peak * l.efficiency) {
    l.peak = intra.peak;
    l.efficiency = intra.efficiency;
  }
  l.alpha = std::max(intra.alpha, inter.alpha);
  return l;
}

GroupLinks Resolve(const GroupLayout& g, const Fabric& f, const NetworkCalibration* cal) {
  GroupLinks l;
  l.n = std::max(1, g.size);
  l.r = std::clamp(g.ranks_per_node, 1, l.n);
  l.nodes = (l.n + l.r - 1) / l.r;
  const LinkCalibration* intra_cal = cal ? &cal->Intra(f.architecture, f.pcie_only) : nullptr;
  const LinkCalibration* inter_cal = cal ? &cal->inter_node : nullptr;
  l.intra = MakeLink(f.intra_bw.ToBytesPerSecond(), f.intra_latency.ToSeconds(), intra_cal);
  const double oversub = std::max(1.0, f.oversubscription);
  l.inter = MakeLink(f.inter_bw_per_gpu.ToBytesPerSecond() / oversub, f.inter_latency.ToSeconds(), inter_cal);
  l.nvls = f.nvls && !f.pcie_only;
  if (cal != nullptr) {
    l.nvls_efficiency = cal->nvls_efficiency;
    l.tree_efficiency = cal->tree_efficiency;
    l.launch = cal->launch_overhead.ToSeconds();
  }
  return l;
}

double RingAllReduce(double s, const GroupLinks& l) {
  const Link link = l.RingLink();
  const double n = l.n;
  return 2 * (n - 1) * link.alpha + 2 * (n - 1) / n * s / link.Bandwidth(s);
}

double TreeAllReduce(double s, const GroupLinks& l) {
  Link link = l.RingLink();
  link.efficiency *= l.tree_efficiency;
  const double depth = std::ceil(std::log2(static_cast<double>(l.nodes)));
  const double steps_latency = depth * l.inter.alpha + (l.r - 1) * l.intra.alpha;
  return 2 * steps_latency + 2 * s / link.Bandwidth(s);
}

double NvlsAllReduce(double s, const GroupLinks& l) {
  const double n = l.n;
  Link link = l.intra;
  link.efficiency = l.nvls_efficiency;
  return 2 * l.intra.alpha + (n + 1) / n * s / link.Bandwidth(s);
}

double HierAllReduce(double s, const GroupLinks& l) {
  const GroupLinks node = SingleNode(l, l.r);
  const double shard = s / l.r;
  return 2 * RingGather(s, node) + RingAllReduce(shard, OnePerNode(l, l.nodes));
}

double RingGather(double s, const GroupLinks& l) {
  const Link link = l.RingLink();
  const double n = l.n;
  return (n - 1) * link.alpha + (n - 1) / n * s / link.Bandwidth(s);
}

double RingBroadcast(double s, const GroupLinks& l) {
  const Link link = l.RingLink();
  return (l.n - 1) * link.alpha + s / link.Bandwidth(s);
}

double AllToAll(double s, const GroupLinks& l) {
  const double n = l.n;
  const double per_peer = s / n;
  const double intra_bytes = (l.r - 1) / n * s;
  const double inter_bytes = (n - l.r) / n * s;
  double t = intra_bytes > 0 ? intra_bytes / l.intra.Bandwidth(per_peer) : 0;
  if (inter_bytes > 0) t = std::max(t, inter_bytes / l.inter.Bandwidth(per_peer));
  const double alpha = l.nodes > 1 ? std::max(l.intra.alpha, l.inter.alpha) : l.intra.alpha;
  return alpha + t;
}

double SendRecv(double s, const GroupLinks& l) {
  const Link& link = l.r >= 2 ? l.intra : l.inter;
  return link.alpha + s / link.Bandwidth(s);
}

}  // namespace dlsim::net::internal

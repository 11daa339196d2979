// Per-algorithm collective times (private to dlsim_net). All results are in seconds (double);
// the models convert once to Duration so sums of phases round the same way as the whole.
//
// Notation: S message bytes (nccl-tests convention), n ranks, r ranks per node, N = n / r nodes.
// Formulas: docs/network-model.md.
#ifndef DLSIM_SRC_NET_ALGORITHMS_H_
#define DLSIM_SRC_NET_ALGORITHMS_H_

#include "dlsim/core/units.h"
#include "dlsim/net/calibration.h"
#include "dlsim/net/collective.h"

namespace dlsim::net::internal {

// One class of link as a group sees it.
struct Link {
  double peak = 0;          // bytes/s per direction per GPU
  double efficiency = 1.0;  // achievable fraction of `peak` for large messages
  double ramp_half = 0;     // bytes; 0 = no small-message ramp
  double ramp_exponent = 1.0;
  double alpha = 0;  // seconds per algorithm step (wire + software)
  double small_group_loss = 0;

  // Achieved bandwidth (bytes/s) for a message of `msg` bytes.
  double Bandwidth(double msg) const;
};

// The links and constants a collective on one group uses.
struct GroupLinks {
  int n = 1, r = 1, nodes = 1;
  Link intra, inter;  // inter.peak already divided by the oversubscription
  bool nvls = false;
  double nvls_efficiency = 1.0;
  double tree_efficiency = 1.0;
  double launch = 0;  // seconds per collective

  // The link that bounds a flat ring over the group: NVLink inside one node; across nodes the
  // slower of NVLink and the r NICs of a node's ranks (each rank drives its own rail).
  Link RingLink() const;
};

// `cal` null: ideal (100% efficiency, no ramp, wire latencies, no launch cost).
GroupLinks Resolve(const GroupLayout& g, const Fabric& f, const NetworkCalibration* cal);

double RingAllReduce(double s, const GroupLinks& l);
double TreeAllReduce(double s, const GroupLinks& l);  // double binary tree over nodes, chain inside
double NvlsAllReduce(double s, const GroupLinks& l);  // single node, NVSwitch multimem reduction
double HierAllReduce(double s, const GroupLinks& l);  // intra RS, inter AR per rail on S/r, intra AG
double RingGather(double s, const GroupLinks& l);     // reduce-scatter or all-gather
double RingBroadcast(double s, const GroupLinks& l);
double AllToAll(double s, const GroupLinks& l);
double SendRecv(double s, const GroupLinks& l);

}  // namespace dlsim::net::internal

#endif  // DLSIM_SRC_NET_ALGORITHMS_H_

// Espresso's empirical timeline (EuroSys'23 section 4.3): the backward compute, communication and
// compression of every gradient tensor under a compression strategy, with their overlaps.
//
// Four resources, each serving tensors in gradient-ready order (BytePS's priority order):
//   compute   - the GPU's backward pass; GPU compressions that come before a tensor's first collective run
//               here and delay the rest of the backward pass (compression contends with compute);
//   gpu-comm  - the GPU communication stream (NCCL); GPU (de)compressions after a collective run here,
//               serially with the tensor's collectives (they wait for the data);
//   cpu       - the machine's CPUs (one stream per machine, handling all of its GPUs' shares);
//   host-comm - collectives on compressed data held in host memory (BytePS-style CPU push/pull).
// Host-device copies and the NIC shared between gpu-comm and host-comm are not modelled.
//
//   compress::CostModel cost(testbed, compressor, collective_model);
//   std::vector<compress::StepList> steps = ...;           // cost.Price(tensor, option) per tensor
//   compress::Timeline tl = compress::Simulate(tensors, steps, cost.Forward(tensors));
#ifndef DLSIM_STUDIES_COMPRESS_TIMELINE_H_
#define DLSIM_STUDIES_COMPRESS_TIMELINE_H_

#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/net/collective.h"
#include "dlsim/studies/compress/inputs.h"
#include "dlsim/studies/compress/option_tree.h"

namespace dlsim::compress {

enum class Resource { kCompute, kGpuComm, kCpu, kHostComm };
inline constexpr int kResources = 4;
const char* ResourceName(Resource r);

struct Step {
  Resource resource = Resource::kGpuComm;
  Duration time;
  bool operator==(const Step&) const = default;
};
using StepList = std::vector<Step>;

// Prices one option for one tensor with alpha-beta collectives (alpha per call plus the collective
// model's time on the testbed's links) and the compressor's per-device costs. Borrows `model`.
class CostModel {
 public:
  CostModel(const Testbed& bed, const CompressorSpec& comp, const net::CollectiveModel& model);
  StepList Price(const GradientTensor& t, const Option& o) const;
  // Forward time: testbed.forward_fraction x the total traced backward time.
  Duration Forward(const std::vector<GradientTensor>& tensors) const;
  const Testbed& testbed() const { return bed_; }

 private:
  // What one rank holds while its tensor is synchronised.
  struct Share {
    double frac = 1;   // share of the tensor, in fp32 elements / total
    int per_node = 1;  // ranks per machine still taking part
    int pieces = 1;    // compressed pieces received that the next decompression aggregates
    bool on_host = false;
    bool started_comm = false;
  };
  Step PriceComm(const Op& op, Share& s, double full) const;
  Step PriceCompression(const Op& op, Share& s, double full) const;
  Duration Comm(net::Collective c, Bytes size, Scope scope, int per_node) const;
  Testbed bed_;
  CompressorSpec comp_;
  const net::CollectiveModel* model_;
};

struct TensorTimes {
  Duration ready;              // its gradient is computed
  Duration done;               // its synchronisation is complete
  bool bubble_before = false;  // the gpu-comm stream was idle when its first collective could start
};

struct Timeline {
  Duration forward, backward_end, iteration;  // iteration = forward + max(backward_end, last done)
  std::vector<TensorTimes> tensors;
  // Index of the last tensor with a bubble before it (0 when none): tensors before it cannot gain
  // from compression (Espresso's property #1).
  int last_bubble = 0;
  std::vector<Duration> busy;  // per resource
};

// steps[i] are tensor i's steps. Precondition: steps.size() == tensors.size().
Timeline Simulate(const std::vector<GradientTensor>& tensors, const std::vector<const StepList*>& steps,
                  Duration forward);

}  // namespace dlsim::compress

#endif  // DLSIM_STUDIES_COMPRESS_TIMELINE_H_

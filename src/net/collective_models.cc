// The registered collective models: "nccl", "ring", "tree", "ideal".
#include <algorithm>
#include <memory>
#include <string>

#include "algorithms.h"
#include "dlsim/net/collective.h"

namespace dlsim::net {
namespace {

enum class AllReduceAlgo { kAuto, kRing, kTree };

// One class for every registered model: they differ in calibration (none for "ideal") and in
// which all-reduce algorithms they may choose from.
class AnalyticModel final : public CollectiveModel {
 public:
  AnalyticModel(std::string name, std::optional<NetworkCalibration> cal, AllReduceAlgo algo)
      : name_(std::move(name)), cal_(std::move(cal)), algo_(algo) {}

  Duration Time(Collective c, Bytes size, const GroupLayout& g, const Fabric& f) const override {
    const double s = size.ToBytes();
    if (g.size <= 1 || s <= 0) return Duration::Zero();
    const internal::GroupLinks l = internal::Resolve(g, f, cal_ ? &*cal_ : nullptr);
    return Seconds(l.launch + Body(c, s, l));
  }
  std::string_view name() const override { return name_; }

 private:
  double Body(Collective c, double s, const internal::GroupLinks& l) const {
    switch (c) {
      case Collective::kAllReduce:
        return AllReduce(s, l);
      case Collective::kReduceScatter:
      case Collective::kAllGather:
        return internal::RingGather(s, l);
      case Collective::kAllToAll:
        return internal::AllToAll(s, l);
      case Collective::kBroadcast:
        return internal::RingBroadcast(s, l);
      case Collective::kSendRecv:
        return internal::SendRecv(s, l);
    }
    return 0;
  }

  double AllReduce(double s, const internal::GroupLinks& l) const {
    switch (algo_) {
      case AllReduceAlgo::kRing:
        return internal::RingAllReduce(s, l);
      case AllReduceAlgo::kTree:
        return internal::TreeAllReduce(s, l);
      case AllReduceAlgo::kAuto:
        break;
    }
    // As NCCL's tuner: the fastest algorithm available on this layout.
    double t = internal::RingAllReduce(s, l);
    if (l.nodes > 1) {
      t = std::min(t, internal::TreeAllReduce(s, l));
      if (l.r > 1) t = std::min(t, internal::HierAllReduce(s, l));
    } else if (l.nvls && l.n > 2) {
      t = std::min(t, internal::NvlsAllReduce(s, l));
    }
    return t;
  }

  std::string name_;
  std::optional<NetworkCalibration> cal_;
  AllReduceAlgo algo_;
};

}  // namespace

void RegisterCollectiveModels(CollectiveRegistry& reg) {
  auto add = [&reg](const std::string& name, std::string description, AllReduceAlgo algo, bool calibrated) {
    if (reg.Contains(name)) return;
    reg.RegisterBuiltin(name, std::move(description), [name, algo, calibrated](const NetworkCalibration& c) {
      std::optional<NetworkCalibration> cal;
      if (calibrated) cal = c;
      return std::make_unique<AnalyticModel>(name, std::move(cal), algo);
    });
  };
  add("nccl",
      "NCCL-like: fastest of ring, double binary tree, NVLS (Hopper+, one node) and hierarchical "
      "(NVLink inside nodes, NICs across), with fitted bus efficiency",
      AllReduceAlgo::kAuto, true);
  add("ring", "Ring algorithms only (flat ring across nodes), with fitted bus efficiency",
      AllReduceAlgo::kRing, true);
  add("tree", "Double binary tree all-reduce (chain inside a node); ring for the other collectives",
      AllReduceAlgo::kTree, true);
  add("ideal", "Alpha-beta ring at 100% of link bandwidth with wire latencies only (closed-form tests)",
      AllReduceAlgo::kRing, false);
}

}  // namespace dlsim::net

#include "dlsim/data/data_policy.h"

#include <memory>
#include <string>

#include "policies.h"

namespace dlsim::data {
namespace {

using ScheduleFn = Result<StepData> (*)(const std::vector<int64_t>&, const DataShape&);

// A stateless policy backed by one schedule function.
class FunctionPolicy : public DataPolicy {
 public:
  FunctionPolicy(std::string_view name, ScheduleFn fn) : name_(name), fn_(fn) {}
  Result<StepData> Schedule(const std::vector<int64_t>& documents, const DataShape& shape) const override {
    return fn_(documents, shape);
  }
  std::string_view name() const override { return name_; }

 private:
  std::string_view name_;
  ScheduleFn fn_;
};

struct Builtin {
  std::string_view name;
  std::string_view description;
  ScheduleFn fn;
};

constexpr Builtin kBuiltins[] = {
    {"pad",
     "micro-batches of micro_batch documents, each padded to the longest (pad_to: max_len: to "
     "max_len); dense attention",
     internal::SchedulePad},
    {"pad_attention",
     "FasterTransformer's remove-padding: real tokens only through the per-token operators (GEMMs), "
     "attention over rows padded as pad pads them",
     internal::SchedulePadAttention},
    {"pack",
     "documents concatenated into seq_len rows (split at row ends), "
     "document-masked attention",
     internal::SchedulePack},
    {"pack_nomask",
     "Megatron-LM default packing: documents concatenated into seq_len rows, dense causal attention "
     "over the whole row (no document mask; the last row padded and attended)",
     internal::SchedulePackNoMask},
    {"padding_free",
     "ByteTransformer: only real tokens through every operator, attention per "
     "document",
     internal::SchedulePaddingFree},
    {"chunkflow",
     "ChunkFlow: fixed-size chunks (short documents packed, long ones split), state-aware scheduling",
     internal::ScheduleChunkFlow},
    {"skrull",
     "Skrull: long documents sharded over CP, short ones whole on one GPU under a token budget; "
     "global rebalancing",
     internal::ScheduleSkrull},
    {"wlb",
     "WLB-LLM: workload-balanced variable-length packing (tokens + attention per micro-batch), "
     "per-document CP sharding",
     internal::ScheduleWlb},
    {"distca",
     "DistCA: documents placed for equal tokens per replica and micro-batch, core attention split into "
     "tasks rebalanced over all GPUs",
     internal::ScheduleDistCa},
};

}  // namespace

void RegisterDataPolicies(DataPolicyRegistry& reg) {
  for (const Builtin& b : kBuiltins) {
    ScheduleFn fn = b.fn;
    std::string_view name = b.name;
    reg.RegisterBuiltin(std::string(b.name), std::string(b.description),
                        [name, fn] { return std::make_unique<FunctionPolicy>(name, fn); });
  }
}

}  // namespace dlsim::data

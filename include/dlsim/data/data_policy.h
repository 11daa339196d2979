// Batch/data policies: how a step's documents become micro-batches on data- and
// context-parallel ranks. Registry kind "data-policy" (dlsim list data-policy).
//
//   DataPolicyRegistry reg("data-policy");
//   RegisterDataPolicies(reg);
//   auto p = reg.Create("padding_free");
//   auto step = (*p)->Schedule(docs, shape);   // Result<StepData>
//
// Policies are stateless and thread-safe; randomness (if any) comes from shape.seed.
#ifndef DLSIM_DATA_DATA_POLICY_H_
#define DLSIM_DATA_DATA_POLICY_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"
#include "dlsim/data/step_data.h"

namespace dlsim::data {

// How far `pad` and `pad_attention` pad a document: to the longest document of its micro-batch
// (dynamic padding, what training loaders do) or to max_len (a fixed-shape engine's input, what
// inference benchmarks such as ByteTransformer's and FasterTransformer's feed).
enum class PadTo { kLongest, kMaxLen };

struct DataShape {
  int dp = 1;
  int cp = 1;
  int micro_batch = 1;    // sequences (rows) per micro-batch, nominal
  int micro_batches = 1;  // micro-batches per DP rank, nominal (policies may change it)
  // Length of one row (a packed sequence) BEFORE context-parallel splitting, as in the uniform
  // training model: a micro-batch holds micro_batch rows, and each GPU of a CP group holds
  // seq_len x micro_batch / cp tokens of it.
  int64_t seq_len = 2048;
  int64_t max_len = 0;     // documents longer than this are truncated (0: seq_len)
  int64_t chunk_size = 0;  // chunkflow: chunk length, one chunk = one row (0: seq_len)
  // Tokens one GPU may hold in a micro-batch. skrull: its per-GPU budget (0: seq_len x
  // micro_batch / cp, rounded up). wlb, distca: a micro-batch holds up to cp x token_budget
  // tokens (0: seq_len x micro_batch). Other policies ignore it.
  int64_t token_budget = 0;
  uint64_t seed = 1;
  // Added with the policies (docs/data.md):
  bool causal = true;  // false: bidirectional attention (BERT, the ByteTransformer workload)
  int chunk_keep = 1;  // chunkflow: K, chunks of a long sequence whose activations are kept
  // Workload estimate used by the balancers (skrull, wlb, chunkflow):
  //   work = tokens + attention_pairs / pairs_per_token.
  // 65536 reproduces WLB-LLM's per-document cost (l/128K)^2 + l/128K up to a constant factor,
  // since a document's causal attention is about l^2/2 pairs.
  double pairs_per_token = 65536;
  PadTo pad_to = PadTo::kLongest;  // pad, pad_attention: the padded width (max_len: the effective max_len)
};

class DataPolicy {
 public:
  virtual ~DataPolicy() = default;
  // Schedules the documents (token lengths, in sampling order) of one step. Errors
  // (kInvalidArgument): a non-positive length or shape field, a document that cannot fit
  // (skrull: longer than cp x token_budget after truncation).
  virtual Result<StepData> Schedule(const std::vector<int64_t>& documents, const DataShape& shape) const = 0;
  virtual std::string_view name() const = 0;
};

using DataPolicyRegistry = Registry<DataPolicy>;
// DistCA's own constant, not a shape field: its rebalancing stops filling a GPU once the GPU is within
// this fraction of the mean core-attention load (src/data/distca.cc).
inline constexpr double kDistcaTolerance = 0.02;

// pad, pad_attention, pack, pack_nomask, padding_free, chunkflow, skrull, wlb, distca.
void RegisterDataPolicies(DataPolicyRegistry& reg);

}  // namespace dlsim::data

#endif  // DLSIM_DATA_DATA_POLICY_H_

// Private helpers of the data policies: rows of document pieces,
// context-parallel sharding, validation and the workload estimate. Not part of
// the public API.
#ifndef DLSIM_SRC_DATA_LAYOUT_H_
#define DLSIM_SRC_DATA_LAYOUT_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/data/data_policy.h"
#include "dlsim/data/step_data.h"

namespace dlsim::data::internal {

// Query positions [begin, end) of one document (or of a padded row treated as
// one dense sequence). Causal: the queries see keys [0, end). Bidirectional:
// keys [0, span).
struct Segment {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t span = 0;
  int64_t size() const { return end - begin; }
};

// A sequence that context parallelism shards as one unit: segments laid end to
// end, then `padding` tokens that attend to nothing. Real tokens are the first
// `real_tokens` positions.
struct Row {
  std::vector<Segment> segments;
  int64_t padding = 0;
  int64_t real_tokens = 0;
  int64_t size() const;
};

inline Segment WholeDocument(int64_t l) { return {0, l, l}; }
inline double CausalPairs(int64_t l) { return static_cast<double>(l) * static_cast<double>(l + 1) / 2; }

// Appends a block, merging it with the last one when identical.
void AddBlock(Load& load, int64_t seq_q, int64_t seq_kv, bool causal);
// Puts the whole row on one GPU (no exchange).
void PlaceWhole(const Row& row, bool causal, Load& load);
// Shards the row over mb.cp: cp == 1 puts it whole on rank 0; otherwise the row
// is cut into 2cp near-equal pieces and rank r takes pieces r and 2cp-1-r
// (causal load balance), and each rank sends its K/V rows to the cp - 1 others
// (ring attention): cp_kv_tokens += (cp-1) x local.
void PlaceRow(const Row& row, bool causal, MicroBatch& mb);
// Tokens that rank r of cp gets from a row of n tokens under PlaceRow.
int64_t ZigzagShare(int64_t n, int cp, int rank);

MicroBatch NewMicroBatch(int cp);

// The validated, truncated documents of a step.
struct Prepared {
  std::vector<int64_t> docs;
  int truncated = 0;
  int64_t real_tokens = 0;
  int64_t max_len = 0;  // effective
};
// Errors (kInvalidArgument): a shape field out of range, a document length < 1.
Result<Prepared> Prepare(const std::vector<int64_t>& documents, const DataShape& shape);
// A StepData with dp empty ranks and the document totals of `p`.
StepData NewStep(const Prepared& p, const DataShape& shape);
// Drops empty micro-batches and sums computed_tokens.
void FinishStep(StepData& step);

// work = tokens + pairs / pairs_per_token (docs/data.md).
inline double Workload(double tokens, double pairs, const DataShape& s) {
  return tokens + pairs / s.pairs_per_token;
}
inline double DocumentWork(int64_t l, const DataShape& s) {
  return Workload(static_cast<double>(l), CausalPairs(l), s);
}

// Micro-batches per DP rank to start from: the nominal count, or more when the step's tokens exceed what
// that many micro-batches of `per_micro_batch` tokens hold.
int InitialMicroBatches(const Prepared& p, const DataShape& s, int64_t per_micro_batch);

// Indices of `docs` sorted by length, longest first (ties: sampling order).
std::vector<int> LongestFirst(const std::vector<int64_t>& docs);
// Item i of n, split contiguously over `parts`: [Begin(i), Begin(i+1)).
inline size_t PartBegin(size_t n, int parts, int i) {
  return n * static_cast<size_t>(i) / static_cast<size_t>(parts);
}

// Tokens one micro-batch of a CP group may hold under the variable-length policies (wlb, distca):
// cp x token_budget when token_budget is set (tokens per GPU), else seq_len x micro_batch (the
// rows of the uniform model, before CP splitting).
int64_t MicroBatchCapacity(const DataShape& shape);

// What PackBalanced balances: wlb's workload estimate (tokens + pairs / pairs_per_token), or
// tokens only (distca, whose attention is rebalanced afterwards).
enum class PackWeight { kWorkload, kTokens };

// Variable-length packing shared by wlb and distca: documents assigned longest first to the
// DP rank, then micro-batch, of least weight that still has room for MicroBatchCapacity(shape)
// tokens (a longer document gets a micro-batch of its own); every DP rank gets the same number
// of micro-batches, at least shape.micro_batches, more when the documents do not fit. Each
// document is sharded over CP on its own (PlaceRow per document). Empty micro-batches are kept
// (call FinishStep).
StepData PackBalanced(const Prepared& p, const DataShape& shape, PackWeight weight);

}  // namespace dlsim::data::internal

#endif  // DLSIM_SRC_DATA_LAYOUT_H_

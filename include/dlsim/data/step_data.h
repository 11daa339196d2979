// The contents of one training step, micro-batch by micro-batch: what every GPU computes.
//
// A data policy (data_policy.h) turns the documents drawn for a step into StepData; the
// training simulator (train/) prices each Load with the cost models, so padding waste,
// attention imbalance, pipeline stalls and data-parallel stragglers appear as they do in
// real runs.
#ifndef DLSIM_DATA_STEP_DATA_H_
#define DLSIM_DATA_STEP_DATA_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/units.h"

namespace dlsim::data {

// A group of identical core-attention blocks: `count` x (seq_q queries attending to seq_kv
// keys). Causal blocks are bottom-right aligned: query i attends to keys
// [0, seq_kv - seq_q + i] (pairs = seq_q * seq_kv - seq_q * (seq_q - 1) / 2).
struct AttentionBlock {
  int64_t seq_q = 0;
  int64_t seq_kv = 0;
  int64_t count = 1;
  bool causal = true;
  double Pairs() const;
};

// What one GPU of a context-parallel group computes for one micro-batch.
struct Load {
  int64_t tokens = 0;                     // tokens through every per-token operator (padding included)
  int64_t real_tokens = 0;                // of which real
  std::vector<AttentionBlock> attention;  // core attention of this GPU
  Bytes cp_bytes;                         // bytes this GPU exchanges with its CP peers (ring K/V, gathers)
  // Attention work that a disaggregating policy moved off this GPU to attention servers
  // (pairs), and the bytes it ships there and back; the policy already removed those blocks
  // from `attention`.
  Bytes attention_server_bytes;

  // Policies do not know the model, so they count TOKEN ROWS; ApplyTokenBytes() (or the
  // simulator) turns them into the two Bytes fields above, per layer. Policies leave the Bytes
  // fields zero.
  //
  // K/V rows this GPU sends to its CP peers per layer: ring attention over a sharded sequence
  // passes the local K/V piece to each of the cp - 1 peers, so (cp - 1) x local tokens of every
  // sharded sequence. Bytes = cp_kv_tokens x (K + V bytes of one token).
  int64_t cp_kv_tokens = 0;
  // Attention-server traffic (distca). For the blocks this GPU gave away: query rows whose Q
  // goes out and whose O comes back (each row crosses twice), and K/V rows shipped with them.
  // For the blocks it received: the same counts in the other direction.
  int64_t server_q_tokens_out = 0;
  int64_t server_kv_tokens_out = 0;
  int64_t server_q_tokens_in = 0;
  int64_t server_kv_tokens_in = 0;
  // chunkflow: K/V rows of the earlier chunks of this micro-batch's document that this GPU keeps
  // resident while the document's chunks run (its share of the prefix state: under CP, the sum of
  // its zigzag shares of those chunks). They are read by this chunk's attention (and already
  // counted in cp_kv_tokens when they travel the ring), held once per document rather than per
  // micro-batch in flight, with their gradients (dK, dV accumulate over the later chunks'
  // backward). Memory per layer: 2 x prefix_kv_tokens x (K + V bytes of one token).
  int64_t prefix_kv_tokens = 0;
};

// One micro-batch: the loads of the CP ranks, which run in lock step.
struct MicroBatch {
  std::vector<Load> cp;  // size = context-parallel degree
  int sequences = 0;     // rows (documents or packed sequences) in it
  // chunkflow: this chunk's activations are discarded after its forward pass and recomputed
  // before its backward pass (state-aware scheduling keeps only the last K chunks of a long
  // sequence), so the simulator adds one more forward of it.
  bool recompute = false;
  // chunkflow: the dependent chunks of one long document share a chain id (>= 0; -1: none). They are
  // consecutive micro-batches of one DP rank, in document order, and their backward passes run in
  // reverse order: a chunk's backward needs the dK, dV of its prefix from the later chunks' backward.
  int chain = -1;
};

struct StepData {
  std::vector<std::vector<MicroBatch>> dp;  // [data-parallel rank][micro-batch, in order]
  int64_t real_tokens = 0;                  // over the whole step
  int64_t computed_tokens = 0;              // padding included
  int documents = 0;
  int truncated = 0;  // documents cut to max_len
};

// Totals that tests and reports use.
double TotalAttentionPairs(const Load& l);
double TotalAttentionPairs(const MicroBatch& mb);  // over its CP ranks
double TotalAttentionPairs(const StepData& s);

// Sets every load's cp_bytes = cp_kv_tokens x kv_bytes_per_token and attention_server_bytes =
// (server_q_tokens_out + server_q_tokens_in) x q_bytes_per_token + max(server_kv_tokens_out,
// server_kv_tokens_in) x kv_bytes_per_token, per layer: the larger direction of a full-duplex link
// (a GPU sends Q of the tasks it gives away and O of the tasks it serves, and receives the others).
// kv_bytes_per_token covers K and V together (2 x kv_heads x head_dim x element bytes); q_bytes_per_token =
// heads x head_dim x element bytes.
void ApplyTokenBytes(StepData& step, Bytes kv_bytes_per_token, Bytes q_bytes_per_token);

}  // namespace dlsim::data

#endif  // DLSIM_DATA_STEP_DATA_H_

#include "dlsim/data/step_data.h"

#include <algorithm>

namespace dlsim::data {

double AttentionBlock::Pairs() const {
  double q = static_cast<double>(seq_q), kv = static_cast<double>(seq_kv);
  double one = causal ? q * kv - q * (q - 1) / 2 : q * kv;
  return one * static_cast<double>(count);
}

double TotalAttentionPairs(const Load& l) {
  double sum = 0;
  for (const AttentionBlock& b : l.attention) sum += b.Pairs();
  return sum;
}

double TotalAttentionPairs(const MicroBatch& mb) {
  double sum = 0;
  for (const Load& l : mb.cp) sum += TotalAttentionPairs(l);
  return sum;
}

double TotalAttentionPairs(const StepData& s) {
  double sum = 0;
  for (const auto& rank : s.dp) {
    for (const MicroBatch& mb : rank) sum += TotalAttentionPairs(mb);
  }
  return sum;
}

void ApplyTokenBytes(StepData& step, Bytes kv_bytes_per_token, Bytes q_bytes_per_token) {
  for (auto& rank : step.dp) {
    for (MicroBatch& mb : rank) {
      for (Load& l : mb.cp) {
        l.cp_bytes = static_cast<double>(l.cp_kv_tokens) * kv_bytes_per_token;
        // Sent: Q of the tasks given away, O of the tasks received, K/V out; received: Q in, O back, K/V
        // in. Links are full duplex, so the larger direction is the time.
        const int64_t q_rows = l.server_q_tokens_out + l.server_q_tokens_in;
        l.attention_server_bytes =
            static_cast<double>(q_rows) * q_bytes_per_token +
            static_cast<double>(std::max(l.server_kv_tokens_out, l.server_kv_tokens_in)) * kv_bytes_per_token;
      }
    }
  }
}

}  // namespace dlsim::data

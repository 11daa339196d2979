#include "layout.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace dlsim::data::internal {
namespace {

// Adds the positions [x, y) of `row` to `load` (tokens, real tokens, attention
// blocks).
void AddRange(const Row& row, int64_t x, int64_t y, bool causal, Load& load) {
  if (y <= x) return;
  load.tokens += y - x;
  load.real_tokens += std::max<int64_t>(0, std::min(y, row.real_tokens) - x);
  int64_t off = 0;
  for (const Segment& s : row.segments) {
    int64_t a = std::max(x, off), b = std::min(y, off + s.size());
    if (a < b) {
      int64_t q_end = s.begin + (b - off);
      AddBlock(load, b - a, causal ? q_end : s.span, causal);
    }
    off += s.size();
    if (off >= y) break;
  }
}

int64_t Boundary(int64_t n, int pieces, int i) { return n * i / pieces; }

}  // namespace

int64_t Row::size() const {
  int64_t n = padding;
  for (const Segment& s : segments) n += s.size();
  return n;
}

void AddBlock(Load& load, int64_t seq_q, int64_t seq_kv, bool causal) {
  if (seq_q <= 0) return;
  if (!load.attention.empty()) {
    AttentionBlock& last = load.attention.back();
    if (last.seq_q == seq_q && last.seq_kv == seq_kv && last.causal == causal) {
      ++last.count;
      return;
    }
  }
  load.attention.push_back(AttentionBlock{seq_q, seq_kv, 1, causal});
}

void PlaceWhole(const Row& row, bool causal, Load& load) { AddRange(row, 0, row.size(), causal, load); }

int64_t ZigzagShare(int64_t n, int cp, int rank) {
  if (cp == 1) return n;
  int p = 2 * cp;
  return Boundary(n, p, rank + 1) - Boundary(n, p, rank) + Boundary(n, p, p - rank) -
         Boundary(n, p, p - 1 - rank);
}

void PlaceRow(const Row& row, bool causal, MicroBatch& mb) {
  int cp = static_cast<int>(mb.cp.size());
  int64_t n = row.size();
  ++mb.sequences;
  if (cp == 1) {
    PlaceWhole(row, causal, mb.cp[0]);
    return;
  }
  int p = 2 * cp;
  for (int r = 0; r < cp; ++r) {
    Load& load = mb.cp[r];
    int64_t before = load.tokens;
    AddRange(row, Boundary(n, p, r), Boundary(n, p, r + 1), causal, load);
    AddRange(row, Boundary(n, p, p - 1 - r), Boundary(n, p, p - r), causal, load);
    load.cp_kv_tokens += static_cast<int64_t>(cp - 1) * (load.tokens - before);
  }
}

MicroBatch NewMicroBatch(int cp) {
  MicroBatch mb;
  mb.cp.resize(static_cast<size_t>(cp));
  return mb;
}

Result<Prepared> Prepare(const std::vector<int64_t>& documents, const DataShape& s) {
  auto bad = [](const std::string& m) { return Error::InvalidArgument("data policy: " + m); };
  if (s.dp < 1) return bad("dp must be >= 1, found " + std::to_string(s.dp));
  if (s.cp < 1) return bad("cp must be >= 1, found " + std::to_string(s.cp));
  if (s.micro_batch < 1) return bad("micro_batch must be >= 1, found " + std::to_string(s.micro_batch));
  if (s.micro_batches < 1) return bad("micro_batches must be >= 1, found " + std::to_string(s.micro_batches));
  if (s.seq_len < 1) return bad("seq_len must be >= 1, found " + std::to_string(s.seq_len));
  if (s.max_len < 0) return bad("max_len must be >= 0, found " + std::to_string(s.max_len));
  if (s.chunk_size < 0) return bad("chunk_size must be >= 0, found " + std::to_string(s.chunk_size));
  if (s.token_budget < 0) return bad("token_budget must be >= 0, found " + std::to_string(s.token_budget));
  if (s.chunk_keep < 1) return bad("chunk_keep must be >= 1, found " + std::to_string(s.chunk_keep));
  if (!(s.pairs_per_token > 0)) return bad("pairs_per_token must be > 0");
  Prepared p;
  p.max_len = s.max_len > 0 ? s.max_len : s.seq_len;
  p.docs.reserve(documents.size());
  for (size_t i = 0; i < documents.size(); ++i) {
    int64_t l = documents[i];
    if (l < 1)
      return bad("document " + std::to_string(i) + " has length " + std::to_string(l) + " (must be >= 1)");
    if (l > p.max_len) {
      l = p.max_len;
      ++p.truncated;
    }
    p.docs.push_back(l);
    p.real_tokens += l;
  }
  return p;
}

StepData NewStep(const Prepared& p, const DataShape& shape) {
  StepData step;
  step.dp.resize(static_cast<size_t>(shape.dp));
  step.real_tokens = p.real_tokens;
  step.documents = static_cast<int>(p.docs.size());
  step.truncated = p.truncated;
  return step;
}

void FinishStep(StepData& step) {
  step.computed_tokens = 0;
  for (auto& rank : step.dp) {
    std::erase_if(rank, [](const MicroBatch& mb) { return mb.sequences == 0; });
    for (const MicroBatch& mb : rank) {
      for (const Load& l : mb.cp) step.computed_tokens += l.tokens;
    }
  }
}

int InitialMicroBatches(const Prepared& p, const DataShape& s, int64_t per_micro_batch) {
  int64_t bins = (p.real_tokens + per_micro_batch - 1) / per_micro_batch;
  int64_t per_rank = (bins + s.dp - 1) / s.dp;
  return static_cast<int>(std::max<int64_t>(s.micro_batches, per_rank));
}

std::vector<int> LongestFirst(const std::vector<int64_t>& docs) {
  std::vector<int> order(docs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return docs[a] > docs[b]; });
  return order;
}

}  // namespace dlsim::data::internal

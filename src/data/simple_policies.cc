// pad, pack, pack_nomask and padding_free: documents in sampling order, split contiguously
// over DP ranks.
#include <algorithm>

#include "layout.h"
#include "policies.h"

namespace dlsim::data::internal {
namespace {

// Splits rows contiguously over DP ranks, then into micro-batches of
// `micro_batch` rows.
void DistributeRows(const std::vector<Row>& rows, const DataShape& s, StepData& step) {
  for (int d = 0; d < s.dp; ++d) {
    size_t begin = PartBegin(rows.size(), s.dp, d), end = PartBegin(rows.size(), s.dp, d + 1);
    for (size_t i = begin; i < end; i += static_cast<size_t>(s.micro_batch)) {
      MicroBatch mb = NewMicroBatch(s.cp);
      size_t stop = std::min(end, i + static_cast<size_t>(s.micro_batch));
      for (size_t k = i; k < stop; ++k) PlaceRow(rows[k], s.causal, mb);
      step.dp[static_cast<size_t>(d)].push_back(std::move(mb));
    }
  }
}

// One row per document; pad: each padded to the longest of its micro-batch and
// dense.
std::vector<Row> DocumentRows(const std::vector<int64_t>& docs, const DataShape& s, bool pad) {
  std::vector<Row> rows;
  rows.reserve(docs.size());
  for (int d = 0; d < s.dp; ++d) {
    size_t begin = PartBegin(docs.size(), s.dp, d), end = PartBegin(docs.size(), s.dp, d + 1);
    for (size_t i = begin; i < end; i += static_cast<size_t>(s.micro_batch)) {
      size_t stop = std::min(end, i + static_cast<size_t>(s.micro_batch));
      int64_t longest = *std::max_element(docs.begin() + i, docs.begin() + stop);
      for (size_t k = i; k < stop; ++k) {
        int64_t width = pad ? longest : docs[k];
        rows.push_back(Row{{WholeDocument(width)}, 0, docs[k]});
      }
    }
  }
  return rows;
}

Result<StepData> ScheduleByDocument(const Docs& docs, const DataShape& s, bool pad) {
  DLSIM_ASSIGN_OR_RETURN(Prepared p, Prepare(docs, s));
  StepData step = NewStep(p, s);
  // Rows are built in DP-rank order with the same contiguous split, so
  // DistributeRows gives each rank back exactly its documents.
  DistributeRows(DocumentRows(p.docs, s, pad), s, step);
  FinishStep(step);
  return step;
}

}  // namespace

Result<StepData> SchedulePad(const Docs& docs, const DataShape& s) {
  return ScheduleByDocument(docs, s, true);
}

Result<StepData> SchedulePaddingFree(const Docs& docs, const DataShape& s) {
  return ScheduleByDocument(docs, s, false);
}

namespace {

// Documents concatenated into rows of seq_len, a document split where a row ends, the last row
// padded. mask: one segment per document piece (document mask); otherwise the whole row, padding
// included, is one dense causal sequence of seq_len (Megatron-LM without reset_attention_mask).
std::vector<Row> PackRows(const std::vector<int64_t>& docs, const DataShape& s, bool mask) {
  std::vector<Row> rows;
  Row cur;
  int64_t used = 0;
  auto close = [&] {
    cur.real_tokens = used;
    if (mask) {
      cur.padding = s.seq_len - used;
    } else {
      cur.segments = {WholeDocument(s.seq_len)};
    }
    rows.push_back(std::move(cur));
    cur = Row{};
    used = 0;
  };
  for (int64_t l : docs) {
    while (l > 0) {
      int64_t piece = std::min(l, s.seq_len - used);
      if (mask) cur.segments.push_back(WholeDocument(piece));  // a piece sees only itself
      used += piece;
      l -= piece;
      if (used == s.seq_len) close();
    }
  }
  if (used > 0) close();
  return rows;
}

Result<StepData> SchedulePacked(const Docs& docs, const DataShape& s, bool mask) {
  DLSIM_ASSIGN_OR_RETURN(Prepared p, Prepare(docs, s));
  StepData step = NewStep(p, s);
  DistributeRows(PackRows(p.docs, s, mask), s, step);
  FinishStep(step);
  return step;
}

}  // namespace

Result<StepData> SchedulePack(const Docs& docs, const DataShape& s) { return SchedulePacked(docs, s, true); }

Result<StepData> SchedulePackNoMask(const Docs& docs, const DataShape& s) {
  return SchedulePacked(docs, s, false);
}

}  // namespace dlsim::data::internal

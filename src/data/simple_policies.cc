// pad, pad_attention, pack, pack_nomask and padding_free: documents in sampling order, split contiguously
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

// The width each document is padded to under `pad`: the longest of its micro-batch, or the
// effective max_len (pad_to: max_len).
std::vector<int64_t> PaddedWidths(const Prepared& p, const DataShape& s) {
  std::vector<int64_t> widths(p.docs.size());
  for (int d = 0; d < s.dp; ++d) {
    size_t begin = PartBegin(p.docs.size(), s.dp, d), end = PartBegin(p.docs.size(), s.dp, d + 1);
    for (size_t i = begin; i < end; i += static_cast<size_t>(s.micro_batch)) {
      size_t stop = std::min(end, i + static_cast<size_t>(s.micro_batch));
      int64_t longest = *std::max_element(p.docs.begin() + i, p.docs.begin() + stop);
      if (s.pad_to == PadTo::kMaxLen) longest = p.max_len;
      for (size_t k = i; k < stop; ++k) widths[k] = longest;
    }
  }
  return widths;
}

// One row per document, `widths[k]` tokens wide (the document itself when widths is empty).
std::vector<Row> DocumentRows(const std::vector<int64_t>& docs, const std::vector<int64_t>& widths) {
  std::vector<Row> rows;
  rows.reserve(docs.size());
  for (size_t k = 0; k < docs.size(); ++k) {
    int64_t width = widths.empty() ? docs[k] : widths[k];
    rows.push_back(Row{{WholeDocument(width)}, 0, docs[k]});
  }
  return rows;
}

Result<StepData> ScheduleByDocument(const Docs& docs, const DataShape& s, bool pad) {
  DLSIM_ASSIGN_OR_RETURN(Prepared p, Prepare(docs, s));
  StepData step = NewStep(p, s);
  // Rows are built in DP-rank order with the same contiguous split, so
  // DistributeRows gives each rank back exactly its documents.
  const std::vector<int64_t> widths = pad ? PaddedWidths(p, s) : std::vector<int64_t>{};
  DistributeRows(DocumentRows(p.docs, widths), s, step);
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

// The padding-free step with the attention (blocks and ring K/V rows) of the padded one: both place
// the same documents in the same micro-batches, so the loads correspond one to one.
Result<StepData> SchedulePadAttention(const Docs& docs, const DataShape& s) {
  DLSIM_ASSIGN_OR_RETURN(StepData step, ScheduleByDocument(docs, s, false));
  DLSIM_ASSIGN_OR_RETURN(const StepData padded, ScheduleByDocument(docs, s, true));
  for (size_t d = 0; d < step.dp.size(); ++d) {
    for (size_t m = 0; m < step.dp[d].size(); ++m) {
      for (size_t r = 0; r < step.dp[d][m].cp.size(); ++r) {
        const Load& from = padded.dp[d][m].cp[r];
        Load& to = step.dp[d][m].cp[r];
        to.attention = from.attention;
        to.cp_kv_tokens = from.cp_kv_tokens;
      }
    }
  }
  return step;
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

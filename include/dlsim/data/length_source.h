// Sources of document lengths: real distributions from files (DistCA JSON histograms, CSV
// token-count traces) or parametric distributions, truncated at max_len.
//
//   auto src = MakeLengthSource(spec);        // Result<std::unique_ptr<LengthSource>>
//   Rng rng = Rng(seed).Stream("data/lengths");
//   std::vector<int64_t> docs = DrawDocuments(*src, rng, /*token_budget=*/1 << 20);
#ifndef DLSIM_DATA_LENGTH_SOURCE_H_
#define DLSIM_DATA_LENGTH_SOURCE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/rng.h"

namespace dlsim::data {

// The longest document a length source or length file may give: 2^30 tokens (a thousand times the
// longest context windows), so lengths and their sums stay far from integer overflow.
inline constexpr int64_t kMaxDocumentTokens = int64_t{1} << 30;

class LengthSource {
 public:
  virtual ~LengthSource() = default;
  virtual int64_t Draw(Rng& rng) const = 0;  // >= 1
  virtual double Mean() const = 0;           // before truncation
};

// Parsed `data.lengths` (io fills it from YAML; models never open files: file contents are
// passed in `file_text`).
struct LengthSpec {
  std::string distribution;      // fixed | uniform | lognormal | pareto_mix | empirical
  double value = 0;              // fixed
  double low = 0, high = 0;      // uniform
  double median = 0, sigma = 0;  // lognormal
  // pareto_mix: a lognormal body (median, sigma) with probability 1 - tail_fraction, a Pareto
  // tail (x_min = tail_min, alpha = tail_alpha) with probability tail_fraction.
  double tail_fraction = 0, tail_min = 0, tail_alpha = 0;
  std::vector<double> values, weights;  // empirical (from a file)
  int64_t max_len = 0;                  // truncation (0: none)
  std::string file;                     // where an empirical spec came from (reports only)
  std::string column;                   // the CSV column of `file` ("": num_prefill_tokens)
};

// Errors (kInvalidArgument, naming the parameter): an unknown distribution (with the allowed
// names), fixed value < 1, uniform low < 1 or high < low, lognormal median <= 0 or sigma < 0,
// pareto_mix tail_fraction outside [0, 1], tail_min < 1 or tail_alpha <= 0, empirical values
// and weights of different sizes, empty, a value < 1, a negative weight or zero total weight,
// max_len < 0.
// Draws round to the nearest integer, are at least 1 and at most max_len (when > 0).
Result<std::unique_ptr<LengthSource>> MakeLengthSource(const LengthSpec& spec);
// The distribution names MakeLengthSource accepts.
const std::vector<std::string>& LengthDistributionNames();
// Parses a length file: DistCA JSON ({"length": count, ...} or lists), or CSV with a
// token-count column (vidur_*.csv: num_prefill_tokens / num_decode_tokens; pick `column`).
// The format follows the file name's extension (.json / .csv); `column` "" means
// num_prefill_tokens. Returns an `empirical` spec: distinct lengths ascending with their counts.
// Errors (kParse, naming the file and the entry/line): malformed JSON or CSV, a missing column
// (listing the columns), a length that is not a positive integer, a negative count, no lengths.
Result<LengthSpec> ParseLengthFile(std::string_view text, const std::string& file_name,
                                   const std::string& column);

// Draws documents until their total reaches `token_budget` (the last one may overshoot), each
// truncated to max_len when max_len > 0. token_budget <= 0 gives no documents.
std::vector<int64_t> DrawDocuments(const LengthSource& src, Rng& rng, int64_t token_budget, int64_t max_len);
// Draws exactly `count` documents (none when count <= 0), each truncated to max_len when max_len > 0.
std::vector<int64_t> DrawDocumentCount(const LengthSource& src, Rng& rng, int count, int64_t max_len);

}  // namespace dlsim::data

#endif  // DLSIM_DATA_LENGTH_SOURCE_H_

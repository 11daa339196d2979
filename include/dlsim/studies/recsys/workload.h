// A wide-and-deep recommendation workload (PICASSO, arXiv 2204.04903): many embedding tables with
// Zipf-skewed ID access, a feature-interaction module of many small kernels, and dense MLPs.
//
//   auto base = recsys::ParseTableCsv(text, "criteo_tables.csv");      // the fields
//   recsys::RecModel m = recsys::Replicate(*base, 8, {8, 16, 32, 64}, {1, 1, 1, 1, 3, 3, 3, 3});
//   recsys::ZipfSampler z(m.tables[0].vocab, m.tables[0].zipf);
//   int64_t id = z.Sample(rng);                                         // rank 0 is the hottest ID
#ifndef DLSIM_STUDIES_RECSYS_WORKLOAD_H_
#define DLSIM_STUDIES_RECSYS_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/rng.h"
#include "dlsim/core/units.h"

namespace dlsim::recsys {

struct EmbeddingTable {
  std::string name;
  int64_t vocab = 1;  // rows
  int dim = 16;       // fp32 elements per row
  int hotness = 1;    // IDs looked up per sample
  double zipf = 1.1;  // popularity exponent: P(rank r) ~ 1 / (r + 1)^zipf
  Bytes bytes() const { return ByteCount(4.0 * static_cast<double>(vocab) * dim); }
};

struct RecModel {
  std::vector<EmbeddingTable> tables;
  std::vector<int> mlp = {1024, 512, 256, 1};  // dense layers after the interaction (output widths)
  int interaction_kernels_per_field = 6;       // small kernels per field and pass (reshape, concat, mul...)
  int FeatureWidth() const;                    // sum of dim x hotness: the MLP's input width
};

// Columns name,vocab,zipf (vocab >= 1, zipf in (0, 5]); dim and hotness default to 16 and 1.
Result<std::vector<EmbeddingTable>> ParseTableCsv(std::string_view text, const std::string& file);

// `copies` copies of every field, copy c named "<name>#c" with dims[c % dims.size()] and
// hotness[c % hotness.size()] (an industrial model has hundreds of fields; these stand in for them).
RecModel Replicate(const std::vector<EmbeddingTable>& fields, int copies, const std::vector<int>& dims,
                   const std::vector<int>& hotness);

// Zipf-like ranks over [0, n): the continuous power law inverted and floored (rejection-free, O(1)
// memory, deterministic given the Rng). Exponent s > 0 (s = 1 handled as the logarithmic limit).
class ZipfSampler {
 public:
  ZipfSampler(int64_t n, double s);
  int64_t Sample(Rng& rng) const;

 private:
  int64_t n_;
  double s_;
};

}  // namespace dlsim::recsys

#endif  // DLSIM_STUDIES_RECSYS_WORKLOAD_H_

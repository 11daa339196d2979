// The wide-and-deep workload: tables, replication, Zipf ranks (include/dlsim/studies/recsys/workload.h).
#include "dlsim/studies/recsys/workload.h"

#include <algorithm>
#include <cmath>

#include "dlsim/core/csv.h"

namespace dlsim::recsys {

int RecModel::FeatureWidth() const {
  int w = 0;
  for (const EmbeddingTable& t : tables) w += t.dim * t.hotness;
  return w;
}

Result<std::vector<EmbeddingTable>> ParseTableCsv(std::string_view text, const std::string& file) {
  DLSIM_ASSIGN_OR_RETURN(const CsvTable t, ParseCsv(text, file));
  DLSIM_ASSIGN_OR_RETURN(const size_t vocab_col, t.Column("vocab"));
  DLSIM_ASSIGN_OR_RETURN(const size_t zipf_col, t.Column("zipf"));
  std::vector<EmbeddingTable> out;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    EmbeddingTable e;
    DLSIM_ASSIGN_OR_RETURN(e.name, t.Text(r, "name"));
    DLSIM_ASSIGN_OR_RETURN(const double vocab, t.Number(r, "vocab"));
    if (vocab < 1 || vocab > 1e12 || vocab != std::floor(vocab))
      return Error::InvalidArgument(t.Where(r, vocab_col) +
                                    ": column 'vocab': expected an integer in [1, 1e12]");
    DLSIM_ASSIGN_OR_RETURN(e.zipf, t.Number(r, "zipf"));
    if (e.zipf <= 0 || e.zipf > 5)
      return Error::InvalidArgument(t.Where(r, zipf_col) + ": column 'zipf': expected an exponent in (0, 5]");
    e.vocab = static_cast<int64_t>(vocab);
    out.push_back(std::move(e));
  }
  if (out.empty()) return Error::InvalidArgument(file + ": no tables");
  return out;
}

RecModel Replicate(const std::vector<EmbeddingTable>& fields, int copies, const std::vector<int>& dims,
                   const std::vector<int>& hotness) {
  RecModel m;
  for (int c = 0; c < copies; ++c)
    for (const EmbeddingTable& f : fields) {
      EmbeddingTable t = f;
      t.name = f.name + "#" + std::to_string(c);
      t.dim = dims[c % dims.size()];
      t.hotness = hotness[c % hotness.size()];
      m.tables.push_back(std::move(t));
    }
  return m;
}

ZipfSampler::ZipfSampler(int64_t n, double s) : n_(std::max<int64_t>(1, n)), s_(s) {}

int64_t ZipfSampler::Sample(Rng& rng) const {
  // Inverse CDF of the density x^-s on [1, n + 1), shifted to ranks [0, n).
  const double u = rng.NextDouble();
  const double n1 = static_cast<double>(n_) + 1;
  double x;
  if (std::abs(s_ - 1) < 1e-9) {
    x = std::exp(u * std::log(n1));
  } else {
    const double a = 1 - s_;
    x = std::pow(1 + u * (std::pow(n1, a) - 1), 1 / a);
  }
  return std::clamp<int64_t>(static_cast<int64_t>(x) - 1, 0, n_ - 1);
}

}  // namespace dlsim::recsys

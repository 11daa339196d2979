// Fitting the learned GEMM latency model with XGBoost (Debian libxgboost-dev; a separate target,
// dlsim_cost_learn, so the simulator itself does not need XGBoost at run time).
//
//   LearnSet train = MakeLearnSet(samples);                       // features, labels
//   std::vector<size_t> pick = KMeansSelect(train, 500, /*seed=*/1);   // CDMPP's sampling
//   Result<TreeEnsemble> m = FitEnsemble(Subset(train, pick), {.rounds = 100});
//   Result<TreeEnsemble> tuned = FitEnsemble(train, opts, &h100_rows, 30);   // domain adaptation
//
// Labels are log(measured / tile-model seconds) (cost/gemm_features.h). The fit is deterministic:
// one thread, exact greedy splits, a fixed seed, no row or column sampling, so two fits of the
// same rows give the same trees and ToText() bytes. Thread-compatible.
#ifndef DLSIM_COST_LEARNED_FIT_H_
#define DLSIM_COST_LEARNED_FIT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/cost/gemm_features.h"
#include "dlsim/cost/gemm_profile.h"
#include "dlsim/cost/tree_ensemble.h"

namespace dlsim::cost {

struct LearnSample {
  GemmShape shape;
  hw::DType dtype = hw::DType::kFp16;
  const TileDevice* device = nullptr;                 // borrowed; outlives MakeLearnSet
  const std::vector<TileConfig>* feasible = nullptr;  // FeasibleTiles(dtype, *device)
  double measured_s = 0;
};

// Row-major features (rows x kGemmFeatureCount), labels and the tile model's seconds per row.
struct LearnSet {
  std::vector<double> x;
  std::vector<double> label;
  std::vector<double> tile_s;
  std::vector<double> measured_s;
  size_t rows() const { return label.size(); }
  std::vector<double> Row(size_t i) const;
};

LearnSet MakeLearnSet(const std::vector<LearnSample>& samples);
// Profile rows (fp16) on the GPUs `gpu_of` names for each row's gpu ("a100" -> its spec).
// Precondition: gpu_of has an entry for every row's gpu.
LearnSet MakeProfileSet(const std::vector<GemmProfileRow>& rows,
                        const std::map<std::string, hw::GpuSpec>& gpu_of);
LearnSet Subset(const LearnSet& set, const std::vector<size_t>& rows);

// CDMPP's KMeans-based sample selection: k-means (k-means++ seeding from `seed`, 25 Lloyd steps)
// on z-scored features; the row nearest each centroid, distinct, in ascending order. All rows
// when k >= rows.
std::vector<size_t> KMeansSelect(const LearnSet& set, size_t k, uint64_t seed);

// k distinct rows of 0..n-1 drawn uniformly (a seeded shuffle; the baseline of KMeansSelect), sorted.
std::vector<size_t> RandomSelect(size_t n, size_t k, uint64_t seed);

struct LearnOptions {
  int rounds = 120;
  int max_depth = 6;
  double eta = 0.1;
  uint64_t seed = 1;
};

// Boosts `options.rounds` trees on `train`; with `finetune`, then `finetune_rounds` more trees on
// those rows (the first trees kept: domain adaptation to a new device). Error: XGBoost's message.
Result<TreeEnsemble> FitEnsemble(const LearnSet& train, const LearnOptions& options,
                                 const LearnSet* finetune = nullptr, int finetune_rounds = 0);

// A regression dataset of any features: row-major x (rows x names.size()) and labels y.
struct RegressionSet {
  std::vector<std::string> names;
  std::vector<double> x;
  std::vector<double> y;
  size_t rows() const { return y.size(); }
  std::vector<double> Row(size_t i) const;
};
// Boosts `options.rounds` trees on `train` (as FitEnsemble, deterministic); the ensemble's features
// are train.names. Errors: no rows, x not rows x names, XGBoost's message.
Result<TreeEnsemble> FitRegression(const RegressionSet& train, const LearnOptions& options);

// Mean absolute percentage error of `model` on `set` (prediction = tile_s x exp(model(x))).
double LearnedMape(const TreeEnsemble& model, const LearnSet& set);

}  // namespace dlsim::cost

#endif  // DLSIM_COST_LEARNED_FIT_H_

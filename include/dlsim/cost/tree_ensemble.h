// A gradient-boosted tree ensemble as plain data: the learned latency model's file format and its
// evaluation (no XGBoost needed at run time; cost/learned_fit.h fits one with XGBoost).
//
//   Result<TreeEnsemble> m = ParseTreeEnsemble(text, "data/calibration/learned_gemm.txt");
//   double y = m->Predict(features);          // base_score + the leaf of every tree
//
// Text format (one token stream; '#' lines are comments and are kept in `header`):
//   features N name1 ... nameN
//   base_score V
//   trees T
//   tree I nodes K            then K lines:  left right feature value
// A node with left == -1 is a leaf with `value`; otherwise it goes left when
// float(x[feature]) < float(value) (XGBoost's comparison, in single precision) and right otherwise.
// Values; thread-safe for concurrent const use.
#ifndef DLSIM_COST_TREE_ENSEMBLE_H_
#define DLSIM_COST_TREE_ENSEMBLE_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::cost {

struct TreeNode {
  int left = -1, right = -1, feature = 0;
  float value = 0;  // split threshold, or the leaf value
};

struct TreeEnsemble {
  std::string header;  // the comment lines (source, fitting command)
  std::vector<std::string> features;
  float base_score = 0;
  std::vector<std::vector<TreeNode>> trees;

  // Precondition: x.size() >= features.size().
  double Predict(const std::vector<double>& x) const;
  // The text format above, byte-stable (values printed with 9 significant digits).
  std::string ToText() const;
};

// Parses the text format; errors name the file, line and what was expected.
Result<TreeEnsemble> ParseTreeEnsemble(std::string_view text, const std::string& file_name);

}  // namespace dlsim::cost

#endif  // DLSIM_COST_TREE_ENSEMBLE_H_

// FitEnsemble: XGBoost through its C API, the booster converted to a TreeEnsemble via its JSON.
#include <xgboost/c_api.h>

#include <cmath>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dlsim/cost/learned_fit.h"

namespace dlsim::cost {
namespace {

Error XgbError(const std::string& what) {
  return Error::Internal("xgboost: " + what + ": " + XGBGetLastError());
}

struct Matrix {
  DMatrixHandle h = nullptr;
  ~Matrix() {
    if (h) XGDMatrixFree(h);
  }
};
struct Booster {
  BoosterHandle h = nullptr;
  ~Booster() {
    if (h) XGBoosterFree(h);
  }
};

Status MakeMatrix(const std::vector<double>& xs, size_t cols, const std::vector<double>& labels, Matrix* m) {
  std::vector<float> x(xs.begin(), xs.end()), y(labels.begin(), labels.end());
  if (XGDMatrixCreateFromMat(x.data(), labels.size(), cols, std::nanf(""), &m->h) != 0)
    return XgbError("DMatrix");
  if (XGDMatrixSetFloatInfo(m->h, "label", y.data(), y.size()) != 0) return XgbError("labels");
  return {};
}

Status SetParams(BoosterHandle b, const LearnOptions& o) {
  const std::pair<std::string, std::string> params[] = {{"nthread", "1"},
                                                        {"seed", std::to_string(o.seed)},
                                                        {"max_depth", std::to_string(o.max_depth)},
                                                        {"eta", std::to_string(o.eta)},
                                                        {"objective", "reg:squarederror"},
                                                        {"tree_method", "exact"},
                                                        {"base_score", "0"},
                                                        {"verbosity", "0"},
                                                        {"subsample", "1"}};
  for (const auto& [k, v] : params)
    if (XGBoosterSetParam(b, k.c_str(), v.c_str()) != 0) return XgbError("parameter " + k);
  return {};
}

// One XGBoost JSON tree, renumbered breadth-first (children after parents, unreachable dropped).
std::vector<TreeNode> ConvertTree(const nlohmann::json& t) {
  const auto& left = t["left_children"];
  const auto& right = t["right_children"];
  const auto& feature = t["split_indices"];
  const auto& value = t["split_conditions"];
  std::vector<TreeNode> out;
  std::deque<std::pair<int, size_t>> queue{{0, 0}};  // (xgboost id, our index)
  out.emplace_back();
  while (!queue.empty()) {
    const auto [id, at] = queue.front();
    queue.pop_front();
    TreeNode& n = out[at];
    n.value = value[static_cast<size_t>(id)].get<float>();
    n.feature = feature[static_cast<size_t>(id)].get<int>();
    const int l = left[static_cast<size_t>(id)].get<int>(), r = right[static_cast<size_t>(id)].get<int>();
    if (l < 0) {
      n.feature = 0;
      continue;
    }
    n.left = static_cast<int>(out.size());
    n.right = n.left + 1;
    queue.push_back({l, out.size()});
    queue.push_back({r, out.size() + 1});
    out.emplace_back();
    out.emplace_back();
  }
  return out;
}

Status MakeMatrix(const LearnSet& set, Matrix* m) {
  return MakeMatrix(set.x, kGemmFeatureCount, set.label, m);
}

Result<TreeEnsemble> Convert(BoosterHandle b, std::vector<std::string> names) {
  bst_ulong len = 0;
  const char* buf = nullptr;
  if (XGBoosterSaveModelToBuffer(b, "{\"format\": \"json\"}", &len, &buf) != 0) return XgbError("save");
  const nlohmann::json j = nlohmann::json::parse(std::string(buf, len));
  const auto& learner = j["learner"];
  TreeEnsemble m;
  m.features = std::move(names);
  m.base_score = std::stof(learner["learner_model_param"]["base_score"].get<std::string>());
  for (const auto& t : learner["gradient_booster"]["model"]["trees"]) m.trees.push_back(ConvertTree(t));
  return m;
}

}  // namespace

Result<TreeEnsemble> FitEnsemble(const LearnSet& train, const LearnOptions& options, const LearnSet* finetune,
                                 int finetune_rounds) {
  if (train.rows() == 0) return Error::InvalidArgument("no training rows");
  Matrix a, f;
  DLSIM_RETURN_IF_ERROR(MakeMatrix(train, &a));
  if (finetune && finetune->rows() > 0) DLSIM_RETURN_IF_ERROR(MakeMatrix(*finetune, &f));
  const DMatrixHandle cache[] = {a.h, f.h};
  Booster b;
  if (XGBoosterCreate(cache, f.h ? 2 : 1, &b.h) != 0) return XgbError("booster");
  DLSIM_RETURN_IF_ERROR(SetParams(b.h, options));
  int iter = 0;
  for (; iter < options.rounds; ++iter)
    if (XGBoosterUpdateOneIter(b.h, iter, a.h) != 0) return XgbError("boosting");
  for (int r = 0; f.h && r < finetune_rounds; ++r, ++iter)
    if (XGBoosterUpdateOneIter(b.h, iter, f.h) != 0) return XgbError("fine-tuning");
  return Convert(b.h, GemmFeatureNames());
}

Result<TreeEnsemble> FitRegression(const RegressionSet& train, const LearnOptions& options) {
  if (train.rows() == 0) return Error::InvalidArgument("no training rows");
  if (train.x.size() != train.rows() * train.names.size())
    return Error::InvalidArgument(
        "x has " + std::to_string(train.x.size()) +
        " values, expected rows x features = " + std::to_string(train.rows() * train.names.size()));
  Matrix a;
  DLSIM_RETURN_IF_ERROR(MakeMatrix(train.x, train.names.size(), train.y, &a));
  const DMatrixHandle cache[] = {a.h};
  Booster b;
  if (XGBoosterCreate(cache, 1, &b.h) != 0) return XgbError("booster");
  DLSIM_RETURN_IF_ERROR(SetParams(b.h, options));
  for (int iter = 0; iter < options.rounds; ++iter)
    if (XGBoosterUpdateOneIter(b.h, iter, a.h) != 0) return XgbError("boosting");
  return Convert(b.h, train.names);
}

}  // namespace dlsim::cost

// The numeric evaluator of GNN programs (gnn_program_eval.h).
#include "dlsim/gnn/kernels/gnn_program_eval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>

#include "dlsim/core/rng.h"

namespace dlsim::gnn {
namespace {

constexpr double kLeakySlope = 0.2;  // GAT's LeakyReLU

Matrix Zeros(int64_t rows, int64_t cols) { return {rows, cols, std::vector<double>(rows * cols, 0.0)}; }

double Leaky(double x) { return x > 0 ? x : kLeakySlope * x; }

struct Env {
  const Program& p;
  const Graph& g;
  const Tensors& in;
  std::vector<Matrix> v;
  std::span<const uint64_t> off() const { return g.csc().offsets; }
  NodeId Src(uint64_t e) const { return g.csc().targets[e]; }
};

Matrix Gemm(const Matrix& x, const Matrix& w) {
  Matrix out = Zeros(x.rows, w.cols);
  for (int64_t r = 0; r < x.rows; ++r) {
    for (int64_t k = 0; k < x.cols; ++k) {
      const double a = x.at(r, k);
      for (int64_t c = 0; c < w.cols; ++c) out.at(r, c) += a * w.at(k, c);
    }
  }
  return out;
}

Matrix Aggregate(const Env& env, const Op& op) {
  const Matrix& x = env.v[op.in[0]];
  const Matrix* w = op.in.size() > 1 ? &env.v[op.in[1]] : nullptr;
  const int64_t per_head = w ? x.cols / w->cols : x.cols;
  Matrix out = Zeros(x.rows, x.cols);
  const auto off = env.off();
  for (int64_t v = 0; v < x.rows; ++v) {
    for (int64_t c = 0; c < x.cols; ++c) {
      double acc = op.reduce == DstReduce::kMax ? -std::numeric_limits<double>::infinity() : 0;
      for (uint64_t e = off[v]; e < off[v + 1]; ++e) {
        const double val = x.at(env.Src(e), c) * (w ? w->at(static_cast<int64_t>(e), c / per_head) : 1);
        acc = op.reduce == DstReduce::kMax ? std::max(acc, val) : acc + val;
      }
      const auto deg = static_cast<double>(off[v + 1] - off[v]);
      if (deg == 0) acc = 0;
      out.at(v, c) = op.mean && deg > 0 ? acc / deg : acc;
    }
  }
  return out;
}

Matrix EdgeScores(const Env& env, const Op& op) {
  const Matrix &l = env.v[op.in[0]], &r = env.v[op.in[1]];
  Matrix out = Zeros(env.g.num_edges(), l.cols);
  const auto off = env.off();
  for (int64_t v = 0; v < l.rows; ++v) {
    for (uint64_t e = off[v]; e < off[v + 1]; ++e) {
      for (int64_t h = 0; h < l.cols; ++h)
        out.at(static_cast<int64_t>(e), h) = Leaky(l.at(env.Src(e), h) + r.at(v, h));
    }
  }
  return out;
}

Matrix EdgeSoftmax(const Env& env, const Op& op) {
  Matrix out = env.v[op.in[0]];
  const auto off = env.off();
  for (int64_t v = 0; v + 1 < static_cast<int64_t>(off.size()); ++v) {
    for (int64_t h = 0; h < out.cols; ++h) {
      double mx = -std::numeric_limits<double>::infinity(), sum = 0;
      for (uint64_t e = off[v]; e < off[v + 1]; ++e) mx = std::max(mx, out.at(static_cast<int64_t>(e), h));
      for (uint64_t e = off[v]; e < off[v + 1]; ++e) sum += std::exp(out.at(static_cast<int64_t>(e), h) - mx);
      for (uint64_t e = off[v]; e < off[v + 1]; ++e) {
        double& x = out.at(static_cast<int64_t>(e), h);
        x = std::exp(x - mx) / sum;
      }
    }
  }
  return out;
}

// One pass per destination and head with a running max (online softmax): no edge tensor.
Matrix Attention(const Env& env, const Op& op) {
  const Matrix &z = env.v[op.in[0]], &l = env.v[op.in[1]], &r = env.v[op.in[2]];
  const int64_t heads = l.cols, dim = z.cols / heads;
  Matrix out = Zeros(z.rows, z.cols);
  const auto off = env.off();
  std::vector<double> acc(dim);
  for (int64_t v = 0; v < z.rows; ++v) {
    for (int64_t h = 0; h < heads; ++h) {
      double mx = -std::numeric_limits<double>::infinity(), sum = 0;
      std::fill(acc.begin(), acc.end(), 0.0);
      for (uint64_t e = off[v]; e < off[v + 1]; ++e) {
        const NodeId u = env.Src(e);
        const double s = Leaky(l.at(u, h) + r.at(v, h));
        const double m2 = std::max(mx, s), shrink = std::exp(mx - m2), w = std::exp(s - m2);
        sum = sum * shrink + w;
        for (int64_t d = 0; d < dim; ++d) acc[d] = acc[d] * shrink + w * z.at(u, h * dim + d);
        mx = m2;
      }
      for (int64_t d = 0; d < dim && sum > 0; ++d) out.at(v, h * dim + d) = acc[d] / sum;
    }
  }
  return out;
}

Matrix Elementwise(const Env& env, const Op& op) {
  Matrix out = env.v[op.in[0]];
  for (int64_t i = 0; i < static_cast<int64_t>(out.data.size()); ++i) {
    double& x = out.data[i];
    if (op.kind == OpKind::kRelu) x = std::max(x, 0.0);
    if (op.kind == OpKind::kAdd) x = op.alpha * x + env.v[op.in[1]].data[i];
    if (op.kind == OpKind::kScaleRows) x *= env.v[op.in[1]].data[i / out.cols];
  }
  return out;
}

Matrix Run(const Env& env, const Op& op) {
  switch (op.kind) {
    case OpKind::kGemm:
      return Gemm(env.v[op.in[0]], env.in.params[op.param]);
    case OpKind::kAggregate:
      return Aggregate(env, op);
    case OpKind::kEdgeScores:
      return EdgeScores(env, op);
    case OpKind::kEdgeSoftmax:
      return EdgeSoftmax(env, op);
    case OpKind::kAttention:
      return Attention(env, op);
    default:
      return Elementwise(env, op);
  }
}

void Epilogue(const Env& env, const Op& op, Matrix& m) {
  for (int64_t r = 0; r < m.rows; ++r) {
    for (int64_t c = 0; c < m.cols; ++c) {
      double& x = m.at(r, c);
      if (op.scale >= 0) x *= env.v[op.scale].at(r, 0);
      if (op.relu) x = std::max(x, 0.0);
    }
  }
}

// v1 = D^-1/2 of the in-degrees, v2 = the edge norm.
void DeriveInputs(Env& env) {
  const auto off = env.off();
  const int64_t n = env.g.num_nodes();
  Matrix d = Zeros(n, 1), norm = Zeros(env.g.num_edges(), 1);
  for (int64_t v = 0; v < n; ++v) {
    const auto deg = static_cast<double>(off[v + 1] - off[v]);
    d.at(v, 0) = deg > 0 ? 1 / std::sqrt(deg) : 0;
  }
  for (int64_t v = 0; v < n; ++v) {
    for (uint64_t e = off[v]; e < off[v + 1]; ++e)
      norm.at(static_cast<int64_t>(e), 0) = d.at(env.Src(e), 0) * d.at(v, 0);
  }
  env.v[kDegInvSqrt] = std::move(d);
  env.v[kEdgeNorm] = std::move(norm);
}

}  // namespace

Tensors RandomInputs(const Program& p, const Graph& g, uint64_t seed) {
  Rng rng(seed);
  Rng feat = rng.Stream("features"), par = rng.Stream("params");
  Tensors t;
  t.features = Zeros(g.num_nodes(), p.values[kFeatures].width);
  for (double& x : t.features.data) x = SampleUniform(feat, -1, 1);
  for (const auto& [rows, cols] : p.params) {
    Matrix w = Zeros(rows, cols);
    for (double& x : w.data) x = SampleUniform(par, -1, 1) / std::sqrt(static_cast<double>(rows));
    t.params.push_back(std::move(w));
  }
  return t;
}

Result<Matrix> Evaluate(const Program& p, const Graph& g, const Tensors& in) {
  if (in.features.rows != g.num_nodes() || in.features.cols != p.values[kFeatures].width)
    return Error::InvalidArgument("features: expected " + std::to_string(g.num_nodes()) + " x " +
                                  std::to_string(p.values[kFeatures].width));
  if (in.params.size() != p.params.size()) return Error::InvalidArgument("parameters: wrong count");
  for (size_t i = 0; i < p.params.size(); ++i) {
    if (in.params[i].rows != p.params[i].first || in.params[i].cols != p.params[i].second)
      return Error::InvalidArgument("parameter W" + std::to_string(i) + ": wrong shape");
  }
  Env env{p, g, in, std::vector<Matrix>(p.values.size())};
  env.v[kFeatures] = in.features;
  DeriveInputs(env);
  for (const Op& op : p.ops) {
    Matrix m = Run(env, op);
    Epilogue(env, op, m);
    env.v[op.out] = std::move(m);
  }
  return env.v[p.output];
}

double RelativeDifference(const Matrix& a, const Matrix& b) {
  if (a.rows != b.rows || a.cols != b.cols) return std::numeric_limits<double>::infinity();
  double diff = 0, scale = 1;
  for (size_t i = 0; i < a.data.size(); ++i) {
    diff = std::max(diff, std::abs(a.data[i] - b.data[i]));
    scale = std::max(scale, std::abs(a.data[i]));
  }
  return diff / scale;
}

}  // namespace dlsim::gnn

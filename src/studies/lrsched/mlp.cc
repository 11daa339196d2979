#include "dlsim/studies/lrsched/mlp.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "dlsim/core/rng.h"

namespace dlsim::lrsched {
namespace {

std::vector<double> Gaussian(Rng& rng, size_t n, double sd) {
  std::vector<double> v(n);
  for (double& x : v) x = SampleNormal(rng, 0, sd);
  return v;
}

// Teacher label of one input row.
int TeacherLabel(const double* x, const TeacherTaskOptions& o, const std::vector<double>& w1,
                 const std::vector<double>& w2) {
  std::vector<double> h(o.teacher_hidden);
  for (int i = 0; i < o.teacher_hidden; ++i) {
    double s = 0;
    for (int f = 0; f < o.features; ++f) s += w1[i * o.features + f] * x[f];
    h[i] = std::tanh(s);
  }
  int best = 0;
  double best_v = -1e300;
  for (int c = 0; c < o.classes; ++c) {
    double s = 0;
    for (int i = 0; i < o.teacher_hidden; ++i) s += w2[c * o.teacher_hidden + i] * h[i];
    if (s * o.sharpness > best_v) best_v = s * o.sharpness, best = c;
  }
  return best;
}

Dataset Draw(Rng& rng, int n, const TeacherTaskOptions& o, const std::vector<double>& w1,
             const std::vector<double>& w2) {
  Dataset d;
  d.features = o.features;
  d.x = Gaussian(rng, static_cast<size_t>(n) * o.features, 1.0);
  for (int i = 0; i < n; ++i) {
    int label = TeacherLabel(&d.x[static_cast<size_t>(i) * o.features], o, w1, w2);
    if (rng.NextDouble() < o.label_noise) label = static_cast<int>(rng.NextBelow(o.classes));
    d.y.push_back(label);
  }
  return d;
}

}  // namespace

TeacherTask MakeTeacherTask(const TeacherTaskOptions& o) {
  Rng root(o.seed);
  Rng wr = root.Stream("lrsched/teacher-weights");
  const std::vector<double> w1 =
      Gaussian(wr, static_cast<size_t>(o.teacher_hidden) * o.features, 1.0 / std::sqrt(o.features));
  const std::vector<double> w2 =
      Gaussian(wr, static_cast<size_t>(o.classes) * o.teacher_hidden, 1.0 / std::sqrt(o.teacher_hidden));
  Rng tr = root.Stream("lrsched/teacher-train");
  Rng vr = root.Stream("lrsched/teacher-validation");
  return {o.classes, Draw(tr, o.train, o, w1, w2), Draw(vr, o.validation, o, w1, w2)};
}

Trainer::Trainer(const TeacherTask& task, const TrainerOptions& o)
    : task_(&task), o_(o), in_(task.train.features), out_(task.classes) {
  Rng rng = Rng(o.seed).Stream("lrsched/init");
  w1_ = Gaussian(rng, static_cast<size_t>(in_) * o.hidden, std::sqrt(2.0 / in_));
  b1_.assign(o.hidden, 0.0);
  w2_ = Gaussian(rng, static_cast<size_t>(o.hidden) * out_, std::sqrt(1.0 / o.hidden));
  b2_.assign(out_, 0.0);
  v_.assign(w1_.size() + b1_.size() + w2_.size() + b2_.size(), 0.0);
}

// Forward pass of one row: hidden activations h and softmax probabilities p. The weights are
// stored input-major (w1: in x hidden, w2: hidden x out) so the inner loops run over contiguous
// outputs and vectorise.
void Trainer::Forward(const double* x, double* h, double* p) const {
  const int hidden = o_.hidden;
  std::copy(b1_.begin(), b1_.end(), h);
  for (int f = 0; f < in_; ++f) {
    const double xf = x[f];
    const double* w = &w1_[static_cast<size_t>(f) * hidden];
    for (int i = 0; i < hidden; ++i) h[i] += w[i] * xf;
  }
  for (int i = 0; i < hidden; ++i) h[i] = h[i] > 0 ? h[i] : 0;
  std::copy(b2_.begin(), b2_.end(), p);
  for (int i = 0; i < hidden; ++i) {
    if (h[i] == 0) continue;
    const double* w = &w2_[static_cast<size_t>(i) * out_];
    for (int c = 0; c < out_; ++c) p[c] += w[c] * h[i];
  }
  double mx = -1e300, z = 0;
  for (int c = 0; c < out_; ++c) mx = std::max(mx, p[c]);
  for (int c = 0; c < out_; ++c) z += (p[c] = std::exp(p[c] - mx));
  for (int c = 0; c < out_; ++c) p[c] /= z;
}

double Trainer::Loss(const Dataset& d, size_t count) const {
  std::vector<double> h(o_.hidden), p(out_);
  double sum = 0;
  count = std::min(count, d.size());
  for (size_t r = 0; r < count; ++r) {
    const double* x = &d.x[r * in_];
    Forward(x, h.data(), p.data());
    sum -= std::log(std::max(p[d.y[r]], 1e-300));
  }
  return count > 0 ? sum / static_cast<double>(count) : 0;
}

double Trainer::ValidationLoss() const { return Loss(task_->validation, task_->validation.size()); }
double Trainer::ProbeLoss() const { return Loss(task_->validation, static_cast<size_t>(o_.probe)); }

// The next training sample; each epoch visits the set in a fresh seeded permutation.
size_t Trainer::NextSample() {
  if (cursor_ >= order_.size()) {
    order_.resize(task_->train.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<uint32_t>(i);
    Rng rng = Rng(o_.seed).Stream("lrsched/order-" + std::to_string(epoch_++));
    for (size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng.NextBelow(i)]);
    cursor_ = 0;
  }
  return order_[cursor_++];
}

void Trainer::Step(double lr) {
  const Dataset& d = task_->train;
  std::vector<double> g(v_.size(), 0.0), h(o_.hidden), p(out_), dh(o_.hidden);
  double* g1 = g.data();
  double* gb1 = g1 + w1_.size();
  double* g2 = gb1 + b1_.size();
  double* gb2 = g2 + w2_.size();
  for (int b = 0; b < o_.batch; ++b) {
    const size_t r = NextSample();
    const double* x = &d.x[r * in_];
    Forward(x, h.data(), p.data());
    p[d.y[r]] -= 1;  // dLoss/dlogits
    for (int c = 0; c < out_; ++c) gb2[c] += p[c];
    for (int i = 0; i < o_.hidden; ++i) {
      dh[i] = 0;
      if (h[i] <= 0) continue;  // ReLU: no gradient through an inactive unit
      const double* w = &w2_[static_cast<size_t>(i) * out_];
      double* g = &g2[static_cast<size_t>(i) * out_];
      for (int c = 0; c < out_; ++c) g[c] += p[c] * h[i], dh[i] += p[c] * w[c];
      gb1[i] += dh[i];
    }
    for (int f = 0; f < in_; ++f) {
      double* g = &g1[static_cast<size_t>(f) * o_.hidden];
      for (int i = 0; i < o_.hidden; ++i) g[i] += dh[i] * x[f];
    }
  }
  size_t k = 0;
  for (std::vector<double>* w : {&w1_, &b1_, &w2_, &b2_})
    for (double& param : *w) {
      v_[k] = o_.momentum * v_[k] + g[k] / o_.batch;
      param -= lr * v_[k++];
    }
}

void Trainer::Train(int steps, const std::function<double(int)>& lr) {
  for (int s = 0; s < steps; ++s) Step(lr(step_++));
}

}  // namespace dlsim::lrsched

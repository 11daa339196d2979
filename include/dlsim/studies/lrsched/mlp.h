// A real, small training loop for learning-rate schedule experiments (AutoLRS): a one-hidden-layer
// ReLU MLP with a softmax cross-entropy loss, trained by minibatch SGD with momentum on a
// classification task generated deterministically by a random "teacher" network.
//
// The teacher task (our own construction, no external data): inputs x ~ N(0, I_d); labels are the
// argmax of a random tanh teacher MLP's logits (weights N(0, 1 / fan_in), logits x `sharpness`),
// with a fraction `label_noise` of labels replaced by a uniform class, so the best reachable
// validation loss is above 0 and a schedule's late, small learning rates matter.
//
//   TeacherTask task = MakeTeacherTask({});
//   Trainer t(task, {});
//   t.Train(100, [](int step) { return 0.1; });
//   t.ValidationLoss();
// Value types: copying a Trainer is a checkpoint (model, momentum, data order, step). The task is
// borrowed and must outlive its trainers. Deterministic for the seeds; not thread-safe.
#ifndef DLSIM_STUDIES_LRSCHED_MLP_H_
#define DLSIM_STUDIES_LRSCHED_MLP_H_

#include <cstdint>
#include <functional>
#include <vector>

namespace dlsim::lrsched {

struct Dataset {
  int features = 0;
  std::vector<double> x;  // size() x features, row-major
  std::vector<int> y;
  size_t size() const { return y.size(); }
};

struct TeacherTaskOptions {
  int features = 16, classes = 8, teacher_hidden = 32;
  int train = 8192, validation = 2048;
  double sharpness = 3, label_noise = 0.1;
  uint64_t seed = 1;
};

struct TeacherTask {
  int classes = 0;
  Dataset train, validation;
};

TeacherTask MakeTeacherTask(const TeacherTaskOptions& o);

struct TrainerOptions {
  int hidden = 64, batch = 32;
  double momentum = 0.9;
  int probe = 512;  // validation samples of ProbeLoss (AutoLRS's cheap in-trial evaluation)
  uint64_t seed = 1;
};

class Trainer {
 public:
  Trainer(const TeacherTask& task, const TrainerOptions& o);
  // Trains `steps` steps; lr(global step) gives each step's learning rate.
  void Train(int steps, const std::function<double(int)>& lr);
  double ValidationLoss() const;  // mean cross-entropy over the validation set
  double ProbeLoss() const;       // over its first `probe` samples
  int step() const { return step_; }

 private:
  double Loss(const Dataset& d, size_t count) const;
  void Forward(const double* x, double* h, double* p) const;
  void Step(double lr);
  size_t NextSample();
  const TeacherTask* task_;
  TrainerOptions o_;
  int in_ = 0, out_ = 0;
  std::vector<double> w1_, b1_, w2_, b2_;  // in x hidden, hidden, hidden x out, out
  std::vector<double> v_;                  // momentum of all parameters, in that order
  std::vector<uint32_t> order_;            // shuffled sample order of the current epoch
  size_t cursor_ = 0;
  uint64_t epoch_ = 0;
  int step_ = 0;
};

}  // namespace dlsim::lrsched

#endif  // DLSIM_STUDIES_LRSCHED_MLP_H_

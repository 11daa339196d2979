// Input-preprocessing cost classes (data/cluster/input_costs.csv): per class, the samples one GPU
// consumes per second when its input is free, the CPU core-milliseconds of preprocessing per
// sample and the bytes of a preprocessed sample. They turn into a job's input_core_s and
// input_bytes (cluster/input_pipeline.h) per unit of work: a duration job consumes
// gpus x gpu_samples_per_s samples per second of work.
//
//   auto classes = ParseInputClasses(text, "input_costs.csv");
//   AssignInputClasses(jobs, *classes, /*seed=*/1, /*cost_scale=*/1);   // a class per job by share
// Values and pure functions; thread-safe.
#ifndef DLSIM_CLUSTER_INPUT_CLASSES_H_
#define DLSIM_CLUSTER_INPUT_CLASSES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/cluster/job.h"
#include "dlsim/core/result.h"

namespace dlsim::cluster {

struct InputClass {
  std::string name;
  double gpu_samples_per_s = 0;       // > 0
  double cpu_core_ms_per_sample = 0;  // >= 0
  double bytes_per_sample = 0;        // >= 0
  double share = 0;                   // >= 0; the shares of a table need not sum to 1
};

// Columns class, gpu_samples_per_s, cpu_core_ms_per_sample, bytes_per_sample, share. Errors name
// the file, line and column and the allowed range; duplicate names and an all-zero share are errors.
Result<std::vector<InputClass>> ParseInputClasses(std::string_view text, const std::string& file);

// The class called `name`; an error listing the known classes otherwise.
Result<InputClass> FindInputClass(const std::vector<InputClass>& classes, std::string_view name);

// Sets job.input_core_s / input_bytes from class c, CPU cost multiplied by cost_scale (>= 0).
// Steps jobs (speed set) are left alone: a class does not say how many samples a step holds.
void ApplyInputClass(JobSpec& job, const InputClass& c, double cost_scale);

// Draws a class per job in proportion to the shares (own RNG stream of `seed`; the same jobs and
// seed give the same classes) and applies it; returns the class index of each job.
std::vector<int> AssignInputClasses(std::vector<JobSpec>& jobs, const std::vector<InputClass>& classes,
                                    uint64_t seed, double cost_scale);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_INPUT_CLASSES_H_

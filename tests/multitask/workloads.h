// Small multi-task workloads for the multitask tests, built in code.
#ifndef DLSIM_TESTS_MULTITASK_WORKLOADS_H_
#define DLSIM_TESTS_MULTITASK_WORKLOADS_H_

#include <optional>
#include <string>
#include <vector>

#include "dlsim/studies/multitask/workload.h"

namespace dlsim::multitask::testing {

inline model::ModelSpec Shape(int layers, int hidden, int heads, model::Arch arch = model::Arch::kEncoder) {
  model::ModelSpec m;
  m.name = "shape";
  m.arch = arch;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.ffn_hidden = 4 * hidden;
  m.vocab = 1;
  m.linear_bias = true;
  m.position_embedding = model::PositionEmbedding::kLearned;
  m.max_seq_len = 4096;
  return m;
}

inline Module Transformer(std::string name, model::ModelSpec shape) {
  return {std::move(name), ModuleKind::kTransformer, std::move(shape)};
}

inline Module Head(std::string name, int hidden, int out) {
  model::ModelSpec s;
  s.name = name;
  s.layers = 1;
  s.hidden = hidden;
  s.heads = s.kv_heads = 1;
  s.ffn_hidden = hidden;
  s.vocab = out;
  return {std::move(name), ModuleKind::kHead, s};
}

inline Stage St(std::string name, std::string module, int tokens,
                std::optional<std::vector<std::string>> after = std::nullopt) {
  return {std::move(name), std::move(module), tokens, std::move(after)};
}

// One task, one transformer module of `layers` layers and a head: a chain of two MetaOps.
inline Workload SingleChain(int layers = 12, int batch = 64, int tokens = 256) {
  Workload w;
  w.name = "chain";
  w.modules = {Transformer("enc", Shape(layers, 1024, 16)), Head("head", 1024, 1000)};
  w.tasks = {{"t", batch, {St("enc", "enc", tokens), St("head", "head", 1)}}};
  return w;
}

// Four CLIP-like tasks sharing a text encoder and a loss head: each pairs its own encoder (its own
// depth, width and tokens) with the shared text encoder; batch[i] samples per task.
inline Workload FourTasks(const std::vector<int>& batch) {
  Workload w;
  w.name = "four";
  w.modules = {Transformer("text", Shape(12, 768, 12, model::Arch::kDecoder)),
               Transformer("vision", Shape(24, 1024, 16)),
               Transformer("audio", Shape(12, 768, 12)),
               Transformer("depth", Shape(12, 384, 6)),
               Transformer("imu", Shape(6, 512, 8)),
               Head("proj", 768, 512)};
  const char* enc[] = {"vision", "audio", "depth", "imu"};
  const int tokens[] = {257, 229, 197, 251};
  for (int i = 0; i < 4; ++i) {
    w.tasks.push_back({std::string(enc[i]) + "-text",
                       batch[i],
                       {St("x", enc[i], tokens[i]), St("text", "text", 77, std::vector<std::string>{}),
                        St("loss", "proj", 1, std::vector<std::string>{"x", "text"})}});
  }
  return w;
}

}  // namespace dlsim::multitask::testing

#endif  // DLSIM_TESTS_MULTITASK_WORKLOADS_H_

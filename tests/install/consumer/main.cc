// An installed dlsim used as a library: the built-in catalogs, a scenario parsed from text, one step priced.
#include <cstdio>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/train/simulate.h"

int main() {
  auto cat = dlsim::io::LoadCatalogs({});
  if (!cat.ok()) return std::fprintf(stderr, "%s\n", cat.error().message.c_str()), 1;
  const char* yaml =
      "model: {name: llama3-8b}\nhardware: {node: dgx-h100, gpus: 8}\n"
      "training: {seq_len: 8192, global_batch: 64}\nparallel: {tp: 2}\n";
  auto o = dlsim::io::ParseTrainScenario(yaml, "consumer.yaml", cat->hardware, cat->models);
  if (!o.ok()) return std::fprintf(stderr, "%s\n", o.error().message.c_str()), 1;
  auto r = dlsim::train::Simulate(*o, *cat, nullptr);
  if (!r.ok() || !r->feasible || !(r->step_time_s > 0)) return std::fprintf(stderr, "step not priced\n"), 1;
  std::printf("step_time_s %.6f\n", r->step_time_s);
  return 0;
}

// Fuzz target: the command line itself (tools/dlsim/cli.h, dlsim::cli::Run in-process), the way in of every
// command's flags and overrides (issue 35: checks that lived in the YAML readers were skipped by flags).
//
// An input is one command line. Its first byte picks a command and a small scenario of its kind (kCommands:
// train, serve, cluster, gnn, plan, kernels, calibrate, catalog, list); the rest is split at whitespace into
// at most 24 arguments of at most 64 bytes. The process runs in a fresh temporary folder, emptied and
// re-seeded with the scenarios before every input, and an argument with a '/' or '..' is dropped, so every
// output option (--html, --csv, --write-best, ...) writes inside that folder and nothing else is touched;
// the scenarios themselves are there by name (train.yaml, serve.yaml, ...), so `--catalog serve.yaml` or
// `plan train.yaml` are inputs too. `validate` and `repro` are left out: their runs are long by design.
//
// FUZZ_CLI_ECHO=1 in the environment prints each command line and its exit code (to replay an input by hand).
//
// Contract, beyond no crash, sanitizer report or time-out: the exit code is one of app/command.h's (0, 1, 2,
// 3); a run that exits 0 printed something, and when that is JSON (--json) it parses; no exit-0 output shows
// a non-finite number ("nan", "inf" as a word).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"
#include "fuzz_env.h"

namespace {

namespace fs = std::filesystem;

// Llama-2-7B on one A100, 200 requests: a serving run of milliseconds, --capacity in well under a second.
constexpr const char* kServe = R"(model: {name: llama2-7b}
hardware: {gpu: a100-sxm4-80gb, tp: 1, pp: 1, replicas: 2}
workload:
  arrival: poisson
  rate: 4.0
  requests: 200
  prompt_tokens: {distribution: lognormal, median: 600, sigma: 0.8, max: 3072}
  output_tokens: {distribution: lognormal, median: 100, sigma: 0.8, max: 512}
  seed: 3
scheduler: {name: vllm}
slo: {ttft_s: 2.0, tpot_s: 0.1}
)";

// Gavel's synthetic mix on 16 GPUs, 60 jobs, and a two-point sweep.
constexpr const char* kCluster = R"(cluster:
  nodes:
    - {gpu: v100, gpus: 4, count: 4}
jobs:
  synthetic: {generator: gavel, jobs: 60, load: 0.8, seed: 1}
policy: {name: tiresias, placement: consolidated, queue_thresholds: [3200], restart_overhead_s: 30}
sweep: {policies: [fifo, las], load_scales: [1], seeds: [1]}
)";

constexpr const char* kGnn = R"(name: gnn-tiny
gnn:
  graph:
    rmat: {scale: 10, edge_factor: 8, seed: 1}
  features: {dim: 32, dtype: fp32}
  split: {train: 0.2, val: 0.1, test: 0.1}
  model: {layer: sage, hidden: 32, classes: 8}
  sampler: {name: uniform, fanouts: [5, 3]}
  batch: {size: 64, order: bfs}
  hardware: {node: dgx-a100, machines: 2, gpus_per_machine: 2, cpu_cores: 8}
  partition: {name: bgl, blocks_per_part: 4}
  store: partitioned
  cache: {policy: fifo, gpu_gib: 0.00002, host_gib: 0.00002}
)";

// Llama 2 13B on one DGX H100, a planner space of 8 layouts.
constexpr const char* kPlan = R"(model: {name: llama2-13b}
hardware: {node: dgx-h100, gpus: 8}
training: {seq_len: 4096, global_batch: 32, micro_batch: 1, precision: bf16}
parallel: {tp: 2, pp: 2, sequence_parallel: true, pipeline_schedule: 1f1b, zero: 1, recompute: selective}
search:
  tp: [1, 2]
  pp: [1, 2]
  recompute: [selective, full]
  top_k: 3
  constraints: {gpus: [8]}
)";

// The default training scenario: Llama 3 8B on one DGX H100.
constexpr const char* kTrain = R"(model: {name: llama3-8b}
hardware: {node: dgx-h100, gpus: 8}
training: {seq_len: 4096, global_batch: 64, micro_batch: 1, precision: bf16}
parallel: {tp: 2, pp: 1, zero: 1, recompute: selective}
)";

struct Command {
  const char* name;
  const char* file;  // the scenario argument: a file of the folder, a repository path (from "@"), or none
};

// The commands, picked by the input's first byte modulo their count.
constexpr Command kCommands[] = {
    {"train", "train.yaml"},
    {"serve", "serve.yaml"},
    {"cluster", "cluster.yaml"},
    {"gnn", "gnn.yaml"},
    {"plan", "plan.yaml"},
    {"kernels", "@tests/data/kernels/ops.csv"},
    {"calibrate", "@tests/data/calibrate/runs.csv"},
    {"catalog", ""},
    {"list", ""},
};

std::string SourcePath(const std::string& relative) {
  return (fs::path(DLSIM_FUZZ_DATA_DIR).parent_path() / relative).string();
}

// The folder the commands run in: emptied and given the scenarios again before every input.
void ResetFolder(const fs::path& dir) {
  fs::create_directories(dir);  // (again, should something have removed it)
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) fs::remove_all(e.path());
  const std::pair<const char*, const char*> files[] = {{"train.yaml", kTrain},
                                                       {"serve.yaml", kServe},
                                                       {"cluster.yaml", kCluster},
                                                       {"gnn.yaml", kGnn},
                                                       {"plan.yaml", kPlan}};
  for (const auto& [name, text] : files) std::ofstream(dir / name) << text;
}

// The folder's name, in a plain array: the exit handler that removes the folder may run after the static
// path below is destroyed.
char folder_name[] = "/tmp/dlsim-fuzz-cli-XXXXXX";

const fs::path& Folder() {
  static const fs::path dir = [] {
    if (mkdtemp(folder_name) == nullptr) dlsim::fuzz::Fail("cannot make a temporary folder");
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(folder_name, ec);
    });
    return fs::path(folder_name);
  }();
  return dir;
}

// Runs the command line in the folder, then returns to the working directory libFuzzer writes its corpus
// and artifacts under (relative paths such as build-san/corpus/fuzz_cli).
int RunIn(const fs::path& dir, std::vector<std::string>& argv, std::string& out) {
  std::vector<char*> pointers;
  for (std::string& a : argv) pointers.push_back(a.data());
  const fs::path home = fs::current_path();
  fs::current_path(dir);
  std::ostringstream held;
  std::streambuf* stdout_buffer = std::cout.rdbuf(held.rdbuf());
  const int code = dlsim::cli::Run(static_cast<int>(pointers.size()), pointers.data());
  std::cout.rdbuf(stdout_buffer);
  std::cout.clear();
  fs::current_path(home);
  out = held.str();
  return code;
}

// The arguments after the command: whitespace-separated words, without paths out of the folder.
std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream in{std::string(text)};
  std::string w;
  while (in >> w && words.size() < 24) {
    if (w.size() > 64 || w.find('/') != std::string::npos || w.find("..") != std::string::npos) continue;
    words.push_back(w);
  }
  return words;
}

std::vector<std::string> CommandLine(const uint8_t* data, size_t size) {
  const Command& c = kCommands[data[0] % std::size(kCommands)];
  std::vector<std::string> argv = {"dlsim", c.name};
  const std::string file = c.file;
  if (!file.empty()) argv.push_back(file[0] == '@' ? SourcePath(file.substr(1)) : file);
  for (std::string& w : Words(dlsim::fuzz::Text(data + 1, size - 1))) argv.push_back(std::move(w));
  return argv;
}

std::string Joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// The contract on what a run printed (see the top of the file).
void CheckOutput(const std::vector<std::string>& argv, int code, const std::string& out) {
  const std::string line = Joined(argv);
  static const bool echo = std::getenv("FUZZ_CLI_ECHO") != nullptr;
  if (echo) std::fprintf(stderr, "fuzz_cli: `%s` exited %d\n", line.c_str(), code);
  if (code != 0 && code != 1 && code != 2 && code != 3)
    dlsim::fuzz::Fail("`" + line + "` exited " + std::to_string(code));
  if (code != 0) return;
  if (out.empty()) dlsim::fuzz::Fail("`" + line + "` exited 0 and printed nothing");
  if (out[0] == '{' && !nlohmann::json::accept(out))
    dlsim::fuzz::Fail("`" + line + "` printed JSON that does not parse");
  static const std::regex kNonFinite(R"((^|[^A-Za-z_])-?(nan|inf)([^A-Za-z_]|$))");
  if (std::regex_search(out, kNonFinite))
    dlsim::fuzz::Fail("`" + line + "` exited 0 with a non-finite figure");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  ResetFolder(Folder());
  std::vector<std::string> argv = CommandLine(data, size);
  std::string out;
  const int code = RunIn(Folder(), argv, out);
  CheckOutput(argv, code, out);
  return 0;
}

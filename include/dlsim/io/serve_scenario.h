// Serving scenarios (`dlsim serve FILE`): YAML -> validated serve::ServeOptions.
//
//   model: {name: llama2-7b}                      # catalog model; shape keys override
//   hardware: {gpu: a100-sxm4-80gb, tp: 1, pp: 1, replicas: 1, memory_margin: 0.1}
//   workload:
//     arrival: poisson                            # poisson | gamma (with cv) | trace (trace_file)
//     rate: 4.0                                   # requests per second
//     requests: 20000                             # or duration_s
//     prompt_tokens: {distribution: lognormal, median: 600, sigma: 0.8}   # or {file: F, column: C}
//     output_tokens: {distribution: lognormal, median: 200, sigma: 0.8}
//     seed: 3
//   scheduler: {name: vllm, router: round-robin, block_size: 16, ...}
//   offload: {mode: none | static | select-n, ...}
//   slo: {ttft_s: 2.0, tpot_s: 0.1}
//
// Every key, default and unit: docs/serving.md. Relative file paths are relative to the
// scenario's folder. Errors name file, line and column (see yaml_reader.h); scheduler and router
// names are checked against the names given by the caller (the registries' contents).
#ifndef DLSIM_IO_SERVE_SCENARIO_H_
#define DLSIM_IO_SERVE_SCENARIO_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/hw/catalog.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/serve/options.h"

namespace dlsim::io {

struct ServeNames {
  std::vector<std::string> schedulers;  // registry names, e.g. {"distserve", "orca", "sarathi", "vllm"}
  std::vector<std::string> routers;
};

// `base_dir` resolves relative data-file paths ("" = current directory). Error: kParse for
// malformed YAML, kNotFound for a missing data file, kInvalidArgument otherwise (every error found,
// in file order).
Result<serve::ServeOptions> ParseServeScenario(std::string_view text, std::string file_name,
                                               const hw::Catalog& hardware, const model::ModelCatalog& models,
                                               const ServeNames& names, const std::string& base_dir = "");
Result<serve::ServeOptions> LoadServeScenarioFile(const std::string& path, const hw::Catalog& hardware,
                                                  const model::ModelCatalog& models, const ServeNames& names);

// The text readers behind `{file: F, column: C}` and `trace_file:` (the scenario reader opens the
// files and calls these; `file_name` is used in messages only).
//
// One token column of a CSV file, a value per data row. Every cell is read as a scenario value is
// (io::ParseNumber): an integer in 1..2^24 (io/limits.h kRequestTokens). Error: kParse for malformed
// CSV or a bad cell, naming file, line and column ("FILE:LINE:COL: column 'C': expected an integer,
// found '-5'; allowed: 1..16777216 (...)"), kNotFound for a missing column (listing the columns). A
// header without rows gives an empty list.
Result<std::vector<double>> ParseTokenColumn(std::string_view text, const std::string& file_name,
                                             const std::string& column);
// The requests of a trace file: CSV with the columns arrived_at (seconds from the start, 0..1e8),
// num_prefill_tokens and num_decode_tokens (integers in 1..2^24; other columns are ignored), in
// file order. Errors as ParseTokenColumn, for the columns in that order; kInvalidArgument for more
// than serve::kMaxRequests rows. A header without rows gives an empty list.
Result<std::vector<serve::TraceEntry>> ParseRequestTrace(std::string_view text, const std::string& file_name);

// One line: "llama2-7b on 1 x a100-sxm4-80gb (tp 1, pp 1); vllm; poisson 4 req/s; 20000 requests".
std::string SummarizeServeOptions(const serve::ServeOptions& o);

}  // namespace dlsim::io

#endif  // DLSIM_IO_SERVE_SCENARIO_H_

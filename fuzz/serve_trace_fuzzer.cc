// Fuzz target: the serving request-trace and token-file readers (`workload.trace_file` in every format,
// `prompt_tokens: {file: F, column: C}`; io::ParseRequestTrace, io::ParseTraceFile, io::ParseTokenColumn).
// On success it does what the simulation does with them first: serve::GenerateRequests over the trace
// (Poisson arrivals for a ShareGPT file), and a few draws from the prompt column as an empirical length
// distribution.
#include <cstddef>
#include <cstdint>

#include "dlsim/core/rng.h"
#include "dlsim/io/serve_scenario.h"
#include "dlsim/io/serve_trace_formats.h"
#include "dlsim/serve/request.h"
#include "fuzz_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  const std::string_view text = fuzz::Text(data, size);
  if (auto trace = io::ParseRequestTrace(text, "fuzz-trace.csv"); trace.ok() && !trace->empty()) {
    serve::WorkloadOptions w;
    w.arrival = serve::ArrivalKind::kTrace;
    w.trace = std::move(trace).value();
    (void)serve::GenerateRequests(w);
  }
  // The public formats (Azure, BurstGPT, Mooncake, ShareGPT), detected from the content or named.
  for (io::TraceFormat f : {io::TraceFormat::kAuto, io::TraceFormat::kShareGpt, io::TraceFormat::kMooncake}) {
    auto trace = io::ParseTraceFile(text, "fuzz-trace", f);
    if (!trace.ok() || trace->empty()) continue;
    serve::WorkloadOptions w;
    w.arrival = serve::ArrivalKind::kTrace;
    w.trace = std::move(trace).value();
    w.trace_arrivals = io::TraceHasArrivals(text, f);
    w.rate = 1.0;
    (void)serve::GenerateRequests(w);
  }
  if (auto column = io::ParseTokenColumn(text, "fuzz-prompts.csv", "num_prefill_tokens"); column.ok()) {
    serve::LengthDistribution d;
    d.kind = serve::LengthDistribution::Kind::kEmpirical;
    d.values = std::move(column).value();
    Rng rng = Rng(3).Stream("serve/prompt");
    for (int i = 0; i < 16; ++i) (void)serve::SampleLength(d, rng);
  }
  return 0;
}

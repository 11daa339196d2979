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
#include "dlsim/serve/prefix_cache.h"
#include "dlsim/serve/request.h"
#include "fuzz_env.h"

namespace {

// Each request's prefix chunks (Mooncake hash_ids) through a prefix cache, one request after another: every
// id is read, and the blocks balance.
void CachePrefixes(const dlsim::serve::WorkloadOptions& w, std::vector<dlsim::serve::Request>& requests) {
  dlsim::serve::PrefixCache cache(w, 16);
  dlsim::serve::KvCache kv(1 << 20, 16, 0);
  for (dlsim::serve::Request& r : requests) {
    cache.Pin(kv, r);
    const int64_t extra = kv.BlocksFor(r.prompt) - r.blocks;
    if (!kv.CanAllocate(extra, false)) dlsim::fuzz::Fail("a prompt beyond 2^24 tokens");
    kv.Allocate(extra);
    r.blocks += static_cast<int32_t>(extra);
    r.prefilled = r.kv_tokens = r.prompt;
    cache.Insert(kv, r);
    cache.Release(kv, r);
    if (kv.used() != 0) dlsim::fuzz::Fail("blocks left after every request released its KV");
  }
}

}  // namespace

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
    serve::WorkloadOptions w;
    auto trace = io::ParseTraceFile(text, "fuzz-trace", f, io::kDefaultCharsPerToken, &w.prefix_hashes);
    if (!trace.ok() || trace->empty()) continue;
    w.arrival = serve::ArrivalKind::kTrace;
    w.trace = std::move(trace).value();
    w.trace_arrivals = io::TraceHasArrivals(text, f);
    w.rate = 1.0;
    w.prefix_block_tokens = 16;
    auto requests = serve::GenerateRequests(w);
    if (requests.ok() && !w.prefix_hashes.empty()) CachePrefixes(w, *requests);
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

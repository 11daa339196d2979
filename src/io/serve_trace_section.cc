#include "serve_trace_section.h"

#include <algorithm>

#include "dlsim/core/strings.h"
#include "dlsim/io/limits.h"
#include "dlsim/io/paths.h"
#include "dlsim/io/serve_trace_formats.h"

namespace dlsim::io::internal {

using serve::ArrivalKind;

void ReadTrace(const MapReader& w, const std::string& base_dir, serve::WorkloadOptions& o) {
  std::optional<std::string> file = w.Find<std::string>("trace_file");
  const TraceFormat format = w.GetEnumOf("trace_format", TraceFormat::kAuto, kTraceFormatNames);
  if (o.arrival != ArrivalKind::kTrace) {
    if (file) w.AddError("trace_file", "only used with arrival: trace");
    if (w.Has("trace_format")) w.AddError("trace_format", "only used with arrival: trace");
    if (w.Has("chars_per_token")) w.AddError("chars_per_token", "only used with a ShareGPT trace");
    return;
  }
  if (!file) {
    w.AddError(
        "arrival",
        "arrival: trace needs trace_file (Vidur CSV arrived_at, num_prefill_tokens, num_decode_tokens; or an "
        "Azure, BurstGPT, Mooncake or ShareGPT trace, or a lengths-only CSV: trace_format)");
    return;
  }
  const std::string path = ResolvePath(base_dir, *file);
  auto text = ReadTextFile(path);
  if (!text.ok()) {
    w.AddError("trace_file", text.error().message);
    return;
  }
  const TraceFormat resolved = ResolveTraceFormat(*text, path, format);
  o.trace_arrivals = TraceHasArrivals(*text, resolved);
  const double cpt = w.Get<double>("chars_per_token", kDefaultCharsPerToken, Range::Between(0.5, 100));
  if (resolved != TraceFormat::kShareGpt && w.Has("chars_per_token"))
    w.AddError("chars_per_token", "only used with a ShareGPT trace");
  if (!o.trace_arrivals && !w.Has("rate") && !w.Has("concurrency"))
    w.AddError("trace_file",
               "a ShareGPT file or a lengths-only CSV has no arrival times: give rate (requests/s; they "
               "arrive as a Poisson process, as benchmark_serving's --request-rate sends them) or "
               "concurrency (a closed loop, all ready at once)");
  auto trace = ParseTraceFile(*text, path, resolved, cpt, &o.prefix_hashes);
  if (!trace.ok()) {
    w.AddError("trace_file", trace.error().message);
    return;
  }
  o.trace = std::move(trace).value();
  if (o.trace.empty() && !w.document().has_errors()) w.AddError("trace_file", "the trace has no rows");
}

void ReadPrefixes(const MapReader& w, serve::WorkloadOptions& o) {
  const MapReader p = w.Section("shared_prefix");
  o.shared_prefix.tokens = p.Get<int64_t>("tokens", 0, limits::kRequestTokens);
  o.shared_prefix.groups = p.Get<int>("groups", 1, Range::Between(1, serve::kMaxPrefixGroups));
  if (w.Has("shared_prefix") && !p.Has("tokens"))
    w.AddError("shared_prefix", "give tokens (the shared prefix's length) and groups");
  if (w.Has("shared_prefix") && !o.prefix_hashes.empty())
    w.AddError("shared_prefix", "the trace gives its own prefix chunks (hash_ids): leave shared_prefix out");
  p.Finish();
  const bool named = o.shared_prefix.tokens > 0 || !o.prefix_hashes.empty();
  const int64_t fallback = o.prefix_hashes.empty() ? 0 : kMooncakeChunkTokens;
  o.prefix_block_tokens = w.Get<int64_t>("prefix_block_tokens", fallback, limits::kRequestTokens);
  if (w.Has("prefix_block_tokens") && !named)
    w.AddError("prefix_block_tokens", "only used with shared_prefix or a trace with hash_ids");
}

void CheckTraceWindow(const MapReader& w, const serve::WorkloadOptions& o) {
  if (o.arrival != ArrivalKind::kTrace || o.trace.empty() || !(o.duration_s > 0)) return;
  double first = o.trace[0].arrival_s;
  for (const serve::TraceEntry& e : o.trace) first = std::min(first, e.arrival_s);
  if (first <= o.duration_s) return;
  w.AddError("duration_s", "no request of the trace arrives within " + FormatNumber(o.duration_s, 6) +
                               " s (the first at " + FormatNumber(first, 6) +
                               " s): lengthen duration_s or leave it out");
}

}  // namespace dlsim::io::internal

// Private: the trace keys of a serve scenario's `workload:` section (trace_file, trace_format,
// chars_per_token, the prefix keys; io/serve_trace_formats.h reads the file) and the check that a trace cut
// at duration_s keeps a request. Each error is recorded at the key the user wrote, with file and line.
#ifndef DLSIM_SRC_IO_SERVE_TRACE_SECTION_H_
#define DLSIM_SRC_IO_SERVE_TRACE_SECTION_H_

#include <string>

#include "dlsim/io/yaml_reader.h"
#include "dlsim/serve/options.h"

namespace dlsim::io::internal {

// Reads the trace file of `arrival: trace` into o.trace (o.trace_arrivals false for a ShareGPT file, which
// then needs `rate`); the keys are errors with any other arrival.
void ReadTrace(const MapReader& w, const std::string& base_dir, serve::WorkloadOptions& o);
// Mooncake's prefix chunk: 512 tokens per hash id (kvcache-ai/Mooncake's trace release; AISBench's
// mooncake_trace README: "each hash_id corresponds to a block of tokens (512 by default)").
inline constexpr int64_t kMooncakeChunkTokens = 512;
// Reads the prefix keys after the trace: shared_prefix {tokens, groups} (not with a trace's hash_ids) and
// prefix_block_tokens (default: 512 with hash_ids, else the KV block size), an error without prefixes.
void ReadPrefixes(const MapReader& w, serve::WorkloadOptions& o);
// A trace cut at duration_s must keep a request: its first arrival is within duration_s.
void CheckTraceWindow(const MapReader& w, const serve::WorkloadOptions& o);

}  // namespace dlsim::io::internal

#endif  // DLSIM_SRC_IO_SERVE_TRACE_SECTION_H_

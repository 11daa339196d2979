// Request traces in the formats people have (`workload.trace_format` in a serve scenario; docs/serving.md,
// "Trace formats"): each becomes serve::TraceEntry rows (arrival in seconds, prompt and output tokens),
// sorted by arrival (stable).
//   vidur     CSV arrived_at, num_prefill_tokens, num_decode_tokens (seconds as given; ParseRequestTrace)
//   azure     the Azure LLM inference traces (Azure/AzurePublicDataset AzureLLMInferenceTrace_*.csv): CSV
//             TIMESTAMP ("2023-11-16 18:15:46.6805900"), ContextTokens, GeneratedTokens; arrivals are
//             seconds after the first row's timestamp
//   burstgpt  BurstGPT (HPMLL/BurstGPT): CSV Timestamp (seconds), Request tokens, Response tokens; rows with
//             0 response tokens are the dataset's failed requests and are left out
//   mooncake  Mooncake's traces (kvcache-ai/Mooncake): JSON lines {"timestamp": ms, "input_length": N,
//             "output_length": M, "hash_ids": [...], ...}; hash_ids (optional: non-negative integers, at most
//             one per prompt token) are the prompt's prefix chunks, 512 tokens each in Mooncake's release,
//             appended to `*prefix_hashes` when given (TraceEntry::prefix_first indexes them)
//   sharegpt  ShareGPT conversations (JSON array of {"conversations": [{"from", "value"}, ...]}): lengths
//   only,
//             the first turn the prompt and the second the output, tokens = UTF-8 characters /
//             chars_per_token, filtered as vLLM's benchmark_serving does; no arrival times (TraceHasArrivals:
//             false; the scenario's rate gives Poisson arrivals)
//   lengths   CSV num_prefill_tokens, num_decode_tokens without arrived_at (a tokenized length sample, e.g.
//             data/lengths/sharegpt_v3_llama3.csv): lengths only, in file order; no arrival times
//             (TraceHasArrivals: false; the scenario's rate gives Poisson arrivals)
//   auto      from the content: a first character '[' is sharegpt, '{' mooncake, else the CSV header decides
//             (no arrived_at but num_prefill_tokens: lengths)
// Errors name the file, line and column (CSV) or line and key (JSON lines): a missing column, a cell that is
// not a number in range (tokens 1..2^24, arrivals 0..1e8 s), a malformed timestamp, more than
// serve::kMaxRequests rows.
#ifndef DLSIM_IO_SERVE_TRACE_FORMATS_H_
#define DLSIM_IO_SERVE_TRACE_FORMATS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/serve/options.h"

namespace dlsim::io {

enum class TraceFormat { kAuto, kVidur, kAzure, kBurstGpt, kMooncake, kShareGpt, kLengths };
inline constexpr std::pair<std::string_view, TraceFormat> kTraceFormatNames[] = {
    {"auto", TraceFormat::kAuto},         {"vidur", TraceFormat::kVidur},
    {"azure", TraceFormat::kAzure},       {"burstgpt", TraceFormat::kBurstGpt},
    {"mooncake", TraceFormat::kMooncake}, {"sharegpt", TraceFormat::kShareGpt},
    {"lengths", TraceFormat::kLengths}};

// OpenAI's rule of thumb for English text, "1 token ~= 4 chars" (help.openai.com, "What are tokens and how to
// count them?"): ShareGPT's default when the scenario gives no workload.chars_per_token.
inline constexpr double kDefaultCharsPerToken = 4.0;

Result<std::vector<serve::TraceEntry>> ParseTraceFile(std::string_view text, const std::string& file_name,
                                                      TraceFormat format,
                                                      double chars_per_token = kDefaultCharsPerToken,
                                                      std::vector<uint64_t>* prefix_hashes = nullptr);
// `format`, or (kAuto) the format `text` is in (file_name names the file in nothing but a CSV's errors, which
// make it vidur).
TraceFormat ResolveTraceFormat(std::string_view text, const std::string& file_name, TraceFormat format);
// Whether a trace of `format` (kAuto: decided from `text`) carries arrival times: all but sharegpt and
// lengths.
bool TraceHasArrivals(std::string_view text, TraceFormat format);

}  // namespace dlsim::io

#endif  // DLSIM_IO_SERVE_TRACE_FORMATS_H_

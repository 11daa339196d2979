// Private: ShareGPT conversations (serve_trace_formats.h, format sharegpt) as request lengths, the way vLLM's
// benchmark_serving samples them: each conversation's first turn is the prompt and its second the output.
// Streamed with a SAX parser, so a 640 MB ShareGPT file costs its text and nothing more.
#ifndef DLSIM_SRC_IO_SHAREGPT_TRACE_H_
#define DLSIM_SRC_IO_SHAREGPT_TRACE_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/serve/options.h"

namespace dlsim::io::internal {

// The text's conversations as TraceEntry rows of arrival 0 (ShareGPT has no arrival times), in file order.
// Tokens of a turn: its UTF-8 characters / `chars_per_token`, rounded, at least 1. As benchmark_serving's
// sample_sharegpt_requests: conversations of fewer than two turns are skipped, and so are pairs with a prompt
// or output under 4 tokens, a prompt over 1024 or both over 2048. Errors name the file and line: not JSON,
// not an array of objects, a turn's value that is not a string, more than serve::kMaxRequests pairs.
Result<std::vector<serve::TraceEntry>> ParseShareGpt(std::string_view text, const std::string& file,
                                                     double chars_per_token);

}  // namespace dlsim::io::internal

#endif  // DLSIM_SRC_IO_SHAREGPT_TRACE_H_

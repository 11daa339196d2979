// Private helpers that append JSON text to a std::string, shared by the report writers.
// All output is deterministic: fixed number formats, no locale.
#ifndef DLSIM_SRC_REPORT_JSON_TEXT_H_
#define DLSIM_SRC_REPORT_JSON_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "dlsim/report/events.h"

namespace dlsim::report::internal {

// Appends `s` as a quoted JSON string. Escapes quotes, backslashes and control characters;
// invalid UTF-8 bytes become U+FFFD so the output is always valid JSON.
void AppendJsonString(std::string& out, std::string_view s);
// Appends a decimal integer.
void AppendInt(std::string& out, int64_t v);
// Appends nanoseconds as decimal microseconds with up to three fractional digits and no
// trailing zeros: 1234567 -> 1234.567, 1500 -> 1.5, 2000 -> 2, -1 -> -0.001. Exact.
void AppendMicros(std::string& out, int64_t ns);
// Appends the shortest decimal that round-trips `v`; non-finite values become null.
void AppendJsonDouble(std::string& out, double v);
void AppendArgValue(std::string& out, const ArgValue& v);
// Appends {"k":v,...} in the given order.
void AppendArgsObject(std::string& out, const Args& args);

}  // namespace dlsim::report::internal

#endif  // DLSIM_SRC_REPORT_JSON_TEXT_H_

// String helpers shared by error messages: edit distance, "did you mean", joining.
#ifndef DLSIM_CORE_STRINGS_H_
#define DLSIM_CORE_STRINGS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

// Levenshtein distance (case-sensitive).
size_t EditDistance(std::string_view a, std::string_view b);
// The candidate closest to `word` when it is plausibly a misspelling (distance <= max(2,
// len/3), or a case-insensitive prefix match); nullopt otherwise.
std::optional<std::string> ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);
std::string Join(const std::vector<std::string>& items, std::string_view sep);
// "unknown <kind> 'x' (did you mean 'y'?); known: a, b, c"
std::string UnknownNameMessage(std::string_view kind, std::string_view name,
                               const std::vector<std::string>& known);
// Formats a double with `digits` significant digits, without trailing zeros.
std::string FormatNumber(double v, int digits = 4);
// `text` broken at spaces into lines of at most `width` columns (a longer word stays whole), each
// line after the first starting with `indent` spaces (the text's own leading spaces are kept; runs of
// spaces between words become one); the lines are joined by '\n', no trailing one.
// WrapText("a bb cc", 4, 1) == "a bb\n cc".
std::string WrapText(std::string_view text, size_t width, size_t indent);
// "L:C" (both from 1) of byte `offset` in `text`, clamped to its end: where a JSON parser's byte
// position points (nlohmann reports bytes).
std::string LineColumn(std::string_view text, size_t offset);

}  // namespace dlsim

#endif  // DLSIM_CORE_STRINGS_H_

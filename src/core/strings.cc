#include "dlsim/core/strings.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace dlsim {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

namespace {
std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
}  // namespace

std::optional<std::string> ClosestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  // Scores are twice the edit distance; a prefix either way ("h100" for "h100-sxm5-80gb",
  // "packing" for "pack") scores 3, so a true one-letter typo still wins over a prefix.
  std::optional<std::string> best;
  size_t best_score = SIZE_MAX;
  const std::string lw = Lower(word);
  for (const auto& c : candidates) {
    std::string lc = Lower(c);
    size_t score = 2 * EditDistance(lw, lc);
    if (!lw.empty() && (lc.rfind(lw, 0) == 0 || (lc.size() >= 3 && lw.rfind(lc, 0) == 0)))
      score = std::min<size_t>(score, 3);
    if (score < best_score) {
      best_score = score;
      best = c;
    }
  }
  // Short words allow one edit (so "tp" does not suggest "gpu"); longer ones a third.
  const size_t limit = word.size() <= 3 ? 1 : std::max<size_t>(2, word.size() / 3);
  if (best && best_score <= 2 * limit) return best;
  return std::nullopt;
}

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string UnknownNameMessage(std::string_view kind, std::string_view name,
                               const std::vector<std::string>& known) {
  std::string msg = "unknown " + std::string(kind) + " '" + std::string(name) + "'";
  if (auto m = ClosestMatch(name, known)) msg += " (did you mean '" + *m + "'?)";
  msg += known.empty() ? "; none is defined" : "; known: " + Join(known, ", ");
  return msg;
}

std::string FormatNumber(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string WrapText(std::string_view text, size_t width, size_t indent) {
  const size_t first = std::min(text.find_first_not_of(' '), text.size());
  std::string out, line(text.substr(0, first));  // leading spaces are kept
  bool has_word = false;
  for (size_t start = first; start < text.size();) {
    const size_t end = std::min(text.find(' ', start), text.size());
    const std::string_view word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    if (has_word && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.assign(indent, ' ');
      has_word = false;
    }
    line += (has_word ? " " : "") + std::string(word);
    has_word = true;
  }
  return out + line;
}

std::string LineColumn(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  const auto before = text.substr(0, offset);
  const size_t line = static_cast<size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
  const size_t nl = before.rfind('\n');
  return std::to_string(line) + ":" + std::to_string(nl == std::string_view::npos ? offset + 1 : offset - nl);
}

}  // namespace dlsim

#include "json_text.h"

#include <fmt/format.h>

#include <cmath>
#include <type_traits>

namespace dlsim::report::internal {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is invalid
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return len;
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s) {
  out.push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    // Copy the longest run of bytes that need no escaping in one append.
    size_t run = i;
    while (run < s.size()) {
      const auto c = static_cast<unsigned char>(s[run]);
      if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
      ++run;
    }
    out.append(s.substr(i, run - i));
    i = run;
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t len = Utf8SequenceLength(s, i);
      if (len == 0) {
        out.append("\\ufffd");
        ++i;
      } else {
        out.append(s.substr(i, len));
        i += len;
      }
      continue;
    }
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\t':
        out.append("\\t");
        break;
      case '\r':
        out.append("\\r");
        break;
      default: {
        char buf[8];
        const auto end = fmt::format_to(buf, "\\u{:04x}", c);
        out.append(buf, end);
      }
    }
    ++i;
  }
  out.push_back('"');
}

void AppendInt(std::string& out, int64_t v) {
  const fmt::format_int text(v);
  out.append(text.data(), text.size());
}

void AppendMicros(std::string& out, int64_t ns) {
  // Work on the magnitude as unsigned so INT64_MIN does not overflow.
  uint64_t mag = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (ns < 0) out.push_back('-');
  const fmt::format_int whole(mag / 1000);
  out.append(whole.data(), whole.size());
  uint64_t frac = mag % 1000;
  if (frac == 0) return;
  char digits[4] = {static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                    static_cast<char>('0' + frac % 10), 0};
  int n = 3;
  while (digits[n - 1] == '0') --n;
  out.push_back('.');
  out.append(digits, n);
}

void AppendJsonDouble(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out.append("null");
    return;
  }
  char buf[40];  // the shortest round-trip form of a double needs at most 24 characters
  const auto end = fmt::format_to(buf, "{}", v);
  out.append(buf, end);
}

void AppendArgValue(std::string& out, const ArgValue& v) {
  std::visit(
      [&out](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          out.append(x ? "true" : "false");
        } else if constexpr (std::is_same_v<T, int64_t>) {
          AppendInt(out, x);
        } else if constexpr (std::is_same_v<T, double>) {
          AppendJsonDouble(out, x);
        } else {
          AppendJsonString(out, x);
        }
      },
      v);
}

void AppendArgsObject(std::string& out, const Args& args) {
  out.push_back('{');
  bool first = true;
  for (const auto& [key, value] : args) {
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(out, key);
    out.push_back(':');
    AppendArgValue(out, value);
  }
  out.push_back('}');
}

}  // namespace dlsim::report::internal

#include "json_text.h"

#include <fmt/format.h>

#include <cmath>
#include <iterator>
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
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      size_t len = Utf8SequenceLength(s, i);
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
      default:
        if (c < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.push_back('"');
}

void AppendMicros(std::string& out, int64_t ns) {
  // Work on the magnitude as unsigned so INT64_MIN does not overflow.
  uint64_t mag = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (ns < 0) out.push_back('-');
  fmt::format_to(std::back_inserter(out), "{}", mag / 1000);
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
  fmt::format_to(std::back_inserter(out), "{}", v);
}

void AppendArgValue(std::string& out, const ArgValue& v) {
  std::visit(
      [&out](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          out.append(x ? "true" : "false");
        } else if constexpr (std::is_same_v<T, int64_t>) {
          fmt::format_to(std::back_inserter(out), "{}", x);
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

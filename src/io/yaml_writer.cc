#include "dlsim/io/yaml_writer.h"

#include <fmt/format.h>

namespace dlsim::io {

std::string YamlQuoted(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
      continue;
    }
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

}  // namespace dlsim::io

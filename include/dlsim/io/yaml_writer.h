// Writing YAML that dlsim's readers read back exactly (plan --write-best, catalog import).
//
//   out += "name: " + io::YamlQuoted(spec.name) + "\n";   // "null", "[x]", " lead" stay themselves
#ifndef DLSIM_IO_YAML_WRITER_H_
#define DLSIM_IO_YAML_WRITER_H_

#include <string>
#include <string_view>

namespace dlsim::io {

// `s` as a YAML double-quoted scalar: quotes and backslashes escaped, control characters as \xHH, so any
// text (a YAML indicator, a path with ':' or '#', spaces at its ends) reads back as itself.
std::string YamlQuoted(std::string_view s);

}  // namespace dlsim::io

#endif  // DLSIM_IO_YAML_WRITER_H_

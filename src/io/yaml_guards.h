// Private: guards run on a YAML text before yaml-cpp parses it, each against a way yaml-cpp (up to 0.8)
// hangs or gives only "bad file": documents counted without looping, and nesting measured without recursion.
#ifndef DLSIM_SRC_IO_YAML_GUARDS_H_
#define DLSIM_SRC_IO_YAML_GUARDS_H_

#include <yaml-cpp/mark.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace dlsim::io::internal {

struct DocumentScan {
  int documents = 0;                   // counted up to 2
  std::optional<YAML::Mark> second;    // where the second document starts
  std::optional<YAML::Mark> stuck_at;  // the parser made no progress here
};

// Counts the documents of `text` (one, or more). Replaces YAML::LoadAll, which in yaml-cpp up to
// 0.8 loops forever, allocating, on input such as "," (jbeder/yaml-cpp#1040, fixed by PR #1319):
// a document whose first node is where the previous one's was means the parser is stuck.
// Throws what yaml-cpp's parser throws on a syntax error.
DocumentScan ScanDocuments(const std::string& text);

// The deepest [ / { nesting outside quotes and comments: the offset where it first exceeds `limit`
// (yaml-cpp recurses per level, and says only "bad file" when it gives up); nullopt within it.
std::optional<size_t> TooDeep(std::string_view text, int limit);

// The same for block (indentation) nesting: each line indented deeper than the open levels opens one
// more, and each "- " it starts with one more; the offset of the line where the depth first exceeds
// `limit`; nullopt within it.
std::optional<size_t> TooDeepBlocks(std::string_view text, int limit);

}  // namespace dlsim::io::internal

#endif  // DLSIM_SRC_IO_YAML_GUARDS_H_

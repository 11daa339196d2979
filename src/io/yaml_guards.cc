#include "yaml_guards.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <sstream>
#include <vector>

namespace dlsim::io::internal {
namespace {

// Records where a document's first node is, without building it.
class FirstNodeHandler : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> first;

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { Saw(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { Saw(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override {
    Saw(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Saw(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Saw(m);
  }
  void OnMapEnd() override {}

 private:
  void Saw(const YAML::Mark& m) {
    if (!first) first = m;
  }
};

}  // namespace

DocumentScan ScanDocuments(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentScan scan;
  std::optional<YAML::Mark> previous;
  for (int i = 0; i < 3; ++i) {
    FirstNodeHandler h;
    if (!parser.HandleNextDocument(h)) break;
    if (h.first && previous && h.first->pos == previous->pos) {
      scan.stuck_at = h.first;
      break;
    }
    if (h.first) previous = h.first;
    if (++scan.documents == 2) scan.second = h.first;
  }
  return scan;
}

std::optional<size_t> TooDeep(std::string_view text, int limit) {
  int depth = 0;
  char quote = 0;
  bool comment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') comment = false;
    if (comment) continue;
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '#') comment = true;
    if (c == '"' || c == '\'') quote = c;
    if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    }
    if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return std::nullopt;
}

std::optional<size_t> TooDeepBlocks(std::string_view text, int limit) {
  std::vector<size_t> open;  // indentation of the open levels, increasing
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    const size_t first = line.find_first_not_of(' ');
    int dashes = 0;
    for (size_t i = first;
         i != std::string_view::npos && i + 1 < line.size() && line[i] == '-' && line[i + 1] == ' ';
         i = line.find_first_not_of(' ', i + 1))
      ++dashes;
    if (first != std::string_view::npos && line[first] != '#' && line[first] != '\r') {
      while (!open.empty() && open.back() >= first) open.pop_back();
      open.push_back(first);
      if (static_cast<int>(open.size()) + dashes > limit) return pos;
    }
    pos = end + 1;
  }
  return std::nullopt;
}

}  // namespace dlsim::io::internal

#include "dlsim/cost/tree_ensemble.h"

#include <cstdio>
#include <sstream>

namespace dlsim::cost {
namespace {

std::string Num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

// Reads whitespace-separated tokens, skipping '#' comment lines (kept) and counting lines.
class Tokens {
 public:
  Tokens(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}
  bool Next(std::string* tok) {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') ++line_;
      if (c == '#' && at_line_start_) {
        const size_t end = text_.find('\n', pos_);
        header_ += std::string(text_.substr(pos_, end - pos_)) + "\n";
        pos_ = end == std::string_view::npos ? text_.size() : end;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        at_line_start_ = c == '\n';
        ++pos_;
        continue;
      }
      const size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] > ' ') ++pos_;
      *tok = std::string(text_.substr(start, pos_ - start));
      at_line_start_ = false;
      return true;
    }
    return false;
  }
  Error Fail(const std::string& what) const {
    return Error::Parse(file_ + ":" + std::to_string(line_ + 1) + ": expected " + what);
  }
  const std::string& header() const { return header_; }

 private:
  std::string_view text_;
  std::string file_, header_;
  size_t pos_ = 0;
  int line_ = 0;
  bool at_line_start_ = true;
};

bool ReadInt(Tokens& t, long min, long max, long* out) {
  std::string s;
  if (!t.Next(&s)) return false;
  char* end = nullptr;
  *out = std::strtol(s.c_str(), &end, 10);
  return end && *end == '\0' && *out >= min && *out <= max;
}

bool ReadFloat(Tokens& t, float* out) {
  std::string s;
  if (!t.Next(&s)) return false;
  char* end = nullptr;
  *out = std::strtof(s.c_str(), &end);
  return end && *end == '\0';
}

bool Keyword(Tokens& t, const char* word) {
  std::string s;
  return t.Next(&s) && s == word;
}

constexpr long kMaxNodes = 1 << 20;

Status ReadTree(Tokens& t, long index, size_t features, std::vector<TreeNode>* tree) {
  long i = 0, n = 0;
  if (!Keyword(t, "tree") || !ReadInt(t, index, index, &i) || !Keyword(t, "nodes") ||
      !ReadInt(t, 1, kMaxNodes, &n))
    return t.Fail("'tree " + std::to_string(index) + " nodes K' with K in 1.." + std::to_string(kMaxNodes));
  tree->resize(static_cast<size_t>(n));
  for (long idx = 0; idx < n; ++idx) {
    TreeNode& node = (*tree)[static_cast<size_t>(idx)];
    long l = 0, r = 0, f = 0;
    if (!ReadInt(t, -1, n - 1, &l) || !ReadInt(t, -1, n - 1, &r) ||
        !ReadInt(t, 0, static_cast<long>(features) - 1, &f) || !ReadFloat(t, &node.value))
      return t.Fail("a node 'left right feature value' (children -1.." + std::to_string(n - 1) +
                    ", feature 0.." + std::to_string(features - 1) + ")");
    if ((l == -1) != (r == -1)) return t.Fail("both children -1 (a leaf) or neither");
    if (l != -1 && (l <= idx || r <= idx)) return t.Fail("children after their parent (no cycles)");
    node.left = static_cast<int>(l), node.right = static_cast<int>(r), node.feature = static_cast<int>(f);
  }
  return {};
}

}  // namespace

double TreeEnsemble::Predict(const std::vector<double>& x) const {
  double y = base_score;
  for (const auto& tree : trees) {
    int i = 0;
    while (tree[static_cast<size_t>(i)].left >= 0) {
      const TreeNode& n = tree[static_cast<size_t>(i)];
      i = static_cast<float>(x[static_cast<size_t>(n.feature)]) < n.value ? n.left : n.right;
    }
    y += tree[static_cast<size_t>(i)].value;
  }
  return y;
}

std::string TreeEnsemble::ToText() const {
  std::ostringstream o;
  o << header << "features " << features.size();
  for (const auto& f : features) o << " " << f;
  o << "\nbase_score " << Num(base_score) << "\ntrees " << trees.size() << "\n";
  for (size_t t = 0; t < trees.size(); ++t) {
    o << "tree " << t << " nodes " << trees[t].size() << "\n";
    for (const TreeNode& n : trees[t])
      o << n.left << " " << n.right << " " << n.feature << " " << Num(n.value) << "\n";
  }
  return o.str();
}

Result<TreeEnsemble> ParseTreeEnsemble(std::string_view text, const std::string& file_name) {
  Tokens t(text, file_name);
  TreeEnsemble m;
  long nf = 0, nt = 0;
  if (!Keyword(t, "features") || !ReadInt(t, 1, 4096, &nf)) return t.Fail("'features N' with N in 1..4096");
  for (long i = 0; i < nf; ++i) {
    std::string name;
    if (!t.Next(&name)) return t.Fail(std::to_string(nf) + " feature names");
    m.features.push_back(name);
  }
  if (!Keyword(t, "base_score") || !ReadFloat(t, &m.base_score)) return t.Fail("'base_score V'");
  if (!Keyword(t, "trees") || !ReadInt(t, 0, kMaxNodes, &nt)) return t.Fail("'trees T'");
  m.trees.resize(static_cast<size_t>(nt));
  for (long i = 0; i < nt; ++i)
    DLSIM_RETURN_IF_ERROR(ReadTree(t, i, m.features.size(), &m.trees[static_cast<size_t>(i)]));
  std::string extra;
  if (t.Next(&extra))
    return t.Fail("end of file after " + std::to_string(nt) + " trees, found '" + extra + "'");
  m.header = t.header();
  return m;
}

}  // namespace dlsim::cost

#include "dlsim/io/yaml_reader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <variant>

#include "dlsim/core/strings.h"
#include "yaml_guards.h"

namespace dlsim::io {
namespace internal {

struct DocState {
  std::string file;
  YAML::Node root;
  struct Recorded {
    Location where;
    size_t seq = 0;
    std::string text;
  };
  std::vector<Recorded> errors;
};

struct MapState {
  Document doc;
  std::string path;
  Location loc;
  bool present = false;
  struct Entry {
    std::string name;
    Location key_loc;
    YAML::Node value;
  };
  std::vector<Entry> entries;
  std::vector<std::string> known;  // declaration order, for "allowed:"
  std::set<std::string, std::less<>> known_set;
  std::map<std::string, std::shared_ptr<MapState>, std::less<>> sections;
};

}  // namespace internal

namespace {

using internal::MapState;

Location ToLocation(const YAML::Mark& m) {
  if (m.line < 0 || m.column < 0) return {};
  return {m.line + 1, m.column + 1};
}

Location LocationOrFallback(const YAML::Node& n, Location fallback) {
  Location l = ToLocation(n.Mark());
  return l.line > 0 ? l : fallback;
}

// Keeps messages printable and short whatever bytes the file holds.
std::string Printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 60)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u == '\n') {
      out += "\\n";
    } else if (u < 0x20 || u == 0x7f) {
      out += '?';
    } else {
      out += c;
    }
  }
  if (s.size() > 60) out += "...";
  return out;
}

// A quoted scalar has the non-specific tag "!", a plain one "?"; an explicit tag ("!!str 2", "!x 2")
// names a type this reader does not interpret, so such a value, like a quoted one, is a string.
bool IsQuoted(const YAML::Node& n) { return n.Tag() != "?" && !n.Tag().empty(); }

// "!!str" for yaml-cpp's expanded "tag:yaml.org,2002:str".
std::string TagName(const std::string& tag) {
  constexpr std::string_view kCore = "tag:yaml.org,2002:";
  return tag.starts_with(kCore) ? "!!" + tag.substr(kCore.size()) : tag;
}

std::string Describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing (an empty value)";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a mapping";
  std::string s = "'" + Printable(n.Scalar()) + "'";
  if (n.Tag() == "!") s += " (a quoted string)";
  if (IsQuoted(n) && n.Tag() != "!") s += " (tagged " + Printable(TagName(n.Tag())) + ", a string)";
  return s;
}

std::string Num(double v) { return FormatNumber(v, 12); }

// An integer bound exactly ("9223372036854775807", not "9.22337203685e+18"); int64's ends as such.
std::string IntegerNum(double v) {
  constexpr double kTwo63 = 9223372036854775808.0;
  if (v >= kTwo63) return std::to_string(std::numeric_limits<int64_t>::max());
  if (v < -kTwo63) return std::to_string(std::numeric_limits<int64_t>::min());
  return std::to_string(static_cast<int64_t>(v));
}

// "" when unrestricted.
std::string RangeText(Range r, bool integral) {
  const auto bound = [integral](double v) { return integral && v == std::floor(v) ? IntegerNum(v) : Num(v); };
  if (r.or_zero) {
    r.or_zero = false;
    return "0 or " + RangeText(r, integral);
  }
  if (integral && r.min_exclusive && std::isfinite(r.min)) r = {std::floor(r.min) + 1, r.max, false};
  const bool lo = std::isfinite(r.min), hi = std::isfinite(r.max);
  if (lo && hi && !r.min_exclusive && !r.max_exclusive) return bound(r.min) + ".." + bound(r.max);
  std::string out;
  if (lo) out = (r.min_exclusive ? "> " : ">= ") + bound(r.min);
  if (hi) out += std::string(lo ? " and " : "") + (r.max_exclusive ? "< " : "<= ") + bound(r.max);
  return out;
}

std::string ExpectedNumber(const Range& r, bool integral) {
  if (r.or_zero) return integral ? "an integer" : "a number";
  const bool unbounded_above = !std::isfinite(r.max);
  const bool positive = r.min_exclusive ? r.min == 0 : (integral ? r.min == 1 : false);
  const bool non_negative = !r.min_exclusive && r.min == 0;
  std::string noun = integral ? "integer" : "number";
  if (unbounded_above && positive) return "a positive " + noun;
  if (unbounded_above && non_negative) return "a non-negative " + noun;
  const std::string range = RangeText(r, integral);
  if (range.empty()) return integral ? "an integer" : "a number";
  if (std::isfinite(r.min) && !unbounded_above) return noun == "integer" ? "an integer" : "a number";
  return (integral ? "an integer " : "a number ") + range;  // e.g. "a number >= 1"
}

std::string Mismatch(std::string_view expected, const YAML::Node& found, std::string_view allowed,
                     std::string_view note = {}) {
  std::string msg = "expected " + std::string(expected) + ", found " + Describe(found);
  if (!allowed.empty()) msg += "; allowed: " + std::string(allowed);
  if (!allowed.empty() && !note.empty()) msg += " (" + std::string(note) + ")";
  return msg;
}

// Parses a plain (unquoted) integer scalar; nullopt when it is not one.
std::optional<long long> ParseInteger(const YAML::Node& n) {
  if (!n.IsScalar() || IsQuoted(n)) return std::nullopt;
  std::string_view s = n.Scalar();
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<double> ParseReal(const YAML::Node& n) {
  if (!n.IsScalar() || IsQuoted(n)) return std::nullopt;
  std::string_view s = n.Scalar();
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Converts one value node to T, or returns the error text.
template <typename T>
std::variant<T, std::string> Convert(const YAML::Node& n, const Range& r);

// `r` narrowed to what Int holds, so a value just over 2^31 names the real upper limit.
template <typename Int>
Range IntegerRange(Range r) {
  r.max = std::min(r.max, static_cast<double>(std::numeric_limits<Int>::max()));
  if (!r.min_exclusive) r.min = std::max(r.min, static_cast<double>(std::numeric_limits<Int>::min()));
  return r;
}

template <typename Int>
std::variant<Int, std::string> ConvertInteger(const YAML::Node& n, const Range& given) {
  const Range r = IntegerRange<Int>(given);
  std::optional<long long> v = ParseInteger(n);
  if (v && r.Contains(static_cast<double>(*v))) return static_cast<Int>(*v);
  // The allowed range is worth printing when the key has one, or when the value is a number
  // beyond what the integer holds (99999999999 for an int).
  const bool numeric = v || ParseReal(n);
  const bool bounded = std::isfinite(given.min) || std::isfinite(given.max);
  return Mismatch(ExpectedNumber(given, true), n, bounded || numeric ? RangeText(r, true) : "", given.note);
}

template <>
std::variant<int, std::string> Convert<int>(const YAML::Node& n, const Range& r) {
  return ConvertInteger<int>(n, r);
}
template <>
std::variant<int64_t, std::string> Convert<int64_t>(const YAML::Node& n, const Range& r) {
  return ConvertInteger<int64_t>(n, r);
}
template <>
std::variant<double, std::string> Convert<double>(const YAML::Node& n, const Range& r) {
  std::optional<double> v = ParseReal(n);
  if (!v || !r.Contains(*v)) return Mismatch(ExpectedNumber(r, false), n, RangeText(r, false), r.note);
  return *v;
}
template <>
std::variant<bool, std::string> Convert<bool>(const YAML::Node& n, const Range&) {
  if (n.IsScalar() && !IsQuoted(n)) {
    const std::string& s = n.Scalar();
    if (s == "true") return true;  // docs/scenario-format.md: booleans are exactly true or false
    if (s == "false") return false;
  }
  return Mismatch("true or false", n, "true, false");
}
template <>
std::variant<std::string, std::string> Convert<std::string>(const YAML::Node& n, const Range&) {
  if (n.IsScalar()) return std::variant<std::string, std::string>(std::in_place_index<0>, n.Scalar());
  return std::variant<std::string, std::string>(std::in_place_index<1>, Mismatch("a string", n, ""));
}

template <typename T>
std::optional<T> ConvertOrRecord(const MapReader& m, std::string_view key, Location where,
                                 std::string_view path, const YAML::Node& n, const Range& r) {
  auto v = Convert<T>(n, r);
  if (v.index() == 0) return std::get<0>(std::move(v));
  m.document().AddError(where, path, std::get<1>(std::move(v)));
  return std::nullopt;
}

std::shared_ptr<MapState> MakeMap(const Document& doc, const YAML::Node& node, std::string path,
                                  Location loc) {
  auto s = std::make_shared<MapState>();
  s->doc = doc;
  s->path = std::move(path);
  s->loc = loc;
  if (!node.IsDefined() || !(node.IsMap() || node.IsNull())) return s;
  s->present = true;
  if (node.IsNull()) return s;
  for (auto it = node.begin(); it != node.end(); ++it) {
    // Copies: the iterator's value is a temporary, so references into it would dangle.
    const YAML::Node k = it->first;
    const YAML::Node v = it->second;
    Location kl = LocationOrFallback(k, loc);
    if (!k.IsScalar()) {
      doc.AddError(kl, s->path, "expected a key name, found " + Describe(k));
      continue;
    }
    const std::string name = k.Scalar();
    std::string key_path = s->path.empty() ? name : s->path + "." + name;
    auto dup =
        std::find_if(s->entries.begin(), s->entries.end(), [&](const auto& e) { return e.name == name; });
    if (dup != s->entries.end()) {
      doc.AddError(kl, key_path,
                   "duplicate key '" + Printable(name) + "' (first given at line " +
                       std::to_string(dup->key_loc.line) + ")");
      continue;
    }
    s->entries.push_back({name, kl, v});
  }
  return s;
}

const MapState::Entry* FindEntry(const MapState& s, std::string_view key) {
  for (const auto& e : s.entries) {
    if (e.name == key) return &e;
  }
  return nullptr;
}

void MarkKnown(MapState& s, std::string_view key) {
  if (s.known_set.insert(std::string(key)).second) s.known.emplace_back(key);
}

}  // namespace

// ----- Document -----

const std::string& Document::file_name() const { return state_->file; }

MapReader Document::Root() const {
  Location top{1, 1};
  if (!state_->root.IsMap()) {
    AddError(LocationOrFallback(state_->root, top), "",
             "expected a mapping of 'key: value' lines at the top level, found " + Describe(state_->root));
  }
  return MapReader(MakeMap(*this, state_->root, "", top));
}

void Document::AddError(Location where, std::string_view key_path, std::string message) const {
  std::string text = FormatError(state_->file, where, key_path, message);
  for (const auto& e : state_->errors) {
    if (e.text == text) return;
  }
  state_->errors.push_back({where, state_->errors.size(), std::move(text)});
}

bool Document::has_errors() const { return !state_->errors.empty(); }

Status Document::status() const {
  if (state_->errors.empty()) return Status::Ok();
  auto errors = state_->errors;
  auto key = [](const internal::DocState::Recorded& e) {
    return std::make_tuple(e.where.line > 0 ? e.where.line : INT_MAX, e.where.column, e.seq);
  };
  std::sort(errors.begin(), errors.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  constexpr size_t kMaxShown = 10;
  std::string msg;
  for (size_t i = 0; i < errors.size() && i < kMaxShown; ++i) {
    if (i) msg += "\n";
    msg += errors[i].text;
  }
  if (errors.size() > kMaxShown)
    msg += "\n... and " + std::to_string(errors.size() - kMaxShown) + " more errors";
  return Error::InvalidArgument(msg);
}

std::string FormatError(const std::string& file, Location where, std::string_view key_path,
                        std::string_view message) {
  std::string out = file;
  if (where.line > 0) out += ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
  out += ": ";
  if (!key_path.empty()) out += std::string(key_path) + ": ";
  out += message;
  return out;
}

namespace {

Error SyntaxError(const std::string& file_name, const YAML::Mark& mark, const std::string& what) {
  return Error::Parse(FormatError(file_name, ToLocation(mark), "", "yaml syntax error: " + what));
}

}  // namespace

Result<Document> ParseYaml(std::string_view text, std::string file_name) {
  const std::string input(text);
  std::optional<size_t> at = internal::TooDeep(text, kMaxNesting);
  if (!at) at = internal::TooDeepBlocks(text, kMaxNesting);
  if (at) {
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(*at), '\n');
    return Error::Parse(FormatError(file_name, {static_cast<int>(line), 1}, "",
                                    "lists or mappings nested deeper than " + std::to_string(kMaxNesting) +
                                        " levels; no scenario key needs that"));
  }
  YAML::Node root;
  try {
    internal::DocumentScan scan = internal::ScanDocuments(input);
    if (scan.stuck_at) {
      const size_t pos = static_cast<size_t>(std::max(0, scan.stuck_at->pos));
      return SyntaxError(file_name, *scan.stuck_at,
                         "unexpected '" + Printable(input.substr(pos, 1)) + "' (no YAML value starts here)");
    }
    if (scan.documents > 1) {
      return Error::Parse(
          FormatError(file_name, ToLocation(scan.second.value_or(YAML::Mark())), "",
                      "expected one YAML document, found more (remove the '---' separators)"));
    }
    root = YAML::Load(input);
  } catch (const YAML::Exception& e) {
    return SyntaxError(file_name, e.mark, e.msg);
  } catch (const std::exception& e) {
    return Error::Parse(FormatError(file_name, {}, "", std::string("cannot parse yaml: ") + e.what()));
  }
  if (!root.IsDefined() || root.IsNull()) {
    return Error::Parse(
        FormatError(file_name, {1, 1}, "", "file is empty; expected a mapping of 'key: value' lines"));
  }
  Document doc;
  doc.state_ = std::make_shared<internal::DocState>();
  doc.state_->file = std::move(file_name);
  doc.state_->root = root;
  return doc;
}

Result<double> ParseNumber(std::string_view text, const Range& range, bool integral) {
  const YAML::Node n{std::string(text)};  // a plain scalar, read as the YAML readers read one
  if (integral) {
    auto v = ConvertInteger<int64_t>(n, range);
    if (v.index() == 0) return static_cast<double>(std::get<0>(v));
    return Error::InvalidArgument(std::get<1>(std::move(v)));
  }
  auto v = Convert<double>(n, range);
  if (v.index() == 0) return std::get<0>(v);
  return Error::InvalidArgument(std::get<1>(std::move(v)));
}

Result<Document> LoadYamlFile(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseYaml(text, path);
}

// ----- MapReader -----

template <typename T>
std::optional<T> MapReader::Find(std::string_view key, Range range) const {
  MarkKnown(*s_, key);
  const MapState::Entry* e = FindEntry(*s_, key);
  if (!e) return std::nullopt;
  return ConvertOrRecord<T>(*this, key, LocationOrFallback(e->value, e->key_loc), PathOf(key), e->value,
                            range);
}

template <typename T>
T MapReader::Get(std::string_view key, T def, Range range) const {
  std::optional<T> v = Find<T>(key, range);
  return v ? *std::move(v) : std::move(def);
}

template <typename T>
std::optional<T> MapReader::Require(std::string_view key, Range range) const {
  if (!Has(key)) {
    MarkKnown(*s_, key);
    s_->doc.AddError(location(), s_->path, "missing required key '" + std::string(key) + "'");
    return std::nullopt;
  }
  return Find<T>(key, range);
}

template <typename T>
std::optional<std::vector<T>> MapReader::FindList(std::string_view key, Range range) const {
  MarkKnown(*s_, key);
  const MapState::Entry* e = FindEntry(*s_, key);
  if (!e) return std::nullopt;
  Location where = LocationOrFallback(e->value, e->key_loc);
  if (!e->value.IsSequence()) {
    std::string what = std::is_same_v<T, std::string> ? "strings"
                       : std::is_same_v<T, bool>      ? "booleans"
                       : std::is_same_v<T, double>    ? "numbers"
                                                      : "integers";
    s_->doc.AddError(where, PathOf(key), Mismatch("a list of " + what + " such as [1, 2]", e->value, ""));
    return std::nullopt;
  }
  if (e->value.size() > kMaxListLength) {
    s_->doc.AddError(where, PathOf(key),
                     "a list of " + std::to_string(e->value.size()) + " entries; lists hold at most " +
                         std::to_string(kMaxListLength) + " (no scenario key needs more)");
    return std::nullopt;
  }
  std::vector<T> out;
  bool ok = true;
  for (size_t i = 0; i < e->value.size(); ++i) {
    const YAML::Node item = e->value[i];
    std::string p = PathOf(key) + "[" + std::to_string(i) + "]";
    auto v = ConvertOrRecord<T>(*this, key, LocationOrFallback(item, where), p, item, range);
    if (v) {
      out.push_back(*std::move(v));
    } else {
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

#define DLSIM_INSTANTIATE(T)                                                      \
  template T MapReader::Get<T>(std::string_view, T, Range) const;                 \
  template std::optional<T> MapReader::Find<T>(std::string_view, Range) const;    \
  template std::optional<T> MapReader::Require<T>(std::string_view, Range) const; \
  template std::optional<std::vector<T>> MapReader::FindList<T>(std::string_view, Range) const;
DLSIM_INSTANTIATE(int)
DLSIM_INSTANTIATE(int64_t)
DLSIM_INSTANTIATE(double)
DLSIM_INSTANTIATE(bool)
DLSIM_INSTANTIATE(std::string)
#undef DLSIM_INSTANTIATE

std::optional<size_t> MapReader::FindChoice(std::string_view key,
                                            const std::vector<std::string>& allowed) const {
  std::optional<std::string> v = Find<std::string>(key);
  if (!v) return std::nullopt;
  auto it = std::find(allowed.begin(), allowed.end(), *v);
  if (it != allowed.end()) return static_cast<size_t>(it - allowed.begin());
  const MapState::Entry* e = FindEntry(*s_, key);
  std::string msg = "expected one of the allowed names, found " + Describe(e->value);
  if (auto m = ClosestMatch(*v, allowed)) msg += " (did you mean '" + *m + "'?)";
  msg += "; allowed: " + Join(allowed, ", ");
  s_->doc.AddError(LocationOrFallback(e->value, e->key_loc), PathOf(key), msg);
  return std::nullopt;
}

MapReader MapReader::Section(std::string_view key) const {
  MarkKnown(*s_, key);
  if (auto it = s_->sections.find(key); it != s_->sections.end()) return MapReader(it->second);
  const MapState::Entry* e = FindEntry(*s_, key);
  std::shared_ptr<MapState> sub;
  if (!e) {
    sub = MakeMap(s_->doc, YAML::Node(YAML::NodeType::Undefined), PathOf(key), location());
  } else {
    if (!e->value.IsMap() && !e->value.IsNull()) {
      s_->doc.AddError(LocationOrFallback(e->value, e->key_loc), PathOf(key),
                       Mismatch("a mapping (indented 'key: value' lines)", e->value, ""));
    }
    sub = MakeMap(s_->doc, e->value, PathOf(key), e->key_loc);
  }
  s_->sections.emplace(std::string(key), sub);
  return MapReader(sub);
}

std::vector<MapReader> MapReader::SectionList(std::string_view key) const {
  MarkKnown(*s_, key);
  const MapState::Entry* e = FindEntry(*s_, key);
  std::vector<MapReader> out;
  if (!e) return out;
  Location where = LocationOrFallback(e->value, e->key_loc);
  if (!e->value.IsSequence()) {
    s_->doc.AddError(where, PathOf(key), Mismatch("a list of mappings", e->value, ""));
    return out;
  }
  for (size_t i = 0; i < e->value.size(); ++i) {
    const YAML::Node item = e->value[i];
    std::string p = PathOf(key) + "[" + std::to_string(i) + "]";
    Location il = LocationOrFallback(item, where);
    if (!item.IsMap()) {
      s_->doc.AddError(il, p, Mismatch("a mapping (indented 'key: value' lines)", item, ""));
      continue;
    }
    out.push_back(MapReader(MakeMap(s_->doc, item, p, il)));
  }
  return out;
}

void MapReader::Allow(const std::vector<std::string>& keys) const {
  for (const auto& k : keys) MarkKnown(*s_, k);
}

void MapReader::Finish() const {
  for (const auto& e : s_->entries) {
    if (s_->known_set.count(e.name)) continue;
    std::string msg = "unknown key '" + Printable(e.name) + "'";
    if (auto m = ClosestMatch(e.name, s_->known)) msg += " (did you mean '" + *m + "'?)";
    msg += "; allowed: " + (s_->known.empty() ? std::string("no keys here") : Join(s_->known, ", "));
    s_->doc.AddError(e.key_loc, PathOf(e.name), msg);
  }
}

bool MapReader::present() const { return s_->present; }
bool MapReader::Has(std::string_view key) const { return FindEntry(*s_, key) != nullptr; }

bool MapReader::HasValue(std::string_view key) const {
  const MapState::Entry* e = FindEntry(*s_, key);
  return e != nullptr && e->value.IsDefined() && !e->value.IsNull();
}

std::vector<std::string> MapReader::Keys() const {
  std::vector<std::string> out;
  for (const auto& e : s_->entries) out.push_back(e.name);
  return out;
}

const std::string& MapReader::path() const { return s_->path; }

std::string MapReader::PathOf(std::string_view key) const {
  return s_->path.empty() ? std::string(key) : s_->path + "." + std::string(key);
}

Location MapReader::LocationOf(std::string_view key) const {
  const MapState::Entry* e = FindEntry(*s_, key);
  return e ? LocationOrFallback(e->value, e->key_loc) : s_->loc;
}

Location MapReader::location() const { return s_->loc; }

void MapReader::AddError(std::string_view key, std::string message) const {
  s_->doc.AddError(LocationOf(key), PathOf(key), std::move(message));
}

Error MapReader::ErrorAt(std::string_view key, std::string message) const {
  return Error::InvalidArgument(FormatError(s_->doc.file_name(), LocationOf(key), PathOf(key), message));
}

const Document& MapReader::document() const { return s_->doc; }

}  // namespace dlsim::io

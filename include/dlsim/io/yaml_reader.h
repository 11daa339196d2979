// Validating YAML reader: turns a YAML document into option structs with precise errors.
//
// A thin layer over yaml-cpp (which stays out of this header). Every error reads
//
//   FILE:LINE:COL: KEY.PATH: expected X, found Y; allowed: a, b, c
//
// with 1-based line and column, "allowed" only for closed sets and ranges, and
// " (did you mean 'tp'?)" after an unknown key or name. Readers never stop at an error: they
// record it in the Document, return the default and go on, so one pass finds every type
// error; Document::status() then reports them in file order.
//
//   auto doc = io::ParseYaml(text, "run.yaml");          // syntax errors: Result error
//   if (!doc.ok()) return doc.error();
//   io::MapReader root = doc->Root();
//   io::MapReader par = root.Section("parallel");
//   int tp = par.Get<int>("tp", 1, io::Range::Positive());
//   auto kind = par.GetEnum("recompute", Recompute::kNone,
//                           {{"none", Recompute::kNone}, {"full", Recompute::kFull}});
//   par.Finish();                                         // unknown keys -> errors
//   root.Finish();
//   DLSIM_RETURN_IF_ERROR(doc->status());
//
// A key counts as known once any Get/Find/Require/Section/Allow call has named it, present
// or not; Finish() reports every present key that is not known, with a suggestion and the
// known keys. Readers are cheap handles: copies share the same state. Not thread-safe.
#ifndef DLSIM_IO_YAML_READER_H_
#define DLSIM_IO_YAML_READER_H_

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::io {

// A position in the file, 1-based. line == 0 means unknown.
struct Location {
  int line = 0;
  int column = 0;
};

// Allowed numeric range for Get<int>/Get<int64_t>/Get<double> (ignored for bool/string). `note`, when
// not empty, follows the allowed range in a mismatch message: why the limit is there and how to go
// past it ("allowed: 1..10000000 (a memory limit: split the run)"); it must outlive the Range (a literal).
struct Range {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  bool max_exclusive = false;
  bool or_zero = false;  // 0 is also accepted ("none"), e.g. a bandwidth of 0 or one in 0.001..1e6
  std::string_view note{};

  static Range Any() { return {}; }
  static Range Positive() { return {0, std::numeric_limits<double>::infinity(), true}; }  // > 0
  static Range NonNegative() { return {0, std::numeric_limits<double>::infinity(), false}; }
  static Range AtLeast(double lo) { return {lo, std::numeric_limits<double>::infinity(), false}; }
  static Range Between(double lo, double hi) { return {lo, hi, false}; }              // inclusive
  static Range Positive(double hi) { return {0, hi, true}; }                          // > 0 and <= hi
  static Range HalfOpen(double lo, double hi) { return {lo, hi, false, true}; }       // >= lo and < hi
  static Range ZeroOr(double lo, double hi) { return {lo, hi, false, false, true}; }  // 0, or lo..hi
  Range WithNote(std::string_view why) const {
    Range r = *this;
    r.note = why;
    return r;
  }
  bool Contains(double v) const {
    return (or_zero && v == 0) ||
           ((min_exclusive ? v > min : v >= min) && (max_exclusive ? v < max : v <= max));
  }
};

namespace internal {
struct DocState;
struct MapState;
}  // namespace internal

class MapReader;

// A parsed YAML document and the errors recorded while reading it.
class Document {
 public:
  const std::string& file_name() const;
  // The top-level mapping. When the document is not a mapping, records an error and returns a
  // reader over nothing (every Get returns its default).
  MapReader Root() const;
  // Records an error "FILE:L:C: PATH: message" (PATH omitted when empty).
  void AddError(Location where, std::string_view key_path, std::string message) const;
  bool has_errors() const;
  // Ok when no error was recorded; otherwise one Error (kInvalidArgument) whose message lists
  // the errors in file order, one per line (at most 10, then "... and N more errors").
  Status status() const;

 private:
  friend Result<Document> ParseYaml(std::string_view text, std::string file_name);
  std::shared_ptr<internal::DocState> state_;
};

// Parses one YAML document. Errors (kParse): a syntax error ("FILE:L:C: yaml syntax error: ..."),
// an empty file ("FILE: file is empty"), more than one document. Never throws.
Result<Document> ParseYaml(std::string_view text, std::string file_name);
// Input files larger than this are refused (DLSIM_MAX_INPUT_MIB raises it): a scenario, catalog or
// length file is kilobytes to a few megabytes; a bigger one is a mistake (or /dev/zero).
inline constexpr int64_t kDefaultMaxInputFileBytes = int64_t{16} << 20;
// Lists longer than this are an error (FindList).
inline constexpr size_t kMaxListLength = 100000;
// Flow lists and mappings nested deeper than this are a syntax error.
inline constexpr int kMaxNesting = 64;
// The limit in force: DLSIM_MAX_INPUT_MIB (mebibytes) when set and positive, else the default.
int64_t MaxInputFileBytes();
// The whole file. Errors: kNotFound (missing, unreadable, a directory), kInvalidArgument (not a
// regular file, such as a device or FIFO; larger than MaxInputFileBytes()).
Result<std::string> ReadTextFile(const std::string& path);
// The same with its own size limit in bytes (a profiler trace: io/kineto_trace.h).
Result<std::string> ReadTextFile(const std::string& path, int64_t limit);
// ReadTextFile + ParseYaml, with the path as file name.
Result<Document> LoadYamlFile(const std::string& path);

// Reads one YAML mapping. Supported T: int, int64_t, double, bool, std::string.
class MapReader {
 public:
  // Value of `key`, or `def` when absent. On a wrong type or a value outside `range` records an
  // error ("expected a positive integer, found 'abc'; allowed: >= 1") and returns `def`.
  template <typename T>
  T Get(std::string_view key, T def, Range range = Range::Any()) const;
  // As Get, but nullopt when absent or wrong.
  template <typename T>
  std::optional<T> Find(std::string_view key, Range range = Range::Any()) const;
  // As Find, but an absent key is an error too ("missing required key 'x'").
  template <typename T>
  std::optional<T> Require(std::string_view key, Range range = Range::Any()) const;
  // A list of values; absent -> empty. Each element is checked against `range`.
  template <typename T>
  std::optional<std::vector<T>> FindList(std::string_view key, Range range = Range::Any()) const;

  // One of a closed set of names. Unknown name: error listing the allowed names with a suggestion.
  template <typename E>
  E GetEnum(std::string_view key, E def, const std::vector<std::pair<std::string, E>>& names) const {
    std::vector<std::string> allowed;
    for (const auto& [n, v] : names) allowed.push_back(n);
    std::optional<size_t> i = FindChoice(key, allowed);
    return i ? names[*i].second : def;
  }
  // The same over an enum's own name table (e.g. train::kRecomputeNames), so no reader copies the names.
  template <typename E, size_t N>
  E GetEnumOf(std::string_view key, E def, const std::pair<std::string_view, E> (&names)[N]) const {
    std::vector<std::pair<std::string, E>> v;
    for (const auto& [n, e] : names) v.emplace_back(std::string(n), e);
    return GetEnum(key, def, v);
  }
  // Index into `allowed` of the value of `key`; nullopt when absent or unknown (error recorded).
  std::optional<size_t> FindChoice(std::string_view key, const std::vector<std::string>& allowed) const;

  // Nested mapping. Absent: a reader over nothing (present() false). Not a mapping: error, and a
  // reader over nothing.
  MapReader Section(std::string_view key) const;
  // A list of mappings (paths key[0], key[1], ...); absent -> empty.
  std::vector<MapReader> SectionList(std::string_view key) const;

  // Marks keys as known without reading them.
  void Allow(const std::vector<std::string>& keys) const;
  // Records an error for each present key that is not known:
  // "PATH.k: unknown key 'k' (did you mean 'x'?); allowed: a, b".
  void Finish() const;

  bool present() const;                            // false for an absent or non-mapping section
  bool Has(std::string_view key) const;            // does not mark the key known
  bool HasValue(std::string_view key) const;       // Has, and not null (`key:`, `key: null`, `key: ~`)
  std::vector<std::string> Keys() const;           // present keys, file order
  const std::string& path() const;                 // "" for the root, "parallel", "model.shape", ...
  std::string PathOf(std::string_view key) const;  // path() + "." + key
  // Where `key`'s value is; falls back to the mapping itself when `key` is absent.
  Location LocationOf(std::string_view key) const;
  Location location() const;  // the key that introduced this mapping (line 1 for the root)
  // Records "FILE:L:C: PATH.key: message" at LocationOf(key).
  void AddError(std::string_view key, std::string message) const;
  // Builds the same message as an Error without recording it (for semantic checks).
  Error ErrorAt(std::string_view key, std::string message) const;
  const Document& document() const;

 private:
  friend class Document;
  explicit MapReader(std::shared_ptr<internal::MapState> s) : s_(std::move(s)) {}
  std::shared_ptr<internal::MapState> s_;
};

// Reads `text` (a cell of a CSV data file, ...) as Get<int64_t> (`integral`) or Get<double> reads a
// plain YAML scalar: decimal (no hex, inf or nan), finite, inside `range`. Error (kInvalidArgument):
// Get's message without a location, e.g. "expected an integer, found '1e300'; allowed: 1..16777216".
Result<double> ParseNumber(std::string_view text, const Range& range, bool integral);

// Formats "FILE:L:C: PATH: message" (the shape of every error of this module).
std::string FormatError(const std::string& file, Location where, std::string_view key_path,
                        std::string_view message);

}  // namespace dlsim::io

#endif  // DLSIM_IO_YAML_READER_H_

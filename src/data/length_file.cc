// Length files: DistCA JSON (a list of lengths, or {"length": count}) and CSV
// traces with a token-count column. The text is passed in; this module never
// opens files.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "dlsim/core/strings.h"
#include "dlsim/data/length_source.h"

namespace dlsim::data {
namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Error ParseError(const std::string& file, const std::string& what) {
  return Error::Parse(file + ": " + what);
}

// A positive integral length from a JSON number, or nullopt.
std::optional<int64_t> JsonLength(const nlohmann::json& v) {
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(kMaxDocumentTokens))
    return std::nullopt;
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::abs(d) <= kMaxDocumentTokens)
      return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

Result<LengthSpec> ToSpec(const std::map<int64_t, double>& hist, const std::string& file) {
  if (hist.empty()) return ParseError(file, "no lengths");
  LengthSpec spec;
  spec.distribution = "empirical";
  spec.file = file;
  for (const auto& [len, count] : hist) {
    if (count <= 0) continue;
    spec.values.push_back(static_cast<double>(len));
    spec.weights.push_back(count);
  }
  if (spec.values.empty()) return ParseError(file, "all counts are zero");
  return spec;
}

Result<LengthSpec> ParseJson(std::string_view text, const std::string& file) {
  nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr,
                                           /*allow_exceptions=*/false);
  if (j.is_discarded()) return ParseError(file, "malformed JSON");
  std::map<int64_t, double> hist;
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      std::optional<int64_t> l = JsonLength(j[i]);
      if (!l || *l < 1 || *l > kMaxDocumentTokens)
        return ParseError(file, "entry " + std::to_string(i) + ": expected an integer length in 1.." +
                                    std::to_string(kMaxDocumentTokens) + ", found " + j[i].dump());
      hist[*l] += 1;
    }
  } else if (j.is_object()) {
    for (const auto& [key, count] : j.items()) {
      int64_t l = 0;
      size_t used = 0;
      try {
        l = std::stoll(key, &used);
      } catch (...) {
        used = 0;
      }
      if (used != key.size() || l < 1 || l > kMaxDocumentTokens)
        return ParseError(file, "key '" + key + "': expected an integer length in 1.." +
                                    std::to_string(kMaxDocumentTokens));
      if (!count.is_number() || count.get<double>() < 0) {
        return ParseError(file, "key '" + key + "': expected a count >= 0, found " + count.dump());
      }
      hist[l] += count.get<double>();
    }
  } else {
    return ParseError(file, "expected a list of lengths or an object {\"length\": count}");
  }
  return ToSpec(hist, file);
}

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r' && c != '"') {
      cur.push_back(c);
    }
  }
  out.push_back(cur);
  for (auto& f : out) {
    while (!f.empty() && f.front() == ' ') f.erase(f.begin());
    while (!f.empty() && f.back() == ' ') f.pop_back();
  }
  return out;
}

Result<LengthSpec> ParseCsv(std::string_view text, const std::string& file, const std::string& column) {
  std::string want = column.empty() ? "num_prefill_tokens" : column;
  std::map<int64_t, double> hist;
  size_t pos = 0;
  int line_no = 0;
  int col = -1;
  std::vector<std::string> header;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> f = SplitCsvLine(line);
    if (col < 0) {
      header = f;
      auto it = std::find(header.begin(), header.end(), want);
      if (it == header.end())
        return ParseError(file, "no column '" + want + "'; columns: " + Join(header, ", "));
      col = static_cast<int>(it - header.begin());
      continue;
    }
    std::string where = file + ":" + std::to_string(line_no) + ": column '" + want + "'";
    if (line.find('"') != std::string::npos)
      return Error::Parse(where +
                          ": quoted fields are not supported (\"12,500\" would split at its comma); " +
                          "write plain integers without thousands separators");
    if (col >= static_cast<int>(f.size())) return Error::Parse(where + ": missing field");
    char* stop = nullptr;
    double v = std::strtod(f[col].c_str(), &stop);
    if (f[col].empty() || *stop != '\0' || !std::isfinite(v) || v != std::floor(v) || v < 1 ||
        v > static_cast<double>(kMaxDocumentTokens)) {
      return Error::Parse(where + ": expected an integer token count in 1.." +
                          std::to_string(kMaxDocumentTokens) + ", found '" + f[col] + "'");
    }
    hist[static_cast<int64_t>(v)] += 1;
  }
  if (col < 0) return ParseError(file, "empty CSV (no header)");
  return ToSpec(hist, file);
}

}  // namespace

Result<LengthSpec> ParseLengthFile(std::string_view text, const std::string& file_name,
                                   const std::string& column) {
  std::string lower = file_name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (EndsWith(lower, ".csv")) return ParseCsv(text, file_name, column);
  if (EndsWith(lower, ".json")) return ParseJson(text, file_name);
  return Error::InvalidArgument(file_name + ": unknown length-file format (expected .json or .csv)");
}

}  // namespace dlsim::data

// Request traces in the formats of serve_trace_formats.h.
#include "dlsim/io/serve_trace_formats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "dlsim/core/csv.h"
#include "dlsim/core/strings.h"
#include "dlsim/io/limits.h"
#include "dlsim/io/serve_scenario.h"
#include "sharegpt_trace.h"

namespace dlsim::io {
namespace {

constexpr double kMaxTokens = static_cast<double>(int64_t{1} << 24);
constexpr double kMaxArrival = 1e8;

Result<double> Cell(const CsvTable& t, size_t row, std::string_view column, double lo, double hi,
                    bool integral) {
  DLSIM_ASSIGN_OR_RETURN(size_t c, t.Column(column));
  DLSIM_ASSIGN_OR_RETURN(double v, t.Number(row, column));
  if (v < lo || v > hi || (integral && v != std::floor(v)))
    return Error::Parse(t.Where(row, c) + ": column '" + std::string(column) + "': expected " +
                        (integral ? "an integer" : "a number") + " in " + FormatNumber(lo, 9) + ".." +
                        FormatNumber(hi, 9) + ", found " + t.rows[row][c]);
  return v;
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// "YYYY-MM-DD HH:MM:SS[.fraction]" as seconds since the epoch.
Result<double> AzureTimestamp(const CsvTable& t, size_t row) {
  DLSIM_ASSIGN_OR_RETURN(size_t c, t.Column("TIMESTAMP"));
  const std::string& s = t.rows[row][c];
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, n = 0;
  double sec = 0;
  if (std::sscanf(s.c_str(), "%d-%d-%d %d:%d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
      static_cast<size_t>(n) != s.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
      !(sec >= 0 && sec < 61))
    return Error::Parse(t.Where(row, c) +
                        ": column 'TIMESTAMP': expected YYYY-MM-DD HH:MM:SS.fraction, found '" + s + "'");
  return static_cast<double>(DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d))) * 86400 +
         h * 3600.0 + mi * 60.0 + sec;
}

Result<std::vector<serve::TraceEntry>> Azure(const CsvTable& t) {
  std::vector<serve::TraceEntry> out;
  double first = 0;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(double at, AzureTimestamp(t, r));
    if (r == 0) first = at;
    if (!(at - first >= 0 && at - first <= kMaxArrival))
      return Error::Parse(t.Where(r, 0) +
                          ": column 'TIMESTAMP': more than 1e8 s after the first row, or before it");
    DLSIM_ASSIGN_OR_RETURN(double p, Cell(t, r, "ContextTokens", 1, kMaxTokens, true));
    DLSIM_ASSIGN_OR_RETURN(double o, Cell(t, r, "GeneratedTokens", 1, kMaxTokens, true));
    out.push_back({at - first, static_cast<int64_t>(p), static_cast<int64_t>(o)});
  }
  return out;
}

Result<std::vector<serve::TraceEntry>> BurstGpt(const CsvTable& t) {
  std::vector<serve::TraceEntry> out;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(double at, Cell(t, r, "Timestamp", 0, kMaxArrival, false));
    DLSIM_ASSIGN_OR_RETURN(double p, Cell(t, r, "Request tokens", 1, kMaxTokens, true));
    DLSIM_ASSIGN_OR_RETURN(double o, Cell(t, r, "Response tokens", 0, kMaxTokens, true));
    if (o == 0) continue;  // a failed request (BurstGPT's convention): nothing was generated
    out.push_back({at, static_cast<int64_t>(p), static_cast<int64_t>(o)});
  }
  return out;
}

// A lengths-only CSV: every arrival 0 (the scenario's rate gives the arrivals), file order kept.
Result<std::vector<serve::TraceEntry>> Lengths(const CsvTable& t) {
  std::vector<serve::TraceEntry> out;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(double p, Cell(t, r, "num_prefill_tokens", 1, kMaxTokens, true));
    DLSIM_ASSIGN_OR_RETURN(double o, Cell(t, r, "num_decode_tokens", 1, kMaxTokens, true));
    out.push_back({0.0, static_cast<int64_t>(p), static_cast<int64_t>(o)});
  }
  return out;
}

// One JSON-lines field: a number in [lo, hi] (an integer when asked).
Result<double> Field(const nlohmann::json& j, const char* key, double lo, double hi, bool integral,
                     const std::string& where) {
  if (!j.contains(key) || !j[key].is_number())
    return Error::Parse(where + ": '" + key + "' is missing or not a number");
  const double v = j[key].get<double>();
  if (!(v >= lo && v <= hi) || (integral && v != std::floor(v)))
    return Error::Parse(where + ": '" + key + "' is " + j[key].dump() + "; expected " +
                        (integral ? "an integer" : "a number") + " in " + FormatNumber(lo, 9) + ".." +
                        FormatNumber(hi, 9));
  return v;
}

// A Mooncake line's hash_ids (when present) appended to `hashes`, recorded in `e`: non-negative integers, at
// most one per prompt token.
Status HashIds(const nlohmann::json& j, const std::string& where, serve::TraceEntry& e,
               std::vector<uint64_t>& hashes) {
  if (!j.contains("hash_ids")) return Status::Ok();
  const nlohmann::json& ids = j["hash_ids"];
  if (!ids.is_array() || ids.size() > static_cast<size_t>(e.prompt_tokens))
    return Error::Parse(where + ": 'hash_ids' must be a list of at most input_length (" +
                        std::to_string(e.prompt_tokens) + ") ids");
  e.prefix_first = static_cast<int32_t>(hashes.size());
  e.prefix_chunks = static_cast<int32_t>(ids.size());
  for (const nlohmann::json& id : ids) {
    if (!id.is_number_unsigned() && !(id.is_number_integer() && id.get<int64_t>() >= 0))
      return Error::Parse(where + ": 'hash_ids' holds " + id.dump() + "; expected non-negative integers");
    hashes.push_back(id.get<uint64_t>());
  }
  return Status::Ok();
}

Result<std::vector<serve::TraceEntry>> Mooncake(std::string_view text, const std::string& file,
                                                std::vector<uint64_t>* hashes) {
  std::vector<serve::TraceEntry> out;
  size_t line_no = 0, start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = file + ":" + std::to_string(line_no);
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return Error::Parse(where + ": expected one JSON object per line");
    DLSIM_ASSIGN_OR_RETURN(double ms, Field(j, "timestamp", 0, kMaxArrival * 1e3, false, where));
    DLSIM_ASSIGN_OR_RETURN(double p, Field(j, "input_length", 1, kMaxTokens, true, where));
    DLSIM_ASSIGN_OR_RETURN(double o, Field(j, "output_length", 1, kMaxTokens, true, where));
    serve::TraceEntry e{ms / 1e3, static_cast<int64_t>(p), static_cast<int64_t>(o)};
    if (hashes != nullptr) DLSIM_RETURN_IF_ERROR(HashIds(j, where, e, *hashes));
    out.push_back(e);
    if (out.size() > static_cast<size_t>(serve::kMaxRequests))
      return Error::InvalidArgument(file + ": more than " + std::to_string(serve::kMaxRequests) +
                                    " requests");
  }
  return out;
}

TraceFormat Detect(std::string_view text, const CsvTable* csv) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') return TraceFormat::kMooncake;
  if (first != std::string_view::npos && text[first] == '[') return TraceFormat::kShareGpt;
  if (csv != nullptr && csv->Column("ContextTokens").ok()) return TraceFormat::kAzure;
  if (csv != nullptr && csv->Column("Request tokens").ok()) return TraceFormat::kBurstGpt;
  if (csv != nullptr && !csv->Column("arrived_at").ok() && csv->Column("num_prefill_tokens").ok())
    return TraceFormat::kLengths;
  return TraceFormat::kVidur;
}

// The CSV's leading '#' and blank lines and its header line: all that Detect reads of a CSV (the rows are
// parsed once, by the format's own reader).
std::string_view CsvHead(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    const size_t first = line.find_first_not_of(" \t\r");
    at = end + 1;
    if (first != std::string_view::npos && line[first] != '#') break;
  }
  return text.substr(0, std::min(at, text.size()));
}

}  // namespace

TraceFormat ResolveTraceFormat(std::string_view text, const std::string& file_name, TraceFormat format) {
  if (format != TraceFormat::kAuto) return format;
  const TraceFormat json = Detect(text, nullptr);
  if (json == TraceFormat::kMooncake || json == TraceFormat::kShareGpt) return json;
  auto csv = ParseCsv(CsvHead(text), file_name);
  return Detect(text, csv.ok() ? &*csv : nullptr);
}

bool TraceHasArrivals(std::string_view text, TraceFormat format) {
  const TraceFormat f = ResolveTraceFormat(text, "", format);
  return f != TraceFormat::kShareGpt && f != TraceFormat::kLengths;
}

Result<std::vector<serve::TraceEntry>> ParseTraceFile(std::string_view text, const std::string& file_name,
                                                      TraceFormat format, double chars_per_token,
                                                      std::vector<uint64_t>* prefix_hashes) {
  format = ResolveTraceFormat(text, file_name, format);
  Result<std::vector<serve::TraceEntry>> out = std::vector<serve::TraceEntry>{};
  if (format == TraceFormat::kVidur) return ParseRequestTrace(text, file_name);
  if (format == TraceFormat::kShareGpt) return internal::ParseShareGpt(text, file_name, chars_per_token);
  if (format == TraceFormat::kMooncake) {
    out = Mooncake(text, file_name, prefix_hashes);
  } else {
    DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(text, file_name));
    if (t.rows.size() > static_cast<size_t>(serve::kMaxRequests))
      return Error::InvalidArgument(file_name + ": more than " + std::to_string(serve::kMaxRequests) +
                                    " requests");
    if (format == TraceFormat::kLengths) return Lengths(t);  // file order: the arrivals come later
    out = format == TraceFormat::kAzure ? Azure(t) : BurstGpt(t);
  }
  if (!out.ok()) return out;
  std::stable_sort(out->begin(), out->end(), [](const serve::TraceEntry& a, const serve::TraceEntry& b) {
    return a.arrival_s < b.arrival_s;
  });
  return out;
}

}  // namespace dlsim::io

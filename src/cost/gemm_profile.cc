#include "dlsim/cost/gemm_profile.h"

#include <charconv>
#include <sstream>

namespace dlsim::cost {
namespace {

constexpr const char* kHeader = "gpu,model,op,tp,m,n,k,us";
constexpr int kColumns = 8;

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  return out;
}

bool PositiveInt(const std::string& s, int64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size() && *v > 0;
}

Result<GemmProfileRow> ParseRow(const std::vector<std::string>& c, const std::string& where) {
  if (c.size() != kColumns)
    return Error::Parse(where + ": expected " + std::to_string(kColumns) + " columns (" + kHeader +
                        "), found " + std::to_string(c.size()));
  GemmProfileRow r{c[0], c[1], c[2]};
  int64_t v[4];
  const char* names[] = {"tp", "m", "n", "k"};
  for (int i = 0; i < 4; ++i) {
    if (!PositiveInt(c[3 + i], &v[i]))
      return Error::Parse(where + ": column '" + names[i] + "': expected a positive integer, found '" +
                          c[3 + i] + "'");
  }
  r.tp = static_cast<int>(v[0]);
  r.shape = {.m = v[1], .n = v[2], .k = v[3]};
  char* end = nullptr;
  const double us = std::strtod(c[7].c_str(), &end);
  if (!end || *end != '\0' || !(us > 0) || us > 1e9)
    return Error::Parse(where + ": column 'us': expected a time in (0, 1e9] microseconds, found '" + c[7] +
                        "'");
  r.measured_s = us * 1e-6;
  return r;
}

}  // namespace

Result<std::vector<GemmProfileRow>> ParseGemmProfiles(std::string_view text, const std::string& file_name) {
  std::stringstream in{std::string(text)};
  std::string line;
  std::vector<GemmProfileRow> out;
  bool header = false;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string where = file_name + ":" + std::to_string(line_no);
    if (!header) {
      if (line != kHeader)
        return Error::Parse(where + ": expected the header '" + std::string(kHeader) + "'");
      header = true;
      continue;
    }
    DLSIM_ASSIGN_OR_RETURN(GemmProfileRow r, ParseRow(Split(line), where));
    out.push_back(std::move(r));
  }
  if (!header) return Error::Parse(file_name + ": no header line '" + std::string(kHeader) + "'");
  return out;
}

}  // namespace dlsim::cost

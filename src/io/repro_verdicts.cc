// Reads the "## Verdicts" table of docs/reproductions.md.
#include "dlsim/io/repro_verdicts.h"

#include <fmt/format.h>

#include <set>

namespace dlsim::io {
namespace {

constexpr std::string_view kSection = "## Verdicts";

std::string Trim(std::string_view s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return std::string(s.substr(a, b - a + 1));
}

// The cells of a Markdown table row ("| a | b |" -> {"a", "b"}), trimmed and without backticks.
std::vector<std::string> Cells(std::string_view row) {
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 1; i < row.size(); ++i) {  // row[0] is the leading '|'
    if (row[i] != '|') {
      if (row[i] != '`') cell += row[i];
      continue;
    }
    cells.push_back(Trim(cell));
    cell.clear();
  }
  if (!Trim(cell).empty()) cells.push_back(Trim(cell));
  return cells;
}

bool IsSeparator(const std::vector<std::string>& cells) {
  return !cells.empty() && cells[0].find_first_not_of("-: ") == std::string::npos;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// One row: its name and verdict, or an error naming file:line.
Result<ExpectedVerdict> ParseRow(const std::vector<std::string>& cells, const std::string& file, int line) {
  const std::string where = fmt::format("{}:{}", file, line);
  if (cells.size() < 2 || cells[0].empty())
    return Error::Parse(where + ": a verdict row needs `| name | verdict |`");
  ExpectedVerdict v{.name = cells[0], .line = line};
  if (!repro::ParseVerdictName(cells[1], v.status))
    return Error::Parse(fmt::format("{}: verdict '{}' of '{}' is not reproduced, off or no-claim", where,
                                    cells[1], cells[0]));
  return v;
}

}  // namespace

Result<std::vector<ExpectedVerdict>> ParseReproVerdicts(std::string_view markdown,
                                                        const std::string& file_name) {
  const std::vector<std::string_view> lines = Lines(markdown);
  size_t i = 0;
  while (i < lines.size() && lines[i].substr(0, kSection.size()) != kSection) ++i;
  if (i == lines.size()) return Error::Parse(fmt::format("{}: no '{}' section", file_name, kSection));
  std::vector<ExpectedVerdict> out;
  std::set<std::string> seen;
  bool header_seen = false;
  for (++i; i < lines.size(); ++i) {
    const std::string row(Trim(lines[i]));
    if (row.empty() || row[0] != '|') {
      if (header_seen) break;  // the table has ended
      continue;                // prose before the table
    }
    const std::vector<std::string> cells = Cells(row);
    if (!header_seen || IsSeparator(cells)) {
      header_seen = true;
      continue;
    }
    DLSIM_ASSIGN_OR_RETURN(ExpectedVerdict v, ParseRow(cells, file_name, static_cast<int>(i) + 1));
    if (!seen.insert(v.name).second)
      return Error::Parse(fmt::format("{}:{}: '{}' is listed twice", file_name, v.line, v.name));
    out.push_back(std::move(v));
  }
  if (out.empty()) return Error::Parse(fmt::format("{}: the '{}' table has no rows", file_name, kSection));
  return out;
}

}  // namespace dlsim::io

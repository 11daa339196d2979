#include "dlsim/core/csv.h"

#include <charconv>
#include <cstdlib>

#include "dlsim/core/strings.h"

namespace dlsim {
namespace {

std::vector<std::string> Split(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    std::string cell(
        line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\r')) cell.pop_back();
    while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
    out.push_back(std::move(cell));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

Result<size_t> CsvTable::Column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return Error::NotFound(file_name + ": " + UnknownNameMessage("column", name, header));
}

Result<std::string> CsvTable::Text(size_t row, std::string_view column) const {
  DLSIM_ASSIGN_OR_RETURN(size_t c, Column(column));
  if (c >= rows[row].size())
    return Error::Parse(file_name + ":" + std::to_string(row_lines[row]) + ": missing column '" +
                        std::string(column) + "'");
  return rows[row][c];
}

Result<double> CsvTable::Number(size_t row, std::string_view column) const {
  DLSIM_ASSIGN_OR_RETURN(std::string cell, Text(row, column));
  char* end = nullptr;
  double v = std::strtod(cell.c_str(), &end);
  if (cell.empty() || end != cell.c_str() + cell.size())
    return Error::Parse(file_name + ":" + std::to_string(row_lines[row]) + ": column '" +
                        std::string(column) + "': expected a number, found '" + cell + "'");
  return v;
}

Result<CsvTable> ParseCsv(std::string_view text, std::string file_name) {
  CsvTable t;
  t.file_name = std::move(file_name);
  size_t pos = 0;
  int line_no = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line[0] == '#') {
      t.comments.emplace_back(line.substr(1));
      continue;
    }
    if (t.header.empty()) {
      t.header = Split(line);
      continue;
    }
    auto cells = Split(line);
    if (cells.size() != t.header.size())
      return Error::Parse(t.file_name + ":" + std::to_string(line_no) + ": expected " +
                          std::to_string(t.header.size()) + " columns, found " +
                          std::to_string(cells.size()));
    t.rows.push_back(std::move(cells));
    t.row_lines.push_back(line_no);
  }
  if (t.header.empty()) return Error::Parse(t.file_name + ": no header row");
  return t;
}

}  // namespace dlsim

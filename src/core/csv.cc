#include "dlsim/core/csv.h"

#include <charconv>
#include <cmath>
#include <optional>

#include "dlsim/core/strings.h"

namespace dlsim {
namespace {

// The cells of `line`, trimmed of spaces; `columns` gets each cell's 1-based character column.
std::vector<std::string> Split(std::string_view line, std::vector<int>* columns = nullptr) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    std::string cell(
        line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\r')) cell.pop_back();
    size_t lead = 0;
    while (lead < cell.size() && cell[lead] == ' ') ++lead;
    cell.erase(0, lead);
    if (columns != nullptr) columns->push_back(static_cast<int>(start + lead) + 1);
    out.push_back(std::move(cell));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// A finite decimal number filling all of `s` ("+1.5", "2e3"); nullopt otherwise (hex, inf, nan, "1,5").
std::optional<double> ParseDecimal(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// An error naming the first header cell that repeats an earlier one, or Ok.
Status CheckHeader(const CsvTable& t, int line_no) {
  for (size_t i = 0; i < t.header.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (t.header[i] == t.header[j])
        return Error::Parse(t.file_name + ":" + std::to_string(line_no) + ": column '" + t.header[i] +
                            "' appears twice in the header (columns " + std::to_string(j + 1) + " and " +
                            std::to_string(i + 1) + "); each column name must be unique");
  return Status::Ok();
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

std::string CsvTable::Where(size_t row, size_t column_index) const {
  std::string out = file_name + ":" + std::to_string(row_lines[row]);
  const size_t i = row * header.size() + column_index;
  if (i < cell_columns.size()) out += ":" + std::to_string(cell_columns[i]);
  return out;
}

Result<double> CsvTable::Number(size_t row, std::string_view column) const {
  DLSIM_ASSIGN_OR_RETURN(std::string cell, Text(row, column));
  std::optional<double> v = ParseDecimal(cell);
  if (!v) {
    return Error::Parse(Where(row, *Column(column)) + ": column '" + std::string(column) +
                        "': expected a number, found '" + cell + "'" +
                        (cell.find('"') != std::string::npos ? " (cells are not quoted)" : ""));
  }
  return *v;
}

Result<CsvTable> ParseCsv(std::string_view text, std::string file_name) {
  CsvTable t;
  t.file_name = std::move(file_name);
  constexpr std::string_view kBom = "\xEF\xBB\xBF";  // a UTF-8 byte-order mark is not part of the header
  size_t pos = text.starts_with(kBom) ? kBom.size() : 0;
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
      DLSIM_RETURN_IF_ERROR(CheckHeader(t, line_no));
      continue;
    }
    auto cells = Split(line, &t.cell_columns);
    if (cells.size() != t.header.size()) {
      std::string msg = t.file_name + ":" + std::to_string(line_no) + ": expected " +
                        std::to_string(t.header.size()) + " columns (" + Join(t.header, ", ") + "), found " +
                        std::to_string(cells.size());
      if (cells.size() > t.header.size())
        msg += " (a comma always separates columns: write 12500, not 12,500)";
      return Error::Parse(msg);
    }
    t.rows.push_back(std::move(cells));
    t.row_lines.push_back(line_no);
  }
  if (t.header.empty()) return Error::Parse(t.file_name + ": no header row");
  return t;
}

}  // namespace dlsim

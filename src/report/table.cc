#include "dlsim/report/table.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <utility>

namespace dlsim::report {
namespace {

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Cells that say "no value" and do not decide a column's alignment.
bool IsNeutral(const std::string& cell) { return cell.empty() || cell == "-" || cell == "n/a"; }

// True for text that starts like a number: [sign|~] (digit | '.' digit).
bool LooksNumeric(const std::string& cell) {
  size_t i = 0;
  if (i < cell.size() && (cell[i] == '-' || cell[i] == '+' || cell[i] == '~')) ++i;
  if (i < cell.size() && cell[i] == '.') ++i;
  return i < cell.size() && IsDigit(cell[i]);
}

void Pad(std::string& line, const std::string& text, size_t width, bool right) {
  const size_t fill = width - std::min(width, DisplayWidth(text));
  if (right) line.append(fill, ' ');
  line.append(text);
  if (!right) line.append(fill, ' ');
}

void TrimRight(std::string& line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
}

}  // namespace

size_t DisplayWidth(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // not a continuation byte
  }));
}

Table& Table::AddColumn(std::string title, std::string unit, Align align) {
  if (!unit.empty()) title += " (" + unit + ")";
  columns_.push_back(Column{std::move(title), align});
  return *this;
}

Table& Table::AddRow(std::vector<std::string> cells) {
  assert(cells.size() <= columns_.size());
  cells.resize(columns_.size());
  rows_.push_back(Row{false, std::move(cells)});
  return *this;
}

Table& Table::AddSeparator() {
  rows_.push_back(Row{true, {}});
  return *this;
}

bool Table::RightAligned(size_t column) const {
  if (columns_[column].align != Align::kAuto) return columns_[column].align == Align::kRight;
  bool any = false;
  for (const Row& row : rows_) {
    if (row.separator || IsNeutral(row.cells[column])) continue;
    if (!LooksNumeric(row.cells[column])) return false;
    any = true;
  }
  return any;
}

std::string Table::Render() const {
  constexpr size_t kGap = 2;
  std::vector<size_t> widths(columns_.size());
  std::vector<bool> right(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = DisplayWidth(columns_[c].header);
    for (const Row& row : rows_) {
      if (!row.separator) widths[c] = std::max(widths[c], DisplayWidth(row.cells[c]));
    }
    right[c] = RightAligned(c);
  }
  size_t total = 0;
  for (size_t w : widths) total += w;
  if (!widths.empty()) total += kGap * (widths.size() - 1);
  const std::string rule = std::string(std::max<size_t>(total, 1), '-') + "\n";

  const auto render_line = [&](const auto& cell_of) {
    std::string line;
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (c > 0) line.append(kGap, ' ');
      Pad(line, cell_of(c), widths[c], right[c]);
    }
    TrimRight(line);
    return line + "\n";
  };

  std::string out;
  if (!title_.empty()) out += title_ + "\n";
  out += render_line([&](size_t c) -> const std::string& { return columns_[c].header; });
  out += rule;
  for (const Row& row : rows_) {
    out += row.separator ? rule : render_line([&](size_t c) -> const std::string& { return row.cells[c]; });
  }
  return out;
}

std::ostream& operator<<(std::ostream& out, const Table& table) { return out << table.Render(); }

}  // namespace dlsim::report

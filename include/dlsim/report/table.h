// A plain-text table for terminal reports: a title, titled columns with optional units,
// per-column alignment, and separator lines.
//
//   dlsim::report::Table t("Memory per pipeline stage");
//   t.AddColumn("Stage").AddColumn("Weights", "GiB").AddColumn("Activations", "GiB");
//   t.AddRow({"0", "12.00", "30.50"});
//   t.AddSeparator();
//   t.AddRow({"max", "12.00", "30.50"});
//   std::cout << t;
//
// renders as (columns two spaces apart, numbers right-aligned, no trailing spaces):
//
//   Memory per pipeline stage
//   Stage  Weights (GiB)  Activations (GiB)
//   ---------------------------------------
//       0          12.00              30.50
//   ---------------------------------------
//   max            12.00              30.50
//
// Widths count UTF-8 code points, so "µs" is one column wide, as in a terminal. No colour
// codes are ever written, so the text is safe for files and pipes. A value type; not
// thread-safe.
#ifndef DLSIM_REPORT_TABLE_H_
#define DLSIM_REPORT_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

namespace dlsim::report {

// kAuto right-aligns a column when every non-empty cell looks like a number ("12", "-3.5 s",
// "45.0%", "1,234"; "-" and "n/a" are neutral), and left-aligns it otherwise.
enum class Align { kAuto, kLeft, kRight };

class Table {
 public:
  explicit Table(std::string title = {}) : title_(std::move(title)) {}

  // Adds a column; the header reads "title (unit)" when `unit` is not empty.
  Table& AddColumn(std::string title, std::string unit = {}, Align align = Align::kAuto);
  // Adds a row. Cells beyond the last column are a bug (asserted); missing cells are blank.
  Table& AddRow(std::vector<std::string> cells);
  // Adds a horizontal rule as wide as the table.
  Table& AddSeparator();

  size_t columns() const { return columns_.size(); }
  // The table as text, each line ending in '\n'.
  std::string Render() const;

 private:
  struct Column {
    std::string header;
    Align align;
  };
  struct Row {
    bool separator = false;
    std::vector<std::string> cells;
  };
  bool RightAligned(size_t column) const;

  std::string title_;
  std::vector<Column> columns_;
  std::vector<Row> rows_;
};

std::ostream& operator<<(std::ostream& out, const Table& table);

// Display width of UTF-8 text: the number of code points.
size_t DisplayWidth(const std::string& text);

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_TABLE_H_

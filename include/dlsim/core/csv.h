// A minimal CSV reader for the data files dlsim ships: comma-separated, a header row,
// '#' comment lines (kept as the file's source notes), no quoted commas: every row has the header's
// number of cells, so "12,500" is an error (three cells), never 12. A header naming a column twice is an
// error; a UTF-8 byte-order mark at the start of the text is skipped.
//
//   auto t = ParseCsv(text, "megatron_2021_table1.csv");
//   for (const auto& row : t->rows) double h = *t->Number(row, "hidden");
#ifndef DLSIM_CORE_CSV_H_
#define DLSIM_CORE_CSV_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim {

struct CsvTable {
  std::string file_name;
  std::vector<std::string> comments;  // '#' lines, without the '#'
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> row_lines;     // 1-based line of each row, for errors
  std::vector<int> cell_columns;  // 1-based character column of each cell, row-major (rows x header)

  // Column index, or an error naming the file and the known columns.
  Result<size_t> Column(std::string_view name) const;
  // The cell as a finite decimal number (no hex, inf or nan); errors name file, line and column:
  // "FILE:LINE:COL: column 'name': expected a number, found 'x'".
  Result<double> Number(size_t row, std::string_view column) const;
  Result<std::string> Text(size_t row, std::string_view column) const;
  // "FILE:LINE:COL" of the cell in column `column_index` of `row` (COL is the cell's first character).
  std::string Where(size_t row, size_t column_index) const;
};

Result<CsvTable> ParseCsv(std::string_view text, std::string file_name);

}  // namespace dlsim

#endif  // DLSIM_CORE_CSV_H_

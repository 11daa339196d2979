// A minimal CSV reader for the data files dlsim ships: comma-separated, a header row,
// '#' comment lines (kept as the file's source notes), no quoted commas.
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
  std::vector<int> row_lines;  // 1-based line of each row, for errors

  // Column index, or an error naming the file and the known columns.
  Result<size_t> Column(std::string_view name) const;
  // The cell as a number; errors name file, line and column.
  Result<double> Number(size_t row, std::string_view column) const;
  Result<std::string> Text(size_t row, std::string_view column) const;
};

Result<CsvTable> ParseCsv(std::string_view text, std::string file_name);

}  // namespace dlsim

#endif  // DLSIM_CORE_CSV_H_

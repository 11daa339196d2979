// A CSV number cell in a range, for the cluster module's data files (private to the module).
#ifndef DLSIM_SRC_CLUSTER_BOUNDED_CELL_H_
#define DLSIM_SRC_CLUSTER_BOUNDED_CELL_H_

#include <fmt/format.h>

#include <string_view>

#include "dlsim/core/csv.h"

namespace dlsim::cluster {

// The cell as a number in [lo, hi] ((lo, hi] when open_lo); errors name file, line, column, range.
inline Result<double> BoundedCell(const CsvTable& t, size_t row, std::string_view column, double lo,
                                  double hi, bool open_lo) {
  DLSIM_ASSIGN_OR_RETURN(double v, t.Number(row, column));
  if (v < lo || v > hi || (open_lo && v == lo))
    return Error::InvalidArgument(fmt::format("{}:{}: column '{}': expected a number in {}{}..{}, found {}",
                                              t.file_name, t.row_lines[row], column, open_lo ? "(" : "", lo,
                                              hi, v));
  return v;
}

}  // namespace dlsim::cluster

#endif  // DLSIM_SRC_CLUSTER_BOUNDED_CELL_H_

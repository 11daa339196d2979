// The verdicts docs/reproductions.md records for every reproduction: its "## Verdicts" table,
// whose first two columns are the reproduction's name (in backticks or not) and its verdict word
// (reproduced / off / no-claim). `dlsim repro --check` runs every reproduction and compares.
//
//   auto expected = io::ParseReproVerdicts(embedded::ReproductionsMd(), "docs/reproductions.md");
//
// The table ends at the first line after it that is not a table row. Errors name the file and line:
// no such section, a row with fewer than two cells, an unknown verdict word, a name given twice.
#ifndef DLSIM_IO_REPRO_VERDICTS_H_
#define DLSIM_IO_REPRO_VERDICTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/repro/verdict.h"

namespace dlsim::io {

struct ExpectedVerdict {
  std::string name;  // registry name, e.g. "chunkflow"
  repro::VerdictStatus status = repro::VerdictStatus::kNoClaim;
  int line = 0;  // 1-based line of its row
};

Result<std::vector<ExpectedVerdict>> ParseReproVerdicts(std::string_view markdown,
                                                        const std::string& file_name);

}  // namespace dlsim::io

namespace dlsim::embedded {
std::string_view ReproductionsMd();  // docs/reproductions.md, compiled in for `dlsim repro --check`
}  // namespace dlsim::embedded

#endif  // DLSIM_IO_REPRO_VERDICTS_H_

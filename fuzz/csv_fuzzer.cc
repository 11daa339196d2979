// Fuzz target: the CSV reader (dlsim::ParseCsv), with the accessors its callers use next:
// every cell of every row through CsvTable::Text and CsvTable::Number, by column name.
#include <cstddef>
#include <cstdint>

#include "dlsim/core/csv.h"
#include "fuzz_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  auto table = ParseCsv(fuzz::Text(data, size), "fuzz.csv");
  if (!table.ok()) return 0;
  for (size_t r = 0; r < table->rows.size(); ++r) {
    for (const std::string& column : table->header) {
      (void)table->Text(r, column);
      (void)table->Number(r, column);
    }
  }
  (void)table->Column("no such column");
  return 0;
}

// Fuzz target: the length-file reader behind `data.lengths.file` (data::ParseLengthFile), read
// both as DistCA JSON (.json) and as a CSV token trace (.csv). On success it does what
// io::ReadDataSection does next, data::MakeLengthSource, and draws a few lengths from the source.
#include <cstddef>
#include <cstdint>

#include "dlsim/core/rng.h"
#include "dlsim/data/length_source.h"
#include "fuzz_env.h"

namespace {

void Check(std::string_view text, const std::string& file_name, const std::string& column) {
  using namespace dlsim;
  auto spec = data::ParseLengthFile(text, file_name, column);
  if (!spec.ok()) return;
  spec->max_len = 32768;
  auto source = data::MakeLengthSource(*spec);
  if (!source.ok()) return;
  Rng rng = Rng(7).Stream("data/lengths");
  (void)(*source)->Mean();
  (void)data::DrawDocuments(**source, rng, /*token_budget=*/1 << 16, spec->max_len);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = dlsim::fuzz::Text(data, size);
  Check(text, "fuzz.json", "");
  Check(text, "fuzz.csv", "");
  Check(text, "fuzz.csv", "num_decode_tokens");
  return 0;
}

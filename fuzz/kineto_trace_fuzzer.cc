// Fuzz target: the profiled-step reader (`dlsim calibrate --trace`, `dlsim train --compare-trace`;
// io::ParseKinetoTrace, and io::Gunzip when the input starts with gzip's magic bytes). On success it does
// what calibration and the comparison do first: categorizes every operator, prices what has shapes and
// measures the host's time per layer.
#include <cstddef>
#include <cstdint>

#include "dlsim/io/gzip.h"
#include "dlsim/io/kineto_trace.h"
#include "dlsim/validate/trace_ops.h"
#include "fuzz_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dlsim;
  std::string_view text = fuzz::Text(data, size);
  std::string unzipped;
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
    auto out = io::Gunzip(text, "fuzz.json.gz", int64_t{1} << 24);
    if (!out.ok()) return 0;
    unzipped = std::move(out).value();
    text = unzipped;
  }
  auto step = io::ParseKinetoTrace(text, "fuzz.json");
  if (!step.ok()) return 0;
  for (const validate::TracedOp& op : step->ops) {
    (void)validate::Categorize(op);
    (void)validate::ToKernelOp(op, step->causal.value_or(true));
  }
  (void)validate::MeasureHost(*step);
  return 0;
}

#include "dlsim/hw/sm_clock.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dlsim::hw {

Result<double> SmClockShare(const GpuSpec& gpu, double mhz) {
  if (gpu.max_sm_clock_mhz <= 0)
    return Error::InvalidArgument(fmt::format(
        "the catalog gives no maximum SM clock for GPU '{}' (max_sm_clock_mhz), so a locked clock cannot be "
        "priced against it; add it to a --catalog file with its source",
        gpu.name));
  if (!std::isfinite(mhz) || mhz <= 0 || mhz > gpu.max_sm_clock_mhz)
    return Error::InvalidArgument(
        fmt::format("SM clock {} MHz is outside (0, {}] MHz, the maximum SM clock of {}", mhz,
                    gpu.max_sm_clock_mhz, gpu.name));
  const double reference = gpu.sustained_sm_clock_mhz > 0 ? gpu.sustained_sm_clock_mhz : gpu.max_sm_clock_mhz;
  return std::min(1.0, mhz / reference);
}

Status LockSmClock(double mhz, GpuSpec& gpu) {
  DLSIM_ASSIGN_OR_RETURN(const double share, SmClockShare(gpu, mhz));
  for (double& f : gpu.sustained_fraction) f = f > 0 ? std::min(f, share) : share;
  return Status::Ok();
}

}  // namespace dlsim::hw

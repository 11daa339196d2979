// A GPU run at a locked SM clock (`nvidia-smi -lgc MHz,MHz`, the way published kernel and training
// benchmarks often pin their clocks): what it sustains, relative to the catalog part at its maximum clock.
//
//   hw::GpuSpec g = *catalog.FindGpu("h200");
//   DLSIM_RETURN_IF_ERROR(hw::LockSmClock(1500, g));   // compute peaks x 1500 / 1980
//
// The model: the SMs' arithmetic (tensor-core and vector peaks) scales with the SM clock, which the measured
// rates held at its maximum (GpuSpec::max_sm_clock_mhz; unlocked kernels boost to it when power permits);
// HBM bandwidth runs on the memory clock and does not move. A part that sustains less than its peak
// (GpuSpec::sustained_fraction, a lower power limit) keeps the lower of the two. docs/catalog.md, "Locked
// clocks".
#ifndef DLSIM_HW_SM_CLOCK_H_
#define DLSIM_HW_SM_CLOCK_H_

#include "dlsim/core/result.h"
#include "dlsim/hw/gpu.h"

namespace dlsim::hw {

// The share of its measured arithmetic `gpu` keeps at `mhz`: mhz over the clock those rates held at, the
// part's sustained full-load clock where the catalog gives one (GpuSpec::sustained_sm_clock_mhz), else its
// maximum; at most 1 (a lock above the sustained clock is pulled down to it under load). Errors: the catalog
// gives no maximum clock for the part, or `mhz` is not in (0, max_sm_clock_mhz].
Result<double> SmClockShare(const GpuSpec& gpu, double mhz);

// Sets every type's sustained fraction of `gpu` to min(its own, SmClockShare); the errors of SmClockShare,
// with `gpu` unchanged.
Status LockSmClock(double mhz, GpuSpec& gpu);

}  // namespace dlsim::hw

#endif  // DLSIM_HW_SM_CLOCK_H_

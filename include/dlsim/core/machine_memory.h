// The memory of the machine dlsim runs on, for the checks that refuse a run before it would exhaust it
// (issue 35: "no input may exhaust memory"): each simulator estimates its peak from measured bytes per item
// (docs/gnn.md and docs/cluster.md give the measurements and the commands) and refuses beyond a share of
// this.
//
//   if (Status st = CheckFitsMemory("graph", need_bytes, "use a smaller scale"); !st.ok()) return st;
#ifndef DLSIM_CORE_MACHINE_MEMORY_H_
#define DLSIM_CORE_MACHINE_MEMORY_H_

#include <string>

#include "dlsim/core/result.h"

namespace dlsim {

// Physical memory in bytes (sysconf); 0 when unknown. DLSIM_MEMORY_GIB, when set and positive, stands for it
// (tests, and machines whose limit is a cgroup's, not the hardware's).
double PhysicalMemoryBytes();

// The share of physical memory a run's estimated peak may take.
inline constexpr double kUsableMemoryShare = 0.8;

// Ok when `need_bytes` is within kUsableMemoryShare of the machine's memory (or the memory is unknown). Else
// kInvalidArgument: "WHAT: the run needs about X GiB (HOW), more than 80% of this machine's Y GiB; ADVICE".
Status CheckFitsMemory(const std::string& what, double need_bytes, const std::string& how,
                       const std::string& advice);

}  // namespace dlsim

#endif  // DLSIM_CORE_MACHINE_MEMORY_H_

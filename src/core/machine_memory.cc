#include "dlsim/core/machine_memory.h"

#include <unistd.h>

#include <cstdlib>

#include "dlsim/core/strings.h"

namespace dlsim {

double PhysicalMemoryBytes() {
  if (const char* env = std::getenv("DLSIM_MEMORY_GIB")) {
    const double gib = std::strtod(env, nullptr);
    if (gib > 0) return gib * 1024 * 1024 * 1024;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
}

Status CheckFitsMemory(const std::string& what, double need_bytes, const std::string& how,
                       const std::string& advice) {
  const double have = PhysicalMemoryBytes();
  if (have <= 0 || need_bytes <= have * kUsableMemoryShare) return Status::Ok();
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  return Error::InvalidArgument(what + ": the run needs about " + FormatNumber(need_bytes / kGiB, 3) +
                                " GiB (" + how + "), more than 80% of this machine's " +
                                FormatNumber(have / kGiB, 3) + " GiB; " + advice);
}

}  // namespace dlsim

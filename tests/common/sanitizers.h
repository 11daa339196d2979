// DLSIM_SKIP_UNDER_SANITIZERS(): the first line of a test that runs a whole reproduction, sweep or
// cross-validation end to end. Under ASan + UBSan (`make sanitize`) such a test takes 15-230 s, against
// 0.1-16 s in the Release build (measured: `cd build-san && ctest -E '[Mm]pi'`, docs/robustness.md); it skips
// there, saying so, and runs in the Release build (`make test`). The code it drives is covered under the
// sanitizers by the unit tests of its parts and by the fuzzers.
#ifndef DLSIM_TESTS_COMMON_SANITIZERS_H_
#define DLSIM_TESTS_COMMON_SANITIZERS_H_

#include <gtest/gtest.h>

#if defined(DLSIM_UNDER_SANITIZERS)
#define DLSIM_SKIP_UNDER_SANITIZERS() \
  GTEST_SKIP()                        \
      << "an end-to-end run of minutes under the sanitizers; it runs in the Release build (make test)"
#else
#define DLSIM_SKIP_UNDER_SANITIZERS() static_cast<void>(0)
#endif

#endif  // DLSIM_TESTS_COMMON_SANITIZERS_H_

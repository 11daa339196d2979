// The machine-memory check every simulator's size estimate goes through: DLSIM_MEMORY_GIB stands for the
// machine, an estimate above 80% of it is refused with both figures, and below it passes.
#include "dlsim/core/machine_memory.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace dlsim {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

class MachineMemory : public ::testing::Test {
 protected:
  void SetUp() override { setenv("DLSIM_MEMORY_GIB", "10", 1); }
  void TearDown() override { unsetenv("DLSIM_MEMORY_GIB"); }
};

TEST_F(MachineMemory, AnEstimateAboveEightyPercentIsRefusedWithBothFigures) {
  EXPECT_DOUBLE_EQ(PhysicalMemoryBytes(), 10 * kGiB);
  EXPECT_TRUE(CheckFitsMemory("graph", 7.9 * kGiB, "how", "advice").ok());
  const Status st = CheckFitsMemory("graph", 8.1 * kGiB, "24 bytes per edge", "use a smaller scale");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(
      st.error().message,
      "graph: the run needs about 8.1 GiB (24 bytes per edge), more than 80% of this machine's 10 GiB; use a "
      "smaller scale");
}

TEST_F(MachineMemory, WithoutTheVariableItIsTheHardwares) {
  unsetenv("DLSIM_MEMORY_GIB");
  EXPECT_GT(PhysicalMemoryBytes(), 64.0 * 1024 * 1024);  // any machine that runs the tests
  setenv("DLSIM_MEMORY_GIB", "nonsense", 1);             // not a positive number: the hardware's
  EXPECT_GT(PhysicalMemoryBytes(), 64.0 * 1024 * 1024);
}

}  // namespace
}  // namespace dlsim

// Step-Audio-AQAA as a serving workload: the accounting against the published numbers, and the sizing's
// real-time rule (a replica counts only where its turns stream at the answer's token rate).
#include <gtest/gtest.h>

#include <string>

#include "dlsim/repro/reproduction.h"
#include "repro/run_repro.h"

namespace dlsim::repro {
namespace {

using testing::At;
using testing::RunRepro;

TEST(StepAudioRepro, AccountingMatchesThePublishedMemoryAndSizingNeedsRealTime) {
  const ReproResult r = RunRepro("step-audio-aqaa");
  // 130B parameters x 2 bytes + one 4K-token conversation's KV against the README's 265 GB.
  EXPECT_NEAR(r.our_ratio, 1.0, 0.03);
  EXPECT_NE(r.workload.find("130.7B parameters"), std::string::npos) << r.workload;
  EXPECT_NE(r.workload.find("41.7 Hz"), std::string::npos) << r.workload;  // 16.7 + 25 Hz, published
  ASSERT_EQ(r.details.size(), 8u);
  bool some_replica_streams = false;
  for (size_t row = 0; row < r.details.size(); ++row) {
    const double per_replica = At(r, row, "conversations_per_replica");
    // A replica counts only when it meets the token period; the GPUs follow from it.
    if (per_replica == 0) EXPECT_EQ(At(r, row, "gpus_for_100"), 0) << row;
    if (per_replica > 0) {
      some_replica_streams = true;
      EXPECT_LE(At(r, row, "p99_tpot_ms"), 1.1 * At(r, row, "tpot_slo_ms")) << row;
      EXPECT_GE(At(r, row, "gpus_for_1000"), At(r, row, "gpus_for_100")) << row;
      EXPECT_GE(At(r, row, "gpus_for_100"), At(r, row, "tp")) << row;
    }
  }
  EXPECT_TRUE(some_replica_streams);
  // H100 at both codebooks' rate (45 tokens/s, 22 ms per token) cannot stream a 130B backbone.
  EXPECT_EQ(At(r, 0, "conversations_per_replica"), 0);
  EXPECT_EQ(At(r, 1, "conversations_per_replica"), 0);
}

}  // namespace
}  // namespace dlsim::repro

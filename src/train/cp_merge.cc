#include "dlsim/train/cp_merge.h"

namespace dlsim::train {

CpMergeBytes CpMergeBytesPerToken(int cp, double q_width, double kv_width) {
  if (cp <= 1) return {};
  const double later = cp - 1, q = q_width, kv = kv_width;
  CpMergeBytes b;
  b.fwd = 8 * kv + 8 * kv * later + 12 * q + 38 * q * later;
  b.bwd = (4 * q + 8 * kv) + 8 * kv + 8 * kv * later + 20 * kv + 26 * kv * later + 16 * kv * cp +
          10 * q * cp + (6 * q + 12 * kv);
  return b;
}

}  // namespace dlsim::train

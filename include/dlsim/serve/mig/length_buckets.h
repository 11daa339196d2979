// ElasticBatch's bucketing of variable-length requests (Qi et al., TPDS 2024; docs/reproductions.md,
// "ElasticBatch"): sorted lengths cut into equal-count buckets at their quantiles; every request of a
// bucket is padded to the bucket's upper bound (rounded up to a multiple of `round_to`, at most
// `max_len`), and the bucket is served as its own DNN service with its share of the demand.
//
//   auto b = serve::QuantileBuckets(lengths, /*buckets=*/4, /*max_len=*/512, /*round_to=*/8);
//   b[0].upper;  // tokens the shortest quarter is padded to;  b[0].share == 0.25
#ifndef DLSIM_SERVE_MIG_LENGTH_BUCKETS_H_
#define DLSIM_SERVE_MIG_LENGTH_BUCKETS_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::serve {

struct LengthBucket {
  int64_t upper = 0;  // tokens every request of the bucket is padded to
  double share = 0;   // fraction of the requests
};

// `lengths` (any order; each >= 1) into `buckets` buckets of equal counts (the last takes the
// remainder). Errors: no lengths, buckets < 1 or more than lengths, max_len or round_to < 1.
Result<std::vector<LengthBucket>> QuantileBuckets(std::vector<int64_t> lengths, int buckets, int64_t max_len,
                                                  int64_t round_to);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_MIG_LENGTH_BUCKETS_H_

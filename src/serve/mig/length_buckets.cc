// ElasticBatch's length buckets; see the header.
#include "dlsim/serve/mig/length_buckets.h"

#include <algorithm>

namespace dlsim::serve {

Result<std::vector<LengthBucket>> QuantileBuckets(std::vector<int64_t> lengths, int buckets, int64_t max_len,
                                                  int64_t round_to) {
  if (lengths.empty() || buckets < 1 || static_cast<size_t>(buckets) > lengths.size() || max_len < 1 ||
      round_to < 1)
    return Error::InvalidArgument(
        "length buckets: need 1..(number of lengths) buckets, max_len >= 1, round_to >= 1");
  std::sort(lengths.begin(), lengths.end());
  const size_t n = lengths.size();
  std::vector<LengthBucket> out;
  size_t from = 0;
  for (int b = 1; b <= buckets; ++b) {
    const size_t to = n * static_cast<size_t>(b) / static_cast<size_t>(buckets);
    const int64_t upper = std::min(max_len, (lengths[to - 1] + round_to - 1) / round_to * round_to);
    out.push_back({upper, static_cast<double>(to - from) / static_cast<double>(n)});
    from = to;
  }
  return out;
}

}  // namespace dlsim::serve

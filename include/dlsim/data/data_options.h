// The `data:` section of a training scenario, as plain options (io/data_section.h reads it).
//
//   data:
//     lengths: {distribution: lognormal, median: 1500, sigma: 1.6}   # or {file: lengths.json}
//     max_len: 32768
//     policy: padding_free
//     seed: 7
//     steps: 20
//
// See docs/data.md for every key, its default and its unit.
#ifndef DLSIM_DATA_DATA_OPTIONS_H_
#define DLSIM_DATA_DATA_OPTIONS_H_

#include <cstdint>
#include <string>

#include "dlsim/data/data_policy.h"
#include "dlsim/data/length_source.h"

namespace dlsim::data {

struct DataOptions {
  LengthSpec lengths;           // lengths.max_len holds `max_len` (0: the policy's seq_len)
  std::string policy = "pack";  // a data-policy registry name
  uint64_t seed = 1;            // seeds the length stream ("data/lengths") of every step
  int steps = 1;                // consecutive steps to simulate
  int64_t chunk_size = 0;       // chunkflow chunk length in tokens (0: seq_len)
  // Tokens one GPU may hold per micro-batch: skrull's budget (0: seq_len x micro_batch / cp);
  // wlb/distca micro-batch capacity / cp (0: capacity seq_len x micro_batch). See DataShape.
  int64_t token_budget = 0;
  PadTo pad_to = PadTo::kLongest;  // pad, pad_attention: `pad_to: longest | max_len`
  // Documents per step: a batch of N sequences, as SFT trainers count it (0: documents are drawn
  // until they hold global_batch x seq_len tokens, the pre-training convention).
  int documents = 0;
};

}  // namespace dlsim::data

#endif  // DLSIM_DATA_DATA_OPTIONS_H_

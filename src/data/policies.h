// The schedule functions behind the registered data policies (private; see
// data_policy.h and docs/data.md for what each does).
#ifndef DLSIM_SRC_DATA_POLICIES_H_
#define DLSIM_SRC_DATA_POLICIES_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/data/data_policy.h"

namespace dlsim::data::internal {

using Docs = std::vector<int64_t>;
Result<StepData> SchedulePad(const Docs& docs, const DataShape& shape);
Result<StepData> SchedulePadAttention(const Docs& docs, const DataShape& shape);
Result<StepData> SchedulePack(const Docs& docs, const DataShape& shape);
Result<StepData> SchedulePackNoMask(const Docs& docs, const DataShape& shape);
Result<StepData> SchedulePaddingFree(const Docs& docs, const DataShape& shape);
Result<StepData> ScheduleChunkFlow(const Docs& docs, const DataShape& shape);
Result<StepData> ScheduleSkrull(const Docs& docs, const DataShape& shape);
Result<StepData> ScheduleWlb(const Docs& docs, const DataShape& shape);
Result<StepData> ScheduleDistCa(const Docs& docs, const DataShape& shape);

}  // namespace dlsim::data::internal

#endif  // DLSIM_SRC_DATA_POLICIES_H_

// Loads data/calibration/intervals.yaml (embedded) into cost::PredictionIntervals.
#ifndef DLSIM_IO_PREDICTION_INTERVALS_LOADER_H_
#define DLSIM_IO_PREDICTION_INTERVALS_LOADER_H_

#include <string>
#include <string_view>

#include "dlsim/core/result.h"
#include "dlsim/cost/prediction_intervals.h"

namespace dlsim::io {

// Errors name the file, line, column and key (io/yaml_reader.h conventions).
Result<cost::PredictionIntervals> ParsePredictionIntervals(std::string_view yaml_text, std::string file_name);
Result<cost::PredictionIntervals> LoadDefaultPredictionIntervals();

}  // namespace dlsim::io

#endif  // DLSIM_IO_PREDICTION_INTERVALS_LOADER_H_

// Loads data/calibration/training.yaml (embedded) into cost::TrainingCalibration.
#ifndef DLSIM_IO_TRAINING_CALIBRATION_LOADER_H_
#define DLSIM_IO_TRAINING_CALIBRATION_LOADER_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/cost/training_calibration.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {

// The per-architecture constants of an `architectures:` section (a calibration file's, or a stack profile's
// `calibration:`); errors are recorded on the reader's document.
std::vector<cost::ArchTrainingCalibration> ReadTrainingArchitectures(const MapReader& archs);

// Errors name the file, line, column and key (io/yaml_reader.h conventions).
Result<cost::TrainingCalibration> ParseTrainingCalibration(std::string_view yaml_text, std::string file_name);
Result<cost::TrainingCalibration> LoadDefaultTrainingCalibration();
// A calibration file (`dlsim calibrate`'s output, `--calibration FILE`); a missing file is kNotFound.
Result<cost::TrainingCalibration> LoadTrainingCalibrationFile(const std::string& path);
// Writes `cal` as YAML (the fitter's output), with `header` lines as comments first.
std::string FormatTrainingCalibration(const cost::TrainingCalibration& cal, const std::string& header);

}  // namespace dlsim::io

#endif  // DLSIM_IO_TRAINING_CALIBRATION_LOADER_H_

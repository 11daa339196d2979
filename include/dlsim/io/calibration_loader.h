// Reads the compute-model calibration (data/calibration/compute.yaml, written by
// `dlsim-fit compute`) into cost::ComputeCalibration.
//
//   auto cal = dlsim::io::LoadDefaultComputeCalibration();   // embedded copy
//   if (!cal.ok()) return cal.error();
//
// Format (absent keys keep the cost::ArchCalibration defaults):
//   architectures:
//     ampere:                      # GpuSpec::architecture
//       source: "..."
//       tile_m: 128                # CTA output tile
//       tile_n: 256
//       gemm_overhead_us: 4.0
//       gemm:                      # by input dtype: fp32 tf32 fp16 bf16 fp8 int8
//         bf16: {max_efficiency: 0.8, k_half: 60, tiles_half: 0.5, mem_efficiency: 0.8}
//       attention: {fwd_efficiency: 0.5, bwd_efficiency: 0.42, overhead_us: 10}
//       memory: {efficiency: 0.75, overhead_us: 5}
//   gpus:                          # optional: GEMM curves measured on one GPU (cost::GpuGemmCalibration)
//     h200-sxm-141gb:              # GpuSpec::name
//       architecture: hopper       # required, as source and gemm_overhead_us
//       source: "..."
//       gemm_overhead_us: 6.1
//       gemm: {bf16: {...}}        # as above
//       gemm_alignment: {compute_exponent: 0.9, memory_exponent: 0.5, overhead_us: 2, k_half: 48}
//   fit: ...                       # informative (sources, errors); not read
// The default calibration also merges data/calibration/attention_backends.yaml, gemm_alignment.yaml and
// gemm_measured.yaml (measured kernels: their architectures' attention families and alignment penalty, and
// their `gpus`).
// Errors name file, line and key (see io/yaml_reader.h). Thread-safe: no shared state.
#ifndef DLSIM_IO_CALIBRATION_LOADER_H_
#define DLSIM_IO_CALIBRATION_LOADER_H_

#include <string>
#include <string_view>

#include "dlsim/core/result.h"
#include "dlsim/cost/compute_calibration.h"

namespace dlsim::io {

Result<cost::ComputeCalibration> ParseComputeCalibration(std::string_view yaml_text, std::string file_name);
Result<cost::ComputeCalibration> LoadComputeCalibrationFile(const std::string& path);
// The copy of data/calibration/compute.yaml compiled into the binary, with the measured kernel files merged
// into it (attention_backends*.yaml, gemm_alignment.yaml, gemm_measured.yaml: MergeMeasuredKernels).
Result<cost::ComputeCalibration> LoadDefaultComputeCalibration();
// Merges a measured-kernel file into `cal`: attention families and GEMM alignment into the architectures
// `cal` calibrates, the attention families of an architecture it does not as a cost::ArchFamilyOverlay, and
// `gpus:` GEMM curves. A bad key is an error naming `file_name` and the key.
Status MergeMeasuredKernels(std::string_view yaml_text, const std::string& file_name,
                            cost::ComputeCalibration& cal);

}  // namespace dlsim::io

#endif  // DLSIM_IO_CALIBRATION_LOADER_H_

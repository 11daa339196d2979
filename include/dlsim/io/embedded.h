// Data files compiled into the binary (see cmake/Embed.cmake and data/catalog/).
#ifndef DLSIM_IO_EMBEDDED_H_
#define DLSIM_IO_EMBEDDED_H_

#include <string_view>

namespace dlsim::embedded {
std::string_view GpusYaml();                   // data/catalog/gpus.yaml
std::string_view NodesYaml();                  // data/catalog/nodes.yaml
std::string_view NetworksYaml();               // data/catalog/networks.yaml
std::string_view ModelsYaml();                 // data/catalog/models.yaml
std::string_view StacksYaml();                 // data/catalog/stacks.yaml
std::string_view DefaultTrainScenarioYaml();   // data/scenarios/default_train.yaml
std::string_view ComputeCalibrationYaml();     // data/calibration/compute.yaml
std::string_view AttentionBackendsYaml();      // data/calibration/attention_backends.yaml
std::string_view AttentionBackendsA100Yaml();  // data/calibration/attention_backends_a100.yaml
std::string_view AttentionBackendsB200Yaml();  // data/calibration/attention_backends_b200.yaml
std::string_view GemmAlignmentYaml();          // data/calibration/gemm_alignment.yaml
std::string_view GemmMeasuredYaml();           // data/calibration/gemm_measured.yaml
std::string_view NetworkCalibrationYaml();     // data/calibration/network.yaml
std::string_view TrainingCalibrationYaml();    // data/calibration/training.yaml
std::string_view PredictionIntervalsYaml();    // data/calibration/intervals.yaml
std::string_view LearnedGemmModelTxt();        // data/calibration/learned_gemm.txt
std::string_view Cnr2000GraphTxtGz();          // data/graphs/cnr-2000.graph-txt.gz (gzip bytes)
std::string_view OgblDdiEdgeCsvGz();           // data/graphs/ogbl-ddi.edge.csv.gz (gzip bytes)
}  // namespace dlsim::embedded

#endif  // DLSIM_IO_EMBEDDED_H_

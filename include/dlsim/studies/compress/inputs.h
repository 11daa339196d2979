// The inputs of a gradient-compression strategy search (Espresso / ByteComp, EuroSys'23): the model's
// gradient tensors, the compressor, the testbed. Parsed from CSV text (the module never opens files;
// data/compress/*.csv hold the published values with their sources).
//
//   auto tensors = compress::ParseTensorCsv(text, "espresso_tensors.csv", "lstm");
//   auto comp = compress::ParseCompressorCsv(text2, "compressors.csv", "efsignsgd");
//   auto bed = compress::ParseTestbedCsv(text3, "testbeds.csv", "pcie-25g");
#ifndef DLSIM_STUDIES_COMPRESS_INPUTS_H_
#define DLSIM_STUDIES_COMPRESS_INPUTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/units.h"

namespace dlsim::compress {

// One gradient tensor, in the order gradients become ready in the backward pass (index 0 = closest to
// the output layer, ready first).
struct GradientTensor {
  std::string name;
  double elements = 0;    // fp32 elements (> 0)
  Duration backward_gap;  // backward compute between the previous gradient and this one (>= 0)
  Bytes bytes() const { return ByteCount(4 * elements); }
};

// Cost of one compression or decompression pass on one device: max(floor, bytes / rate).
struct PassCost {
  Duration floor;
  BytesPerSecond rate;
  Duration Time(Bytes b) const;
};

struct DeviceCost {
  PassCost compress, decompress;
};

struct CompressorSpec {
  std::string name;
  double ratio = 1;  // bytes on the wire / fp32 bytes, in (0, 1]
  DeviceCost gpu, cpu;
};

// A data-parallel testbed: `nodes` machines of `gpus_per_node` GPUs. Bandwidths are effective values
// (what an alpha-beta model needs), `alpha` is the software latency of one collective call.
struct Testbed {
  std::string name;
  int nodes = 1;
  int gpus_per_node = 1;
  BytesPerSecond intra_bw;  // per GPU, inside a machine (PCIe or NVLink)
  BytesPerSecond nic_bw;    // per machine, across machines
  Duration alpha;
  double forward_fraction = 0.5;  // forward time / traced backward time
  int gpus() const { return nodes * gpus_per_node; }
};

// Rows of `model` (columns model,index,name,elements,gap_us), in file order; index must count 0, 1, ...
// Errors: missing column, bad number, non-positive elements, negative gap, unknown model (lists the known).
Result<std::vector<GradientTensor>> ParseTensorCsv(std::string_view text, const std::string& file,
                                                   const std::string& model);
// The gpu and cpu rows of `name` (columns name,ratio,device,comp_floor_us,comp_rate_gbps,
// decomp_floor_us,decomp_rate_gbps); both devices must be present, rates > 0, ratio in (0, 1].
Result<CompressorSpec> ParseCompressorCsv(std::string_view text, const std::string& file,
                                          const std::string& name);
// The row `name` (columns name,nodes,gpus_per_node,intra_gbytes_per_s,nic_gbytes_per_s,alpha_us,
// forward_fraction); nodes, gpus and bandwidths > 0, alpha >= 0, forward_fraction >= 0.
Result<Testbed> ParseTestbedCsv(std::string_view text, const std::string& file, const std::string& name);

}  // namespace dlsim::compress

#endif  // DLSIM_STUDIES_COMPRESS_INPUTS_H_

// A tile-level model of one CUTLASS-style GEMM kernel: a threadblock tile, its warp tiles,
// the tensor-core instruction shape, the pipeline depth and split-K decide the time.
//
//   TileDevice dev = TileDevice::Of(gpu, hw::DType::kBf16);
//   TileDevice mig = TileDevice::Of(hw::MigInstanceSpec(gpu, profile), dt);   // one MIG instance
//   TileConfig c{.tb_m = 128, .tb_n = 128, .tb_k = 32, .warp_m = 64, .warp_n = 64, .stages = 3};
//   TileEstimate e = EstimateTile({.m = 4096, .n = 4096, .k = 4096}, 2.0, c, dev, arch.tile);
//   if (e.feasible) use(e.seconds); else print(e.reason);
//
// Resources of one thread block (docs/cost-model.md, "Tile model"):
//   threads = 32 (tb_m / warp_m) (tb_n / warp_n)
//   smem    = stages (tb_m + tb_n) tb_k e                   operand ring buffer
//   regs    = warp_m warp_n / 32 (fp32 accumulators) + 2 (warp_m + warp_n) inst_k / 32 * e / 4
//             (double-buffered fragments) + 32 (addresses, loop state), rounded up to 8
//   blocks/SM = min(max_blocks, max_threads / threads, regs_per_sm / (regs threads), smem_sm / smem)
// Time:
//   tiles = ceil(m / tb_m) ceil(n / tb_n) batch split_k; slots = SMs x blocks/SM
//   waves = ceil(tiles / slots); the last wave has ceil(rest / SMs) blocks on each busy SM
//   per wave with b blocks per SM:  k_iters x max(mma(b), load(b), latency / (stages - 1))
//                                   + tile_overhead + latency
//     mma(b)  = b 2 tb_m tb_n tb_k / (peak / SMs x mma_efficiency)
//     load(b) = b (tb_m + tb_n) tb_k e / (L2 bandwidth / SMs) / alignment factor
//   hbm   = ((m k + k n) e + m n e_out) batch / (HBM x hbm_efficiency)   (+ split-K partials)
//   time  = launch + max(sum of waves, hbm) (+ the split-K reduction kernel)
// Alignment: operands are contiguous along K (the layout of a linear layer); 128-bit loads need
// K to be a multiple of 16 / e elements. Narrower alignment a issues 16 / (e a) times as many
// loads (the alignment factor a e / 16).
//
// Pure functions of values; thread-safe.
#ifndef DLSIM_COST_TILE_GEMM_H_
#define DLSIM_COST_TILE_GEMM_H_

#include <string>

#include "dlsim/cost/compute_calibration.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/hw/gpu.h"

namespace dlsim::cost {

// One kernel template: CUTLASS's GemmShape<tb>, GemmShape<warp>, GemmShape<inst>, stages, and
// a split-K factor (parallel split-K: fp32 partials reduced by a second kernel).
struct TileConfig {
  int tb_m = 128, tb_n = 128, tb_k = 32;
  int warp_m = 64, warp_n = 64, warp_k = 32;
  int inst_m = 16, inst_n = 8, inst_k = 16;
  int stages = 3;
  int split_k = 1;

  std::string Name() const;  // "128x128x32_64x64_s3_k1"
  bool operator==(const TileConfig&) const = default;
};

// What the model needs of one GPU (or one MIG instance) for one input data type.
struct TileDevice {
  int sms = 1;
  double peak_flops = 0;   // dense tensor-core peak of the data type, whole device, FLOP/s
  double hbm_bytes = 0;    // bytes/s
  double l2_bytes = 0;     // L2 read bandwidth, bytes/s
  double l2_mib = 0;       // L2 capacity (a feature of the learned model)
  double smem_per_sm = 0;  // bytes
  double smem_per_block = 0;
  int regs_per_sm = 65536;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 16;
  int inst_m = 16, inst_n = 8, inst_k = 16;  // tensor-core instruction of the data type

  // From the catalog; L2 bandwidth 3.5 x HBM when the catalog has none (the A100 and V100
  // whitepaper ratio). Instruction shapes: Volta 8x8x4, Turing 16x8x8, Ampere and later
  // 16x8x16 (16-bit) and 16x8x32 (8-bit).
  // A MIG instance is the GpuSpec hw::MigInstanceSpec gives (its SMs, bandwidth shares).
  static TileDevice Of(const hw::GpuSpec& gpu, hw::DType dt);
};

// Per-block resources of a configuration and how many blocks fit on one SM.
struct TileResources {
  int threads = 0;
  double smem_bytes = 0;
  int regs_per_thread = 0;
  int blocks_per_sm = 0;  // 0: does not fit
  std::string limit;      // what bounds blocks_per_sm ("smem", "registers", "threads", "blocks")
};

// Resources of `c` on `dev` for elements of `e` bytes. Shape rules (warp tile divides the
// block tile, instruction divides the warp tile) are checked by Validate.
TileResources ResourcesOf(const TileConfig& c, double e, const TileDevice& dev);

// Empty when `c` can run on `dev`; else why not (tile shapes, >1024 threads, >255 registers per
// thread, shared memory per block, zero blocks per SM).
std::string Validate(const TileConfig& c, double e, const TileDevice& dev);

struct TileEstimate {
  bool feasible = false;
  std::string reason;  // when not feasible
  double seconds = 0;
  double main_loop_seconds = 0;  // the waves alone (no launch, no HBM bound)
  int64_t tiles = 0, waves = 0;
  int blocks_per_sm = 0;
  double hbm_bytes = 0;  // bytes charged to HBM
  bool memory_bound = false;
};

// Extra HBM traffic of a fused epilogue, in bytes (bias, residual or other elementwise inputs
// read by the epilogue); added to the kernel's hbm term.
struct EpilogueTraffic {
  double bytes = 0;
};

// The time of `s` (elements of `e` bytes, output of `e` bytes) with configuration `c`.
TileEstimate EstimateTile(const GemmShape& s, double e, const TileConfig& c, const TileDevice& dev,
                          const TileCalibration& cal, EpilogueTraffic epilogue = {});

// Largest power-of-two element alignment (<= 16 / e) that divides `k`.
int AlignmentElements(int64_t k, double e);

}  // namespace dlsim::cost

#endif  // DLSIM_COST_TILE_GEMM_H_

// The checked range of every numeric scenario and catalog key of training and serving, in one place,
// so the scenario readers, the catalog reader, docs/scenario-format.md and docs/serving.md agree. Each bound
// is either a physical limit or a generous multiple of the largest real value (noted), so a typo or an absurd
// value is an error at the edge instead of an overflow, a hang or a nonsense result later.
// Limits that protect memory or time say so; a real need beyond them is an issue to file.
#ifndef DLSIM_IO_LIMITS_H_
#define DLSIM_IO_LIMITS_H_

#include "dlsim/io/yaml_reader.h"
#include "dlsim/serve/options.h"

namespace dlsim::io::limits {

// Model shape (the largest published dense models: ~200 layers, hidden 25,600, 256k vocab).
inline const Range kLayers = Range::Between(1, 10000);
inline const Range kHidden = Range::Between(1, 1 << 20);
inline const Range kHeads = Range::Between(1, 1 << 16);
inline const Range kFfnHidden = Range::Between(1, 1 << 22);
inline const Range kVocab = Range::Between(1, 1 << 24);
inline const Range kMaxSeqLen = Range::Between(0, 1 << 24);
inline const Range kDropout = Range::HalfOpen(0, 1);  // a probability of dropping; 1 drops everything
// Mixture of experts and MLA (the largest published: 256 routed experts, top-8; DeepSeek-V3 ranks 1536 /
// 512).
inline const Range kExperts = Range::Between(0, 1 << 16);  // 0: dense
inline const Range kTopK = Range::Between(1, 1 << 16);
inline const Range kSharedExperts = Range::Between(0, 1024);
inline const Range kDenseLayers = Range::Between(0, 10000);
inline const Range kCapacityFactor = Range::Between(0, 1024);    // 0: dropless
inline const Range kLoraRank = Range::Between(0, 1 << 20);       // 0: none
inline const Range kHeadDim = Range::Between(0, 1 << 16);        // 0: hidden / heads
inline const Range kSlidingWindow = Range::Between(0, 1 << 24);  // tokens; 0: none
inline const Range kWindowPattern = Range::Between(0, 10000);    // every Nth layer global; 0: none
inline const Range kZipfS = Range::Between(0.01, 10);            // routing skew exponent
// Diffusion transformers: patch sizes and VAE compression factors (published: patch 1-2, VAE 4-16).
inline const Range kPatch = Range::Between(1, 1024);
inline const Range kFrames = Range::Between(1, 1 << 20);  // training.video frames
inline const Range kPixels = Range::Between(1, 1 << 20);  // training.video height and width

// Hardware of a training job.
inline const Range kGpus = Range::Between(1, 1 << 20);  // a million GPUs
inline const Range kGpusPerNode = Range::Between(1, 1024);
inline const Range kNicsPerNode = Range::Between(0, 64);
inline const Range kNicGbps = Range::Between(0.001, 1e6);  // 1 Mb/s .. 1 Pb/s per NIC

// Training: tokens per step are seq_len x global_batch (checked below as well).
inline const Range kSeqLen = Range::Between(1, 1 << 24);       // 16M tokens
inline const Range kGlobalBatch = Range::Between(1, 1 << 24);  // sequences per step
inline const Range kMicroBatch = Range::Between(1, 1 << 16);
// (Micro-batches and tokens per step are layout rules: train/layout_check.h.)

// Parallel layout.
inline const Range kDegree = Range::Between(1, 1 << 20);  // tp, pp, cp, dp
inline const Range kVirtualStages = Range::Between(1, 1024);
inline const Range kStageLayers = Range::Between(0, 10000);
inline constexpr size_t kMaxListLength = 100000;  // layers_per_stage entries and other lists

// Data-aware runs: every step is simulated (time), every length value is held (memory).
inline const Range kDataSteps = Range::Between(1, 10000);
inline const Range kLength = Range::Between(1, 1 << 30);  // tokens of one document
inline const Range kSigma = Range::Between(0, 20);        // lognormal shape (e^20 ~ 5e8 spread)
inline const Range kTailAlpha = Range::Between(0.01, 100);
inline const Range kLengthWeight = Range::Between(0, 1e15);
inline const Range kTokens = Range::Between(0, 1 << 30);     // max_len, chunk_size, token_budget
inline const Range kDocuments = Range::Between(0, 1 << 20);  // documents per step (each is held and placed)

// Catalog entries (physical bounds with a wide margin; 0 means "none" where allowed).
inline const Range kTflops = Range::ZeroOr(0.001, 1e6);  // per dtype; 0: no tensor cores
inline const Range kFp32Tflops = Range::Between(0.001, 1e6);
inline const Range kMemoryGib = Range::Between(0.001, 1e6);
inline const Range kBandwidthGBps = Range::Between(0.001, 1e7);    // HBM
inline const Range kLinkGBps = Range::ZeroOr(0.001, 1e7);          // NVLink, intra-node, host, disk; 0: none
inline const Range kLinkGbps = Range::ZeroOr(0.001, 1e7);          // NIC and network links, Gbit/s
inline const Range kNetworkLinkGbps = Range::Between(0.001, 1e7);  // a network's links: 0 would carry nothing
inline const Range kLatencyUs = Range::Between(0, 1e6);
inline const Range kOversubscription = Range::Between(1, 1000);
inline const Range kSmCount = Range::Between(1, 1 << 16);
inline const Range kCacheMib = Range::Between(0, 1e6);
inline const Range kPowerWatts = Range::Between(0, 1e5);
inline const Range kSmClockMhz = Range::Between(100, 10'000);  // an SM clock, MHz (catalog and scenarios)
inline const Range kCount = Range::Between(0, 1 << 16);        // CPU cores, GPUs per PCIe switch, NICs
inline const Range kDiskTb = Range::Between(0, 1e6);
inline const Range kDiskKiops = Range::Between(0, 1e6);  // thousands of 4 KiB random reads/s; 0: unknown

// Serving (dlsim serve, docs/serving.md "Ranges and limits"). The limits that protect memory or the
// simulated clock come from serve/options.h, which the simulator checks again.
inline const Range kServeDegree = Range::Between(1, 1024);  // tp, pp of one replica
inline const Range kServeReplicas =
    Range::Between(1, serve::kMaxReplicas)
        .WithNote(
            "a memory and time limit: replicas are independent under round-robin, so simulate a share of "
            "the fleet at that share of the rate");
inline const Range kMemoryMargin = Range::Between(0, 0.9);
inline const Range kRequestRate = Range::Between(1e-6, 1e6);  // requests/s over all replicas
inline const Range kArrivalCv = Range::Between(0.01, 100);    // gamma inter-arrival coefficient of variation
inline const Range kRequests =
    Range::Between(1, static_cast<double>(serve::kMaxRequests))
        .WithNote("a memory limit, about 130 B per request: split the run into several scenarios (seeds)");
inline constexpr std::string_view kClockNote =
    "about 3.2 years of arrivals; the simulated clock holds 146 years";
inline const Range kArrivalSeconds = Range::Between(0, serve::kMaxArrivalSeconds).WithNote(kClockNote);
inline const Range kDurationSeconds = Range::Positive(serve::kMaxArrivalSeconds).WithNote(kClockNote);
inline const Range kRequestTokens =
    Range::Between(1, static_cast<double>(serve::kMaxTokens))
        .WithNote("token counters are 32-bit; file an issue for longer requests");
inline const Range kServeSigma = Range::Between(0, 10);  // lognormal lengths (e^10 ~ 2e4 spread)
inline const Range kBlockSize = Range::Between(1, 4096);
inline const Range kWatermark = Range::Between(0, 0.5);
inline const Range kMaxBatchSize = Range::Between(1, 65536).WithNote(
    "a batch is built and priced per iteration: more requests than any serving engine batches");
inline const Range kKvLinkGbps = Range::Between(0.01, 1e4);  // distserve KV transfer, GB/s
inline const Range kOffloadInterval = Range::Between(2, 10000);
inline const Range kPcieGbps = Range::Between(0.1, 1000);  // host-to-device GB/s
inline const Range kGpusPerPcieBus = Range::Between(1, 64);
inline const Range kHostMemoryGib = Range::Between(1, 65536);
inline const Range kSloSeconds = Range::Between(1e-6, 1e6);

// Seeds: any non-negative 63-bit integer.
inline const Range kSeed = Range::NonNegative();

}  // namespace dlsim::io::limits

#endif  // DLSIM_IO_LIMITS_H_

// bloom-a100-jean-zay: BigScience's BLOOM runs on 48 DGX-like A100 nodes of Jean Zay (held_out_sets.h). The
// stack as the notes give it (data/validation/bloom_a100_jean_zay.csv): Megatron-DeepSpeed with DeepSpeed's
// pipeline engine, bf16 with fp32 gradients, full recomputation, unfused ALiBi attention, no sequence
// parallelism; open choices are named below.
#include <cmath>
#include <string>
#include <vector>

#include "dlsim/core/csv.h"
#include "held_out_sets.h"

namespace dlsim::embedded {
std::string_view BloomA100JeanZayCsv();
}  // namespace dlsim::embedded

namespace dlsim::validate::internal {
namespace {

using train::Recompute;
using train::TrainOptions;

// Jean Zay's A100 partition: 8 GPUs per node on NVLink, 4 Omni-Path links per node. The notes do not give
// the link speed; Omni-Path shipped only at 100 Gb/s, priced as the 100 Gb/s InfiniBand (EDR) entry.
constexpr int kOmniPathLinksPerNode = 4;
constexpr double kOmniPathGbps = 100;

// DeepSpeed's 'type:transformer|embedding' partition: the tied embedding counts as one block on the first
// and the last stage, so those hold one transformer block less than an even split of layers + 2.
std::vector<int> EmbeddingAwareStages(int layers, int pp) {
  const int units = layers + 2;
  std::vector<int> stages(pp, units / pp);
  for (int s = 0; s < units % pp; ++s) ++stages[s];
  stages.front() -= 1;
  stages.back() -= 1;
  return stages;
}

TrainOptions BloomRow(const CsvTable& t, size_t i, model::ModelSpec m) {
  auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
  m.layers = num("layers");
  m.hidden = num("hidden");
  m.heads = m.kv_heads = num("heads");
  m.ffn_hidden = 4 * m.hidden;
  TrainOptions o;
  o.model = m;
  DgxA100(o, num("tp") * num("pp") * num("dp"));
  o.hardware.nics_per_node = kOmniPathLinksPerNode;
  o.hardware.nic_gbps = kOmniPathGbps;
  o.hardware.network = "ib-edr";
  o.training.precision = hw::DType::kBf16;
  o.training.grad_dtype = hw::DType::kFp32;  // BF16_Optimizer: fp32 gradient accumulation and reduction
  o.training.attention = model::AttentionImpl::kUnfused;
  o.training.seq_len = 2048;
  o.training.micro_batch = num("micro_batch");
  o.training.global_batch = num("global_batch");
  o.parallel = {.tp = num("tp"), .pp = num("pp"), .dp = num("dp")};
  o.parallel.zero = 1;
  o.parallel.recompute = Recompute::kFull;
  // DeepSpeed's pipeline engine reduces the gradients after the flush, not during the backward; its sends
  // block the sender; its BF16_Optimizer accumulates each micro-batch's gradients by kernels of its own and
  // all-reduces them (the megatron-deepspeed-bigscience stack, data/catalog/stacks.yaml, has the sources).
  o.parallel.overlap_grad_reduce = false;
  o.parallel.overlap_param_gather = false;
  o.parallel.p2p_blocking = true;
  o.parallel.grad_reduce = train::GradReduce::kAllReduce;
  o.training.grad_accumulation = train::GradAccumulation::kCastAdd;
  o.parallel.layers_per_stage = EmbeddingAwareStages(m.layers, o.parallel.pp);
  return o;
}

}  // namespace

Result<ValidationSet> BloomJeanZay(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(embedded::BloomA100JeanZayCsv(), "bloom_a100_jean_zay.csv"));
  ValidationSet set{"bloom-a100-jean-zay", "step time (s)", Source(t), 0.0, {}};
  auto spec = run.catalogs.models.Find("bloom-176b");
  if (!spec.ok()) return spec.error();
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const TrainOptions o = BloomRow(t, i, **spec);
    const std::string label = *t.Text(i, "row") + " l" + std::to_string(o.model.layers) + " h" +
                              std::to_string(o.model.hidden) + " a" + std::to_string(o.model.heads) + " tp" +
                              std::to_string(o.parallel.tp) + " pp" + std::to_string(o.parallel.pp) + " mb" +
                              std::to_string(o.training.micro_batch);
    set.rows.push_back(Row(label, *t.Number(i, "seconds_per_iteration"), o, run));
  }
  return set;
}

}  // namespace dlsim::validate::internal

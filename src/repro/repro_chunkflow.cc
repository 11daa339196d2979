// ChunkFlow (Yuan et al., ICML 2025) vs Megatron-LM packing for long-context
// fine-tuning.
//
// Qwen2.5-7B and -32B on 32 H100 (4 nodes; the paper's Alibaba Cloud instances
// are not identified), 32K and 256K context, 4M tokens per step drawn from the
// LMSys-Chat-1M length CDF of Skrull's Table 1 (> 99% under 4K), truncated at the
// context. Megatron-LM (`pack_nomask`, its default packing: rows
// of the context length, dense causal attention over the whole row, each row
// sharded over CP; `pack`, with reset_attention_mask, is a column) runs every CP
// degree and pipeline depth with selective and full recomputation; ChunkFlow
// (`chunkflow`, K = 1) runs every chunk size of 4K..32K at every CP degree and
// pipeline depth, its chunks charged for the prefix K/V they keep and move, and
// ordered by state-aware 1F1B (a long document's chunks backward in reverse).
// Each keeps its fastest configuration that fits in memory. Choices:
// docs/reproductions.md, "ChunkFlow".
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>

#include "data_repro.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::repro {
namespace {

struct ModelCase {
  const char* name;
  int tp;
};
constexpr ModelCase kModels[] = {{"qwen2.5-7b", 2}, {"qwen2.5-32b", 8}};
constexpr int kContexts[] = {32 * 1024, 256 * 1024};
constexpr int kChunks[] = {4096, 8192, 16384, 32768};
constexpr int kCps[] = {1, 2, 4, 8};
constexpr int kPps[] = {1, 2, 4};
// The paper's end-to-end speed-ups where a source gives them (0: none). 4.53x at Qwen2.5-7B / 256K is the
// abstract's headline, placed there by two independent summaries; 2.38x (7B / 32K) and 3.21x (32B / 256K)
// come from one secondary summary only (docs/reproductions.md, ChunkFlow). Order: the points' order.
constexpr double kPaperRatio[] = {2.38, 4.53, 0, 3.21};
constexpr bool kPaperRatioFromSummary[] = {true, false, false, true};
constexpr size_t kHeadlinePoint = 1;  // Qwen2.5-7B, 256K context
constexpr int kGpus = 32;
constexpr int64_t kTokensPerStep = int64_t{4} << 20;
constexpr int kSteps = 4;
constexpr uint64_t kSeed = 453;

using Best = internal::FastestRun<std::string>;  // config: e.g. "cp2 pp1 full" or "chunk 8192 cp1 pp2"

// LMSys-Chat-1M's lengths as Skrull's Table 1 measures them (the same lab's paper; > 99% under 4K),
// truncated at the context.
Result<data::DataOptions> PointData(int context, const char* policy) {
  DLSIM_ASSIGN_OR_RETURN(const CsvTable cdf, internal::SkrullTableOneLengths());
  data::DataOptions d;
  DLSIM_ASSIGN_OR_RETURN(d.lengths, internal::CdfLengths(cdf, "lmsys", context));
  d.seed = kSeed;
  d.steps = kSteps;
  d.policy = policy;
  return d;
}

// Rows of `row_len` tokens, as many as make the step's tokens.
internal::JobSetup PointJob(const ModelCase& m, int cp, int pp, int row_len) {
  internal::JobSetup s;
  s.model = m.name;
  s.gpus = kGpus;
  s.tp = m.tp;
  s.cp = cp;
  s.pp = pp;
  s.seq_len = row_len;
  s.global_batch = static_cast<int>(kTokensPerStep / row_len);
  return s;
}

// Megatron-LM packing (`policy`: pack_nomask or pack) at every CP degree, selective and full
// recomputation.
Result<Best> BestPacking(const ReproEnv& env, const ModelCase& m, int context, const char* policy) {
  Best best;
  DLSIM_ASSIGN_OR_RETURN(const data::DataOptions d, PointData(context, policy));
  for (int pp : kPps) {
    for (int cp : kCps) {
      if (kGpus / m.tp < cp * pp) continue;
      internal::JobSetup s = PointJob(m, cp, pp, context);
      for (train::Recompute rc : {train::Recompute::kSelective, train::Recompute::kFull}) {
        s.recompute = rc;
        DLSIM_ASSIGN_OR_RETURN(internal::DataRun r, internal::RunJob(*env.catalogs, s, d));
        best.Keep(r, fmt::format("cp{} pp{} {}", cp, pp, train::RecomputeName(rc)));
      }
    }
  }
  return best;
}

// ChunkFlow (K = 1, selective recomputation) at every chunk size up to the context and every
// CP degree.
Result<Best> BestChunking(const ReproEnv& env, const ModelCase& m, int context) {
  Best best;
  DLSIM_ASSIGN_OR_RETURN(data::DataOptions d, PointData(context, "chunkflow"));
  for (int pp : kPps) {
    for (int cp : kCps) {
      if (kGpus / m.tp < cp * pp) continue;
      for (int c : kChunks) {
        if (c > context) continue;
        d.chunk_size = c;
        DLSIM_ASSIGN_OR_RETURN(internal::DataRun r,
                               internal::RunJob(*env.catalogs, PointJob(m, cp, pp, c), d));
        best.Keep(r, fmt::format("chunk {} cp{} pp{}", c, cp, pp));
      }
    }
  }
  return best;
}

// The three systems at their best configurations: one detail row and one point (`paper`: the paper's
// ratio there, 0 when no source gives it).
Status RunPoint(const ReproEnv& env, const ModelCase& m, int context, size_t index, internal::Sweep& sweep,
                std::vector<ReproPoint>& points) {
  DLSIM_ASSIGN_OR_RETURN(Best mega, BestPacking(env, m, context, "pack_nomask"));  // the headline baseline
  DLSIM_ASSIGN_OR_RETURN(Best masked, BestPacking(env, m, context, "pack"));
  DLSIM_ASSIGN_OR_RETURN(Best chunk, BestChunking(env, m, context));
  const double ratio = internal::Ratio(mega.run.mean_s, chunk.run.mean_s);
  sweep.Add({{"model", m.name},
             {"context", context},
             {"megatron_s", mega.run.mean_s},
             {"megatron_config", mega.config},
             {"megatron_straggler_s", mega.run.straggler_s},
             {"megatron_padding", mega.run.padding},
             {"masked_pack_s", masked.run.mean_s},
             {"masked_pack_config", masked.config},
             {"chunkflow_s", chunk.run.mean_s},
             {"chunkflow_config", chunk.config},
             {"chunkflow_straggler_s", chunk.run.straggler_s},
             {"ratio", ratio},
             {"paper_ratio", kPaperRatio[index]},
             {"ratio_vs_masked_pack", internal::Ratio(masked.run.mean_s, chunk.run.mean_s)}},
            ratio);
  if (kPaperRatio[index] > 0)
    points.push_back({fmt::format("{} {}K", m.name, context / 1024), kPaperRatio[index], ratio,
                      kPaperRatioFromSummary[index] ? "paper value from a secondary summary" : ""});
  return Status::Ok();
}

// The claim, the headline (the largest ratio) and the words around the sweep's rows.
ReproResult Describe(internal::Sweep& sweep) {
  ReproResult out;
  out.name = "chunkflow";
  out.claim =
      "ChunkFlow: up to 4.53x faster than Megatron-LM in "
      "long-context fine-tuning (Qwen2.5, 32K and 256K "
      "context, LMSys-Chat-1M length statistics)";
  out.paper_ratio = 4.53;
  out.our_ratio = sweep.ratio(kHeadlinePoint);
  out.operating_point = "Qwen2.5-7B at 256K context (where the paper's 4.53x is), LMSys-Chat-1M lengths";
  out.off_cause =
      "the baseline's attention mask is not stated by the paper: against unmasked packing (Megatron's "
      "default, "
      "ours) the 256K rows pay for attention the documents do not need; against document-masked packing the "
      "gain is 1.0-1.4x";
  out.workload = fmt::format(
      "Qwen2.5-7B (tp 2) and Qwen2.5-32B (tp 8) on {} H100, pp "
      "1/2/4, 32K and 256K context, {}M tokens per step drawn from LMSys-Chat-1M's length CDF "
      "(Skrull's Table 1: 87% under 1K, 99.35% under 4K, longest 1.6M, truncated at the context), {} steps; "
      "ours = the ratio at the operating point",
      kGpus, kTokensPerStep >> 20, kSteps);
  out.baseline =
      "Megatron-LM default packing (pack_nomask: rows of the context length, dense causal attention "
      "over the whole row, no document mask; rows sharded over CP), "
      "best of cp 1..8 x pp 1/2/4 x selective/full recomputation that fits in memory";
  out.notes =
      "ChunkFlow runs chunk sizes 4K..32K at cp 1..8 and pp 1/2/4 with K = 1 and "
      "keeps the fastest; its chunks pay for the prefix K/V they keep (memory) and pass around the CP ring, "
      "and a long document's chunks run backward in reverse (state-aware 1F1B). Column "
      "ratio_vs_masked_pack: the same against document-masked packing "
      "(pack, Megatron-LM with reset_attention_mask); paper_ratio: the paper's value where a source gives "
      "it. "
      "See docs/reproductions.md, ChunkFlow.";
  out.details = sweep.TakeDetails();
  return out;
}

class ChunkFlowReproduction final : public Reproduction {
 public:
  // Every (model, context) point, each system at its fastest configuration.
  Result<ReproResult> Run(const ReproEnv& env) const override {
    internal::Sweep sweep;
    std::vector<ReproPoint> points;
    for (const ModelCase& m : kModels) {
      for (int context : kContexts)
        DLSIM_RETURN_IF_ERROR(RunPoint(env, m, context, sweep.rows(), sweep, points));
    }
    ReproResult out = Describe(sweep);
    out.points = std::move(points);
    return out;
  }
};

}  // namespace

void RegisterChunkFlow(ReproRegistry& reg) {
  reg.RegisterBuiltin("chunkflow",
                      "ChunkFlow (ICML 2025): chunked long-context fine-tuning "
                      "vs Megatron-LM packing, up to 4.53x",
                      [] { return std::make_unique<ChunkFlowReproduction>(); });
}

}  // namespace dlsim::repro

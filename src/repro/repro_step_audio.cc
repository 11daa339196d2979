// Step-Audio-AQAA (Huang et al., arXiv 2506.08967): an end-to-end audio LLM (dual-codebook audio
// tokens, a 130B backbone, a flow-matching vocoder) as a serving workload. The paper makes no
// systems claim; systems.md asks for its memory and FLOP accounting and a deployment sized for a
// number of concurrent audio conversations. The one published systems number is the Step-Audio
// README's "minimum GPU memory at batch 1: 265 GB (4 x A800 80 GB)" for the 130B Step-Audio-Chat
// backbone, which we set beside our weights + KV + activation accounting.
//
// Workload (docs/reproductions.md, "Step-Audio-AQAA", says which numbers are published): audio
// tokens at 16.7 Hz (linguistic) + 25 Hz (semantic); a turn = the user speaks (lognormal, median
// 5 s), the model answers with interleaved audio and text tokens (median 8 s of speech at
// 41.7 + 3.3 tokens/s), then a 2 s pause; real time = a TPOT within the answer's token period
// (22 ms) and a first token within 1 s. The backbone is served by dlsim serve on H100s (vLLM
// batching); the vocoder is priced from its FLOPs per second of audio.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <string>

#include "dlsim/repro/reproduction.h"
#include "dlsim/serve/offload.h"
#include "dlsim/serve/setup.h"
#include "sweep.h"

namespace dlsim::repro {
namespace {

// Published (arXiv 2506.08967): the dual-codebook tokenizer's rates, interleaved 2:3.
constexpr double kLinguisticHz = 16.7, kSemanticHz = 25.0;
constexpr double kAudioHz = kLinguisticHz + kSemanticHz;
// Assumed: text tokens interleaved per second of answer speech (~2.5 words/s).
constexpr double kTextHz = 3.3;
// Assumed conversation shape: user speech, answer speech (lognormal medians, sigma 0.5), a pause,
// and 256 tokens of system prompt and history per turn.
constexpr double kUserSpeechS = 5, kAnswerSpeechS = 8, kPauseS = 2, kSigma = 0.5;
constexpr int kContextTokens = 256;
constexpr double kTtftS = 1.0;
// The published batch-1 minimum (Step-Audio README), and our batch-1 context for it.
constexpr double kReadmeMinGb = 265;
constexpr int kBatchOneContext = 4096;
// Assumed vocoder: a CosyVoice-style flow-matching decoder of 1e8 parameters, 10 Euler steps with
// classifier-free guidance (2 passes), 50 mel frames per second, run at 30% of the GPU's bf16 peak.
constexpr double kVocoderParams = 1e8, kVocoderSteps = 10, kVocoderPasses = 2, kMelHz = 50;
constexpr double kVocoderEfficiency = 0.3;
constexpr int kConversations[] = {100, 1000};
constexpr int kTps[] = {4, 8};
constexpr const char* kGpus[] = {"h100-sxm5-80gb", "b200-sxm-180gb"};
// Output audio tokens per second of speech: both codebooks (the tokenizer's 41.7 Hz, our default), or
// only the 25 Hz semantic codebook the vocoder may need (a sensitivity row: the paper's output
// interleaving is not public to us).
constexpr double kOutputHz[] = {kAudioHz, kSemanticHz};

double TurnSeconds() { return kUserSpeechS + kAnswerSpeechS + kPauseS; }

serve::ServeOptions Options(const model::ModelSpec& m, const hw::GpuSpec& g, int tp, double out_hz) {
  serve::ServeOptions o;
  o.name = "step-audio-aqaa";
  o.model = m;
  o.gpu = g;
  o.hardware.tp = tp;
  o.workload.requests = 1500;
  o.workload.seed = 5;
  o.workload.prompt = {.median = kContextTokens + kUserSpeechS * kAudioHz, .sigma = kSigma, .max = 4096};
  o.workload.output = {.median = kAnswerSpeechS * (out_hz + kTextHz), .sigma = kSigma, .max = 2048};
  o.slo.ttft_s = kTtftS;
  o.slo.tpot_s = 1.0 / (out_hz + kTextHz);
  return o;
}

struct Sizing {
  double conversations_per_replica = 0;  // at >= 90% of turns meeting the real-time SLO
  double p99_tpot_ms = 0;
};

Result<Sizing> SizeReplica(const serve::ServeOptions& o, const serve::ServeEnvironment& env) {
  DLSIM_ASSIGN_OR_RETURN(auto cost, serve::MakeCostModel(o, env));
  auto cap = serve::FindCapacity(o, *cost, env.schedulers, env.routers, {.target = 0.9, .start_rate = 0.05});
  if (!cap.ok()) {
    if (cap.error().code == ErrorCode::kInfeasible) return Sizing{};
    return cap.error();
  }
  return Sizing{cap->rate_per_replica * TurnSeconds(), 1e3 * cap->at_capacity.metrics.tpot_s.p99};
}

// GPU-seconds of vocoder work per second of generated speech.
double VocoderGpuPerStream(const hw::GpuSpec& g) {
  const double flops = 2 * kVocoderParams * kMelHz * kVocoderSteps * kVocoderPasses;
  return flops / (kVocoderEfficiency * g.Peak(hw::DType::kBf16).value());
}

// Weights + the KV of one kBatchOneContext-token conversation, in GB (1e9 bytes), all GPUs together.
double BatchOneGb(const model::ModelSpec& m) {
  serve::ServeOptions o;
  o.model = m;
  return (2.0 * m.ParameterCount() + serve::KvBytesPerToken(o).value() * kBatchOneContext) / 1e9;
}

nlohmann::ordered_json Row(const hw::GpuSpec& g, int tp, double out_hz, const Sizing& s) {
  const double per_replica = s.conversations_per_replica;
  nlohmann::ordered_json row = {{"gpu", g.name},
                                {"tp", tp},
                                {"output_tokens_per_s", out_hz + kTextHz},
                                {"tpot_slo_ms", std::round(1e4 / (out_hz + kTextHz)) / 10},
                                {"p99_tpot_ms", std::round(s.p99_tpot_ms * 10) / 10},
                                {"conversations_per_replica", std::round(per_replica * 10) / 10}};
  const double answer_share = kAnswerSpeechS / TurnSeconds();  // of a conversation's time, speaking
  for (int n : kConversations) {
    const int replicas = per_replica > 0 ? static_cast<int>(std::ceil(n / per_replica)) : 0;
    const int vocoder = static_cast<int>(std::ceil(n * answer_share * VocoderGpuPerStream(g)));
    row[fmt::format("gpus_for_{}", n)] = replicas > 0 ? replicas * tp + vocoder : 0;  // 0: not in real time
  }
  return row;
}

class StepAudioReproduction final : public Reproduction {
 public:
  Result<ReproResult> Run(const ReproEnv& env) const override {
    DLSIM_ASSIGN_OR_RETURN(const model::ModelSpec* m, env.catalogs->models.Find("step-audio-130b"));
    DLSIM_ASSIGN_OR_RETURN(auto senv,
                           serve::MakeServeEnvironment(env.catalogs->compute, env.catalogs->network));
    internal::Sweep sweep;
    for (const char* gpu : kGpus) {
      DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* g, env.catalogs->hardware.FindGpu(gpu));
      for (double hz : kOutputHz) {
        for (int tp : kTps) {
          DLSIM_ASSIGN_OR_RETURN(Sizing s, SizeReplica(Options(*m, *g, tp, hz), *senv));
          sweep.Add(Row(*g, tp, hz, s), s.conversations_per_replica);
        }
      }
    }
    return Describe(*m, sweep);
  }

 private:
  static ReproResult Describe(const model::ModelSpec& m, internal::Sweep& sweep) {
    ReproResult out;
    out.name = "step-audio-aqaa";
    out.claim = fmt::format(
        "130B backbone; minimum GPU memory at batch 1: {:.0f} GB (Step-Audio README, 4 x A800 80 GB)",
        kReadmeMinGb);
    out.paper_ratio = 1.0;
    out.operating_point = "batch 1 on 4 x A800-80GB, the Step-Audio README's deployment (265 GB)";
    out.our_ratio = BatchOneGb(m) / kReadmeMinGb;
    out.workload = fmt::format(
        "{} ({:.1f}B parameters, assumed shape), audio tokens {:.1f} Hz + text {:.1f} Hz; turns of {:.0f} s "
        "speech in, {:.0f} s out, {:.0f} s pause; real time = TTFT <= {:.0f} s and TPOT <= one output token "
        "period ({:.1f} ms); vLLM batching on H100 and B200",
        m.name, m.ParameterCount() / 1e9, kAudioHz, kTextHz, kUserSpeechS, kAnswerSpeechS, kPauseS, kTtftS,
        1e3 / (kAudioHz + kTextHz));
    out.baseline = "the README's batch-1 memory; our_ratio = our weights + 4K-token KV (GB) / 265 GB";
    out.notes = fmt::format(
        "batch 1: {:.0f} GB (weights {:.0f} GB + KV {:.2f} MB per token); FLOPs per second of generated "
        "speech: "
        "{:.1f} TFLOP (backbone, 2 x active parameters x {:.0f} tokens) + {:.2f} TFLOP (vocoder, assumed); "
        "details: conversations one replica sustains with >= 90% of turns in real time, and the GPUs for N "
        "conversations (backbone replicas x tp + vocoder; 0 = no replica streams in real time). See "
        "docs/reproductions.md, Step-Audio-AQAA.",
        BatchOneGb(m), 2 * m.ParameterCount() / 1e9, KvMbPerToken(m),
        2 * m.ActiveParameterCount() * (kAudioHz + kTextHz) / 1e12, kAudioHz + kTextHz,
        2 * kVocoderParams * kMelHz * kVocoderSteps * kVocoderPasses / 1e12);
    out.details = sweep.TakeDetails();
    return out;
  }
  static double KvMbPerToken(const model::ModelSpec& m) {
    serve::ServeOptions o;
    o.model = m;
    return serve::KvBytesPerToken(o).value() / 1e6;
  }
};

}  // namespace

void RegisterStepAudio(ReproRegistry& reg) {
  reg.RegisterBuiltin(
      "step-audio-aqaa",
      "Step-Audio-AQAA (arXiv 2506.08967): a 130B audio LLM as a serving workload; memory and "
      "FLOP accounting, GPUs for N real-time conversations",
      [] { return std::make_unique<StepAudioReproduction>(); });
}

}  // namespace dlsim::repro

// Validation of the per-operator and per-iteration cost against measurements:
//  - Vidur operator profiles at token counts held out of the interpolation grid
//  (MAPE <= 5%);
//  - SplitwiseSim's measured prefill and decode iteration times, two
//  host-overhead constants
//    fitted on half of the rows and scored on the other half.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dlsim/core/csv.h"
#include "dlsim/io/yaml_reader.h"
#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::BaseOptions;
using testing::Env;

// The main operators of a layer and the whole layer, interpolated from every
// other grid row, scored at the rows left out.
TEST(OperatorProfile, HeldOutTokenCountsWithinFivePercent) {
  const auto& profiles = Env().env->profiles;
  ASSERT_EQ(profiles.size(),
            14u);  // a100/h100 x (llama2-7b tp1-8, llama2-70b tp2-8)
  for (const OperatorProfile& full : profiles) {
    const OperatorProfile fit = full.Subsample(2, 0);
    const OperatorProfile held = full.Subsample(2, 1);
    for (int op : {-1, 2, 4, 6, 8}) {  // -1: the layer sum
      double err = 0;
      int n = 0;
      for (size_t i = 0; i < held.tokens.size(); ++i) {
        const double t = static_cast<double>(held.tokens[i]);
        if (t > static_cast<double>(fit.tokens.back())) continue;  // interpolation only
        double truth = 0, pred = 0;
        if (op < 0) {
          truth = held.LayerMs(t);
          pred = fit.LayerMs(t);
        } else {
          truth = held.ms[op][i];
          pred = fit.InterpolateMs(static_cast<ProfiledOp>(op), t);
        }
        err += std::abs(pred - truth) / truth;
        ++n;
      }
      ASSERT_GT(n, 50);
      EXPECT_LE(err / n, 0.05) << full.gpu << " " << full.model << " tp" << full.tp << " op " << op;
    }
  }
}

TEST(OperatorProfile, ExtrapolatesLinearlyBeyondTheGrid) {
  const OperatorProfile* p = FindProfile(Env().env->profiles, "a100-sxm4-80gb", "llama2-7b", 1);
  ASSERT_NE(p, nullptr);
  const double at_max = p->InterpolateMs(ProfiledOp::kMlpUp, 4096);
  const double at_2x = p->InterpolateMs(ProfiledOp::kMlpUp, 8192);
  EXPECT_GT(at_2x, 1.8 * at_max);
  EXPECT_LT(at_2x, 2.2 * at_max);
}

struct SplitwiseRow {
  int index = 0;  // among the kept rows, in file order (even: fit, odd: held out)
  std::string gpu;
  int tp = 1;
  int64_t prompt = 0, batch = 0, tokens = 0;
  double prompt_ms = 0, token_ms = 0;
  // Set by MarkInconsistentBatchedPrefills: the prefill time is excluded from
  // the prefill score (the row's decode time is still scored).
  bool prefill_anomalous = false;
  double prefill_bound_ms = 0;  // the single-prompt bound it exceeds
};

// Run-to-run spread of the measurement: the seven repeats of each 1 x 512-token
// prefill (one per token_size) differ by at most 4% (H100 TP8), 1% elsewhere.
constexpr double kMeasurementTolerance = 0.05;

// Physical consistency of a batched prefill with the same system's single-prompt
// prefills (same GPU and TP). A batch of B prompts of P tokens runs the same
// token-level GEMMs, norms and all-reduces as one prompt of B x P tokens, and
// less attention (B P^2 / 2 query-key pairs instead of (B P)^2 / 2), so it
// cannot take longer. Bound: the measured time of the longest single prompt of
// N <= B x P tokens (N >= P), scaled by B x P / N (per-token attention of an
// N-token prompt is at least that of a P-token one). Batched rows measured more
// than kMeasurementTolerance above the bound are marked anomalous.
void MarkInconsistentBatchedPrefills(std::vector<SplitwiseRow>& rows) {
  for (SplitwiseRow& row : rows) {
    if (row.batch <= 1) continue;
    const int64_t total = row.batch * row.prompt;
    int64_t best_n = 0;
    std::vector<double> times;
    for (const SplitwiseRow& single : rows) {
      if (single.batch != 1 || single.gpu != row.gpu || single.tp != row.tp || single.prompt > total ||
          single.prompt < row.prompt || single.prompt < best_n)
        continue;
      if (single.prompt > best_n) times.clear();
      best_n = single.prompt;
      times.push_back(single.prompt_ms);
    }
    if (best_n == 0) continue;
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    row.prefill_bound_ms = median * static_cast<double>(total) / best_n;
    row.prefill_anomalous = row.prompt_ms > (1 + kMeasurementTolerance) * row.prefill_bound_ms;
  }
}

// SplitwiseSim's measured Llama-2-70B iterations on A100 and H100 (TP 2, 4, 8).
// Excluded: h100-80gb-pcap (power-capped H100: not a catalog entry), bloom-176b
// (not in our model catalog nor the Vidur profiles), and anomalous rows whose
// prompt time is below the time of the prefill's FLOPs at the dense fp16 peak
// (2 x 69e9 parameters x tokens / (tp x peak)): they cannot be a batch of
// `batch` prompts (e.g. A100 TP2, 64 x 512 tokens in 794 ms would need 2.8x
// peak).
std::vector<SplitwiseRow> SplitwiseRows(int* excluded) {
  std::vector<SplitwiseRow> rows;
  auto text = io::ReadTextFile(std::string(DLSIM_DATA_DIR) + "/serving/splitwise_perf_model_medians.csv");
  EXPECT_TRUE(text.ok());
  if (!text.ok()) return rows;
  auto t = ParseCsv(*text, "splitwise_perf_model_medians.csv");
  EXPECT_TRUE(t.ok());
  if (!t.ok()) return rows;
  *excluded = 0;
  for (size_t r = 0; r < t->rows.size(); ++r) {
    if (*t->Text(r, "model") != "llama2-70b") continue;
    const std::string hwname = *t->Text(r, "hardware");
    if (hwname == "h100-80gb-pcap") continue;
    SplitwiseRow row;
    row.gpu = hwname == "a100-80gb" ? "a100-sxm4-80gb" : "h100-sxm5-80gb";
    row.tp = static_cast<int>(*t->Number(r, "tp"));
    row.prompt = static_cast<int64_t>(*t->Number(r, "prompt_size"));
    row.batch = static_cast<int64_t>(*t->Number(r, "batch_size"));
    row.tokens = static_cast<int64_t>(*t->Number(r, "token_size"));
    row.prompt_ms = *t->Number(r, "prompt_time_ms");
    row.token_ms = *t->Number(r, "token_time_ms");
    const hw::GpuSpec& g = *Env().catalogs.hardware.FindGpu(row.gpu).value();
    const double floor_ms = 2.0 * 69e9 * static_cast<double>(row.prompt * row.batch) /
                            (row.tp * g.Peak(hw::DType::kFp16).value()) * 1e3;
    if (row.prompt_ms < floor_ms) {
      ++*excluded;
      continue;
    }
    row.index = static_cast<int>(rows.size());
    rows.push_back(row);
  }
  MarkInconsistentBatchedPrefills(rows);
  return rows;
}

struct Predicted {
  double prefill_ms = 0, decode_ms = 0;
};

Predicted Predict(const SplitwiseRow& row, const CollectiveOverhead& overhead) {
  ProfiledCostInputs in = CostInputs(BaseOptions("llama2-70b", row.gpu, row.tp), *Env().env);
  // The engine SplitwiseSim measured: NCCL for every all-reduce, with the host overhead fitted on these rows.
  in.engine = **FindEngine("splitwise-2023");
  in.overhead = overhead;
  EXPECT_NE(in.profile, nullptr);
  auto cost = MakeProfiledCostModel(in);
  const BatchShape pre{.prefill_tokens = row.prompt * row.batch,
                       .prefill_pairs = static_cast<double>(row.batch) * row.prompt * (row.prompt + 1) / 2,
                       .prefill_requests = row.batch,
                       .logits = row.batch};
  const BatchShape dec{.decode_requests = row.batch,
                       .decode_context = row.batch * (row.prompt + row.tokens / 2),
                       .logits = row.batch};
  return {cost->Time(pre).Total(80).ToMillis(), cost->Time(dec).Total(80).ToMillis()};
}

constexpr int kAllReducesPerIteration = 2 * 80;  // two per layer, Llama-2-70B

// Fits the two constants of data/serving/serving_calibration.csv on the even
// rows' decode iterations: residual = 160 x (a + b x 2(tp-1)), relative least
// squares (each row weighted by 1 / measured time, as the MAPE is). Checks the
// committed constants are this fit (rounded to 0.5 us); DLSIM_FIT=1 prints the
// fit.
TEST(IterationCost, FitCollectiveOverhead) {
  int excluded = 0;
  const std::vector<SplitwiseRow> rows = SplitwiseRows(&excluded);
  double saa = 0, sab = 0, sbb = 0, sar = 0, sbr = 0;
  for (const SplitwiseRow& row : rows) {
    if (row.index % 2 != 0) continue;
    const double w = 1.0 / row.token_ms;
    const double residual_us = (row.token_ms - Predict(row, {}).decode_ms) * 1e3 * w;
    const double xa = kAllReducesPerIteration * w, xb = kAllReducesPerIteration * 2.0 * (row.tp - 1) * w;
    saa += xa * xa, sab += xa * xb, sbb += xb * xb, sar += xa * residual_us, sbr += xb * residual_us;
  }
  const double det = saa * sbb - sab * sab;
  ASSERT_GT(det, 0);
  const double a = (sar * sbb - sbr * sab) / det, b = (saa * sbr - sab * sar) / det;
  if (std::getenv("DLSIM_FIT"))
    std::printf("tp_collective_overhead_us,%.1f\ntp_ring_step_latency_us,%.1f\n", a, b);
  EXPECT_GE(a, 0);
  EXPECT_GE(b, 0);
  const CollectiveOverhead& used = Env().env->overhead;
  EXPECT_NEAR(used.per_collective.ToMicros(), a, 0.5);
  EXPECT_NEAR(used.per_ring_step.ToMicros(), b, 0.5);
}

// MiB of ring traffic above `threshold_mib` per iteration (160 all-reduces of
// tokens x hidden fp16 messages).
double LargeRingMib(const SplitwiseRow& row, double threshold_mib) {
  const double msg_mib = row.prompt * row.batch * 8192 * 2.0 / (1 << 20);
  return kAllReducesPerIteration * std::max(0.0, msg_mib - threshold_mib) * 2.0 * (row.tp - 1) / row.tp;
}

// Fits the large-all-reduce term of data/serving/serving_calibration.csv on the
// even rows' prefill times (anomalous ones left out): for each threshold of a
// grid, the per-MiB cost by relative least squares; the threshold with the
// lowest even-row MAPE wins. Checks the committed values are this fit;
// DLSIM_FIT=1 prints it.
TEST(IterationCost, FitLargeAllReduce) {
  int excluded = 0;
  const std::vector<SplitwiseRow> rows = SplitwiseRows(&excluded);
  CollectiveOverhead base = Env().env->overhead;
  base.per_large_ring_mib = Duration::Zero();
  double best_mape = 1e9, best_thr = 0, best_c = 0;
  for (double thr : {0.0, 8.0, 16.0, 24.0, 32.0, 40.0, 48.0, 64.0}) {
    double sxx = 0, sxr = 0;
    std::vector<std::pair<double, double>> xr;  // relative (term, residual)
    for (const SplitwiseRow& row : rows) {
      if (row.index % 2 != 0 || row.prefill_anomalous) continue;
      const double x = LargeRingMib(row, thr) / row.prompt_ms;
      const double r = (row.prompt_ms - Predict(row, base).prefill_ms) / row.prompt_ms;
      sxx += x * x, sxr += x * r;
      xr.push_back({x, r});
    }
    const double c = sxr / sxx;  // ms per MiB
    double mape = 0;
    for (auto [x, r] : xr) mape += std::abs(r - c * x);
    mape /= static_cast<double>(xr.size());
    if (std::getenv("DLSIM_FIT"))
      std::printf(
          "threshold %.0f MiB: %.2f us/MiB, even-row prefill MAPE "
          "%.1f%%\n",
          thr, c * 1e3, 100 * mape);
    if (mape < best_mape) best_mape = mape, best_thr = thr, best_c = c * 1e3;
  }
  if (std::getenv("DLSIM_FIT"))
    std::printf(
        "tp_large_allreduce_threshold_mib,%.0f\n"
        "tp_large_allreduce_us_per_mib,%.1f\n",
        best_thr, best_c);
  const CollectiveOverhead& used = Env().env->overhead;
  EXPECT_NEAR(used.large_message.ToMiB(), best_thr, 1e-9);
  EXPECT_NEAR(used.per_large_ring_mib.ToMicros(), best_c, 0.1);
}

// The batched prefills inconsistent with the single-prompt ones (the rule of
// MarkInconsistentBatchedPrefills, decided from the measurements alone). Prints
// them: serve_cost_test --gtest_filter=IterationCost.AnomalousBatchedPrefills
TEST(IterationCost, AnomalousBatchedPrefills) {
  int excluded = 0;
  const std::vector<SplitwiseRow> rows = SplitwiseRows(&excluded);
  int anomalous = 0, batched = 0;
  for (const SplitwiseRow& row : rows) {
    if (row.batch <= 1) continue;
    ++batched;
    if (!row.prefill_anomalous) continue;
    ++anomalous;
    std::printf(
        "anomalous prefill: %s tp%d %ld x %ld tokens: %.0f ms > %.0f "
        "ms bound (+%.0f%%), %s row\n",
        row.gpu.c_str(), row.tp, row.batch, row.prompt, row.prompt_ms, row.prefill_bound_ms,
        100 * (row.prompt_ms / row.prefill_bound_ms - 1), row.index % 2 ? "held-out" : "fit");
    EXPECT_EQ(row.gpu, "a100-sxm4-80gb");  // every H100 batch is consistent
  }
  EXPECT_EQ(batched, 34);
  EXPECT_EQ(anomalous, 17);
}

// Per-iteration prefill and decode times on the odd (held-out) rows with the
// fitted constants.
TEST(IterationCost, MatchesSplitwiseMeasurementsOnHeldOutRows) {
  int excluded = 0;
  const std::vector<SplitwiseRow> rows = SplitwiseRows(&excluded);
  ASSERT_EQ(static_cast<int>(rows.size()) + excluded, 114);
  EXPECT_EQ(excluded, 2);  // below the dense-peak FLOP time
  double prefill_err = 0, decode_err = 0;
  int n = 0, n_prefill = 0;
  for (const SplitwiseRow& row : rows) {
    if (row.index % 2 == 0) continue;
    const Predicted p = Predict(row, Env().env->overhead);
    if (!row.prefill_anomalous) {
      prefill_err += std::abs(p.prefill_ms - row.prompt_ms) / row.prompt_ms;
      ++n_prefill;
    }
    decode_err += std::abs(p.decode_ms - row.token_ms) / row.token_ms;
    ++n;
    if (std::getenv("DLSIM_VERBOSE")) {
      std::printf(
          "%s tp%d P%ld B%ld T%ld prefill %.1f vs %.1f%s decode %.2f "
          "vs %.2f\n",
          row.gpu.c_str(), row.tp, row.prompt, row.batch, row.tokens, p.prefill_ms, row.prompt_ms,
          row.prefill_anomalous ? " (anomalous)" : "", p.decode_ms, row.token_ms);
    }
  }
  ASSERT_GT(n, 50);
  ASSERT_GT(n_prefill, 40);
  std::printf(
      "splitwise held-out rows %d (%d excluded): prefill MAPE %.1f%% "
      "on %d rows, decode MAPE %.1f%%\n",
      n, excluded, 100 * prefill_err / n_prefill, n_prefill, 100 * decode_err / n);
  prefill_err = prefill_err / n_prefill * n;  // the bounds below divide by n
  // BOUNDS: see docs/serving.md "Validation" for what the remaining error is.
  EXPECT_LE(prefill_err / n, 0.10);  // the target (anomalous rows out)
  EXPECT_LE(decode_err / n, 0.10);   // the target
}

}  // namespace
}  // namespace dlsim::serve

#!/usr/bin/env python3
"""Derive dlsim's prediction intervals (data/calibration/intervals.yaml) from out-of-fit residuals.

    D=build/tools/dlsim/dlsim
    $D validate --cross-validate --json --threads 2 > cv.json          # ~5 min on 2 cores
    $D validate --json > validate.json
    $D calibrate examples/calibrate/h200-fit-runs.csv --fit none --json > h200-fit.json
    $D calibrate examples/calibrate/h200-heldout-runs.csv --fit none --json > h200-heldout.json
    python3 scripts/fit-intervals.py cv.json validate.json h200-fit.json h200-heldout.json > data/calibration/intervals.yaml

Every residual is the ratio measured / predicted of a row the constants were not fitted on:
  fitted-stack  the 5-fold cross-validated predictions of the seven fit sets (each row predicted by a fit
                that left its fold out);
  measured-stack  the project's plain-PyTorch H200 steps (shipped constants; their stacks carry kernel rates
                measured on profiled steps, not on these runs) and NVIDIA's eager Llama-3.2-1B runs on an H200 at a
                locked clock (MEASURED_HELD_OUT); it lists the stacks those runs used (their training.stack
                column), and a stack with measured rates outside the list is `outside`.
  other-stack   the held-out published sets (never fitted on), NVIDIA's B200 runs among them.
  serving       TPOT of the published vLLM runs (serving-vllm-public, in validate.json: the mean, or the median
                where the run reported that), each source (a GitHub issue or PR, a results page) one set; rows from a run that also set an engine
                constant are left out (SERVING_FITTED).
  memory        peak memory of real runs (megatron-lm-memory, pytorch-bf16-memory, torchtitan-h100-nd-memory in
                validate.json; nothing is fitted to them), each set one; Korthikanti's per-component memory
                (the paper's own accounting, not a run's log) is left out.
  serving-ttft, serving-throughput  the same for mean TTFT (serving-vllm-public-ttft) and request throughput
                (serving-vllm-public-throughput); no row of theirs is from a run that set a constant.
The interval is the 10th-90th percentile of the ratios with every set weighted equally (vTrain's 731 rows
count as much as MLPerf's 7). Coverage is printed to stderr: per fit set its share of rows inside the
fitted-stack interval; per other-stack set the share inside the interval derived WITHOUT that set (leave one
set out), the honest coverage for a stack the intervals have not seen.
"""
import json
import math
import sys

# ValidateCliTest.ShippedHeldOutIntervalsAreTodaysSpread (tests/cli) lists the same sets and recomputes both regimes.
HELD_OUT = ["megatron-bridge-dense-b200", "nemo-long-context-cp-b200",
            "torchtitan-a100-fsdp", "torchtitan-h100-nd", "torchtitan-h100-405b-2d",
            "bloom-a100-jean-zay", "flash-attention-gpt3", "cudnn-frontend-llama3.2-1b-b200"]
# Held-out sets in validate.json whose scenarios fall in the measured-stack regime (a stack with measured rates
# on the GPU's architecture): NVIDIA's eager Llama-3.2-1B runs on an H200.
MEASURED_HELD_OUT = ["cudnn-frontend-llama3.2-1b-h200"]
# The held-out sets of MoE models (their own regime: dlsim prices MoE blocks too fast, docs/validation.md).
MOE_SETS = ["megatron-bridge-moe-b200", "megatron-core-moe-h100"]
LEVEL = 0.8
MEMORY_SETS = ["megatron-lm-memory", "pytorch-bf16-memory", "torchtitan-h100-nd-memory"]
SERVING_SET = "serving-vllm-public"
SERVING_CSV = "data/validation/vllm_public_serving.csv"
# Rows whose run also gave a constant: vLLM issue 6913's output-processing times set vllm-0.5's per-request CPU
# cost (data/serving/engine_host.csv), so its two TPOT rows are not out of fit (docs/validation.md).
SERVING_FITTED = {"70B-fp8 tp4 batch 1", "70B-fp8 tp4 batch 32"}
# The measured-stack rows' runs: the regime covers the stacks they ran (their training.stack column).
MEASURED_CSVS = ["examples/calibrate/h200-fit-runs.csv", "examples/calibrate/h200-heldout-runs.csv",
                 "data/validation/cudnn_frontend_llama32_1b_h200_runs.csv"]


def measured_stacks():
    """The sorted training.stack values of the measured-stack runs."""
    stacks = set()
    for path in MEASURED_CSVS:
        rows = [l for l in open(path) if l.strip() and not l.startswith("#")]
        col = rows[0].rstrip("\n").split(",").index("training.stack")
        stacks.update(r.rstrip("\n").split(",")[col] for r in rows[1:])
    return sorted(stacks)


def weighted_quantile(sets, q):
    """q-quantile of the ratios of `sets` (name -> list), each set's rows sharing weight 1."""
    points = sorted((r, 1.0 / len(rs)) for rs in sets.values() for r in rs)
    total = sum(w for _, w in points)
    acc = 0.0
    for r, w in points:
        acc += w
        if acc >= q * total - 1e-12:
            return r
    return points[-1][0]


def interval(sets):
    lo = weighted_quantile(sets, (1 - LEVEL) / 2)
    hi = weighted_quantile(sets, 1 - (1 - LEVEL) / 2)
    return min(lo, 1.0), max(hi, 1.0)


def coverage(ratios, lo, hi):
    return sum(lo <= r <= hi for r in ratios) / len(ratios)


def serving_sets(validate, set_name=SERVING_SET, fitted=SERVING_FITTED):
    """Source -> measured / predicted of set `set_name`'s serving rows no constant was fitted on (the rows' figure:
    TPOT, TTFT or requests/s, as the run reported it), and the engines and GPUs of those rows (the scenarios
    the regime covers)."""
    import csv
    rows = list(csv.DictReader(l for l in open(SERVING_CSV) if not l.startswith("#")))
    by_label = {r["label"]: r for r in rows}
    sets, engines, gpus = {}, set(), set()
    for s in validate:
        if s["name"] != set_name:
            continue
        for r in s["detail"]:
            if r["feasible"] and r["predicted"] > 0 and r["label"] not in fitted:
                row = by_label[r["label"]]
                sets.setdefault(row["source"], []).append(r["measured"] / r["predicted"])
                engines.add(row["engine"])
                gpus.add(row["gpu"])
    return sets, sorted(engines), sorted(gpus)


# The serving regimes: name, validation set, the rows' figure (in words); no TTFT or throughput row is from a
# run that set a constant.
SERVING_REGIMES = [("serving", SERVING_SET, "mean TPOT"),
                   ("serving-ttft", SERVING_SET + "-ttft", "mean TTFT"),
                   ("serving-throughput", SERVING_SET + "-throughput",
                    "request throughput (completed requests / the run's duration)")]


def print_regime(name, sets, what, **lists):
    """One regime of intervals.yaml: its interval over `sets`, their counts, what it covers and its lists
    (engines, gpus, stacks)."""
    lo, hi = interval(sets)
    print("  %s:" % name)
    print("    low: %.4f\n    high: %.4f\n    sets: %d\n    rows: %d" % (lo, hi, len(sets), sum(map(len, sets.values()))))
    print("    what: \"%s\"" % what)
    for key, names in lists.items():
        print("    %s: [%s]" % (key, ", ".join(names)))


def ratios(s):
    """measured / predicted of a validate.json set's rows that have a prediction."""
    return [r["measured"] / r["predicted"] for r in s["detail"] if r["feasible"] and r["predicted"] > 0]


def main(cv_path, val_path, *calibrate_paths):
    fitted = {}
    for s in json.load(open(cv_path))["sets"]:
        fitted[s["name"]] = [r["measured"] / r["kfold_predicted"] for r in s["row_predictions"]
                             if r["kfold_predicted"] > 0]
    validate = json.load(open(val_path))
    serving_regimes = [(name, figure) + serving_sets(validate, set_name, SERVING_FITTED if name == "serving" else ())
                       for name, set_name, figure in SERVING_REGIMES]
    other = {s["name"]: ratios(s) for s in validate if s["name"] in HELD_OUT}
    memory = {s["name"]: ratios(s) for s in validate if s["name"] in MEMORY_SETS}
    moe = {s["name"]: ratios(s) for s in validate if s["name"] in MOE_SETS}
    measured = {}
    for path in calibrate_paths:
        runs = json.load(open(path))["runs"]
        measured["h200-pytorch-" + path.rsplit("/", 1)[-1].split(".")[0]] = [r["measured_s"] / r["shipped_s"]
                                                                            for r in runs]
    measured.update({s["name"]: ratios(s) for s in validate if s["name"] in MEASURED_HELD_OUT})
    flo, fhi = interval(fitted)
    olo, ohi = interval(other)
    mlo, mhi = interval(measured)
    log = sys.stderr
    print("fitted-stack interval %.4f-%.4f" % (flo, fhi), file=log)
    for name, rs in fitted.items():
        print("  %-28s rows %4d  coverage %5.1f%%" % (name, len(rs), 100 * coverage(rs, flo, fhi)), file=log)
    for label, sets, lo_, hi_ in [("other-stack", other, olo, ohi), ("measured-stack", measured, mlo, mhi),
                                  ("moe", moe) + interval(moe),
                                  ("memory", memory) + interval(memory)] + [
            (name, sets) + interval(sets) for name, _, sets, _, _ in serving_regimes]:
        print("%s interval %.4f-%.4f (coverage: leave one set out)" % (label, lo_, hi_), file=log)
        for name, rs in sets.items():
            if len(sets) == 1:
                print("  %-28s rows %4d  (one source: no leave-one-set-out coverage)" % (name, len(rs)), file=log)
                continue
            lo, hi = interval({k: v for k, v in sets.items() if k != name})
            print("  %-28s rows %4d  coverage %5.1f%% (interval without it %.3f-%.3f)"
                  % (name, len(rs), 100 * coverage(rs, lo, hi), lo, hi), file=log)
    print("# Prediction intervals of predicted step times, peak memory and serving figures (cost/prediction_intervals.h): per regime the"
          " %d%%" % int(100 * LEVEL))
    print("# interval of measured / predicted over rows no constant was fitted on, every set weighted equally.")
    print("# Written by scripts/fit-intervals.py (its docstring has the commands); coverage: docs/validation.md.")
    print("level: %.2f" % LEVEL)
    print("outside_widen: 1.5")
    print("regimes:")
    print_regime("fitted-stack", fitted, "Megatron-LM / NeMo stacks (or none named), mixed precision, dense, A100 or H100; 5-fold CV")
    print_regime("other-stack", other, "torchtitan, Megatron-DeepSpeed, B200, plain PyTorch without measured rates; held-out sets")
    print_regime("moe", moe, "MoE models on a validated architecture (before fitted-stack and other-stack); held-out MoE sets")
    print_regime("measured-stack", measured, "stacks that carry kernel rates measured for the GPU's architecture; plain-PyTorch H200 steps, ours and NVIDIA's",
                 stacks=measured_stacks())
    print_regime("memory", memory, "peak memory per GPU of real runs (Megatron-LM, plain PyTorch bf16, torchtitan on H100)")
    for name, figure, sets, engines, gpus in serving_regimes:
        print_regime(name, sets, "%s of published vLLM runs; the engine profiles and GPUs below" % figure,
                     engines=engines, gpus=gpus)


if __name__ == "__main__":
    main(*sys.argv[1:])

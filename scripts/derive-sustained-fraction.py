#!/usr/bin/env python3
"""Derive the share of its bf16 peak the Grand Teton H100 (h100-hbm2e-96gb) sustains in torchtitan's runs.

    python3 scripts/derive-sustained-fraction.py build/tools/dlsim/dlsim > data/calibration/h100_hbm2e_sustained.csv

AsyncTP's authors ran Llama 3 70B with torchtitan on 64 of these GPUs (500 W limit; bf16, TP 8, full recomputation,
torch.compile) and logged tokens/s per GPU without AsyncTP at local batch 4, 8, 12: 579, 600, 608
("[Distributed w/ TorchTitan] Introducing Async Tensor Parallelism in PyTorch", discuss.pytorch.org/t/209487,
Figure 9; pytorch-labs/applied-ai assets/images/dev-discuss-asynctp/Figure_9.png), a step of
batch x 8192 / 8 / tokens-per-s seconds. For each run this finds, by bisection, the share f of the bf16 (and fp16)
dense peak at which dlsim's step of the same run (examples/training/async-tp-llama3-70b-64xh100.yaml) equals the
measured one; the mean is the catalog's `sustained_fraction` for the GPU. The forward durations of the same figure
are printed beside dlsim's at that share (a check, not fitted). FP8 is not measured there: it is left whole.
"""
import os
import re
import sys

from dlsim_runs import ASYNC_TP_SCENARIO as SCENARIO, ROOT, async_tp_scenario, run_json

GPU = "h100-hbm2e-96gb"
# local batch: (tokens/s per GPU without AsyncTP, forward ms without AsyncTP), the post's Figure 9
MEASURED = {4: (579, 1937), 8: (600, 3765), 12: (608, 5629)}


def gpu_block():
    """The catalog entry of GPU as text, without a sustained_fraction, renamed to a probe."""
    text = open(os.path.join(ROOT, "data/catalog/gpus.yaml")).read()
    start = text.index("  - name: %s\n" % GPU)
    end = text.find("\n  - name:", start + 1)
    block = text[start:end if end > 0 else len(text)]
    block = re.sub(r"\n    sustained_fraction:[^\n]*", "", block)
    block = re.sub(r"\n    aliases:[^\n]*", "", block)
    return block.replace("name: %s" % GPU, "name: %s-probe" % GPU)


def run(dlsim, batch, fraction, block):
    catalog = "gpus:\n" + block + "\n    sustained_fraction: {bf16: %.6f, fp16: %.6f}\n" % (fraction, fraction)
    text = async_tp_scenario(batch).replace("gpu: %s" % GPU, "gpu: %s-probe" % GPU)
    return run_json(dlsim, "train", text, catalog)


def solve(dlsim, batch, target_s, block):
    low, high = 0.3, 1.0
    for _ in range(30):
        mid = 0.5 * (low + high)
        if run(dlsim, batch, mid, block)["step_time_s"] > target_s:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    dlsim = sys.argv[1]
    block = gpu_block()
    print("# The share of its bf16/fp16 dense peak the Grand Teton H100 (%s, 500 W limit) sustains in torchtitan's runs." % GPU)
    print("# Measured: discuss.pytorch.org/t/209487 (AsyncTP's authors, August 2024), Figure 9 (Llama 3 70B, bf16, 64 of these H100, TP 8,")
    print("#   full AC, torch.compile), tokens/s per GPU without AsyncTP; dlsim: %s." % SCENARIO)
    print("# Extracted with: python3 scripts/derive-sustained-fraction.py build/tools/dlsim/dlsim")
    print("# fraction: the share of the bf16 peak at which dlsim's step equals the measured step (bisection); the mean is")
    print("#   data/catalog/gpus.yaml's sustained_fraction for %s. dlsim_step_whole_s: dlsim at the whole peak." % GPU)
    print("# Check, not fitted: the measured forward against dlsim's forward (recomputation + a third of the TP communication) at the fraction.")
    print("local_batch,tokens_per_s_per_gpu,measured_step_s,dlsim_step_whole_s,fraction,measured_forward_ms,dlsim_forward_ms")
    fractions = []
    for batch, (tps, fwd_ms) in sorted(MEASURED.items()):
        target = batch * 8192 / 8.0 / tps
        whole = run(dlsim, batch, 1.0, block)["step_time_s"]
        f = solve(dlsim, batch, target, block)
        fractions.append(f)
        b = run(dlsim, batch, f, block)["breakdown"]
        forward_ms = (b["recompute_s"] + b["tp_comm_s"] / 3.0) * 1000
        print("%d,%d,%.4f,%.4f,%.4f,%d,%.0f" % (batch, tps, target, whole, f, fwd_ms, forward_ms))
    print("mean,,,,%.3f,," % (sum(fractions) / len(fractions)))


if __name__ == "__main__":
    main()

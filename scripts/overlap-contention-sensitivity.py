#!/usr/bin/env python3
"""How the contention of overlapped collectives (parallel.overlap_contention) moves torchtitan's A100 FSDP2 rows.

    python3 scripts/overlap-contention-sensitivity.py build/tools/dlsim/dlsim

The three rows of data/validation/torchtitan_a100_fsdp.csv as `dlsim train` scenarios (the set's own choices,
src/validate/held_out_sets.cc TorchtitanFsdp: 64 A100 80GB in DGX A100 nodes with 8 HDR NICs, FSDP2 over all 64,
bf16 with fp32 reduction, flash attention, the presets' eager kernels), priced at overlap_contention 0, 0.1, the
shipped 0.189 (Lee et al., arXiv 2507.03114: the average) and 0.4 (their maximum), with FSDP2's copies on. The
source gives one average over A100, H100, MI250 and MI210: this shows what the choice is worth.
"""
import sys

from dlsim_runs import run_json

# model, local batch, seq_len, recompute, norm_impl, measured step (s) = local batch x seq_len / WPS
ROWS = [("llama3-70b", 1, 8192, "full", "python-fp32", 24.7492),
        ("llama2-13b", 2, 4096, "none", "fused", 3.7891),
        ("llama2-70b", 2, 4096, "full", "python-fp32", 23.2068)]
SHARES = [0.0, 0.1, 0.189, 0.4]


def scenario(model, batch, seq, recompute, norm, share):
    return f"""model: {{name: {model}}}
hardware: {{gpu: a100-sxm4-80gb, node: dgx-a100, gpus: 64, gpus_per_node: 8, nics_per_node: 8, nic_gbps: 200,
  network: ib-hdr}}
training: {{seq_len: {seq}, global_batch: {64 * batch}, micro_batch: {batch}, precision: bf16, grad_dtype: fp32,
  attention: flash, kernels: eager, norm_impl: {norm}, head_kernels: fused}}
parallel: {{zero: 3, sharding: fsdp2, recompute: {recompute}, overlap_contention: {share}}}
"""


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    dlsim = sys.argv[1]
    print("row," + ",".join("error_pct_at_%g" % s for s in SHARES))
    mapes = [0.0] * len(SHARES)
    for model, batch, seq, recompute, norm, measured in ROWS:
        cells = []
        for i, share in enumerate(SHARES):
            step = run_json(dlsim, "train", scenario(model, batch, seq, recompute, norm, share))["step_time_s"]
            error = 100 * (step - measured) / measured
            mapes[i] += abs(error) / len(ROWS)
            cells.append("%+.1f" % error)
        print("%s ac %s," % (model, recompute) + ",".join(cells))
    print("MAPE," + ",".join("%.1f" % m for m in mapes))


if __name__ == "__main__":
    main()

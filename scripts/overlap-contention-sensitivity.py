#!/usr/bin/env python3
"""How the contention of overlapped collectives (parallel.overlap_contention) moves torchtitan's A100 FSDP2 rows.

    python3 scripts/overlap-contention-sensitivity.py build/tools/dlsim/dlsim

The three rows of data/validation/torchtitan_a100_fsdp.csv as `dlsim train` scenarios (the set's own choices,
src/validate/held_out_sets.cc TorchtitanFsdp: 64 A100 80GB in DGX A100 nodes with 8 HDR NICs, FSDP2 over all 64,
bf16 with fp32 reduction, flash attention, the presets' eager kernels), priced at overlap_contention 0, 0.1, the
shipped 0.189 (Lee et al., arXiv 2507.03114: the average) and 0.4 (their maximum), with FSDP2's copies on. The
source gives one average over A100, H100, MI250 and MI210: this shows what the choice is worth.
"""
import csv
import os
import sys

from dlsim_runs import ROOT, run_json


def rows():
    """The set's rows as read from its CSV (comments skipped)."""
    with open(os.path.join(ROOT, "data/validation/torchtitan_a100_fsdp.csv")) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


SHARES = [0.0, 0.1, 0.189, 0.4]


def scenario(r, share):
    batch = int(r["local_batch"])
    recompute = "full" if r["activation_checkpointing"] == "full" else "none"
    return f"""model: {{name: {r["model"].lower()}}}
hardware: {{gpu: a100-sxm4-80gb, node: dgx-a100, gpus: {r["gpus"]}, gpus_per_node: 8, nics_per_node: 8,
  nic_gbps: 200, network: ib-hdr}}
training: {{seq_len: {r["seq_len"]}, global_batch: {int(r["gpus"]) * batch}, micro_batch: {batch}, precision: bf16,
  grad_dtype: fp32, attention: flash, kernels: {r["kernels"]}, norm_impl: {r["norm_impl"]},
  head_kernels: {r["head_kernels"]}}}
parallel: {{zero: 3, sharding: fsdp2, recompute: {recompute}, overlap_contention: {share}}}
"""


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    dlsim = sys.argv[1]
    print("row," + ",".join("error_pct_at_%g" % s for s in SHARES))
    table = rows()
    mapes = [0.0] * len(SHARES)
    for r in table:
        measured = float(r["derived_step_time_s"])
        cells = []
        for i, share in enumerate(SHARES):
            step = run_json(dlsim, "train", scenario(r, share))["step_time_s"]
            error = 100 * (step - measured) / measured
            mapes[i] += abs(error) / len(table)
            cells.append("%+.1f" % error)
        print("%s ac %s," % (r["model"], r["activation_checkpointing"]) + ",".join(cells))
    print("MAPE," + ",".join("%.1f" % m for m in mapes))


if __name__ == "__main__":
    main()

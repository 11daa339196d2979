#!/usr/bin/env python3
"""Turn measured training steps (data/profiles/h200-*/train.jsonl) into a `dlsim calibrate` RUNS.csv.

    python3 scripts/train-jsonl-to-runs.py data/profiles/h200-fit/train.jsonl examples/calibrate/h200-fit-runs.csv

Each measured step (runs that went out of memory are skipped) becomes one row: its model as a Hugging Face
config.json written next to the CSV (configs/NAME.json), one H200, micro-batch = global batch, full
recomputation when the run checkpointed every layer, its stack (pytorch-eager-autocast: autocast over fp32 weights, or
pytorch-eager-bf16: pure bf16; data/catalog/stacks.yaml, which sets the recipe and the measured host time), and its measured step time and peak allocated memory.
"""
import csv
import json
import os
import sys


def main(src, dst):
    folder = os.path.dirname(os.path.abspath(dst))
    os.makedirs(os.path.join(folder, "configs"), exist_ok=True)
    rows = []
    for line in open(src):
        r = json.loads(line)
        if not r.get("step_ms"):
            continue
        cfg = os.path.join("configs", r["model"] + ".json")
        with open(os.path.join(folder, cfg), "w") as f:
            json.dump(r["config"], f, indent=1, sort_keys=True)
            f.write("\n")
        rows.append({
            "label": "%s-%s-mb%d-s%d%s" % (r["model"], r["mode"], r["micro_batch"], r["seq"], "-ckpt" if r["ckpt"] else ""),
            "step_time_s": "%.6f" % (r["step_ms"] / 1e3),
            "peak_memory_gib": "%.3f" % r["peak_alloc_gib"],
            "model.hf_config": cfg,
            "hardware.gpu": "h200",
            "hardware.gpus": 1,
            "training.seq_len": r["seq"],
            "training.micro_batch": r["micro_batch"],
            "training.global_batch": r["micro_batch"],
            "training.stack": "pytorch-eager-autocast" if r["mode"] == "amp" else "pytorch-eager-bf16",
            "parallel.recompute": "full" if r["ckpt"] else "none",
        })
    with open(dst, "w", newline="") as f:
        f.write("# Measured H200 training steps from %s (scripts/train-jsonl-to-runs.py)\n" % src)
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main(*sys.argv[1:3])

#!/usr/bin/env python3
"""Turn the published B200 attention throughputs (data/profiles/published/b200_attention/
b200_attention_tflops.csv: FlashAttention-2 and cuDNN SDPA on one B200, bf16, as printed in the GitHub threads
its README.md names) into the operator CSV that `dlsim kernels` and `dlsim-fit attention` read
(io/kernel_ops_csv.h):

  scripts/b200-attention-to-kernels.py data/profiles/published/b200_attention

writes kernels-b200.csv beside it. The sources print TFLOP/s, not times: each row's time is the FLOP count its
benchmark uses (forward 4 b s^2 h d, halved when causal; backward 2.5x the forward) over that rate. The
benchmarks run multi-head attention (kv_heads = heads).
"""
import csv, os, sys

from kernels_csv import write_per_gpu

COLUMNS = ["op", "dtype", "batch", "heads", "kv_heads", "seq_q", "seq_kv", "head_dim", "causal", "backend",
           "measured_ms", "source"]


def flops(r):
    b, s, h, d = (int(r[k]) for k in ("batch", "seqlen", "heads", "head_dim"))
    f = 4 * b * s * s * h * d / (2 if r["causal"] == "true" else 1)
    return f if r["direction"] == "fwd" else 2.5 * f


def rows(path):
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["direction"] not in ("fwd", "bwd") or r["causal"] not in ("true", "false"):
                sys.exit(f"{path}: direction is fwd or bwd and causal true or false: {r}")
            tflops = float(r["tflops"])
            ms = flops(r) / (tflops * 1e12) * 1e3
            op = "attention_fwd" if r["direction"] == "fwd" else "attention_bwd"
            yield "B200", [op, "bf16", r["batch"], r["heads"], r["heads"], r["seqlen"], r["seqlen"], r["head_dim"],
                           r["causal"], r["backend"], f"{ms:.6g}", f"{r['source']} {r['tflops']} TFLOP/s"]


def main(folder):
    write_per_gpu(folder, {"B200": "kernels-b200.csv"}, COLUMNS,
                  rows(os.path.join(folder, "b200_attention_tflops.csv")),
                  lambda gpu: "dlsim kernels input: published FlashAttention-2 and cuDNN SDPA throughputs on one B200 "
                    "(b200_attention_tflops.csv beside this file; README.md), written by "
                    "scripts/b200-attention-to-kernels.py")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data/profiles/published/b200_attention")

#!/usr/bin/env python3
"""Turn the attention speeds read off flash-attention's published figures
(data/profiles/published/flash_attention/figures.csv) into the operator CSV that `dlsim kernels` reads
(io/kernel_ops_csv.h), one file per GPU, each row's time derived from its TFLOPs/s with the benchmark's own FLOP
count (flash-attention benchmarks/benchmark_flash_attention.py flops(): forward 4 b s^2 h d, halved when causal;
forward + backward 3.5x):

  scripts/fa-figures-to-kernels.py data/profiles/published/flash_attention

writes kernels-a100.csv and kernels-h100.csv beside figures.csv. Implementations map to dlsim's kernel families
(cost::AttentionBackend): pytorch -> math, flash2 -> flash, xformers -> efficient (PyTorch's memory-efficient
SDPA kernel is xformers' CUTLASS kernel), flash_triton and triton -> triton, cudnn -> cudnn. FlashAttention-1 and
FlashAttention-3 are families dlsim does not price: their rows stay in figures.csv only.
"""
import csv, os, sys

from kernels_csv import write_per_gpu

FAMILY = {"pytorch": "math", "flash2": "flash", "xformers": "efficient", "flash_triton": "triton",
          "triton": "triton", "cudnn": "cudnn"}
FILES = {"a100-sxm4-80gb": "kernels-a100.csv", "h100-sxm5-80gb": "kernels-h100.csv"}
COLUMNS = ["op", "dtype", "batch", "heads", "seq_q", "head_dim", "causal", "backend", "measured_ms", "source"]
TOKENS, HIDDEN = 16384, 2048  # the figures' setup: batch x seqlen = 16k, heads x head_dim = 2048


def flops(batch, seqlen, heads, head_dim, causal, direction):
    f = 4 * batch * seqlen ** 2 * heads * head_dim // (2 if causal else 1)
    return f if direction == "fwd" else 3.5 * f


def rows(figures):
    with open(figures) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            family = FAMILY.get(r["implementation"])
            if family is None:
                continue
            s, d = int(r["seqlen"]), int(r["head_dim"])
            b, h, causal = TOKENS // s, HIDDEN // d, r["causal"] == "true"
            ms = flops(b, s, h, d, causal, r["direction"]) / (float(r["tflops"]) * 1e12) * 1e3
            op = "attention_fwd" if r["direction"] == "fwd" else "attention_fwd_bwd"
            yield r["gpu"], [op, "fp16", b, h, s, d, r["causal"], family, f"{ms:.6g}",
                             f"{r['figure']} {r['implementation']} {r['tflops']} TFLOPs/s ({r['read']})"]


def main(folder):
    write_per_gpu(folder, FILES, COLUMNS, rows(os.path.join(folder, "figures.csv")),
                  lambda gpu: f"dlsim kernels input: flash-attention's published {gpu} attention speeds "
                    "(figures.csv beside this file; README.md), written by scripts/fa-figures-to-kernels.py")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data/profiles/published/flash_attention")

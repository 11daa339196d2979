#!/usr/bin/env python3
"""Turn NVIDIA cudnn-frontend's published SDPA timings (data/profiles/published/cudnn_frontend/
llama3.1_sdpa_bf16.csv: its attention_training benchmark, Llama 3.1 heads, bf16) into the operator CSV that
`dlsim kernels` and `dlsim-fit attention` read (io/kernel_ops_csv.h), one file per GPU:

  scripts/cudnn-frontend-to-kernels.py data/profiles/published/cudnn_frontend

writes kernels-h200.csv and kernels-gb200.csv beside it. Only the `cudnn` rows: they are dlsim's `cudnn` family
(cost::AttentionBackend); FlashAttention-4 is a family dlsim does not price (its rows stay in the source file).
Each row's published time is kept as measured; its TFLOP/s is checked against the benchmark's FLOP count
(forward 4 b s^2 h d, halved when causal; backward 2.5x the forward) so that a mistyped row fails here.
"""
import csv, os, sys

from kernels_csv import write_per_gpu

FILES = {"NVIDIA H200": "kernels-h200.csv", "NVIDIA GB200": "kernels-gb200.csv"}
COLUMNS = ["op", "dtype", "batch", "heads", "kv_heads", "seq_q", "seq_kv", "head_dim", "causal", "backend",
           "measured_ms", "source"]


def flops(r):
    b, s, h, d = (int(r[k]) for k in ("batch_size", "q_seqlen", "num_q_heads", "head_dim_qk"))
    f = 4 * b * s * int(r["kv_seqlen"]) * h * d / (2 if r["attn_mask"] == "top_left" else 1)
    return f if r["profile_pass"] == "fwd" else 2.5 * f


def rows(path):
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["backend"] != "cudnn" or r["deterministic_bwd"] != "False":
                continue
            ms = float(r["time_ms"])
            implied = flops(r) / (ms * 1e-3) / 1e12
            if abs(implied / float(r["tflops"]) - 1) > 0.01:
                sys.exit(f"{path}: {r['gpu_name']} {r['attn_mask']} {r['q_seqlen']} {r['profile_pass']}: "
                         f"{ms} ms implies {implied:.0f} TFLOP/s, the row says {r['tflops']}")
            op = "attention_fwd" if r["profile_pass"] == "fwd" else "attention_bwd"
            causal = "true" if r["attn_mask"] == "top_left" else "false"
            yield r["gpu_name"], [op, "bf16", r["batch_size"], r["num_q_heads"], r["num_kv_heads"], r["q_seqlen"],
                                  r["kv_seqlen"], r["head_dim_qk"], causal, "cudnn", r["time_ms"],
                                  f"cudnn-frontend llama3.1 {r['tflops']} TFLOP/s (peak_mma {r['peak_mma_tflops']})"]


def main(folder):
    write_per_gpu(folder, FILES, COLUMNS, rows(os.path.join(folder, "llama3.1_sdpa_bf16.csv")),
                  lambda gpu: f"dlsim kernels input: cudnn-frontend's published {gpu} cuDNN SDPA timings "
                    "(llama3.1_sdpa_bf16.csv beside this file; README.md), written by scripts/cudnn-frontend-to-kernels.py")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data/profiles/published/cudnn_frontend")

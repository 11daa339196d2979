#!/usr/bin/env python3
"""Turn a folder of H200-style kernel measurements (JSON lines: gemm*.jsonl, attn.jsonl, ops.jsonl) into the
operator CSV that `dlsim kernels` reads (io/kernel_ops_csv.h), one row per measured kernel with measured_ms.

  scripts/profiles-to-kernels-csv.py ../shared/data/profiles/h200 > data/profiles/h200/kernels.csv
  scripts/profiles-to-kernels-csv.py data/profiles/h200-heldout > data/profiles/h200-heldout/kernels.csv

GEMMs: every bf16/fp8 row (forward and weight-gradient layouts alike: M, N, K as measured). Attention: the
forward (fwd_ms) and the backward (fwdbwd_ms - fwd_ms) of every backend that ran. Elementwise: the streaming
kernels only (copy, add, residual add, GeLU, casts), with the measurement's own byte count.
"""
import json, os, sys

STREAMING = {"copy", "add", "residual_add", "gelu_fwd", "cast_bf16_to_fp32"}
COLUMNS = ["op", "dtype", "m", "n", "k", "batch", "heads", "kv_heads", "seq_q", "seq_kv", "head_dim", "causal",
           "backend", "bytes", "measured_ms", "source"]


def rows_of(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def gemm_rows(folder, name):
    for r in rows_of(os.path.join(folder, name)):
        if "ms" in r and r.get("dtype") in ("bf16", "fp8"):
            yield {"op": "gemm", "dtype": r["dtype"], "m": r["M"], "n": r["N"], "k": r["K"], "measured_ms": r["ms"],
                   "source": name + (":" + r["kind"] if "kind" in r else "")}


def attn_rows(folder):
    for r in rows_of(os.path.join(folder, "attn.jsonl")):
        if "fwd_ms" not in r:
            continue
        base = {"dtype": "bf16", "batch": r["batch"], "heads": r["heads"], "kv_heads": r["kv_heads"],
                "seq_q": r["seq"], "seq_kv": r["seq"], "head_dim": r["head_dim"],
                "causal": "true" if r["causal"] else "false", "backend": r["backend"], "source": "attn.jsonl"}
        yield dict(base, op="attention_fwd", measured_ms=r["fwd_ms"])
        if r["fwdbwd_ms"] > r["fwd_ms"]:
            yield dict(base, op="attention_bwd", measured_ms=r["fwdbwd_ms"] - r["fwd_ms"])


def op_rows(folder):
    for r in rows_of(os.path.join(folder, "ops.jsonl")):
        if r.get("op") in STREAMING and "ms" in r:
            yield {"op": "elementwise", "dtype": "bf16", "bytes": int(r["bytes"]), "measured_ms": r["ms"],
                   "source": "ops.jsonl:" + r["op"]}


def main():
    folder = sys.argv[1]
    out = sys.stdout
    out.write(f"# dlsim kernels input from {os.path.normpath(folder)} (scripts/profiles-to-kernels-csv.py); "
              "provenance and licence in that folder's README.md\n")
    out.write(",".join(COLUMNS) + "\n")
    gemm_files = sorted(n for n in os.listdir(folder) if n.startswith("gemm") and n.endswith(".jsonl"))
    for group in [r for n in gemm_files for r in gemm_rows(folder, n)], attn_rows(folder), op_rows(folder):
        for r in group:
            out.write(",".join(repr(r[c]) if isinstance(r.get(c), float) else str(r.get(c, "")) for c in COLUMNS) + "\n")


if __name__ == "__main__":
    main()

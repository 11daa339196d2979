#!/usr/bin/env python3
"""How the same GEMM's time drifts through a profiled step (docs/calibration.md "In-stream rates").

    python3 scripts/trace-gemm-drift.py ../shared/data/profiles/h200/traces/llama-3.1-8b_bf16_ckpt_2x4096.kineto.json.gz [--top 8]

Groups the trace's GEMM kernels by the shapes of their aten::mm / addmm / bmm operator and prints, for the shapes
with the most GPU time, the mean kernel time in each quarter of their calls (in time order) and the quarter's
dense rate in TFLOPS. A rate that falls through the step while the shape stays the same is the GPU slowing down
under sustained load, not the kernel. Standard library only.
"""
import collections
import sys

from kineto_ops import kernels_with_ops


def gemm_calls(path):
    out = collections.defaultdict(list)
    for k, ops in kernels_with_ops(path):
        mm = [e for e in ops if e["name"] in ("aten::mm", "aten::addmm", "aten::bmm")]
        if not mm:
            continue
        dims = mm[-1]["args"].get("Input Dims")
        if mm[-1]["name"] == "aten::addmm":
            dims = dims[1:3]
        if not dims or len(dims) < 2 or len(dims[0]) != 2 or len(dims[1]) != 2:
            continue
        (m, k_), (_, n) = dims[0], dims[1]
        out[(m, n, k_)].append((k["ts"], k["dur"]))
    return out


def main():
    path = sys.argv[1]
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 8
    calls = gemm_calls(path)
    print("%-22s %5s  %s" % ("m x n x k", "calls", "mean us (TFLOPS) per quarter of the calls, in time order"))
    for shape, v in sorted(calls.items(), key=lambda kv: -sum(d for _, d in kv[1]))[:top]:
        v.sort()
        q = max(1, len(v) // 4)
        flops = 2.0 * shape[0] * shape[1] * shape[2]
        cells = []
        for i in range(4):
            part = [d for _, d in v[i * q:(i + 1) * q]]
            if part:
                us = sum(part) / len(part)
                cells.append("%8.1f (%4.0f)" % (us, flops / us / 1e6))
        print("%-22s %5d  %s" % ("x".join(map(str, shape)), len(v), "  ".join(cells)))


if __name__ == "__main__":
    main()

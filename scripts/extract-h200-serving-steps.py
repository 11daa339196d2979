#!/usr/bin/env python3
"""Writes data/validation/h200_serving_steps.csv from the project's H200 serving measurement.

Usage: python3 scripts/extract-h200-serving-steps.py ../shared/data/profiles/h200/serve.jsonl \
           > data/validation/h200_serving_steps.csv
Prefill rows keep their (eager) time; decode rows keep the CUDA-graph replay and the eager time.
"""
import json
import sys

HEADER = """\
# Our own measurement: one iteration of a plain PyTorch Llama 3.1 8B decoder (bf16) on one NVIDIA H200 SXM (132 SMs, 700 W, driver 580.159.04; PyTorch 2.11.0, CUDA 13.0), 2026-12-04 (../shared/data/profiles/h200/serve.jsonl; licence: ours, copied with this provenance line).
# prefill: one forward over `batch` prompts of `tokens` tokens (SDPA attention, the last position's logits), eager; decode: one token for `batch` requests over a static KV cache of `tokens` tokens each, replayed as a CUDA graph (gpu_ms: the GPU floor) and launched from Python (eager_ms). Each a median of triton.testing.do_bench (L2 flushed).
# Extracted by: python3 scripts/extract-h200-serving-steps.py ../shared/data/profiles/h200/serve.jsonl
phase,batch,tokens,gpu_ms,eager_ms"""


def main(path):
    print(HEADER)
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if d["phase"] == "prefill":
                print(f"prefill,{d['batch']},{d['prompt']},,{d['ms']:.4f}")
            elif d["phase"] == "decode":
                print(f"decode,{d['batch']},{d['context']},{d['graph_ms']:.4f},{d['eager_ms']:.4f}")
            else:
                sys.exit(f"{path}: unknown phase {d['phase']!r}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])

#!/usr/bin/env python3
"""Writes data/validation/megatron_moe_layer_h100.csv from Megatron-LM's MoE-layer performance baselines.

Usage: python3 scripts/megatron-moe-perf-to-csv.py BASELINE_JSON > data/validation/megatron_moe_layer_h100.csv

BASELINE_JSON is NVIDIA/Megatron-LM tests/functional_tests/test_cases/common/moe_perf/baseline.json (read at
commit 32f2c9cfdd167616597fbe628ce9f9d4d64de601). The cases' shapes are those of test_cases.py in the same
folder at that commit (MIXTRAL_PROXY, DEEPSEEK_PROXY), copied here by hand: the JSON names only the case.
"""
import json
import sys

SOURCE = ("# NVIDIA/Megatron-LM MoE-layer performance baselines (tests/functional_tests/test_cases/common/moe_perf/"
          "baseline.json and test_cases.py @ 32f2c9cfdd167616597fbe628ce9f9d4d64de601): one Megatron-Core MoELayer "
          "(TE grouped GEMM, permute and router fusion, forced load balancing) on 8 H100 GPUs, EP 8, TP 1, 4096 "
          "tokens x micro-batch 1, forward and backward mean of 20 timed iterations (CUDA events)")
NOTES = [
    "# Licence: Megatron-LM is BSD-3-Clause (NVIDIA); numbers transcribed by scripts/megatron-moe-perf-to-csv.py.",
    "# Shapes (test_cases.py): mixtral proxy hidden 4096, moe_ffn 14336, 8 experts, top-2, softmax router with aux "
    "loss; deepseek proxy hidden 7168, moe_ffn 2048, 32 experts, top-8, sigmoid router in 8 groups (top-4 groups), "
    "expert bias, one shared expert of 2048. Both: 8 attention heads (unused: the MoELayer has no attention), no "
    "biases, no gated linear unit (TransformerConfig default: GeLU MLP), bf16 parameters.",
    "# fp8: Transformer Engine's blockwise e4m3 recipe (fp8 hybrid). dispatcher: alltoall = Megatron-Core's "
    "MoEAlltoAllTokenDispatcher; deepep / hybridep = the flex dispatcher's backends. The GPU is the one whose "
    "name contains H100 (gpu_platform); the SXM part and the node are not stated.",
]
SHAPES = {
    "mixtral": dict(hidden=4096, expert_ffn_hidden=14336, experts=8, top_k=2, shared_expert_ffn=0),
    "deepseek": dict(hidden=7168, expert_ffn_hidden=2048, experts=32, top_k=8, shared_expert_ffn=2048),
}
COLUMNS = ["case", "model", "dispatcher", "precision", "hidden", "expert_ffn_hidden", "experts", "top_k",
           "shared_expert_ffn", "seq_len", "micro_batch", "ep", "forward_ms", "backward_ms", "max_allocated_bytes"]


def main(path):
    data = json.load(open(path))
    print(SOURCE)
    for n in NOTES:
        print(n)
    print(",".join(COLUMNS))
    for case in sorted(data):
        model, dispatcher, layout, precision = case.split("_")
        assert layout == "tp1ep8", case
        row = dict(case=case, model=model + "-proxy", dispatcher={"a2a": "alltoall"}.get(dispatcher, dispatcher),
                   precision=precision, seq_len=4096, micro_batch=1, ep=8, **SHAPES[model])
        r = data[case]
        row.update(forward_ms=f"{r['forward_ms']:.4f}", backward_ms=f"{r['backward_ms']:.4f}",
                   max_allocated_bytes=int(r["max_allocated_bytes"]))
        print(",".join(str(row[c]) for c in COLUMNS))


if __name__ == "__main__":
    main(sys.argv[1])

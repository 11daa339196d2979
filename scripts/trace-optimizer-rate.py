#!/usr/bin/env python3
"""The fused AdamW step's and autocast's weight casts' HBM rate in profiled eager PyTorch steps.

    python3 scripts/trace-optimizer-rate.py ../shared/data/profiles/h200/traces [--hbm-gbps 4800]

For each trace of the folder's traces.jsonl (Hugging Face config.json keys, the mode `amp` or `bf16`):
- optimizer: the GPU time of its multi_tensor_apply kernels (torch.optim.AdamW(fused=True); no gradient
  clipping in the measuring script) against dlsim's bytes per parameter of the recipe's step
  (src/train/step_model.cc: autocast 32 B, bf16 16 B), as a fraction of HBM bandwidth: the
  `optimizer_efficiency` that makes dlsim's optimizer row take the traced time;
- weight casts (autocast only): the GPU time of the kernels under aten::_to_copy inside aten::linear whose
  input is a parameter (1- or 2-D: each weight and bias, cast to bf16 once per forward; the 3-D inputs are
  activations, which dlsim prices as the eager graph's casts) against 6 B per element cast (read fp32, write
  bf16), the forward half of dlsim's 12 B per cast parameter per micro-batch: `copy_efficiency`. Until
  2026-12-06 the activation casts were counted too, against 6 B per parameter of the whole model (the input
  embedding included, which is only looked up): 0.831 / 0.566, 0.671 time-weighted.
Prints one line per trace and the time-weighted rate per mode. Standard library only.
"""
import collections
import json
import math
import os
import sys

from kineto_ops import kernels_with_ops


def params(c):
    """Parameters of the traced decoder (scripts/measure-h200-heldout.py Decoder) from its config."""
    gpt = c["model_type"] == "gpt2"
    h = c.get("hidden_size", c.get("n_embd"))
    L = c.get("num_hidden_layers", c.get("n_layer"))
    nh = c.get("num_attention_heads", c.get("n_head"))
    kv = c.get("num_key_value_heads", nh)
    hd = c.get("head_dim", h // nh)
    ffn = c.get("intermediate_size") or 4 * h
    v = c["vocab_size"]
    qkv = h * (nh + 2 * kv) * hd + (gpt and (nh + 2 * kv) * hd or (c.get("attention_bias") and (nh + 2 * kv) * hd or 0))
    o = nh * hd * h + (h if gpt else 0)
    up = h * (ffn if gpt else 2 * ffn) + (ffn if gpt else 0)
    down = ffn * h + (h if gpt else 0)
    norms = 2 * h * (2 if gpt else 1)
    layer = qkv + o + up + down + norms
    ends = v * h + (c["n_positions"] * h if gpt else 0) + h * (2 if gpt else 1)
    head = 0 if c.get("tie_word_embeddings") else v * h
    return L * layer + ends + head


def kernel_times(path):
    """Optimizer seconds, weight-cast seconds and the elements those casts read."""
    opt = cast = 0.0
    cast_elements = 0
    for k, ops in kernels_with_ops(path):
        if "multi_tensor_apply" in k["name"]:
            opt += k["dur"]
            continue
        names = {e["name"] for e in ops}
        if "aten::linear" not in names or "aten::_to_copy" not in names:
            continue
        to_copy = [e for e in ops if e["name"] == "aten::_to_copy"][-1]
        dims = (to_copy.get("args", {}).get("Input Dims") or [[]])[0]
        if len(dims) <= 2:  # a parameter; [batch, seq, hidden] inputs are activations
            cast += k["dur"]
            cast_elements += math.prod(dims)
    return opt * 1e-6, cast * 1e-6, cast_elements


def main():
    folder = sys.argv[1]
    hbm = float(sys.argv[sys.argv.index("--hbm-gbps") + 1]) * 1e9 if "--hbm-gbps" in sys.argv else 4800e9
    adam = {"amp": 32.0, "bf16": 16.0}
    sums = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for line in open(os.path.join(folder, "traces.jsonl")):
        t = json.loads(line)
        p = params(t["config"])
        opt_s, cast_s, cast_n = kernel_times(os.path.join(folder, t["name"] + ".kineto.json.gz"))
        ob = p * adam[t["mode"]]
        s = sums[t["mode"]]
        s[0] += ob
        s[1] += opt_s
        line = "%-34s params %.4g  optimizer %.2f ms -> %.3f of HBM" % (t["name"], p, opt_s * 1e3, ob / opt_s / hbm)
        if t["mode"] == "amp":
            s[2] += cast_n * 6
            s[3] += cast_s
            line += "  weight casts %.2f ms of %.4g elements -> %.3f" % (cast_s * 1e3, cast_n, cast_n * 6 / cast_s / hbm)
        print(line)
    for mode, s in sorted(sums.items()):
        out = "%s: optimizer_efficiency %.3f" % (mode, s[0] / s[1] / hbm)
        if s[3] > 0:
            out += ", copy_efficiency %.3f" % (s[2] / s[3] / hbm)
        print(out)


if __name__ == "__main__":
    main()

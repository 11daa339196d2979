#!/usr/bin/env python3
"""trace-layer-bytes: the memory-bound bytes one decoder layer moves per token in a profiled step.

Reads a torch.profiler Kineto trace (JSON, gzipped or not), joins kernels to their innermost CPU operator by
External id, and for one layer (between two consecutive attention forward calls, and between two consecutive
attention backward calls) prints each memory-bound operator's calls, GPU time and bytes moved per token, then the
totals. GEMMs and attention are left out. Bytes of a call: its tensor inputs read plus its output written (as
many elements as its largest input, in the widest input type: PyTorch's type promotion); copy_ reads its source
and writes its destination; cat reads its inputs and writes them once more (--cat-bytes per element). The weight
casts of autocast (2-D copies whose first dimension is not the token count) are printed apart: they are per step,
not per token.

    scripts/trace-layer-bytes.py STEP.json.gz TOKENS [--layer N] [--cat-bytes B]

TOKENS is micro-batch x sequence length. docs/training-model.md ("Eager kernels") compares its output for the
three shared H200 traces with dlsim's eager operator graph (model/layer_graph.h, EagerLayerOps).
"""
import argparse
import collections
import gzip
import json
import math

DTYPE_BYTES = {"BFloat16": 2, "Half": 2, "float": 4, "double": 8, "long int": 8, "int": 4, "bool": 1}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["traceEvents"]


def innermost_ops(events):
    """The operators that launched GPU work, in host order, each with its kernels' GPU time."""
    ops = {}
    for e in events:
        ext = e.get("args", {}).get("External id")
        if e.get("ph") == "X" and e.get("cat") == "cpu_op" and ext is not None:
            if ext not in ops or e["ts"] >= ops[ext]["ts"]:
                ops[ext] = e
    gpu = collections.defaultdict(float)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy"):
            gpu[e.get("args", {}).get("External id")] += e["dur"]
    seq = [dict(o, gpu=gpu[x]) for x, o in ops.items() if gpu[x] > 0]
    return sorted(seq, key=lambda o: o["ts"])


def call_bytes(op, cat_bytes):
    args = op["args"]
    dims, types = args.get("Input Dims", []), [t.replace("c10::", "") for t in args.get("Input type", [])]
    if op["name"] == "aten::cat":
        return 2 * sum(math.prod(d) for d in dims[0]) * cat_bytes
    tensors = [(math.prod(d), DTYPE_BYTES.get(t, 0)) for d, t in zip(dims, types)
               if isinstance(d, list) and d and not isinstance(d[0], list) and t in DTYPE_BYTES]
    if not tensors:
        return 0
    if op["name"] == "aten::copy_":
        return sum(n * b for n, b in tensors[:2])
    read = sum(n * b for n, b in tensors)
    return read + max(n for n, _ in tensors) * max(b for _, b in tensors)


def summarize(ops, label, tokens, cat_bytes):
    by = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for o in ops:
        name = o["name"]
        if name in ("aten::mm", "aten::addmm", "aten::bmm") or "attention" in name:
            continue
        dims = o["args"].get("Input Dims", [[]])[0]
        if name == "aten::copy_" and len(dims) == 2 and dims[0] != tokens:
            name = "copy_ (weight cast, per step)"
        by[name][0] += 1
        by[name][1] += o["gpu"]
        by[name][2] += call_bytes(o, cat_bytes)
    per_token = {k: v[2] / tokens for k, v in by.items()}
    weights = sum(v for k, v in per_token.items() if "weight cast" in k)
    print("%s: %.1f us, %.0f B/token (%.0f without the weight casts)" % (
        label, sum(v[1] for v in by.values()), sum(per_token.values()), sum(per_token.values()) - weights))
    for k, v in sorted(by.items(), key=lambda kv: -kv[1][1]):
        print("   %-32s %3d calls %9.1f us %10.0f B/token" % (k, v[0], v[1], v[2] / tokens))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trace")
    p.add_argument("tokens", type=int, help="tokens of the step: micro-batch x sequence length")
    p.add_argument("--layer", type=int, default=4, help="which layer (0-based among the forward calls)")
    p.add_argument("--cat-bytes", type=int, default=2, help="bytes per element of concatenated tensors")
    a = p.parse_args()
    ops = innermost_ops(load(a.trace))
    fwd = [i for i, o in enumerate(ops) if o["name"].endswith("attention_forward")]
    bwd = [i for i, o in enumerate(ops) if o["name"].endswith("attention_backward")]
    summarize(ops[fwd[a.layer]:fwd[a.layer + 1]], "forward of one layer", a.tokens, a.cat_bytes)
    summarize(ops[bwd[a.layer]:bwd[a.layer + 1]], "backward of one layer", a.tokens, a.cat_bytes)


if __name__ == "__main__":
    main()

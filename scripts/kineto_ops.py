"""Shared by the trace-*.py scripts: a torch.profiler (Kineto) trace's GPU kernels with the CPU operators that
were running when each was launched (innermost last). Standard library only."""
import bisect
import collections
import gzip
import json


def kernels_with_ops(path, window=400):
    """Yields (kernel event, [CPU operator events enclosing its launch, outermost first]) for every kernel."""
    ev = json.load(gzip.open(path) if path.endswith(".gz") else open(path))["traceEvents"]
    cpu = collections.defaultdict(list)
    for e in ev:
        if e.get("cat") == "cpu_op":
            cpu[e["tid"]].append(e)
    for t in cpu:
        cpu[t].sort(key=lambda e: e["ts"])
    starts = {t: [e["ts"] for e in L] for t, L in cpu.items()}
    launch = {e["args"]["correlation"]: e for e in ev
              if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    for k in ev:
        if k.get("cat") != "kernel":
            continue
        r = launch.get(k["args"].get("correlation"))
        if r is None or r["tid"] not in cpu:
            yield k, []
            continue
        i = bisect.bisect_right(starts[r["tid"]], r["ts"])
        yield k, [e for e in cpu[r["tid"]][max(0, i - window):i]
                  if e["ts"] <= r["ts"] and e["ts"] + e["dur"] >= r["ts"] + r["dur"]]

#!/usr/bin/env python3
"""Measure the host time (Python, dispatcher, kernel launches) that plain PyTorch eager training spends per decoder
layer on one GPU (data/profiles/h200-host/), so a "pytorch-eager" stack's per-layer host constant is measured.

Run on a GPU machine with PyTorch:  OUT=dir python3 scripts/measure-h200-host.py
Smoke test without a GPU:           python3 scripts/measure-h200-host.py --dry-run   (CPU, 1-2 layers, temp dir)
The model is scripts/measure-h200-heldout.py's plain PyTorch decoder (copied below, --dry-run checks the copy is
unchanged) at TINY shapes (hidden 256, 4 heads, ffn 688, vocab 1024, seq 128, micro-batch 1), so GPU work is
negligible and a step's wall time is its host time. Writes, as JSON lines flushed as it goes:
  host.jsonl    whole training steps (forward, backward, fused AdamW step, zero_grad) for 1-32 layers, autocast over
                fp32 weights ("amp") and pure bf16, with and without per-layer recomputation (torch.utils.checkpoint,
                use_reentrant=False); and forward-only steps (torch.no_grad). Per config: median wall time of the
                timed steps (torch.cuda.synchronize before and after each), the host time until each phase's call
                returned, process CPU time, and (first pass) from one extra profiled step the GPU-busy time and
                kernel count
  launch.jsonl  per-op cost of N back-to-back 1-element torch.add calls: eager on the GPU, eager on the CPU (the
                dispatcher without a launch), and replayed from a captured CUDA graph
  fit.json      least-squares slope (seconds per layer per step) and intercept of step time vs layers, per
                mode / recomputation, of each phase, of forward-only steps; the per-op launch costs
  env.json, log.txt
Time budget: BUDGET_S (default 240 s); configurations left when it is spent are skipped, and the log and
fit.json say which. Other knobs: WARMUP (10), STEPS (30), REPEATS (2, the second pass in reverse layer order).
"""
import ast, gc, json, os, platform, statistics, sys, tempfile, time, traceback

import torch
import torch.nn.functional as F
import torch.utils.checkpoint

DRY = "--dry-run" in sys.argv[1:]
OUT = os.environ.get("OUT") or (tempfile.mkdtemp(prefix="h200-host-") if DRY else "data/profiles/h200-host")
T0 = time.time()
BUDGET_S = float(os.environ.get("BUDGET_S", "240"))
DEADLINE = T0 + BUDGET_S
WARMUP = int(os.environ.get("WARMUP", "1" if DRY else "10"))
STEPS = int(os.environ.get("STEPS", "2" if DRY else "30"))
REPEATS = int(os.environ.get("REPEATS", "1" if DRY else "2"))
dev = "cpu" if DRY else "cuda"
LAYERS = [1, 2] if DRY else [1, 2, 4, 8, 16, 32]
FWD_LAYERS = [1, 2] if DRY else [1, 4, 16, 32]
MODES = [("amp", False), ("amp", True), ("bf16", False), ("bf16", True)]
FWD_MODES = ["bf16", "amp"]
N_LAUNCH = 200 if DRY else 2000
MB, SEQ = 1, 128
PHASES = ["fwd", "bwd", "opt", "zero"]


class Tee:  # stdout and stderr (tracebacks, warnings) also go to log.txt
    def __init__(self, stream, log):
        self.stream, self.log = stream, log

    def write(self, s):
        self.stream.write(s)
        self.log.write(s)

    def flush(self):
        self.stream.flush()
        self.log.flush()


def out(name):
    return open(os.path.join(OUT, name), "w", buffering=1)


def emit(f, row):
    row["t"] = round(time.time() - T0, 2)
    f.write(json.dumps(row) + "\n")


def sync():
    if dev == "cuda":
        torch.cuda.synchronize()


# ---- copied unchanged from scripts/measure-h200-heldout.py (the --dry-run compares the two) ----
def llama(h, L, nh, kv, ffn, vocab, tied=False, bias=False, head_dim=None, mtype="llama"):
    return {"model_type": mtype, "hidden_size": h, "num_hidden_layers": L, "num_attention_heads": nh,
            "num_key_value_heads": kv, "intermediate_size": ffn, "vocab_size": vocab, "tie_word_embeddings": tied,
            "attention_bias": bias, "hidden_act": "silu", "rms_norm_eps": 1e-5, "head_dim": head_dim or h // nh}


class Block(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gpt = c["model_type"] == "gpt2"
        h = c.get("hidden_size", c.get("n_embd"))
        self.nh = c.get("num_attention_heads", c.get("n_head"))
        self.kv = c.get("num_key_value_heads", self.nh)
        self.hd = c.get("head_dim", h // self.nh)
        ffn = c.get("intermediate_size", 4 * h)
        bias = self.gpt or c.get("attention_bias", False)
        self.qkv = torch.nn.Linear(h, (self.nh + 2 * self.kv) * self.hd, bias=bias)
        self.o = torch.nn.Linear(self.nh * self.hd, h, bias=self.gpt)
        self.up = torch.nn.Linear(h, ffn if self.gpt else 2 * ffn, bias=self.gpt)
        self.down = torch.nn.Linear(ffn, h, bias=self.gpt)
        self.n1 = torch.nn.LayerNorm(h) if self.gpt else torch.nn.RMSNorm(h, eps=1e-5)
        self.n2 = torch.nn.LayerNorm(h) if self.gpt else torch.nn.RMSNorm(h, eps=1e-5)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.n1(x)).split([self.nh * self.hd, self.kv * self.hd, self.kv * self.hd], -1)
        q, k, v = (t.view(b, s, -1, self.hd).transpose(1, 2) for t in (q, k, v))
        if not self.gpt:
            q, k = rope(q, cos, sin), rope(k, cos, sin)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=self.kv != self.nh)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, -1))
        u = self.up(self.n2(x))
        if self.gpt:
            u = F.gelu(u, approximate="tanh")
        else:
            g, u = u.chunk(2, -1)
            u = F.silu(g) * u
        return x + self.down(u)


def rope(x, cos, sin):
    x1, x2 = x.chunk(2, -1)
    return x * cos + torch.cat([-x2, x1], -1) * sin


class Decoder(torch.nn.Module):
    def __init__(self, c, ckpt):
        super().__init__()
        self.c, self.ckpt = c, ckpt
        h = c.get("hidden_size", c.get("n_embd"))
        L = c.get("num_hidden_layers", c.get("n_layer"))
        self.emb = torch.nn.Embedding(c["vocab_size"], h)
        self.pos = torch.nn.Embedding(c["n_positions"], h) if c["model_type"] == "gpt2" else None
        self.blocks = torch.nn.ModuleList(Block(c) for _ in range(L))
        self.norm = torch.nn.LayerNorm(h) if self.pos is not None else torch.nn.RMSNorm(h, eps=1e-5)
        self.head = torch.nn.Linear(h, c["vocab_size"], bias=False)
        if c.get("tie_word_embeddings"):
            self.head.weight = self.emb.weight

    def forward(self, ids, targets):
        s = ids.shape[1]
        x = self.emb(ids)
        if self.pos is not None:
            x = x + self.pos(torch.arange(s, device=ids.device))
        hd = self.blocks[0].hd
        inv = 1.0 / (500000.0 ** (torch.arange(0, hd, 2, device=ids.device).float() / hd))
        f = torch.outer(torch.arange(s, device=ids.device).float(), inv)
        cos, sin = torch.cat([f.cos(), f.cos()], -1).to(x.dtype), torch.cat([f.sin(), f.sin()], -1).to(x.dtype)
        for blk in self.blocks:
            if self.ckpt:
                x = torch.utils.checkpoint.checkpoint(blk, x, cos, sin, use_reentrant=False)
            else:
                x = blk(x, cos, sin)
        logits = self.head(self.norm(x))
        return F.cross_entropy(logits.float().view(-1, logits.shape[-1]), targets.view(-1))
# ---- end of the copy ----


def tiny(L):  # Llama-style, head_dim 64, no GQA, untied head
    return llama(256, L, 4, 4, 688, 1024)


def check_copy():
    """The model above must be the one scripts/measure-h200-heldout.py measured: compare the ASTs."""
    here = os.path.abspath(__file__)
    other = os.path.join(os.path.dirname(here), "measure-h200-heldout.py")
    if not os.path.exists(other):
        print("check_copy: no", other, flush=True)
        return

    def defs(path):
        tree = ast.parse(open(path).read())
        return {n.name: ast.dump(n) for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}

    a, b = defs(here), defs(other)
    for name in ("llama", "Block", "rope", "Decoder"):
        assert a[name] == b[name], f"{name} differs from measure-h200-heldout.py"
    print("check_copy: llama, Block, rope, Decoder identical to measure-h200-heldout.py", flush=True)


def median(xs):
    return statistics.median(xs) if xs else None


def timed(step, n_warm, n_steps):
    """Run step(marks) n_warm + n_steps times, synchronizing before and after each; step appends perf_counter()
    after each phase's call returns. Returns per-step (phase host times, issue time, wall time, CPU time) in ms."""
    recs = []
    for i in range(n_warm + n_steps):
        sync()
        c0 = time.process_time()
        t0 = time.perf_counter()
        marks = [t0]
        step(marks)
        t_issue = time.perf_counter()
        sync()
        t1 = time.perf_counter()
        c1 = time.process_time()
        if i >= n_warm:
            recs.append({"phases": [(b - a) * 1e3 for a, b in zip(marks, marks[1:])],
                         "issue": (t_issue - t0) * 1e3, "wall": (t1 - t0) * 1e3, "cpu": (c1 - c0) * 1e3})
        if time.time() > DEADLINE and i >= n_warm + 4:  # out of budget: keep the 5+ steps timed so far
            break
    return recs


def gpu_busy(step):
    """One profiled step: the union of GPU activity intervals (kernels, memcpy, memset) and their count."""
    if dev != "cuda":
        return {}
    from torch.profiler import ProfilerActivity, profile
    sync()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        step([time.perf_counter()])
        sync()
    iv, kernels, copies = [], 0, 0
    for e in prof.events():
        if getattr(e, "device_type", None) != torch.autograd.DeviceType.CUDA:
            continue
        iv.append((e.time_range.start, e.time_range.end))
        if e.name.lower().startswith(("memcpy", "memset")):
            copies += 1
        else:
            kernels += 1
    if not iv:
        return {"gpu_busy_ms": None}
    iv.sort()
    busy, (s, t) = 0.0, iv[0]
    for a, b in iv[1:]:
        if a > t:
            busy, s, t = busy + (t - s), a, b
        else:
            t = max(t, b)
    busy += t - s
    return {"gpu_busy_ms": busy / 1e3, "gpu_span_ms": (t - iv[0][0]) / 1e3, "kernels": kernels, "memcpy_memset": copies}


def summarize(recs):
    r = {"steps_timed": len(recs)}
    wall = [x["wall"] for x in recs]
    r["step_ms"] = median(wall)
    r["step_ms_min"] = min(wall)
    if len(wall) >= 4:
        q = statistics.quantiles(wall, n=4)
        r["step_ms_q1"], r["step_ms_q3"] = q[0], q[2]
    r["issue_ms"] = median([x["issue"] for x in recs])
    r["cpu_ms"] = median([x["cpu"] for x in recs])
    n = len(recs[0]["phases"])
    names = PHASES if n == len(PHASES) else ["fwd"]
    r["phase_ms"] = {names[k]: median([x["phases"][k] for x in recs]) for k in range(n)}
    return r


def run_config(f, kind, L, mode, ckpt, rep, rows):
    c = tiny(L)
    row = {"kind": kind, "layers": L, "mode": mode, "ckpt": ckpt, "rep": rep, "micro_batch": MB, "seq": SEQ,
           "config": c}
    net = opt = None
    try:
        torch.manual_seed(0)
        net = Decoder(c, ckpt).to(dev)  # built on the CPU then moved: construction is not timed
        if mode == "bf16":
            net = net.to(torch.bfloat16)
        row["params"] = sum(p.numel() for p in net.parameters())
        ids = torch.randint(0, c["vocab_size"], (MB, SEQ), device=dev)
        tgt = torch.randint(0, c["vocab_size"], (MB, SEQ), device=dev)
        if kind == "train":
            opt = torch.optim.AdamW(net.parameters(), lr=1e-4, fused=dev == "cuda")

            def step(marks):
                with torch.autocast(dev, dtype=torch.bfloat16, enabled=mode == "amp"):  # as the other script
                    loss = net(ids, tgt)
                marks.append(time.perf_counter())
                loss.backward()
                marks.append(time.perf_counter())
                opt.step()
                marks.append(time.perf_counter())
                opt.zero_grad(set_to_none=True)
                marks.append(time.perf_counter())
        else:
            def step(marks):
                with torch.no_grad(), torch.autocast(dev, dtype=torch.bfloat16, enabled=mode == "amp"):
                    net(ids, tgt)
                marks.append(time.perf_counter())
        gc.collect()
        row.update(summarize(timed(step, WARMUP, STEPS)))
        row["cut_by_budget"] = row["steps_timed"] < STEPS
        try:  # one profiled step, first pass only: kernel counts and GPU work do not change between passes
            if rep <= 0:
                row.update(gpu_busy(step))
        except Exception as e:  # the profiler is optional
            row["gpu_busy_error"] = str(e).splitlines()[0][:160] if str(e) else type(e).__name__
        if row.get("gpu_busy_ms") is not None:
            row["gpu_busy_frac"] = row["gpu_busy_ms"] / row["step_ms"]
        rows.append(row)
    except Exception as e:
        traceback.print_exc()
        row["error"] = (str(e).splitlines() or [type(e).__name__])[0][:200]
    emit(f, row)
    net = opt = None
    gc.collect()
    if dev == "cuda":
        torch.cuda.empty_cache()
    print(kind, mode, "ckpt" if ckpt else "-", L, "rep", rep, row.get("step_ms"), "ms", round(time.time() - T0, 1),
          flush=True)


def launch(f):
    """Per-op cost of N back-to-back 1-element adds; issue = host time until the last call returned."""
    res = {}

    def eager(name, fn, where):
        for _ in range(200):
            fn()
        sync()
        issue, total = [], []
        for _ in range(7):
            sync()
            t0 = time.perf_counter()
            for _ in range(N_LAUNCH):
                fn()
            t1 = time.perf_counter()
            sync()
            t2 = time.perf_counter()
            issue.append(t1 - t0)
            total.append(t2 - t0)
        row = {"op": name, "mode": "eager", "device": where, "n": N_LAUNCH, "reps": 7,
               "us_per_op": median(total) / N_LAUNCH * 1e6, "issue_us_per_op": median(issue) / N_LAUNCH * 1e6,
               "us_per_op_min": min(total) / N_LAUNCH * 1e6}
        emit(f, row)
        res[f"{where}_{name}"] = row["us_per_op"]
        print("launch", row, flush=True)

    x = torch.zeros(1, device=dev)
    y = torch.empty_like(x)
    eager("add_out", lambda: torch.add(x, x, out=y), dev)      # torch.add(x, x, out=y): no allocation
    eager("add", lambda: torch.add(x, x), dev)                  # a new 1-element output from the caching allocator
    if dev == "cuda":
        xc, yc = torch.zeros(1), torch.empty(1)
        eager("add_out", lambda: torch.add(xc, xc, out=yc), "cpu")  # the dispatcher's share, no kernel launch
        for n in (N_LAUNCH, 1):
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    torch.add(x, x, out=y)
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for _ in range(n):
                    torch.add(x, x, out=y)
            reps = max(1, N_LAUNCH // n)  # 1 replay of N ops, or N replays of a 1-op graph
            for _ in range(3):
                g.replay()
            sync()
            issue, total = [], []
            for _ in range(7):
                sync()
                t0 = time.perf_counter()
                for _ in range(reps):
                    g.replay()
                t1 = time.perf_counter()
                sync()
                t2 = time.perf_counter()
                issue.append(t1 - t0)
                total.append(t2 - t0)
            row = {"op": "add_out", "mode": "graph", "device": dev, "ops_per_graph": n, "replays": reps,
                   "n": n * reps, "us_per_op": median(total) / (n * reps) * 1e6,
                   "issue_us_per_replay": median(issue) / reps * 1e6, "us_per_op_min": min(total) / (n * reps) * 1e6}
            emit(f, row)
            res["graph_add_out" if n > 1 else "graph_replay_1op"] = row["us_per_op"]
            print("launch", row, flush=True)
            del g
    return res


def lsq(pts):
    """Least squares y = a + b x over (x, y) points; b and a in the units of y."""
    pts = [(x, y) for x, y in pts if y is not None]
    if len({x for x, _ in pts}) < 2:
        return None
    n = len(pts)
    mx, my = sum(x for x, _ in pts) / n, sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    b = sum((x - mx) * (y - my) for x, y in pts) / sxx
    a = my - b * mx
    ss = sum((y - my) ** 2 for _, y in pts)
    res = sum((y - a - b * x) ** 2 for x, y in pts)
    return {"slope": b, "intercept": a, "r2": 1 - res / ss if ss > 0 else 1.0, "points": n,
            "layers": sorted({x for x, _ in pts})}


def fit(rows, launch_res, skipped):
    def s(ms_fit):  # milliseconds -> seconds
        if ms_fit is None:
            return None
        return {"slope_s_per_layer": ms_fit["slope"] / 1e3, "intercept_s": ms_fit["intercept"] / 1e3,
                "r2": ms_fit["r2"], "points": ms_fit["points"], "layers": ms_fit["layers"]}

    res = {"what": "least squares of median step wall time (host-bound: tiny shapes) vs decoder layers; slope in "
                   "seconds per layer per step, intercept in seconds per step",
           "shape": {"hidden": 256, "heads": 4, "ffn": 688, "vocab": 1024, "seq": SEQ, "micro_batch": MB},
           "train": {}, "forward_only": {}}
    for mode, ckpt in MODES:
        sel = [r for r in rows if r["kind"] == "train" and r["mode"] == mode and r["ckpt"] == ckpt]
        e = s(lsq([(r["layers"], r["step_ms"]) for r in sel]))
        if e is None:
            continue
        e["issue"] = s(lsq([(r["layers"], r["issue_ms"]) for r in sel]))
        e["cpu"] = s(lsq([(r["layers"], r["cpu_ms"]) for r in sel]))
        e["phases"] = {p: s(lsq([(r["layers"], r["phase_ms"].get(p)) for r in sel])) for p in PHASES}
        e["gpu_busy"] = s(lsq([(r["layers"], r.get("gpu_busy_ms")) for r in sel]))
        k = lsq([(r["layers"], r.get("kernels")) for r in sel])
        if k:
            e["kernels_per_layer"], e["kernels_intercept"] = k["slope"], k["intercept"]
            e["host_us_per_kernel"] = e["slope_s_per_layer"] * 1e6 / k["slope"] if k["slope"] else None
        res["train"][mode + ("+ckpt" if ckpt else "")] = e
    for mode in FWD_MODES:
        sel = [r for r in rows if r["kind"] == "forward" and r["mode"] == mode]
        e = s(lsq([(r["layers"], r["step_ms"]) for r in sel]))
        if e is None:
            continue
        e["gpu_busy"] = s(lsq([(r["layers"], r.get("gpu_busy_ms")) for r in sel]))
        k = lsq([(r["layers"], r.get("kernels")) for r in sel])
        if k:
            e["kernels_per_layer"], e["kernels_intercept"] = k["slope"], k["intercept"]
        res["forward_only"][mode] = e
    res["launch_us_per_op"] = launch_res
    res["skipped"] = skipped
    res["budget_s"], res["elapsed_s"] = BUDGET_S, round(time.time() - T0, 1)
    return res


def env():
    cpu = None
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    e = {"torch": torch.__version__, "cuda": torch.version.cuda, "python": sys.version.split()[0],
         "cpu": cpu or platform.processor(), "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(),
         "platform": platform.platform(), "dry_run": DRY}
    if dev == "cuda":
        e.update({"gpu": torch.cuda.get_device_name(), "cudnn": torch.backends.cudnn.version()})
    return e


def main():
    os.makedirs(OUT, exist_ok=True)
    log = open(os.path.join(OUT, "log.txt"), "w", buffering=1)
    sys.stdout, sys.stderr = Tee(sys.__stdout__, log), Tee(sys.__stderr__, log)
    print("OUT", OUT, "budget", BUDGET_S, "s, warmup", WARMUP, "steps", STEPS, "repeats", REPEATS, flush=True)
    if DRY:
        check_copy()
    e = env()
    print(json.dumps(e), flush=True)
    with out("env.json") as f:
        f.write(json.dumps(e) + "\n")
    launch_res = {}
    try:
        with out("launch.jsonl") as f:
            launch_res = launch(f)
    except Exception:  # a broken launch test must not lose the steps
        traceback.print_exc()
    print("launch done", round(time.time() - T0, 1), flush=True)
    # one-time costs (cuBLAS handles, SDPA and fused AdamW first calls) before anything is timed
    with open(os.devnull, "w") as f:
        for mode in ("amp", "bf16"):
            run_config(f, "train", 1, mode, True, -1, [])
    plan = []
    for rep in range(REPEATS):
        for L in (LAYERS if rep % 2 == 0 else LAYERS[::-1]):
            plan += [("train", L, mode, ckpt, rep) for mode, ckpt in MODES]
        for L in (FWD_LAYERS if rep % 2 == 0 else FWD_LAYERS[::-1]):
            plan += [("forward", L, mode, False, rep) for mode in FWD_MODES]
    rows, skipped = [], []
    with out("host.jsonl") as f:
        for i, cfg in enumerate(plan):
            if time.time() > DEADLINE:
                skipped = [list(c) for c in plan[i:]]
                print(f"BUDGET_S={BUDGET_S:g} spent: skipping the {len(skipped)} configurations left:", skipped,
                      flush=True)
                break
            run_config(f, *cfg, rows)
    res = fit(rows, launch_res, skipped)
    with out("fit.json") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    for k, v in list(res["train"].items()) + [("fwd-only " + k, v) for k, v in res["forward_only"].items()]:
        print(f"{k:14s} {v['slope_s_per_layer'] * 1e6:8.1f} us/layer  intercept {v['intercept_s'] * 1e3:7.2f} ms  "
              f"r2 {v['r2']:.4f}", flush=True)
    print("launch us/op", json.dumps(launch_res), flush=True)
    print("done", round(time.time() - T0, 1), "s;", len(rows), "configs,", len(skipped), "skipped", flush=True)


if __name__ == "__main__":
    main()

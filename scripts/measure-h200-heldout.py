#!/usr/bin/env python3
"""Measure a validation set on one GPU that no dlsim constant is fitted on (data/profiles/h200-heldout/).

Run on a GPU machine with PyTorch and Triton:  OUT=dir python3 scripts/measure-h200-heldout.py
A fit set (other random shapes, other training configurations; what constants may be fitted on) is the same
script with SET=fit SEED=7: data/profiles/h200-fit.
Writes, as JSON lines (one row per measurement, flushed as it goes, so a run cut short keeps what it measured):
  gemm.jsonl    random bf16 and fp8 GEMM shapes (seed 20261204, not the shapes of shared/data/profiles/h200)
  attn.jsonl    SDPA forward and forward+backward at random shapes, by backend (default, flash, cudnn, efficient)
  ops.jsonl     copy and add bandwidth from 64 KiB to 1 GiB
  train.jsonl   whole training steps of a plain PyTorch decoder (SDPA, fused AdamW, loss on fp32 logits),
                autocast over fp32 weights and pure bf16, with and without per-layer recomputation:
                median step time and peak allocated / reserved memory, or the out-of-memory error
Timing of kernels: median of triton.testing.do_bench (L2 flushed before each call), in milliseconds.
"""
import json, math, os, random, statistics, sys, time, traceback

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench

OUT = os.environ.get("OUT", ".")
FIT = os.environ.get("SET", "heldout") == "fit"
T0 = time.time()
DEADLINE = T0 + float(os.environ.get("BUDGET_S", "420"))
dev = "cuda"


def out(name):
    return open(os.path.join(OUT, name), "a", buffering=1)


def emit(f, row):
    row["t"] = round(time.time() - T0, 2)
    f.write(json.dumps(row) + "\n")


def bench(fn, grad=None):
    return do_bench(fn, warmup=15, rep=50, grad_to_none=grad, return_mode="median")


def loguni(rng, lo, hi):
    return int(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def gemms(rng):
    f = out("gemm.jsonl")
    for i in range(220):
        if time.time() > T0 + 80:
            break
        m, n, k = (loguni(rng, 16, 23170) for _ in range(3))
        if i % 3 != 0:  # two in three rounded to multiples of 16, as model shapes are
            m, n, k = (max(16, v // 16 * 16) for v in (m, n, k))
        if m * n * k > 2e12:
            continue
        x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        w = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
        ms = bench(lambda: torch.matmul(x, w.t()))
        emit(f, {"i": i, "dtype": "bf16", "M": m, "N": n, "K": k, "ms": ms, "tflops": 2 * m * n * k / ms / 1e9})
    for i in range(90):
        if time.time() > T0 + 110:
            break
        m, n, k = (max(16, loguni(rng, 16, 23170) // 16 * 16) for _ in range(3))
        if m * n * k > 2e12:
            continue
        x = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
        w = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn)
        one = torch.tensor(1.0, device=dev)
        fn = lambda: torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                                      use_fast_accum=True)
        try:
            ms = bench(fn)
        except Exception as e:  # a shape the fp8 kernel refuses
            emit(f, {"i": i, "dtype": "fp8", "M": m, "N": n, "K": k, "error": str(e)[:200]})
            continue
        emit(f, {"i": i, "dtype": "fp8", "M": m, "N": n, "K": k, "ms": ms, "tflops": 2 * m * n * k / ms / 1e9})
    del f


BACKENDS = {"default": None, "flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def attn_one(f, b, s, h, kvh, d, causal):
    q = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(b, kvh, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(b, kvh, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
    g = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16)
    gqa = kvh != h
    fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
    fb = lambda: fwd().backward(g)
    for name, be in BACKENDS.items():
        row = {"backend": name, "batch": b, "seq": s, "heads": h, "kv_heads": kvh, "head_dim": d, "causal": causal}
        try:
            if be is None:
                row["fwd_ms"], row["fwdbwd_ms"] = bench(fwd), bench(fb, [q, k, v])
            else:
                with sdpa_kernel([be]):
                    row["fwd_ms"], row["fwdbwd_ms"] = bench(fwd), bench(fb, [q, k, v])
        except Exception as e:  # backend does not support the shape
            row["error"] = str(e).splitlines()[0][:160]
        emit(f, row)


def attns(rng):
    f = out("attn.jsonl")
    heads = [(8, 8), (12, 12), (16, 16), (16, 2), (24, 8), (25, 25), (28, 4), (32, 8), (40, 8), (64, 8)]
    for i in range(60):
        if time.time() > T0 + 200:
            break
        h, kvh = rng.choice(heads)
        d = rng.choice([64, 64, 128, 128, 128, 96, 80])
        s = rng.choice([256, 512, 1024, 2048, 3072, 4096, 8192, 16384, 32768])
        tokens = rng.choice([8192, 16384, 32768, 65536])
        b = max(1, tokens // s)
        attn_one(f, b, s, h, kvh, d, rng.random() < 0.8)
        torch.cuda.empty_cache()


def ops(rng):
    f = out("ops.jsonl")
    for p in range(16, 31, 1):
        n = (1 << p) // 2  # bf16 elements in 2^p bytes
        if FIT:
            n = loguni(rng, 1 << 14, 1 << 30)
        a = torch.randn(n, device=dev, dtype=torch.bfloat16)
        b = torch.empty_like(a)
        c = torch.randn(n, device=dev, dtype=torch.bfloat16)
        emit(f, {"op": "copy", "bytes": 2 * a.numel() * 2, "ms": bench(lambda: b.copy_(a))})
        emit(f, {"op": "add", "bytes": 3 * a.numel() * 2, "ms": bench(lambda: torch.add(a, c, out=b))})
        emit(f, {"op": "cast_bf16_to_fp32", "bytes": a.numel() * 6, "ms": bench(lambda: a.float())})


# Hugging Face config.json keys of each model shape (public configs), so a row can be fed to dlsim as it is.
def llama(h, L, nh, kv, ffn, vocab, tied=False, bias=False, head_dim=None, mtype="llama"):
    return {"model_type": mtype, "hidden_size": h, "num_hidden_layers": L, "num_attention_heads": nh,
            "num_key_value_heads": kv, "intermediate_size": ffn, "vocab_size": vocab, "tie_word_embeddings": tied,
            "attention_bias": bias, "hidden_act": "silu", "rms_norm_eps": 1e-5, "head_dim": head_dim or h // nh}


def gpt2(h, L, nh):
    return {"model_type": "gpt2", "n_embd": h, "n_layer": L, "n_head": nh, "n_positions": 16384, "vocab_size": 50257,
            "activation_function": "gelu_new", "tie_word_embeddings": True}


MODELS = {
    "qwen2.5-0.5b": llama(896, 24, 14, 2, 4864, 151936, True, True, mtype="qwen2"),
    "qwen2.5-1.5b": llama(1536, 28, 12, 2, 8960, 151936, True, True, mtype="qwen2"),
    "qwen2.5-3b": llama(2048, 36, 16, 2, 11008, 151936, True, True, mtype="qwen2"),
    "qwen2.5-7b": llama(3584, 28, 28, 4, 18944, 152064, False, True, mtype="qwen2"),
    "llama-3.2-1b": llama(2048, 16, 32, 8, 8192, 128256, head_dim=64),
    "llama-3.2-3b": llama(3072, 28, 24, 8, 8192, 128256),
    "llama-3.1-8b": llama(4096, 32, 32, 8, 14336, 128256),
    "gpt2-small": gpt2(768, 12, 12),
    "gpt2-medium": gpt2(1024, 24, 16),
    "gpt2-large": gpt2(1280, 36, 20),
}


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


def train_one(f, model, mode, ckpt, mb, seq, steps=6):
    c = MODELS[model]
    row = {"model": model, "mode": mode, "ckpt": ckpt, "micro_batch": mb, "seq": seq, "config": c}
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    try:
        with torch.device(dev):
            net = Decoder(c, ckpt)
        if mode == "bf16":
            net = net.to(torch.bfloat16)
        row["params"] = sum(p.numel() for p in net.parameters())
        opt = torch.optim.AdamW(net.parameters(), lr=1e-4, fused=True)
        ids = torch.randint(0, c["vocab_size"], (mb, seq), device=dev)
        tgt = torch.randint(0, c["vocab_size"], (mb, seq), device=dev)
        times = []
        for i in range(steps + 2):
            torch.cuda.synchronize()
            t = time.perf_counter()
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=mode == "amp"):
                loss = net(ids, tgt)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t) * 1e3)
            if i == 1:
                torch.cuda.reset_peak_memory_stats()
            if time.time() > DEADLINE and i >= 3:
                break
        row["step_ms"] = statistics.median(times[2:])
        row["steps_timed"] = len(times) - 2
        row["peak_alloc_gib"] = torch.cuda.max_memory_allocated() / 2**30
        row["peak_reserved_gib"] = torch.cuda.max_memory_reserved() / 2**30
    except torch.OutOfMemoryError as e:
        row["oom"] = True
        row["error"] = str(e).splitlines()[0][:200]
    emit(f, row)
    net = opt = None
    torch.cuda.empty_cache()


TRAIN = [  # model, mode, ckpt, micro_batch, seq; the first repeats a shared trace's configuration as a check
    ("llama-3.2-1b", "amp", False, 2, 2048), ("qwen2.5-0.5b", "amp", False, 8, 2048),
    ("qwen2.5-0.5b", "bf16", False, 1, 1024), ("qwen2.5-1.5b", "bf16", False, 2, 4096),
    ("llama-3.2-1b", "bf16", False, 4, 4096), ("llama-3.2-1b", "amp", True, 4, 8192),
    ("llama-3.2-3b", "amp", False, 1, 4096), ("llama-3.2-3b", "bf16", True, 2, 8192),
    ("gpt2-medium", "amp", False, 8, 1024), ("gpt2-small", "amp", False, 16, 1024),
    ("gpt2-large", "bf16", False, 4, 2048), ("qwen2.5-3b", "amp", True, 2, 4096),
    ("llama-3.1-8b", "bf16", True, 1, 16384), ("llama-3.1-8b", "bf16", False, 1, 2048),
    ("qwen2.5-7b", "bf16", True, 1, 8192), ("qwen2.5-1.5b", "amp", False, 4, 8192),
    ("llama-3.1-8b", "amp", False, 2, 4096),  # expected not to fit: fp32 weights + states of 8B, activations
]


# The fit set's training steps: micro-batch and sequence sweeps per recipe (activation bytes per token,
# the fits / out-of-memory boundary), other shapes than TRAIN's.
TRAIN_FIT = [(m, mode, ck, mb, seq) for (m, mode, ck, seq) in [
    ("llama-3.2-1b", "amp", False, 2048), ("llama-3.2-1b", "bf16", False, 2048), ("llama-3.2-1b", "bf16", True, 4096),
    ("qwen2.5-0.5b", "amp", False, 1024), ("gpt2-medium", "bf16", False, 1024)] for mb in (1, 4)] + [
    ("qwen2.5-1.5b", "amp", False, 1, 4096), ("qwen2.5-1.5b", "amp", True, 2, 8192),
    ("llama-3.2-3b", "bf16", False, 1, 8192), ("llama-3.2-3b", "amp", True, 1, 16384),
    ("qwen2.5-3b", "bf16", False, 4, 2048), ("llama-3.1-8b", "bf16", True, 2, 8192),
    ("llama-3.1-8b", "bf16", False, 2, 4096), ("qwen2.5-7b", "bf16", False, 1, 4096),
    ("gpt2-large", "amp", False, 8, 1024), ("gpt2-small", "bf16", False, 32, 1024),
    ("llama-3.2-1b", "amp", False, 16, 4096),  # expected not to fit: autocast activations at 64K tokens
]


def main():
    print(torch.__version__, torch.cuda.get_device_name(), flush=True)
    with out("env.json") as f:
        f.write(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda, "gpu": torch.cuda.get_device_name(),
                            "cudnn": torch.backends.cudnn.version(), "python": sys.version.split()[0]}) + "\n")
    rng = random.Random(int(os.environ.get("SEED", "20261204")))
    for phase in (lambda: gemms(rng), lambda: attns(rng), lambda: ops(rng)):
        try:
            phase()
        except Exception:  # one broken phase must not lose the others
            traceback.print_exc()
        print("phase done", round(time.time() - T0), flush=True)
    f = out("train.jsonl")
    for cfg in (TRAIN_FIT if FIT else TRAIN):
        if time.time() > DEADLINE:
            break
        try:
            train_one(f, *cfg)
        except Exception:
            traceback.print_exc()
        print(cfg, round(time.time() - T0), flush=True)


if __name__ == "__main__":
    main()

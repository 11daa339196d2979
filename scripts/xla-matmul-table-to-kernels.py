#!/usr/bin/env python3
"""Turn XLA's default matmul performance table (openxla/xla xla/service/gpu/model/matmul_interpolator_data.h,
Apache-2.0: measured GEMM throughput by GPU, batch, M, N, K and dtype, the table XLA's GPU cost model
interpolates) into the operator CSV that `dlsim kernels` and `dlsim-fit gemm` read (io/kernel_ops_csv.h):

  python3 scripts/xla-matmul-table-to-kernels.py TABLE.h data/profiles/published/xla

writes kernels-b200.csv (the table's "sm_100_B200") and kernels-h100.csv ("sm_90") in that folder. Rows: the
bf16 GEMMs ("bf16xbf16->bf16") and the fp8 e4m3 ones ("f8e4m3fnxf8e4m3fn->bf16"); the time is the table's
FLOP count over its throughput, 2 b m n k / flops (the table stores FLOP/s). Every row is checked: positive
sizes, a throughput below 1.1x the GPU's datasheet dense peak (a mistyped row fails here; the datasheet figure is
at a tensor clock below the maximum boost, 1830 of 1980 MHz on Hopper, so short kernels may pass it by up to 8%).
sm_90's fp8 rows are left out: up to 2.30 PFLOP/s, above an H100's dense fp8 ceiling even at its 1980 MHz maximum
(2.14), so they were not dense fp8 GEMMs on an H100 as dlsim prices them.
"""
import os, re, sys

# key: (catalog GPU, datasheet dense bf16 and fp8 peaks, FLOP/s; fp8 None: its rows are left out).
GPUS = {"sm_100_B200": ("b200", 2250e12, 4500e12), "sm_90": ("h100", 989.4e12, None)}
DTYPES = {"bf16xbf16->bf16": "bf16", "f8e4m3fnxf8e4m3fn->bf16": "fp8"}
COLUMNS = "op,dtype,m,n,k,batch,heads,kv_heads,seq_q,seq_kv,head_dim,causal,backend,bytes,measured_ms,source"


def blocks(text):
    """(gpu key, [entry dict]) per top-level entry of the table."""
    out, gpu = {}, None
    for part in re.split(r'\n  entries \{\n    key: "', text)[1:]:
        gpu = part[: part.index('"')]
        rows = []
        for e in re.findall(r"entries \{\s*(b: \d+\s*m: \d+\s*n: \d+\s*k: \d+\s*(?:flops \{[^}]*\}\s*)+)\}", part):
            d = {k: int(v) for k, v in re.findall(r"\b([bmnk]): (\d+)", e)}
            d["flops"] = {k: float(v) for k, v in re.findall(r'flops \{ key: "([^"]+)" value: ([0-9.e+]+) \}', e)}
            rows.append(d)
        out[gpu] = rows
    return out


def main(table, out_dir):
    text = open(table).read()
    for key, rows in blocks(text).items():
        if key not in GPUS:
            continue
        name, bf16_peak, fp8_peak = GPUS[key]
        path = os.path.join(out_dir, f"kernels-{name}.csv")
        n = 0
        with open(path, "w") as f:
            f.write(f"# dlsim kernels input from XLA's default matmul table, key {key} (openxla/xla "
                    "matmul_interpolator_data.h; README.md here); written by scripts/xla-matmul-table-to-kernels.py\n")
            f.write(COLUMNS + "\n")
            for r in rows:
                for xla, dt in DTYPES.items():
                    if xla not in r["flops"]:
                        continue
                    rate = r["flops"][xla]
                    peak = bf16_peak if dt == "bf16" else fp8_peak
                    if peak is None:
                        continue
                    assert min(r["b"], r["m"], r["n"], r["k"]) > 0 and 0 < rate < 1.1 * peak, (key, r)
                    ms = 2.0 * r["b"] * r["m"] * r["n"] * r["k"] / rate * 1e3
                    f.write(f"gemm,{dt},{r['m']},{r['n']},{r['k']},{r['b']},,,,,,,,,{ms:.6g},xla:{key}\n")
                    n += 1
        print(f"{path}: {n} rows")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])

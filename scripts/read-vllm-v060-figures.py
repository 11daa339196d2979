#!/usr/bin/env python3
"""Reads vLLM's v0.6.0 blog figures (blog.vllm.ai 2024-09-05, "vLLM v0.6.0: 2.7x Throughput Improvement and 5x
Latency Reduction") off their pixels: vLLM's bars and the end of vLLM's line at QPS inf.

Usage: python3 scripts/read-vllm-v060-figures.py DIR
DIR holds the post's PNGs (vllm-project/vllm-project.github.io, assets/figures/perf-v060/): llama8B_comparison,
llama70B_comparison, H100_8B, H100_70B, A100_8B, A100_70B. ImageMagick's `convert` decodes them.

What is found on the pixels: each panel's frame (dark lines), its y tick marks (dark pixels left of the frame),
its x tick marks (below it), and vLLM's colour (dark blue) in the column of an x tick. What is read by eye: the
value of each panel's top y tick (the labels are text), listed below. A line's value at a tick is the middle of
the blue pixels there (the error bar is symmetric about the mean); a bar's value is its top. Prints CSV.
"""
import os
import subprocess
import sys

# Top y-tick label of each panel, read by eye; panels row by row (TTFT, TPOT, throughput) x (ShareGPT,
# decode-heavy, prefill-heavy). The lowest tick is 0 in every panel.
TOP_TICK = {
    "H100_8B": [4000, 80, 30, 8000, 80, 30, 4000, 200, 60],
    "H100_70B": [6000, 150, 15, 20000, 100, 15, 10000, 600, 20],
    "A100_8B": [8000, 150, 20, 15000, 100, 15, 10000, 400, 30],
    "A100_70B": [15000, 300, 8, 40000, 200, 6, 20000, 1500, 10],
}
# The two comparison figures: the gridlines' spacing in the throughput and the TPOT panel, read by eye.
COMPARISON_STEP = {"llama8B_comparison": (10, 20), "llama70B_comparison": (5, 50)}
DATASETS = ["sharegpt", "decode-heavy", "prefill-heavy"]


def load(path):
    data = subprocess.run(["convert", path, "ppm:-"], check=True, capture_output=True).stdout
    parts = data.split(maxsplit=4)
    w, h = int(parts[1]), int(parts[2])
    return w, h, data[len(data) - w * h * 3:]


def pixel(img, x, y):
    w, _, body = img
    i = (y * w + x) * 3
    return body[i], body[i + 1], body[i + 2]


def dark(c):
    return max(c) < 80


def blue(c):
    r, g, b = c
    return r < 60 and 80 <= g <= 130 and b >= 140


def orange(c):
    r, g, b = c
    return r > 200 and 80 < g < 140 and b < 80


def groups(values, gap=2):
    out = []
    for v in values:
        if out and v - out[-1][-1] <= gap:
            out[-1].append(v)
        else:
            out.append([v])
    return [(g[0], g[-1]) for g in out]


def frames(img):
    """Rows and columns of the panels' frame lines."""
    w, h, _ = img
    rows = [y for y in range(h) if sum(dark(pixel(img, x, y)) for x in range(0, w, 8)) > w / 16]
    rg = groups(rows)
    y0, y1 = rg[0][1], rg[1][0]
    cols = [x for x in range(w) if sum(dark(pixel(img, x, y)) for y in range(y0, y1, 4)) > (y1 - y0) / 5]
    return rg, groups(cols)


def ticks(img, x0, x1, y0, y1):
    off = 8 if img[0] > 2000 else 4  # tick marks are about 12 px long on the large figures, 6 on the small
    xt = [(a + b) / 2 for a, b in groups([x for x in range(x0, x1 + 1) if dark(pixel(img, x, y1 + off))])]
    yt = [(a + b) / 2 for a, b in groups([y for y in range(y0, y1 + 1) if dark(pixel(img, x0 - off, y))])]
    return xt, yt


def scale(yt, top):
    """Value of pixel row y: the top tick is `top`, the bottom one 0."""
    return lambda y: (yt[-1] - y) * top / (yt[-1] - yt[0])


def panel_values(name, img):
    rg, cg = frames(img)
    out = {}
    for r, dataset in enumerate(DATASETS):
        y0, y1 = rg[2 * r][1], rg[2 * r + 1][0]
        for c, metric in enumerate(["ttft_ms", "tpot_ms", "throughput_rps"]):
            x0, x1 = cg[2 * c][1], cg[2 * c + 1][0]
            xt, yt = ticks(img, x0, x1, y0, y1)
            value = scale(yt, TOP_TICK[name][3 * r + c])
            x = int(xt[0] if metric == "throughput_rps" else xt[-1])  # vLLM's bar; QPS inf
            ys = [y for y in range(y0 + 2, y1 - 1) if blue(pixel(img, x, y))]
            y = min(ys) if metric == "throughput_rps" else (min(ys) + max(ys)) / 2
            out[(dataset, metric)] = value(y)
    return out


def bar_top(img, x, colour):
    return min(y for y in range(img[1]) if colour(pixel(img, x, y)))


def grey(c):
    return len(set(c)) == 1 and 150 <= c[0] <= 215


def comparison(name, img):
    """v0.5.3 (orange) and v0.6.0 (blue) bars: throughput (left panel) and TPOT at 32 QPS (right). These small
    figures have no tick marks: the scale is the grey gridlines (every `step`, from `step` up) over the bars'
    common base (the last row of the orange bar)."""
    w, h, _ = img
    neutral = lambda c: len(set(c)) == 1 and c[0] < 235
    frame = groups([x for x in range(w)
                    if sum(neutral(pixel(img, x, y)) for y in range(20, h - 60, 4)) > (h - 80) / 5])
    out = {}
    for panel, metric in enumerate(["throughput_rps", "tpot_ms"]):
        x0, x1 = frame[2 * panel][1], frame[2 * panel + 1][0]
        bars = groups([x for x in range(x0, x1)
                       if orange(pixel(img, x, h - 60)) or blue(pixel(img, x, h - 60))], 1)
        xo, xb = (bars[0][0] + bars[0][1]) // 2, (bars[-1][0] + bars[-1][1]) // 2
        base = max(y for y in range(h) if orange(pixel(img, xo, y))) + 1
        lines = [(a + b) / 2 for a, b in groups([y for y in range(base - 5) if all(
            grey(pixel(img, x, y)) for x in range(bars[0][1] + 8, bars[-1][0] - 8, 3))])]
        step = COMPARISON_STEP[name][panel]
        px_per_unit = (base - lines[-1]) / step  # the lowest gridline (higher ones may hide behind a label)
        value = lambda y: (base - y) / px_per_unit
        out[("0.5.3", metric)] = value(bar_top(img, xo, orange))
        out[("0.6.0", metric)] = value(bar_top(img, xb, blue))
    return out


def main():
    folder = sys.argv[1]
    print("figure,dataset_or_release,metric,value")
    for name in COMPARISON_STEP:
        for (release, metric), v in comparison(name, load(os.path.join(folder, name + ".png"))).items():
            print(f"{name},{release},{metric},{v:.2f}")
    for name in TOP_TICK:
        for (dataset, metric), v in panel_values(name, load(os.path.join(folder, name + ".png"))).items():
            print(f"{name},{dataset},{metric},{v:.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The HTML reports in a real browser (CTest: html_report_browser).

Writes the --html page of every command that has one (train, serve, plan, cluster, gnn, validate,
repro), checks that each page and every
SVG in it parse as XML, renders each with headless Chromium (Debian's `chromium`, installed by
scripts/install-deps), and checks the screenshot is not blank and the page logged nothing to
the console (the pages have no scripts, so any console message is an error).

  tests/browser/html_report_test.py --dlsim build/tools/dlsim/dlsim --data data --test-data tests/data
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
import zlib

ARGS = None


def decode_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB/RGBA PNG, standard library only."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"unsupported PNG depth {depth} colour {colour}"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def dlsim(*args):
    run = subprocess.run([ARGS.dlsim, *args], capture_output=True, text=True, timeout=300)
    return run.returncode, run.stdout + run.stderr


class HtmlReportInBrowser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chromium = shutil.which("chromium")
        cls.tmp = tempfile.mkdtemp(prefix="dlsim_html_")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def render(self, html_path):
        """Screenshot of the page and the console lines Chromium logged while loading it."""
        self.assertIsNotNone(self.chromium, "chromium is not installed: run scripts/install-deps")
        png = html_path + ".png"
        profile = tempfile.mkdtemp(dir=self.tmp)
        run = subprocess.run([self.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                              "--no-first-run", f"--user-data-dir={profile}", "--window-size=1100,1600",
                              "--enable-logging=stderr", "--v=0", f"--screenshot={png}",
                              "file://" + os.path.abspath(html_path)],
                             capture_output=True, text=True, timeout=120)
        self.assertTrue(os.path.exists(png), f"no screenshot: rc {run.returncode}\n{run.stderr[-2000:]}")
        console = [l for l in run.stderr.splitlines() if ":CONSOLE" in l]
        return png, console

    def check_page(self, html_path, figures):
        text = open(html_path, encoding="utf-8").read()
        root = ET.fromstring(text.replace("<!DOCTYPE html>", "", 1))  # the page is well-formed XML
        svgs = re.findall(r"<svg\b.*?</svg>", text, flags=re.S)
        self.assertEqual(len(svgs), figures)
        for svg in svgs:
            ET.fromstring(svg)
        self.assertEqual(root.tag, "html")
        png, console = self.render(html_path)
        self.assertEqual(console, [], "the page logged to the console")
        width, height, rows = decode_png(png)
        self.assertGreater(width * height, 0)
        ink = [p for row in rows[::4] for p in row[::4] if sum(p) < 3 * 235]
        self.assertGreater(len(ink), 0.01 * (width // 4) * (height // 4), "the screenshot is (nearly) blank")
        colours = {p for p in ink if max(p) - min(p) > 60}  # saturated: the series colours
        self.assertGreaterEqual(len(colours), 2, "no coloured marks: the charts did not draw")

    def test_train(self):
        page = os.path.join(self.tmp, "train.html")
        rc, out = dlsim("train", os.path.join(ARGS.data, "scenarios/llama3.1_405b_16k_h100.yaml"), "--html", page)
        self.assertEqual(rc, 0, out)
        self.check_page(page, 3)

    def test_serve(self):
        page = os.path.join(self.tmp, "serve.html")
        rc, out = dlsim("serve", os.path.join(ARGS.test_data, "report/serve_small.yaml"), "--html", page)
        self.assertEqual(rc, 0, out)
        self.check_page(page, 6)

    def test_plan(self):
        page = os.path.join(self.tmp, "plan.html")
        rc, out = dlsim("plan", os.path.join(ARGS.test_data, "plan/small_13b.yaml"), "--quiet", "--html", page)
        self.assertEqual(rc, 0, out)
        self.check_page(page, 2)

    def test_cluster(self):
        page = os.path.join(self.tmp, "cluster.html")
        rc, out = dlsim("cluster", os.path.join(ARGS.test_data, "report/cluster_small.yaml"),
                        "--compare", "fifo,las", "--html", page)
        self.assertEqual(rc, 0, out)
        self.check_page(page, 3)

    def test_gnn(self):
        page = os.path.join(self.tmp, "gnn.html")
        rc, out = dlsim("gnn", os.path.join(ARGS.data, "scenarios/gnn_small.yaml"), "--html", page)
        self.assertEqual(rc, 0, out)
        self.check_page(page, 3)  # stages against the epoch, the timeline, feature reads per tier
        compare = os.path.join(self.tmp, "gnn_compare.html")
        rc, out = dlsim("gnn", os.path.join(ARGS.data, "scenarios/gnn_small.yaml"), "--compare", "--html", compare)
        self.assertEqual(rc, 0, out)
        self.check_page(compare, 2)  # epoch and GPU hit ratio per variant

    def test_validate(self):
        page = os.path.join(self.tmp, "validate.html")
        rc, out = dlsim("validate", "--set", "korthikanti-2022", "--summary", "--html", page)
        self.assertEqual(rc, 0, out)
        self.check_page(page, 1 + 3)  # MAPE per set, then one error chart per set

    def test_repro(self):
        page = os.path.join(self.tmp, "repro.html")
        rc, out = dlsim("repro", "flash-llm", "--html", page)
        self.assertEqual(rc, 0, out)
        self.check_page(page, 2)  # the headline against the band, the paper's points against ours


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dlsim", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--test-data", required=True)
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0], *rest])

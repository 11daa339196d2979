#!/usr/bin/env python3
"""Golden end-to-end outputs (SimGrid's tesh habit): run one case of cases.txt and compare its whole
standard output with tests/golden/<case>.out byte for byte, so a refactor that changes any number is seen.

  run_golden.py --dlsim BIN --case NAME      check one case (CTest runs one test per case)
  run_golden.py --dlsim BIN --update [NAME]  rewrite the .out files (all, or NAME) from BIN

cases.txt: one case per line, `name: arguments` (run from the repository root, so data paths are
relative); `#` starts a comment. A case whose output changes on purpose is rewritten with --update and
the diff is reviewed in the commit that changes it.
"""
import argparse, difflib, os, re, shlex, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def cases():
    out = {}
    with open(os.path.join(HERE, "cases.txt")) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, sep, args = line.partition(":")
            if not sep or not name.strip():
                sys.exit(f"cases.txt:{n}: expected 'name: arguments', found '{line}'")
            out[name.strip()] = shlex.split(args)
    return out


# What legitimately differs between runs and machines (a search's wall time, the thread count); masked in
# both the golden file and the new output. Nothing else may differ.
VOLATILE = [(re.compile(rb'"elapsed_s": [-+0-9.eE]+'), b'"elapsed_s": <masked>'),
            (re.compile(rb'"backend": "\d+ threads"'), b'"backend": "<masked> threads"'),
            (re.compile(rb'"dlsim_version": "[^"]*"'), b'"dlsim_version": "<masked>"')]


def mask(out):
    for pattern, replacement in VOLATILE:
        out = pattern.sub(replacement, out)
    return out


def run(dlsim, args):
    p = subprocess.run([dlsim] + args, cwd=ROOT, capture_output=True, timeout=300)
    if p.returncode not in (0, 3):  # 3: ran, the configuration is infeasible (still an output)
        sys.exit(f"dlsim {' '.join(args)} exited {p.returncode}:\n{p.stderr.decode(errors='replace')}")
    return mask(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dlsim", required=True)
    ap.add_argument("--case")
    ap.add_argument("--update", nargs="?", const="*")
    a = ap.parse_args()
    all_cases = cases()
    if a.update:
        for name, args in all_cases.items():
            if a.update in ("*", name):
                with open(os.path.join(HERE, name + ".out"), "wb") as f:
                    f.write(run(a.dlsim, args))
        return
    if a.case not in all_cases:
        sys.exit(f"unknown case '{a.case}'; cases: {', '.join(all_cases)}")
    got = run(a.dlsim, all_cases[a.case])
    with open(os.path.join(HERE, a.case + ".out"), "rb") as f:
        want = f.read()
    if got != want:
        diff = difflib.unified_diff(want.decode().splitlines(), got.decode().splitlines(),
                                    f"{a.case}.out (golden)", f"{a.case} (now)", lineterm="", n=1)
        print("\n".join(list(diff)[:80]))
        sys.exit(f"golden case '{a.case}' differs; if the change is intended: "
                 f"tests/golden/run_golden.py --dlsim BIN --update {a.case}")
    print(f"golden case '{a.case}': identical ({len(got)} bytes)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Every dlsim command the README and docs/*.md quote runs as written (CTest: docs_commands).

Collects the commands from fenced code blocks (lines that start with `build/tools/dlsim/dlsim` or `dlsim`,
or `$ ` and either) and from inline code that is a whole command (`dlsim CMD ARG...` with at least one argument, no
placeholder such as FILE or NAME), runs each file's commands in order with the built binary in a scratch folder
that links the repository's folders (so relative paths resolve and files the docs write, `> my.yaml`, land
there), and fails on any exit other than 0 or 3 (3: an infeasible configuration, a result) unless the command
is one the docs quote to show an error (EXPECTED_ERRORS, with the exit it must give).

Commands other tests already run at length are checked for their names only (SKIPPED: the reason names the
test). `--list` prints what would run.

  tests/docs/docs_commands_test.py --dlsim build/tools/dlsim/dlsim --root .
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

# Commands the docs quote to show their error message: the exit each must give.
EXPECTED_ERRORS = {
    "dlsim train tests/data/bad/unknown_gpu.yaml --check": 1,
    "dlsim catalog show h100-sxm5-80g": 2,
    "dlsim list bogus-kind": 2,
    "dlsim catalog show x": 2,
    "dlsim repro x": 2,
}

# Not run here, each with the reason: run at length by another test (the docs' copy would only add minutes to
# CI), or a template naming the reader's own files.
SKIPPED = {
    "dlsim repro --check": "ctest repro_check runs it",
    "dlsim validate --cross-validate": "ValidateCliTest.CrossValidate* run it",
    "dlsim validate --cross-validate --threads 2": "ValidateCliTest.CrossValidate* run it",
    "dlsim validate --cross-validate --json": "ValidateCliTest.CrossValidateJsonHasTheThreeFiguresForTheSelectedSet",
    "dlsim validate --cross-validate --set vtrain": "ValidateCliTest.CrossValidate* run it",
    "dlsim --calibration my-stack.yaml train my-scenario.yaml": "template: the reader's files",
    "dlsim --calibration my-stack.yaml plan my-plan.yaml": "template: the reader's files",
    "dlsim --calibration my-stack.yaml calibrate other-runs.csv --fit none": "template: the reader's files",
    "dlsim calibrate --trace step.json.gz -o my-stack.yaml": "template: the reader's files",
    "dlsim --calibration vllm05.yaml serve my-scenario.yaml": "template: the reader's files",
    # R-MAT scale 22 takes about 30 s a run (55 s with --compare): the scenario runs here once, with --json.
    "dlsim gnn data/scenarios/gnn_bgl_rmat22.yaml": "runs here with --json (docs/gnn.md)",
    "dlsim gnn data/scenarios/gnn_bgl_rmat22.yaml --trace t.json": "runs here with --json; --trace: gnn_small's",
    "dlsim gnn data/scenarios/gnn_bgl_rmat22.yaml --compare": "runs here with --json; --compare: gnn_small's",
    "dlsim --catalog my-gpu.yaml catalog show my-gpu": "template: the reader's catalog (docs/examples/my-gpu.yaml runs)",
    "dlsim --catalog bad.yaml catalog list": "template: a catalog with a typo, to show the message",
    "dlsim --catalog my.yaml train tests/data/bad/fp8_on_a100.yaml --check":
        "template: the reader's catalog giving the A100 an fp8 rate (train_cli_test UserCatalogOverridesWhat...)",
}
COMMANDS = {"version", "catalog", "list", "train", "serve", "plan", "cluster", "gnn", "validate", "repro", "calibrate",
            "kernels"}
# `dlsim repro NAME` alone: ctest repro_check runs every reproduction; here the name is checked against the list.
BARE_REPRO = re.compile(r"^dlsim repro ([a-z0-9][a-z0-9-]*)$")

PLACEHOLDER = re.compile(r"(^|[\s=/])([A-Z][A-Z0-9_]*[A-Z0-9](\.[a-z]+)?|N|K)($|[\s,.:\]])|\.\.\.|<|\[|\|")


def is_command(command):
    """A whole command, not a synopsis or a mention: a known command, arguments, no placeholder."""
    words = command.split()
    if words[-1] in ("show", "import"):  # `dlsim catalog show` names the command; it needs an entry
        return False
    first = next((w for w in words[1:] if not w.startswith("-") and not w.endswith(".yaml")), "")
    return (len(words) >= 3 and first in COMMANDS and not PLACEHOLDER.search(command[len("dlsim "):]) and
            not words[-1].startswith("--compare-trace") and not command.endswith(("--trace", "--serve", "--graphs")))


def normalise(command):
    command = re.sub(r"\s+", " ", command.strip())
    command = re.sub(r"^\$ ", "", command)
    command = re.sub(r"^build/tools/dlsim/dlsim ", "dlsim ", command)
    return command.split("  #")[0].split(" # ")[0].strip()


def commands_of(path):
    """The file's commands in document order, each as (line, command)."""
    text = open(path, encoding="utf-8").read()
    found, fence = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("```"):
            fence = not fence
            continue
        if fence:
            m = re.match(r"\s*(?:\$ )?((?:build/tools/dlsim/)?dlsim\s.*)", line)
            if m and (is_command(normalise(m.group(1))) or len(normalise(m.group(1)).split()) == 2):
                found.append((number, normalise(m.group(1))))
            continue
        for m in re.finditer(r"`((?:build/tools/dlsim/)?dlsim [^`]+)`", line):
            command = normalise(m.group(1))
            if is_command(command):
                found.append((number, command))
    return found


def run(command, binary, cwd, timeout):
    shell = re.sub(r"(^|[;&|]\s*)dlsim ", lambda m: m.group(1) + shlex.quote(binary) + " ", command)
    start = time.time()
    try:
        r = subprocess.run(shell, shell=True, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return r.returncode, (r.stdout + r.stderr)[-1500:], time.time() - start
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s", time.time() - start


def scratch(root):
    """A folder whose entries link the repository's, so relative paths in the docs resolve from it."""
    d = tempfile.mkdtemp(prefix="dlsim_docs_")
    for name in os.listdir(root):
        if not name.startswith("."):
            os.symlink(os.path.join(root, name), os.path.join(d, name))
    return d


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dlsim", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    root, binary = os.path.abspath(a.root), os.path.abspath(a.dlsim)
    files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    per_file = {f: commands_of(f) for f in files}
    repros = subprocess.run([binary, "repro", "list"], capture_output=True, text=True).stdout
    failures, seen, counts = [], set(), {"ran": 0, "names": 0, "skipped": 0}

    def check_file(path):
        """Runs one file's commands in order (later ones may read what earlier ones wrote)."""
        out, cwd = [], scratch(root)
        for line, command in per_file[path]:
            where = f"{os.path.relpath(path, root)}:{line}: {command}"
            writes = " -o " in command or " > " in command  # a later command may read what it wrote
            if command in seen and command not in EXPECTED_ERRORS and not writes:
                continue
            seen.add(command)
            m = BARE_REPRO.match(command)
            if m and m.group(1) != "list" and command not in EXPECTED_ERRORS:
                if m.group(1) not in re.findall(r"^([a-z0-9-]+)\s", repros, flags=re.M):
                    out.append(f"{where}\n  no reproduction named '{m.group(1)}' ('dlsim repro list')")
                counts["names"] += 1
                continue
            if command in SKIPPED or ("../shared" in command and not os.path.isdir(os.path.join(root, "../shared"))):
                counts["skipped"] += 1
                continue
            if a.list:
                print(where)
                continue
            # A command that reaches outside the repository (../shared) runs from its root, where that resolves.
            code, text, secs = run(command, binary, root if "../" in command else cwd, a.timeout)
            counts["ran"] += 1
            want = EXPECTED_ERRORS.get(command)
            ok = code == want if want is not None else code in (0, 3)
            print(f"{'ok  ' if ok else 'FAIL'} {secs:6.1f} s  exit {code}  {where}", flush=True)
            if not ok:
                out.append(f"{where}\n  exit {code} (expected {want if want is not None else '0 or 3'}):\n{text}")
        return out

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for result in pool.map(check_file, files):
            failures += result
    quoted = sum(len(v) for v in per_file.values())
    if failures:
        print(f"\n{len(failures)} documented command(s) fail:\n" + "\n".join(failures))
        return 1
    print(f"docs_commands: {quoted} quoted commands in {len(files)} files: {counts['ran']} distinct ones ran as "
          f"documented, {counts['names']} reproduction names exist (repro_check runs them), {counts['skipped']} "
          f"skipped (SKIPPED says why), the rest repeats")
    return 0


if __name__ == "__main__":
    sys.exit(main())

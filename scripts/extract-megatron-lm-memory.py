#!/usr/bin/env python3
"""Prints the rows of data/validation/megatron_lm_functional_memory.csv from a Megatron-LM checkout.

Megatron-LM's functional tests log torch.cuda.memory_stats()["allocated_bytes.all.peak"] (mem-max-allocated-bytes,
never reset) and the allocated bytes (mem-allocated-bytes) of the last rank every step into
tests/functional_tests/test_cases/<model>/<test>/golden_values_<env>_<platform>.json. This prints the last logged
step of each of the tests below on each platform it was run on.

  python3 scripts/extract-megatron-lm-memory.py PATH_TO_MEGATRON_LM_GIT [COMMIT]
"""
import json
import subprocess
import sys

TESTS = ["gpt3_7b_tp1_pp4_memory_speed", "gpt3_7b_tp4_pp1_memory_speed"]
PLATFORMS = {"dev_dgx_a100": "a100-sxm4-80gb", "dev_dgx_h100": "h100-sxm5-80gb"}


def show(repo, commit, path):
    return subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], check=True, capture_output=True,
                          text=True).stdout


def last(series):
    values = series["values"]
    step = max(values, key=int)
    return step, int(values[step])


def main():
    repo = sys.argv[1]
    commit = sys.argv[2] if len(sys.argv) > 2 else "HEAD"
    print("test,gpu,golden_file,last_step,peak_allocated_bytes,allocated_bytes")
    for test in TESTS:
        for platform, gpu in PLATFORMS.items():
            name = f"golden_values_{platform}.json"
            golden = json.loads(show(repo, commit, f"tests/functional_tests/test_cases/gpt/{test}/{name}"))
            step, peak = last(golden["mem-max-allocated-bytes"])
            _, allocated = last(golden["mem-allocated-bytes"])
            print(f"{test},{gpu},{name},{step},{peak},{allocated}")


if __name__ == "__main__":
    main()

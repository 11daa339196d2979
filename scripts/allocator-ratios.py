#!/usr/bin/env python3
"""Reserved over allocated peak memory of PyTorch's caching allocator, by recomputation, from measured steps.

Each line of a train.jsonl (scripts/measure-h200-heldout.py) that ran holds peak_alloc_gib
(torch.cuda.max_memory_allocated) and peak_reserved_gib (max_memory_reserved) of one training configuration.
Prints, per recomputation mode (ckpt false: none, true: full), the runs, and the median and range of the ratio,
as the rows of data/calibration/allocator_reserved.csv.

  python3 scripts/allocator-ratios.py data/profiles/h200-fit/train.jsonl
"""
import json
import statistics
import sys


def main():
    ratios = {"none": [], "full": []}
    for path in sys.argv[1:]:
        with open(path) as f:
            for line in f:
                run = json.loads(line)
                if "peak_alloc_gib" not in run:
                    continue  # out of memory: no peak
                mode = "full" if run["ckpt"] else "none"
                ratios[mode].append(run["peak_reserved_gib"] / run["peak_alloc_gib"])
    print("recompute,runs,median_ratio,min_ratio,max_ratio")
    for mode, r in ratios.items():
        print(f"{mode},{len(r)},{statistics.median(r):.4f},{min(r):.4f},{max(r):.4f}")


if __name__ == "__main__":
    main()

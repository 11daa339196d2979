#!/usr/bin/env python3
"""Turn NVIDIA cudnn-frontend's published Llama-3.2-1B training iterations
(data/profiles/published/cudnn_frontend/llama-3.2-1b-training/{h200,b200}_training_timing.csv; README there) into
runs files that `dlsim calibrate` reads (io/calibration_runs.h), one per GPU:

  python3 scripts/cudnn-frontend-training-to-runs.py

writes data/validation/cudnn_frontend_llama32_1b_h200_runs.csv and ..._b200_runs.csv. Each row is the run's
scenario: the catalog's llama3.2-1b (tied embeddings), one GPU at the run's locked SM clock, the pytorch-eager-bf16 stack with
Hugging Face's RMSNorm (fp32 upcast), the row's SDPA backend; the published time as the step time.
"""
import csv, os

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SRC = os.path.join(ROOT, "data/profiles/published/cudnn_frontend/llama-3.2-1b-training")
CLOCK_MHZ = {"h200": 1500, "b200": 1665}  # the runs' `nvidia-smi -lgc` (README.md there)
BACKENDS = {"CUDNN_ATTENTION": "cudnn", "EFFICIENT_ATTENTION": "efficient", "FLASH_ATTENTION": "flash"}
COLUMNS = ["label", "step_time_s", "model.name", "hardware.gpu", "hardware.gpus",
           "hardware.sm_clock_mhz", "training.seq_len", "training.micro_batch", "training.global_batch",
           "training.stack", "training.norm_impl", "training.attention_backend", "parallel.recompute"]
HEADER = """# NVIDIA cudnn-frontend's Llama-3.2-1B training iterations on one {gpu} with its SM clock locked at {mhz} MHz
# (Apache-2.0; data/profiles/published/cudnn_frontend/llama-3.2-1b-training/README.md says what ran). Written by
# python3 scripts/cudnn-frontend-training-to-runs.py; step_time_s is the published `time` (seconds per iteration).
# Scenario: the pytorch-eager-bf16 stack (plain eager PyTorch, bf16 weights), Hugging Face's RMSNorm (fp32 upcast).
# Not expressible, with the direction of its error: SGD where the stack steps fused AdamW (predictions high by
# ~1-3%), the logits' dtype before the loss (the stack's fp32). Held out: nothing is fitted on these rows.
# Score: build/tools/dlsim/dlsim validate --set cudnn-frontend-llama3.2-1b-{gpu} (or calibrate FILE --fit none)
"""


def main():
    for gpu, mhz in CLOCK_MHZ.items():
        out = os.path.join(ROOT, f"data/validation/cudnn_frontend_llama32_1b_{gpu}_runs.csv")
        with open(os.path.join(SRC, f"{gpu}_training_timing.csv")) as f, open(out, "w", newline="") as o:
            o.write(HEADER.format(gpu=gpu, mhz=mhz))
            w = csv.writer(o, lineterminator="\n")
            w.writerow(COLUMNS)
            for r in csv.DictReader(f):
                be, bs, sl = BACKENDS[r["backend"]], int(r["batch_size"]), int(r["seq_len"])
                w.writerow([f"{gpu}-{be}-bs{bs}-s{sl}", r["time"], "llama3.2-1b", gpu, 1, mhz, sl, bs, bs,
                            "pytorch-eager-bf16", "python-fp32", be, "none"])
        print(out)


if __name__ == "__main__":
    main()

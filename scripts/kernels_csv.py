"""Shared by the scripts that turn published attention timings into `dlsim kernels` input
(scripts/fa-figures-to-kernels.py, scripts/cudnn-frontend-to-kernels.py): one CSV per GPU."""
import csv, os, sys


def write_per_gpu(folder, files, columns, rows, header):
    """Writes the (gpu, row) pairs of `rows` to folder/files[gpu], each file starting with
    `header(gpu)` as a comment line and `columns`; reports each file's row count on stderr."""
    out = {gpu: [] for gpu in files}
    for gpu, row in rows:
        out[gpu].append(row)
    for gpu, name in files.items():
        with open(os.path.join(folder, name), "w", newline="") as f:
            f.write(f"# {header(gpu)}\n")
            w = csv.writer(f, lineterminator="\n")
            w.writerow(columns)
            w.writerows(out[gpu])
        print(f"{name}: {len(out[gpu])} rows", file=sys.stderr)

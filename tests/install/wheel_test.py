#!/usr/bin/env python3
"""The Python wheel (issue 36): scripts/build-wheel.py packs the built module; the wheel's RECORD hashes match
its files, the same input gives the same bytes, and the module imported from the unpacked wheel (and, where pip is
present, from a `pip install --target`) prices a training step.

    tests/install/wheel_test.py BUILD_DIR SOURCE_DIR
"""
import base64
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PRICE = ("import dlsim; r = dlsim.train({'model': {'name': 'llama3-8b'}, 'hardware': {'node': 'dgx-h100', "
         "'gpus': 8}}); assert r['feasible'] and r['step_time_s'] > 0, r; print(dlsim.__file__)")


def build(src, build_dir, out):
    cmd = [sys.executable, str(src / "scripts/build-wheel.py"), "--package", str(build_dir / "python/dlsim"),
           "--version", "0.1.0", "--license", str(src / "LICENSE"), "-o", str(out)]
    return Path(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip())


def check_record(wheel):
    with zipfile.ZipFile(wheel) as z:
        record = next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))
        for line in z.read(record).decode().splitlines():
            name, digest, size = line.rsplit(",", 2)
            if name == record:
                continue
            data = z.read(name)
            want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert digest == want and int(size) == len(data), f"RECORD does not match {name}"
        assert any(n.startswith("dlsim/_dlsim") and n.endswith(".so") for n in z.namelist()), "no extension"


def imports_from(path, where):
    env = dict(os.environ, PYTHONPATH=str(path))
    out = subprocess.run([sys.executable, "-c", PRICE], check=True, capture_output=True, text=True, env=env,
                         cwd=where).stdout
    assert out.strip().startswith(str(path)), f"imported {out.strip()}, not the wheel's copy under {path}"


def main():
    build_dir, src = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        wheel = build(src, build_dir, tmp / "a")
        assert build(src, build_dir, tmp / "b").read_bytes() == wheel.read_bytes(), "the wheel is not reproducible"
        check_record(wheel)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tmp / "unpacked")
        imports_from(tmp / "unpacked", tmp)
        pip = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
        if pip.returncode == 0:
            subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target",
                            str(tmp / "site"), str(wheel)], check=True, capture_output=True)
            imports_from(tmp / "site", tmp)
        print(f"wheel test: ok ({wheel.name}{', pip install' if pip.returncode == 0 else ''})")


if __name__ == "__main__":
    main()

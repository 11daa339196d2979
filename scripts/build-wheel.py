#!/usr/bin/env python3
"""build-wheel: pack the built Python module (build/python/dlsim) into a wheel that pip installs.

    scripts/build-wheel.py --package build/python/dlsim --version 0.1.0 --license LICENSE -o build/dist

Writes dlsim-VERSION-TAG.whl (TAG = this interpreter's, e.g. cp311-cp311-linux_x86_64) holding the package, and
prints its path. Standard library only. The extension links Debian's shared libraries (yaml-cpp, fmt, GLPK,
XGBoost, METIS, Open MPI), so the wheel is for a Debian 12 machine with those installed (scripts/install-deps),
not a manylinux wheel (docs/install.md).
"""
import argparse
import base64
import hashlib
import sys
import sysconfig
import zipfile
from pathlib import Path


def tag():
    """This interpreter's wheel tag: python-abi-platform."""
    ver = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{ver}-{ver}-{platform}"


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def metadata(version, summary):
    return (f"Metadata-Version: 2.1\nName: dlsim\nVersion: {version}\nSummary: {summary}\n"
            "License: Apache-2.0\nRequires-Python: >=3.9\n")


def build(package, version, license_path, out_dir):
    files = sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    if not any(p.suffix == ".so" for p in files):
        sys.exit(f"build-wheel: no extension module (.so) in {package}: build the project first (make run)")
    info = f"dlsim-{version}.dist-info"
    entries = [(f"dlsim/{p.relative_to(package).as_posix()}", p.read_bytes()) for p in files]
    entries.append((f"{info}/METADATA", metadata(version, "dlsim: simulate deep-learning training, serving "
                                                          "and GPU clusters").encode()))
    entries.append((f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: dlsim build-wheel\nRoot-Is-Purelib: "
                                     f"false\nTag: {tag()}\n".encode()))
    entries.append((f"{info}/LICENSE", license_path.read_bytes()))
    record = [record_line(name, data) for name, data in entries] + [f"{info}/RECORD,,"]
    entries.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / f"dlsim-{version}-{tag()}.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            info_ = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))  # same bytes in, same wheel out
            info_.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info_.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info_, data)
    return wheel


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--package", type=Path, required=True, help="the built package folder (build/python/dlsim)")
    ap.add_argument("--version", required=True)
    ap.add_argument("--license", type=Path, required=True)
    ap.add_argument("-o", "--out", type=Path, required=True, help="folder for the wheel")
    a = ap.parse_args()
    if not a.package.is_dir():
        sys.exit(f"build-wheel: {a.package} is not a folder")
    print(build(a.package, a.version, a.license, a.out))


if __name__ == "__main__":
    main()

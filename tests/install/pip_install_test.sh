#!/bin/sh
# `pip install .` in a venv (issue 36): setuptools drives CMake (setup.py, reusing BUILD_DIR), the package lands in
# the venv, and `import dlsim` works from / and prices a step. No network: --no-build-isolation --no-index with the
# system's setuptools (the venv sees the system site packages). Run by ctest as pip_install:
#   tests/install/pip_install_test.sh BUILD_DIR SOURCE_DIR PYTHON
set -eu
build=$1
src=$2
python=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "pip install test: $*" >&2; exit 1; }
# The interpreter CMake built the extension for, or Debian's own (same ABI on Debian 12) when that one lacks the
# build tools (setuptools, wheel: a pyenv or conda Python next to the system one).
if ! "$python" -c "import setuptools, wheel, venv" 2> /dev/null; then
  [ "$python" != /usr/bin/python3 ] && /usr/bin/python3 -c "import setuptools, wheel, venv" 2> /dev/null ||
    fail "$python lacks setuptools / wheel / venv (Debian: python3-setuptools python3-wheel python3-venv)"
  python=/usr/bin/python3
fi

"$python" -m venv --system-site-packages "$tmp/venv" > "$tmp/venv.log" 2>&1 || { cat "$tmp/venv.log"; fail "no venv (python3-venv)"; }
"$tmp/venv/bin/python" -m pip --version > /dev/null 2>&1 || fail "no pip in the venv (python3-pip)"
(cd "$src" && DLSIM_BUILD_DIR="$build" "$tmp/venv/bin/python" -m pip install --no-build-isolation --no-index \
  --no-deps . > "$tmp/pip.log" 2>&1) || { tail -40 "$tmp/pip.log"; fail "pip install . failed"; }
out=$(cd / && "$tmp/venv/bin/python" -c "import dlsim; r = dlsim.train({'model': {'name': 'llama3-8b'}, \
'hardware': {'node': 'dgx-h100', 'gpus': 8}}); assert r['feasible'] and r['step_time_s'] > 0; print(dlsim.__file__)") ||
  fail "import dlsim from / failed"
case "$out" in
  "$tmp/venv/"*) ;;
  *) fail "imported $out, not the venv's copy" ;;
esac
echo "pip install test: ok ($out)"

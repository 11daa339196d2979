#!/bin/sh
# Install test (issue 36): `cmake --install BUILD --prefix P` gives a runnable dlsim, its example scenarios and
# licence, and a CMake package a C++ project finds (find_package(dlsim)) and links against (consumer/ prices a
# step); `cpack -G DEB` makes a Debian package holding the binary. Run by ctest as install_package:
#   tests/install/run_install_test.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install failed"; }
"$tmp/prefix/bin/dlsim" --version | grep -q '^dlsim [0-9]' || fail "installed dlsim --version"
"$tmp/prefix/bin/dlsim" train "$tmp/prefix/share/dlsim/scenarios/llama3.1_405b_16k_h100.yaml" > "$tmp/train.out" ||
  fail "installed dlsim cannot train an installed scenario"
test -f "$tmp/prefix/share/doc/dlsim/LICENSE" || fail "no LICENSE installed"
test -f "$tmp/prefix/include/dlsim/train/simulate.h" || fail "no headers installed"
test -f "$tmp/prefix/lib/cmake/dlsim/dlsimConfig.cmake" || fail "no CMake package installed"

cmake -S "$src/tests/install/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log"; fail "find_package(dlsim) failed"; }
cmake --build "$tmp/consumer" > "$tmp/consumer-build.log" 2>&1 || { tail -40 "$tmp/consumer-build.log"; fail "consumer does not build"; }
"$tmp/consumer/consumer" | grep -q '^step_time_s [0-9]' || fail "consumer did not price a step"

(cd "$build" && cpack -G DEB -B "$tmp/deb" > "$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log"; fail "cpack -G DEB failed"; }
deb=$(ls "$tmp"/deb/*.deb)
dpkg-deb -c "$deb" > "$tmp/contents"
grep -q '\./usr/bin/dlsim$' "$tmp/contents" || fail "the .deb holds no /usr/bin/dlsim"
dpkg-deb -f "$deb" Depends | grep -q 'libyaml-cpp' || fail "the .deb declares no run-time dependencies"
echo "install test: ok ($(basename "$deb"))"

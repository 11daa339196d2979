# The two set-up commands (see README):
#   make run   installs dependencies, builds, runs the embedded default scenario
#   make test  installs dependencies, builds, runs the whole test suite through CTest
#   make fuzz  builds the libFuzzer targets with clang in build-san and runs each for FUZZ_SECONDS
#              (docs/robustness.md)
BUILD ?= build
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60

.PHONY: run test build deps sanitize bench fuzz clean

deps:
	@scripts/install-deps

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@$(BUILD)/tools/dlsim/dlsim train --default

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# One clang build (build-san) serves both: every library is built with ASan + UBSan and libFuzzer's
# coverage hooks; `sanitize` runs the unit tests in it, `fuzz` links and runs the fuzz targets.
SAN_CMAKE = CC=clang CXX=clang++ cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDLSIM_FUZZ=ON \
	  -DDLSIM_BUILD_BENCH=OFF >/dev/null

sanitize:
	@scripts/install-deps --fuzz
	@$(SAN_CMAKE)
	@cmake --build build-san -j $(JOBS)
	@cd build-san && ctest --output-on-failure -j $(JOBS) -E '[Mm]pi'

fuzz:
	@scripts/install-deps --fuzz
	@$(SAN_CMAKE)
	@cmake --build build-san -j $(JOBS) --target dlsim_fuzzers
	@scripts/run-fuzz --build build-san --seconds $(FUZZ_SECONDS)

bench: build
	@for b in $(BUILD)/bench/bench_*; do $$b; done

clean:
	rm -rf $(BUILD) build-san

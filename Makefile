# The two set-up commands (see README):
#   make run   installs dependencies, builds, runs the embedded default scenario
#   make test  installs dependencies, builds, runs the whole test suite through CTest
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: run test build deps sanitize bench clean

deps:
	@scripts/install-deps

build: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@$(BUILD)/tools/dlsim/dlsim train --default

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

sanitize: deps
	@cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDLSIM_SANITIZE=ON -DDLSIM_BUILD_BENCH=OFF >/dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && ctest --output-on-failure -j $(JOBS) -E '[Mm]pi'

bench: build
	@for b in $(BUILD)/bench/bench_*; do $$b; done

clean:
	rm -rf $(BUILD) build-asan

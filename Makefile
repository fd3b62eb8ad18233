# Thin driver around CMake: `make demo` and `make test` do the whole set-up.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test asan bench format clean

all: build

deps:
	@tools/deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	examples/demo.sh $(BUILD)

# The whole suite, then the unit tests again under the sanitizers.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE bench
	$(MAKE) --no-print-directory asan

# Unit tests under AddressSanitizer and UBSan (a second build tree).
asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DMV_SANITIZE=ON -DMV_CUDA=OFF $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)
	ctest --test-dir build-asan --output-on-failure -j $(JOBS) -L unit

# The speed benchmarks: tests/bench/RESULTS.md (tests/bench/README.md; on the
# GPU machine, tools/gpu_run.sh OUTDIR does the build, the GPU tests and this).
bench: build
	tests/bench/bench.sh $(BUILD) tests/bench/RESULTS.md $(BUILD)/bench-logs

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu')

clean:
	rm -rf $(BUILD) build-asan

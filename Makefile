# Thin driver around CMake: `make demo` and `make test` do the whole set-up.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_SEED ?= 1
# ON: compiler warnings are errors (.ci/run; the `dev` preset). Users' builds keep OFF.
WERROR ?= OFF

.PHONY: all deps build demo test validate asan fuzz clang bench format params-doc clean

all: build

deps:
	@tools/deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake -S . -B $(BUILD) -DMV_WERROR=$(WERROR) > /dev/null
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	examples/demo.sh $(BUILD)

# The whole suite, the unit tests again under the sanitizers, then 20 s of each
# fuzz target.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE 'bench|validation'
	$(MAKE) --no-print-directory asan
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=20

# The validations that take minutes (label validation): Korthikanti et al.'s
# Table 5 with all four models (make test checks the 22B and 175B rows).
validate: build
	ctest --test-dir $(BUILD) --output-on-failure -L validation

# Unit tests under AddressSanitizer and UBSan (a second build tree).
asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DMV_SANITIZE=ON -DMV_CUDA=OFF -DMV_WERROR=$(WERROR) $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)
	ctest --test-dir build-asan --output-on-failure -j $(JOBS) -L unit

# Every parser under libFuzzer with ASan and UBSan (clang, a third build tree):
# FUZZ_SECONDS seconds per target after its seed corpus (tests/fuzz/corpus/),
# mutations drawn from FUZZ_SEED (1: the same inputs on every run, as CI sees
# them; 0: a new seed each run, to explore).
fuzz: deps
	cmake -S tests/fuzz -B build-fuzz -DCMAKE_C_COMPILER=$(FUZZ_CC) -DMV_WERROR=$(WERROR)
	cmake --build build-fuzz -j $(JOBS)
	MV_FUZZ_SECONDS=$(FUZZ_SECONDS) MV_FUZZ_SEED=$(FUZZ_SEED) ctest --test-dir build-fuzz --output-on-failure -j $(JOBS) -L fuzz

# Everything built again with clang (a fourth build tree, no CUDA: nvcc's host
# compiler is the default one): with WERROR=ON a warning either compiler sees
# fails (.ci/run builds both).
clang: deps
	cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=$(FUZZ_CC) -DMV_CUDA=OFF -DMV_WERROR=$(WERROR) $(CMAKE_FLAGS)
	cmake --build build-clang -j $(JOBS)

# The speed benchmarks: tests/bench/RESULTS.md (tests/bench/README.md; on the
# GPU machine, tools/gpu_run.sh OUTDIR does the build, the GPU tests and this).
bench: build
	tests/bench/bench.sh $(BUILD) tests/bench/RESULTS.md $(BUILD)/bench-logs

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu')

# docs/parameters.md's key tables, generated from the rows of ENG_PARAMS and
# CC_PARAMS (the test params_doc checks they are current).
params-doc: build
	tools/params_doc.sh $(BUILD)/driver/multiverse

clean:
	rm -rf $(BUILD) build-asan build-fuzz build-clang

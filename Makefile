# npukit: thin wrapper over CMake. The README's two commands are `make demo` and `make test`.
#   make demo             build, then run every target's showcase
#   make test             build and test (gcc), then again with ASan+UBSan (clang)
#   make install PREFIX=DIR   install the command, libraries, headers, npukit.pc, the CMake
#                         package and the rvnpu SDK under DIR (default /usr/local)
#   make test-exhaustive  the long sweeps (all 2^32 inputs), tens of minutes
#   make bench            build and run the benchmarks
#   make models-table     the models of models/onnx on the host and every target with a
#                         lowering, side by side (docs/models.md); MODELS_LIMIT=N images only
#   make fuzz             build the libFuzzer harnesses (clang) and run each for FUZZ_TIME
#                         seconds (or FUZZ_RUNS executions); FUZZ_HARNESS=name for one,
#                         FUZZ_JOBS=n parallel jobs; see tests/fuzz/README.md
#   make clean
# `make demo`, `make install` and `make test` first check the Debian packages they need
# (.ci/packages, via .ci/deps): as root the missing ones are installed, otherwise the apt-get
# line is printed and make stops. DEPS=no skips the check (e.g. on a system that is not Debian).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CC ?= cc
SAN_CC ?= $(shell command -v clang >/dev/null 2>&1 && echo clang || echo $(CC))
BUILD ?= build
SAN_BUILD ?= build-san
CMAKE ?= cmake
CTEST ?= ctest
FUZZ_CC ?= clang
FUZZ_BUILD ?= build-fuzz
FUZZ_SCRATCH ?= $(FUZZ_BUILD)/corpus
FUZZ_TIME ?= 60
FUZZ_JOBS ?= 1
FUZZ_RUNS ?=
FUZZ_HARNESS ?=
FUZZ_FLAGS ?=
PREFIX ?= /usr/local
DEPS ?= yes
deps = $(if $(filter no,$(DEPS)),@true,.ci/deps $(1))

.PHONY: all build build-san build-fuzz demo test test-normal test-san test-exhaustive bench fuzz \
        models-table install deps-demo deps-test clean

all: build

deps-demo:
	$(call deps,demo)

deps-test:
	$(call deps,demo test)

build:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=$(CC)
	$(CMAKE) --build $(BUILD) -j $(JOBS)

build-san:
	$(CMAKE) -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=$(SAN_CC) -DNPK_SANITIZE=ON
	$(CMAKE) --build $(SAN_BUILD) -j $(JOBS)

demo: deps-demo
	$(MAKE) --no-print-directory build
	./$(BUILD)/npukit demo

install: deps-demo
	$(MAKE) --no-print-directory build
	$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

test-normal: build
	cd $(BUILD) && $(CTEST) --output-on-failure -j $(JOBS) -LE exhaustive

test-san: build-san
	cd $(SAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(CTEST) --output-on-failure -j $(JOBS) -LE exhaustive

test: deps-test
	$(MAKE) --no-print-directory test-normal test-san

test-exhaustive: build
	cd $(BUILD) && $(CTEST) --output-on-failure -L exhaustive

bench: build
	$(CMAKE) --build $(BUILD) -j $(JOBS) --target npk_benches
	$(BUILD)/bench/num/bench_num
	$(BUILD)/bench/asm/bench_asm_labels
	$(BUILD)/bench/core/bench_step
	$(BUILD)/bench/core/bench_commit
	$(BUILD)/bench/rvnpu/bench_rvnpu
	$(BUILD)/bench/rvnpu/bench_mlp
	$(BUILD)/bench/rvnpu/bench_transformer
	$(BUILD)/bench/opennpu/bench_opennpu
	$(BUILD)/bench/tinytpu/bench_tinytpu
	$(BUILD)/bench/tinytpu/bench_tinytpu_stream
	$(BUILD)/bench/pccx/bench_pccx
	$(BUILD)/bench/pccx/pccx_gemma --split

MODELS_LIMIT ?=
models-table: build
	bench/models/models_table.sh --npukit $(BUILD)/npukit --out $(BUILD)/models_table.md \
	  $(if $(MODELS_LIMIT),--limit $(MODELS_LIMIT))

build-fuzz:
	$(CMAKE) -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=$(FUZZ_CC) -DNPK_FUZZ=ON
	$(CMAKE) --build $(FUZZ_BUILD) -j $(JOBS)

fuzz: build-fuzz
	FUZZ_TIME='$(FUZZ_TIME)' FUZZ_JOBS='$(FUZZ_JOBS)' FUZZ_RUNS='$(FUZZ_RUNS)' \
	  FUZZ_HARNESS='$(FUZZ_HARNESS)' FUZZ_FLAGS='$(FUZZ_FLAGS)' \
	  tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SCRATCH)

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(FUZZ_BUILD)

# npukit: thin wrapper over CMake. The README's two commands are `make demo` and `make test`.
#   make demo             build, then run every target's showcase
#   make test             build and test (gcc), then again with ASan+UBSan (clang)
#   make test-exhaustive  the long sweeps (all 2^32 inputs), tens of minutes
#   make bench            build and run the benchmarks
#   make clean
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CC ?= cc
SAN_CC ?= $(shell command -v clang >/dev/null 2>&1 && echo clang || echo $(CC))
BUILD ?= build
SAN_BUILD ?= build-san
CMAKE ?= cmake
CTEST ?= ctest

.PHONY: all build build-san demo test test-normal test-san test-exhaustive bench clean

all: build

build:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=$(CC)
	$(CMAKE) --build $(BUILD) -j $(JOBS)

build-san:
	$(CMAKE) -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=$(SAN_CC) -DNPK_SANITIZE=ON
	$(CMAKE) --build $(SAN_BUILD) -j $(JOBS)

demo: build
	./$(BUILD)/npukit demo

test-normal: build
	cd $(BUILD) && $(CTEST) --output-on-failure -j $(JOBS) -LE exhaustive

test-san: build-san
	cd $(SAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(CTEST) --output-on-failure -j $(JOBS) -LE exhaustive

test: test-normal test-san

test-exhaustive: build
	cd $(BUILD) && $(CTEST) --output-on-failure -L exhaustive

bench: build
	$(CMAKE) --build $(BUILD) -j $(JOBS) --target npk_benches
	$(BUILD)/bench/num/bench_num
	$(BUILD)/bench/asm/bench_asm_labels
	$(BUILD)/bench/rvnpu/bench_rvnpu
	$(BUILD)/bench/opennpu/bench_opennpu
	$(BUILD)/bench/tinytpu/bench_tinytpu
	$(BUILD)/bench/pccx/bench_pccx
	$(BUILD)/bench/pccx/pccx_gemma --split

clean:
	rm -rf $(BUILD) $(SAN_BUILD)

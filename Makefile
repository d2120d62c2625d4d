# Thin wrapper around CMake. `make run` and `make test` install missing
# Debian packages first (scripts/deps.sh), so both work on a fresh machine.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
ifeq ($(CI),true)
CMAKE_FLAGS += -DUIAP_WERROR=ON
endif

.PHONY: all deps build run test asan-build asan-test fuzz-build unit e2e clean install package

all: build

deps:
	@bash scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@bash scripts/run-demo.sh $(BUILD)/uiap-crawl

# Every test in the normal build, then the unit suites and the snapshot
# end-to-end suite again under AddressSanitizer + UBSan (the documented
# subset: the full ASan run is `make asan-test`, ~2x slower). TEST_JOBS
# tests at a time (each end-to-end suite waits on its browser most of the
# time; the ones that measure time run alone: tests/CMakeLists.txt).
TEST_JOBS ?= 2
test: build asan-build fuzz-build
	@cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS)
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(TEST_JOBS) -R '^(unit_|e2e_snapshot|e2e_soak)'
	@bash scripts/fuzz-smoke.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 6
# libFuzzer targets (tests/fuzz), built with clang; `make test` runs each for
# FUZZ_SECONDS on a copy of its seed corpus.
fuzz-build: deps
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DUIAP_FUZZ=ON -DUIAP_TESTS=OFF >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) >/dev/null

# `make install PREFIX=/usr/local` (binary, man page, docs); `make package`:
# build/uiap-crawl_<version>_<arch>.deb (apt-get install ./build/uiap-crawl_*.deb)
PREFIX ?= /usr/local
install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

package: build
	@cd $(BUILD) && cpack

asan-build: deps
	@cmake -S . -B $(ASAN_BUILD) -DUIAP_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

asan-test: asan-build
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j 1

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) out

# Thin wrapper around CMake. `make run` and `make test` install missing
# Debian packages first (scripts/deps.sh), so both work on a fresh machine.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
ifeq ($(CI),true)
CMAKE_FLAGS += -DUIAP_WERROR=ON
endif

.PHONY: all deps build run test asan-test unit e2e clean

all: build

deps:
	@bash scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@bash scripts/run-demo.sh $(BUILD)/uiap-crawl

test: build
	@cd $(BUILD) && ctest --output-on-failure -j 1

asan-test: deps
	@cmake -S . -B $(ASAN_BUILD) -DUIAP_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j 1

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) out

# cfa-lite: the two commands of README.md, and their parts.
#
#   make demo    set up, build, run the showcase program
#   make check   set up, build build/ build-asan/ build-tsan/ build-debug/,
#                run every test
#   make verify  model-check the runtime's protocols with SPIN
#                (runtime/verify/run.sh lists them)
#
# Parts: setup, build, build-asan, build-tsan, build-debug, test, bench, clean.
# JOBS=n limits build parallelism (default: number of CPUs).

SHELL   := /bin/bash
CC      := clang-19
CXX     := clang++-19
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
BUILD_TYPE ?= RelWithDebInfo
export CC CXX

.PHONY: all setup build build-asan build-tsan build-debug demo check verify test bench clean

all: build

setup:
	@scripts/setup.sh

# One configure+build rule for the three build directories.
#  $(1): directory  $(2): extra CMake arguments
define cmake_build
	@if [ ! -f $(1)/build.ninja ]; then \
	  cmake -S . -B $(1) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	    -DCMAKE_C_COMPILER=$(CC) -DCMAKE_CXX_COMPILER=$(CXX) $(2) >/dev/null \
	  || { rm -f $(1)/build.ninja; exit 1; }; fi
	ninja -C $(1) -j $(JOBS)
endef

build: setup
	$(call cmake_build,build,)

build-asan: setup
	$(call cmake_build,build-asan,-DCFA_SANITIZE=address)

build-tsan: setup
	$(call cmake_build,build-tsan,-DCFA_SANITIZE=thread)

# The runtime checking its invariants (CFA_DEBUG, docs/architecture.md);
# its tests borrow build/'s cfacc.
build-debug: build
	$(call cmake_build,build-debug,-DCFA_DEBUG=ON -DCFA_SANITIZER_VARIANTS=OFF -DCFA_BUILD_COMPILER=OFF -DCFA_HOST_CFACC=$(CURDIR)/build/compiler/cfacc)

# The showcase: a cfa-lite program (threads, coroutines, processors).
demo: build
	build/compiler/cfacc -O2 -g -Wall examples/showcase.cfa -o build/showcase
	build/showcase

# Everything: builds, lit on the three build trees, the stress pass, and a
# final "N passed, N failed" line. See scripts/check.sh.
check: setup
	@JOBS=$(JOBS) scripts/check.sh

# The idle-sleep / wake-up protocol and the pthread condition variable's,
# checked exhaustively by SPIN; also shows that a broken variant of each
# is caught. See runtime/verify/run.sh, docs/scheduler.md, docs/pthreads.md.
verify: setup
	@CC=$(CC) runtime/verify/run.sh

# Only the lit suites of build/ (no set-up, no sanitizer builds).
test: build
	@scripts/check.sh --normal-only --no-build

# Every suite against its peers (bench/run; results in build-bench/results).
# BENCH_ARGS passes options, e.g. BENCH_ARGS="-n 3 --suite sched".
bench: build
	bench/run $(BENCH_ARGS)

clean:
	rm -rf build build-asan build-tsan build-debug

# spraysim build. Plain make, no configure step.
#   make            build bin/spraysim (optimised)
#   make run        build and run the default experiment (one.cm on its fat tree)
#   make test       install the test framework if missing, build and run every test
#   make asan       the same tests under AddressSanitizer + UndefinedBehaviorSanitizer,
#                   with the invariant checks (SPRAYSIM_CHECKS, src/core/core.h) on
#   make asan-clang the same, built by clang (installed when missing)
#   make debug      the same tests at -O0 -g with the invariant checks on; leaves
#                   build-debug/spraysim for a debugger
#   make coverage   the same tests on a gcov build (build-cov), then line and branch coverage of src/
#   make bench      the benchmark suite (minutes; not part of the tests), then
#                   bench-reference (the reference's validate*.txt suite), bench-poisson
#   make bench-poisson  seed 001's 144-host leaf-spine, WKb at 50% load for 10 ms, NSCC, DCTCP, SIRD, Homa
#   make bench-stream  memory of ~10 million open-loop messages with --stream (minutes)
#   make bench-speed   issue 14's targets, side by side with the reference (HTSIM=...), MPI, 65,536 hosts
#   make bench-cc   instructions per ACK and state bytes of every CC module (valgrind)
#   make figures    rerun every sweep under experiments/ from scratch and write its
#                   HTML report (experiments/reports/); installs python3-matplotlib
#   make test-report  render a sweep report in headless Chromium (installed when
#                   missing) and check the screenshot is not blank
#   make fuzz       install clang if missing, build the libFuzzer harnesses and run
#                   each for FUZZ_SECONDS (default 180); see tests/fuzz/README.md
#   make fuzz-merge add what `make fuzz` found that covers new code to the
#                   committed corpus (tests/fuzz/NAME/corpus)
#   make mpi        bin/spraysim-mpi: parallel runs over MPI (README "Parallel runs
#                   (MPI)"), built by Debian's Open MPI (installed when missing)
#   make mutation   flip operators and constants at MUT_SITES sites (default 200, seed
#                   MUT_SEED) across src/ and count the mutants the tests kill, per
#                   module (tools/mutation.py; README "Mutation testing")
#   make clean

CC      ?= gcc
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wundef
OPT     ?= -O2 -g -march=x86-64-v2
CFLAGS  ?=
# -DSPRAYSIM_CHECKS compiles the invariant checks in (asan and debug builds);
# the shipped binary leaves them out and pays nothing for them.
CHECKS  ?=
ALLFLAGS = $(CSTD) $(WARN) $(OPT) $(CHECKS) $(CFLAGS)
# Link-time optimisation of the shipped binary (gcc): the per-packet path
# crosses files (net.c -> events.c, transport -> net.c) and inlining across
# them saves instructions (README "Performance"). Objects are fat, so the
# tests link the same objects without it: NOLTO_LINK (-fno-lto) makes them
# link the objects' plain code (gcc's linker plugin would otherwise rerun
# the whole-program optimisation for each of the ~30 test programs); asan,
# debug, coverage and fuzz builds turn it off (LTO=).
LTO     ?= $(if $(filter gcc cc mpicc,$(notdir $(CC))),-flto=auto -ffat-lto-objects,)
LDLIBS  := -lm
NOLTO_LINK = $(if $(LTO),-fno-lto,)
# The shipped binary is linked statically, with LTO (the sanitizer, debug,
# coverage and fuzz builds, which set LTO=, and clang builds stay dynamic):
# libc's and libm's shared pages were 2 MB of every run's resident memory,
# 2 KB per host at 1024 hosts (README "Performance": 10.2 -> 8.9 MB on the
# 1024-node permutation, same instructions). valgrind's memcheck and massif
# cannot follow malloc in a static binary: build with `make STATIC=` for them.
STATIC  ?= $(if $(LTO),-static,)

SRC_LIB := $(filter-out src/cli/main.c src/mpi/%,$(wildcard src/*.c src/*/*.c))
SRC_ALL := $(SRC_LIB) src/cli/main.c

BUILD   ?= build
OBJ_LIB := $(patsubst src/%.c,$(BUILD)/%.o,$(SRC_LIB))
TESTS   := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_*.c))

# Fuzz harnesses: every tests/fuzz/fuzz_NAME.c, built twice: with gcc and a
# replay main for the tests (replays tests/fuzz/NAME/corpus and crashes), and
# with clang's libFuzzer for `make fuzz`.
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRC))
FUZZ_REPLAY  := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz-replay/%,$(FUZZ_SRC))
FUZZ_BUILD   := build/fuzz
FUZZ_SECONDS ?= 180
FUZZ_JOBS    ?= 1
FUZZ_FLAGS   ?=
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

SHARED  ?= ../shared

.PHONY: mpi mpi-deps mutation shared-data
.PHONY: docs figures test-report py-deps plot-deps all run test asan asan-clang debug coverage bench bench-reference bench-speed bench-poisson bench-stream bench-cc clean deps FORCE fuzz fuzz-merge fuzz-build fuzz-binaries fuzz-deps

BIN     ?= bin/spraysim

all: $(BIN)

$(BIN): $(OBJ_LIB) $(BUILD)/cli/main.o
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) $(LTO) $(STATIC) -o $@ $^ $(LDLIBS)

# Each object lists the headers it includes (-MMD writes build/X.d, -MP
# adds an empty rule per header so a deleted header does not stop make):
# a header edit rebuilds only the objects that include it. An object whose
# .d is missing (built before this rule) is rebuilt once to write it.
DEPFLAGS = -MMD -MP
$(BUILD)/%.o: src/%.c $(BUILD)/%.d
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) $(LTO) $(DEPFLAGS) -c -o $@ $<

# The git commit goes into version.o only (--version, summary.json), which is
# rebuilt only when the commit changes: the stamp is rewritten when it differs.
GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)
$(BUILD)/core/version.o: src/core/version.c $(BUILD)/core/version.d $(BUILD)/commit.stamp
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) $(LTO) $(DEPFLAGS) -DSPRAYSIM_COMMIT='"$(GIT_COMMIT)"' -c -o $@ $<

$(BUILD)/commit.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(GIT_COMMIT)' | cmp -s - $@ || echo '$(GIT_COMMIT)' > $@

FORCE:

# The shared scenario data (../shared beside the checkout, or SHARED=) is
# where the default experiment and the tests read their matrices: without
# it, one line saying how to point at it, before anything is built.
shared-data:
	@[ -d "$(SHARED)/data" ] || { echo "spraysim: no shared data at $(SHARED)/data: put the shared folder beside the checkout, or give its path: make $(MAKECMDGOALS) SHARED=/path/to/shared"; exit 2; }

# What the tests need from Debian, installed in one apt-get when missing
# (the quick start runs as root on a fresh Debian machine): cmocka (unit
# tests), python3 and matplotlib (tools/sweep and its report tests), an MPI
# (tests/mpi_test.sh; Open MPI unless mpicc is already there, so a machine
# with MPICH keeps it); then python3-venv and pandas for the Python
# package's test (tests/python_test.sh), without their recommends (pandas'
# pull in numba and HDF5). Calls in sequence in one recipe, because several
# apt-gets at once under `make -j` fail on apt's lock.
deps:
	@missing=""; \
	[ -f /usr/include/cmocka.h ] || missing="$$missing libcmocka-dev"; \
	[ -x /usr/bin/python3 ] || missing="$$missing python3 python3-matplotlib"; \
	[ ! -x /usr/bin/python3 ] || /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || missing="$$missing python3-matplotlib"; \
	command -v mpicc >/dev/null 2>&1 || missing="$$missing libopenmpi-dev openmpi-bin"; \
	if [ -n "$$missing" ]; then \
	  echo "installing$$missing (needed by the tests)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null) || \
	  { echo "could not install$$missing; install them and re-run"; exit 1; }; \
	fi; \
	pymissing=""; \
	/usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null || pymissing="$$pymissing python3-venv"; \
	/usr/bin/python3 -c 'import pandas' 2>/dev/null || pymissing="$$pymissing python3-pandas"; \
	if [ -n "$$pymissing" ]; then \
	  echo "installing$$pymissing (the Python package's tests)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$pymissing >/dev/null) || \
	  { echo "could not install$$pymissing; install them and re-run"; exit 1; }; \
	fi

$(BUILD)/tests/%: tests/%.c $(OBJ_LIB) | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) $(DEPFLAGS) $(NOLTO_LINK) -Wno-missing-prototypes -Isrc -o $@ $< $(OBJ_LIB) -lcmocka $(LDLIBS)

# gcc build of each harness with the replay main (tests/fuzz/replay.sh runs them)
$(BUILD)/fuzz-replay/%: tests/fuzz/%.c tests/fuzz/replay_main.c $(OBJ_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) $(DEPFLAGS) $(NOLTO_LINK) -Isrc -o $@ $< tests/fuzz/replay_main.c $(OBJ_LIB) $(LDLIBS)

# tools/sweep runs on Debian's python3 (3.11: tomllib, sqlite3); figures need
# its matplotlib (the python3 first on PATH may not see Debian's packages).
py-deps:
	@if [ ! -x /usr/bin/python3 ]; then \
	  echo "installing python3 (tools/sweep)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 >/dev/null) || \
	  { echo "could not install python3; install it and re-run"; exit 1; }; \
	fi

plot-deps: py-deps
	@if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then \
	  echo "installing python3-matplotlib (figures)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-matplotlib >/dev/null) || \
	  { echo "could not install python3-matplotlib; install it and re-run"; exit 1; }; \
	fi

figures: shared-data plot-deps $(BIN)
	@SHARED=$(SHARED) SPRAYSIM=$(BIN) sh experiments/figures.sh

test-report: plot-deps $(BIN)
	@command -v chromium >/dev/null 2>&1 || { echo "installing chromium (headless render)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	  { echo "could not install chromium; install it and re-run"; exit 1; }; }
	@SHARED=$(SHARED) SPRAYSIM=$(BIN) sh tests/report_test.sh

run: shared-data $(BIN)
	./$(BIN) -tm $(SHARED)/data/htsim/matrices/one.cm -sender_cc_only

# tests/mpi_test.sh compares 1-, 2- and 3-process runs with the plain
# binary: deps installs an MPI where none is, so the test runs
# (not skips) on a fresh machine; bin/spraysim-mpi is built optimised,
# whatever this build's flags.
test: shared-data deps $(BIN) $(TESTS) $(FUZZ_REPLAY)
	@$(MAKE) --no-print-directory mpi OPT="-O2 -g -march=x86-64-v2" CHECKS= LDLIBS=-lm CFLAGS= >/dev/null || exit 1
	@SHARED=$(SHARED) BUILD=$(BUILD) SPRAYSIM=$(BIN) SPRAYSIM_MPI=bin/spraysim-mpi sh tests/run_all.sh $(TESTS)

# The flag reference and the man page, generated from the option table
# (src/cli/option_table.c) and the registries; both are committed, and
# tests/docs_test.sh fails when either differs from what the binary prints.
docs: $(BIN)
	@mkdir -p docs man
	$(BIN) --help-format=markdown >docs/flags.md.tmp && mv docs/flags.md.tmp docs/flags.md
	$(BIN) --help-format=man >man/spraysim.1.tmp && mv man/spraysim.1.tmp man/spraysim.1

ASAN_DIR ?= build-asan
asan:
	$(MAKE) test LTO= BUILD=$(ASAN_DIR) BIN=$(ASAN_DIR)/spraysim OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	  LDLIBS="-lm -fsanitize=address,undefined" CHECKS=-DSPRAYSIM_CHECKS

debug:
	$(MAKE) test LTO= BUILD=build-debug BIN=build-debug/spraysim OPT="-O0 -g" CHECKS=-DSPRAYSIM_CHECKS

# The same suite built by clang, whose UBSan finds what gcc's misses (an
# offset from a NULL array, float-to-integer overflow). Installs clang if missing.
asan-clang:
	@command -v clang >/dev/null 2>&1 || { echo "installing clang"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null) || \
	  { echo "could not install clang; install it and re-run"; exit 1; }; }
	$(MAKE) asan CC=clang ASAN_DIR=build-asan-clang

# Counts start from zero each time (stale .gcda files would add up); the
# summary is printed even when a test fails, and the failure is kept.
coverage:
	@find build-cov -name '*.gcda' -exec rm -f {} + 2>/dev/null || true
	@$(MAKE) test LTO= BUILD=build-cov BIN=build-cov/spraysim OPT="-O0 -g --coverage" LDLIBS="-lm --coverage"; \
	  rc=$$?; sh tests/coverage.sh build-cov; exit $$rc

# What each CC module costs per ACK outside the simulator (instructions per
# call from valgrind, state bytes per flow): bench/cc_cost.sh.
$(BUILD)/bench/cc_cost: bench/cc_cost.c $(OBJ_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) -Isrc -o $@ $< $(OBJ_LIB) $(LDLIBS)

bench-cc: $(BUILD)/bench/cc_cost
	@command -v valgrind >/dev/null 2>&1 || { echo "installing valgrind"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null) || \
	  { echo "could not install valgrind; install it and re-run"; exit 1; }; }
	@CC_COST=$(BUILD)/bench/cc_cost sh bench/cc_cost.sh

bench: shared-data $(BIN)
	@SHARED=$(SHARED) sh bench/run.sh
	@$(MAKE) --no-print-directory bench-reference
	@SHARED=$(SHARED) sh bench/poisson.sh
	@SHARED=$(SHARED) sh bench/stream.sh
	@$(MAKE) --no-print-directory bench-speed

# Issue 14's targets side by side with the reference (HTSIM=path/htsim_uec;
# README "Performance"): plain and 2-process runs, memory per host.
bench-speed: shared-data $(BIN) mpi
	@SHARED=$(SHARED) sh bench/speed.sh

# The reference's own regression suite (uet-htsim sim/datacenter/
# validate*.txt, every htsim_uec experiment) on spraysim: side by side with
# HTSIM=path/htsim_uec, else against bench/reference_suite.tsv; needs the
# reference's files (HTSIM_SRC=.../htsim/sim/datacenter, or derived from
# HTSIM), and says it skipped without them. REFSUITE_ARGS goes to the
# script, e.g. REFSUITE_ARGS="--only 'both.txt#13' -j 1".
REFSUITE_ARGS ?=
bench-reference: shared-data $(BIN) py-deps
	@HTSIM="$(HTSIM)" HTSIM_SRC="$(HTSIM_SRC)" /usr/bin/python3 bench/reference_suite.py --spraysim $(BIN) $(REFSUITE_ARGS)

bench-poisson: shared-data $(BIN)
	@SHARED=$(SHARED) sh bench/poisson.sh

bench-stream: shared-data $(BIN)
	@SHARED=$(SHARED) sh bench/stream.sh

# libFuzzer needs clang: install Debian's when it is missing, as deps does cmocka.
fuzz-deps:
	@if ! command -v clang >/dev/null 2>&1; then \
	  echo "installing clang (libFuzzer)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null) || \
	  { echo "could not install clang; install it and re-run"; exit 1; }; \
	fi

# The library and harnesses built by clang with coverage instrumentation and
# the sanitizers into $(FUZZ_BUILD), linked with libFuzzer's main.
fuzz-build: fuzz-deps
	$(MAKE) fuzz-binaries LTO= BUILD=$(FUZZ_BUILD) CC=clang OPT="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
	  LDLIBS="-lm -fsanitize=fuzzer $(FUZZ_SAN)"

fuzz-binaries: $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))

$(BUILD)/fuzz/%: tests/fuzz/%.c $(OBJ_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) $(DEPFLAGS) -Isrc -o $@ $< $(OBJ_LIB) $(LDLIBS)

fuzz: fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_FLAGS="$(FUZZ_FLAGS)" \
	  sh tests/fuzz/fuzz.sh run $(FUZZ_NAMES)

fuzz-merge: fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) sh tests/fuzz/fuzz.sh merge $(FUZZ_NAMES)

# Parallel runs: the same sources built by mpicc with src/mpi/ and
# -DSPRAYSIM_MPI (main.c's hooks); the plain build never needs MPI.
# Another MPI beside the default one: e.g. make mpi MPICC=mpicc.mpich
# MPI_BUILD=build-mpich MPI_BIN=bin/spraysim-mpich (tests/mpi_test.sh picks
# the launcher that matches the binary's library).
MPI_BUILD ?= build-mpi
MPICC ?= mpicc
MPI_BIN ?= bin/spraysim-mpi
mpi-deps:
	@command -v mpicc >/dev/null 2>&1 || { echo "installing libopenmpi-dev openmpi-bin (MPI)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenmpi-dev openmpi-bin >/dev/null) || \
	  { echo "could not install Open MPI; install libopenmpi-dev and openmpi-bin and re-run"; exit 1; }; }

# The objects of one MPI do not link with another's library: when $(MPICC)
# now stands for another MPI than the one MPI_BUILD was built with (Debian's
# alternatives switched between Open MPI and MPICH), the build starts afresh.
mpi: mpi-deps
	@id=$$($(MPICC) -show 2>/dev/null); \
	  if [ "$$id" != "$$(cat $(MPI_BUILD)/mpicc.id 2>/dev/null)" ]; then \
	    rm -rf $(MPI_BUILD) $(MPI_BIN); mkdir -p $(MPI_BUILD); echo "$$id" >$(MPI_BUILD)/mpicc.id; \
	  fi
	@$(MAKE) --no-print-directory $(MPI_BIN) BUILD=$(MPI_BUILD) CC=$(MPICC) CFLAGS="$(CFLAGS) -DSPRAYSIM_MPI"

$(MPI_BIN): $(OBJ_LIB) $(BUILD)/cli/main.o $(BUILD)/mpi/pdes.o
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) $(LTO) -o $@ $^ $(LDLIBS)

# Mutation testing (issue 26): each mutant is made in a copy of the tree, so
# src/ is never left mutated; nice, since a run takes tens of minutes.
MUT_SITES ?= 200
MUT_SEED  ?= 1
mutation: deps
	@SHARED=$(SHARED) nice /usr/bin/python3 tools/mutation.py --sites $(MUT_SITES) --seed $(MUT_SEED)

clean:
	rm -rf build build-asan build-asan-clang build-debug build-cov build-mpi build-mpich bin

# the header dependencies -MMD wrote (absent before the first build)
DEPFILES := $(patsubst src/%.c,$(BUILD)/%.d,$(wildcard src/*.c src/*/*.c))
$(DEPFILES): ;
-include $(shell find $(BUILD) $(MPI_BUILD) -name '*.d' 2>/dev/null)

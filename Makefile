# jitterlab build.
#
# `make` builds build/jitterlab. `make run` and `make test` first run the
# deps step (installs missing Debian packages when root, prints the command
# otherwise), then build in a sub-make so that pkg-config sees the freshly
# installed libraries. `make asan` builds a sanitized tree in build-asan/ and
# runs the whole suite with it, then replays the fuzz corpora under valgrind
# with a plain build (a read into a neighbouring heap block passes ASan's
# redzones, not memcheck); `make valgrind` runs the unit tests and the
# corpora under valgrind; `make lint` runs clang-format (check only) and cppcheck.
# `make mutants` runs the mutation harness (tools/mutants.sh). `make install`
# also installs the service files (contrib/); `make deb` builds the Debian
# package into build/deb/.

PREFIX  ?= /usr/local
BUILD   ?= build
CC      ?= gcc
NPROC   := $(shell nproc 2>/dev/null || echo 1)
PKGS    := jansson zlib libtracefs libtraceevent inih libmicrohttpd libcurl gsl
# Loaded with dlopen when an option needs them (src/common/dynlib.h): only
# their headers at build time, so that a run does not lock their TLS stack.
DLOPEN_PKGS := libmicrohttpd libcurl
TEST_PKGS := cmocka

# Debian packages: build, test and benchmark peers.
DEB_PKGS := gcc make pkg-config libjansson-dev libcmocka-dev zlib1g-dev libtracefs-dev libtraceevent-dev libgsl-dev \
            libinih-dev libmicrohttpd-dev libcurl4-openssl-dev rt-tests chromium \
            prometheus influxdb curl dpkg-dev debhelper bash-completion \
            valgrind cppcheck clang-format procps python3 python3-scipy \
            clang libclang-rt-14-dev

WARN    := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wvla
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=c17 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) -pthread -Isrc \
             $(shell pkg-config --cflags $(PKGS))
LDLIBS_ALL = $(shell pkg-config --libs $(filter-out $(DLOPEN_PKGS),$(PKGS))) -pthread -lm -ldl
TEST_CFLAGS = $(shell pkg-config --cflags $(TEST_PKGS))
TEST_LIBS   = $(shell pkg-config --libs $(TEST_PKGS))

SRC      := $(wildcard src/*.c src/*/*.c)
# Everything but main.o, so that unit tests also reach the option parsers.
LIB_SRC  := $(filter-out src/main.c,$(SRC))
OBJ      := $(SRC:src/%.c=$(BUILD)/obj/%.o)
LIB_OBJ  := $(LIB_SRC:src/%.c=$(BUILD)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRC := $(wildcard tests/e2e/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/e2e/helpers/%.c=$(BUILD)/tests/%)

.PHONY: all deps run test check loop-variants loop-variants-syntax loop-probes asan valgrind lint format install uninstall clean tests mutants deb

all: $(BUILD)/jitterlab

$(BUILD)/jitterlab: $(OBJ)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL) $(EXTRA_LDFLAGS)

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -o $@ $< $(LIB_OBJ) $(TEST_LIBS) $(LDLIBS_ALL) $(EXTRA_LDFLAGS)

$(BUILD)/tests/%: tests/e2e/helpers/%.c tests/e2e/helpers/helper.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDLIBS_ALL) $(EXTRA_LDFLAGS)

# The collector's throughput harness (bench/collector.sh; a test runs it small).
$(BUILD)/bench/collector-bench: bench/collector_bench.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDLIBS_ALL) $(EXTRA_LDFLAGS)

# The end of a run's tail analysis on many synthetic CPUs (bench/tail-run.sh).
$(BUILD)/bench/tail-run-bench: bench/tail_run_bench.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDLIBS_ALL) $(EXTRA_LDFLAGS)

# The tail analysis's cost on 256 synthetic CPUs (bench/tail-cost.sh).
$(BUILD)/bench/tail-bench: bench/tail_bench.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDLIBS_ALL) $(EXTRA_LDFLAGS)

# What one more page costs a cycle (bench/page_cost.c; a test runs it small).
$(BUILD)/bench/page-cost: bench/page_cost.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDLIBS_ALL) $(EXTRA_LDFLAGS)

# The product with the loop's probe compiled in (engine/loop_probe.h): its
# objects, engine_threads.c built again with LOOP_PROBE. A test runs it.
PROBE_OBJ := $(BUILD)/probe-check/engine_threads.o
$(PROBE_OBJ): src/engine/engine_threads.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DLOOP_PROBE -MMD -MP -c -o $@ $<
$(BUILD)/probe-check/jitterlab: $(filter-out $(BUILD)/obj/engine/engine_threads.o,$(OBJ)) $(PROBE_OBJ)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL) $(EXTRA_LDFLAGS)

tests: $(BUILD)/jitterlab $(UNIT_BIN) $(HELPER_BIN) $(BUILD)/bench/collector-bench $(BUILD)/bench/page-cost \
       $(BUILD)/bench/tail-bench $(BUILD)/bench/tail-run-bench $(BUILD)/probe-check/jitterlab

-include $(OBJ:.o=.d) $(PROBE_OBJ:.o=.d)

deps:
	@sh tools/deps.sh $(DEB_PKGS)

run: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	./$(BUILD)/jitterlab run

test: deps
	@$(MAKE) --no-print-directory -j$(NPROC) tests
	@sh tests/run.sh $(BUILD)

check: test

# The overhead experiment's builds of the cycle loop (engine_threads.c,
# LOOP_VARIANT): build/variant-N/jitterlab, for bench/vs-cyclictest.sh -b.
LOOP_VARIANTS := 1 2 3 4 5 6 7
loop-variants: $(BUILD)/jitterlab
	@for v in $(LOOP_VARIANTS); do \
	    $(MAKE) -s --no-print-directory BUILD=$(BUILD)/variant-$$v \
	        EXTRA_CFLAGS="$(EXTRA_CFLAGS) -DLOOP_VARIANT=$$v" $(BUILD)/variant-$$v/jitterlab || exit 1; \
	done

# Every variant, the product's loop (0) too, with and without the probe,
# compiled with the build's flags and nothing written: the bench builds must
# not rot unseen (tests/e2e/loop_probe.sh runs it).
loop-variants-syntax:
	@for v in 0 $(LOOP_VARIANTS); do for p in "" -DLOOP_PROBE; do \
	    $(CC) $(ALL_CFLAGS) -DLOOP_VARIANT=$$v $$p -fsyntax-only src/engine/engine_threads.c || \
	        { echo "loop variant $$v $$p does not compile" >&2; exit 1; }; \
	done; done

# The same loop with the in-loop probe (engine/loop_probe.h), for
# bench/loop-probe.sh: build/probe-N/jitterlab, N as above (0: the product).
LOOP_PROBES := 0 3 4 5 6 7
loop-probes:
	@for v in $(LOOP_PROBES); do \
	    $(MAKE) -s --no-print-directory BUILD=$(BUILD)/probe-$$v \
	        EXTRA_CFLAGS="$(EXTRA_CFLAGS) -DLOOP_VARIANT=$$v -DLOOP_PROBE" $(BUILD)/probe-$$v/jitterlab || exit 1; \
	done

asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan \
	    EXTRA_CFLAGS="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    EXTRA_LDFLAGS="-fsanitize=address,undefined" tests
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 sh tests/run.sh build-asan
	@$(MAKE) --no-print-directory -j$(NPROC) $(REPLAY_BIN)
	@JL_REPLAY_VALGRIND=1 sh tests/run.sh $(BUILD) fuzz_corpus

# Mutation testing (not part of test): each tests/mutants/*.mutant is applied
# to a copy of the tree and must make a test fail. MUTANTS_FULL=1 runs the
# whole suite per mutant instead of the patterns each mutant names.
mutants:
	@sh tools/mutants.sh

valgrind: deps
	@$(MAKE) --no-print-directory tests
	@sh tests/run.sh $(BUILD) --valgrind
	@JL_REPLAY_VALGRIND=1 sh tests/run.sh $(BUILD) fuzz_corpus

lint:
	clang-format --dry-run --Werror $(SRC) $(wildcard src/*/*.h) $(UNIT_SRC) $(HELPER_SRC) bench/*.c
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	    --inline-suppr --std=c11 -D_GNU_SOURCE -Isrc $(SRC)

format:
	clang-format -i $(SRC) $(wildcard src/*/*.h) $(UNIT_SRC) $(HELPER_SRC) bench/*.c

# `make install` puts the binary and the man page under PREFIX, and beside
# them the service: the systemd unit (its ExecStart and EnvironmentFile
# pointed at PREFIX and SYSCONFDIR), the environment file (never over one
# that is there: it is the machine's configuration), the bash completion,
# and the Grafana and Prometheus examples in DATADIR. `make uninstall`
# leaves the environment file. The Debian package (debian/rules) installs
# with PREFIX=/usr and UNITDIR=/lib/systemd/system.
SYSCONFDIR    ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR       ?= $(PREFIX)/lib/systemd/system
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
DATADIR       ?= $(PREFIX)/share/jitterlab
ENV_FILE       = $(DESTDIR)$(SYSCONFDIR)/default/jitterlab
DATA_FILES    := grafana/jitterlab.json grafana/datasource.yml grafana/dashboards.yml \
                 prometheus/jitterlab.rules.yml prometheus/prometheus.yml

install: $(BUILD)/jitterlab
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BUILD)/jitterlab $(DESTDIR)$(PREFIX)/bin/jitterlab
	install -m 0644 docs/jitterlab.1 $(DESTDIR)$(PREFIX)/share/man/man1/jitterlab.1
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/default $(DESTDIR)$(COMPLETIONDIR) \
	    $(DESTDIR)$(DATADIR)/grafana $(DESTDIR)$(DATADIR)/prometheus
	sed -e 's|/usr/bin/jitterlab|$(PREFIX)/bin/jitterlab|g' \
	    -e 's|/etc/default/jitterlab|$(SYSCONFDIR)/default/jitterlab|g' \
	    contrib/systemd/jitterlab.service >$(DESTDIR)$(UNITDIR)/jitterlab.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/jitterlab.service
	@if [ -e $(ENV_FILE) ]; then echo "kept $(ENV_FILE)"; else \
	    echo "install -m 0644 contrib/systemd/jitterlab.conf $(ENV_FILE)"; \
	    install -m 0644 contrib/systemd/jitterlab.conf $(ENV_FILE); fi
	install -m 0644 contrib/bash-completion/jitterlab $(DESTDIR)$(COMPLETIONDIR)/jitterlab
	for f in $(DATA_FILES); do install -m 0644 contrib/$$f $(DESTDIR)$(DATADIR)/$$f || exit 1; done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/jitterlab $(DESTDIR)$(PREFIX)/share/man/man1/jitterlab.1
	rm -f $(DESTDIR)$(UNITDIR)/jitterlab.service $(DESTDIR)$(COMPLETIONDIR)/jitterlab \
	    $(DATA_FILES:%=$(DESTDIR)$(DATADIR)/%)
	rmdir $(DESTDIR)$(DATADIR)/grafana $(DESTDIR)$(DATADIR)/prometheus $(DESTDIR)$(DATADIR) 2>/dev/null || true

# `make deb` builds the Debian package (debian/; its rules build into
# build-deb/, so build/ and the other build trees stay as they are) and moves
# the .deb files dpkg-buildpackage wrote into .. to $(BUILD)/deb/, removing
# the .buildinfo and .changes it left beside them. The package build does
# not see how this make was called; DEB_BUILD_OPTIONS passes through.
deb:
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dpkg-buildpackage -b -us -uc
	@mkdir -p $(BUILD)/deb
	@v=$$(dpkg-parsechangelog -S Version | sed 's/^[0-9]*://'); \
	changes=../jitterlab_$${v}_$$(dpkg-architecture -qDEB_HOST_ARCH).changes; \
	files=$$(sed -n '/^Files:/,/^[^ ]/s/^ [^ ]* [^ ]* [^ ]* [^ ]* \([^ ]*\)$$/\1/p' $$changes); \
	[ -n "$$files" ] || { echo "no files listed in $$changes" >&2; exit 1; }; \
	for f in $$files; do \
	    case $$f in \
	    *.deb) mv ../$$f $(BUILD)/deb/ && echo "$(BUILD)/deb/$$f" || exit 1 ;; \
	    *) rm -f ../$$f ;; \
	    esac; \
	done; \
	rm -f $$changes

clean:
	rm -rf build build-asan

# Parser fuzzing (tests/fuzz/, docs/testing.md). `make fuzz` builds one
# libFuzzer binary per tests/fuzz/fuzz_NAME.c with clang into build-fuzz/;
# `make fuzz-run` runs each for FUZZ_TIME seconds, one at a time, starting
# from tests/fuzz/corpus/NAME (new inputs go to build-fuzz/corpus/NAME, a
# crash to build-fuzz/crash-NAME-*). `make tests` builds a plain replay
# driver per target with $(CC), which tests/e2e/fuzz_corpus.sh runs over
# the committed corpus: make test needs no clang.
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES   := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_BUILD   ?= build-fuzz
FUZZ_CC      ?= clang
FUZZ_TIME    ?= 60
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS   = -std=c17 -D_GNU_SOURCE $(WARN) -g -O1 $(FUZZ_SAN) -pthread -Isrc -Itests/fuzz \
                $(shell pkg-config --cflags $(PKGS))
FUZZ_LIB_OBJ := $(LIB_SRC:src/%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_BIN     := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)
REPLAY_BIN   := $(FUZZ_NAMES:%=$(BUILD)/fuzz/replay_%)

.PHONY: fuzz fuzz-run

fuzz: $(FUZZ_BIN)

fuzz-run: fuzz
	@for t in $(FUZZ_NAMES); do \
	    mkdir -p $(FUZZ_BUILD)/corpus/$$t || exit 1; \
	    echo "fuzz $$t: $(FUZZ_TIME) s"; \
	    $(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_TIME) -print_final_stats=1 \
	        -artifact_prefix=$(FUZZ_BUILD)/crash-$$t- \
	        $(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

$(FUZZ_BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) $(LDLIBS_ALL)

$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/fuzz -o $@ $< tests/fuzz/replay.c $(LIB_OBJ) $(LDLIBS_ALL) $(EXTRA_LDFLAGS)

tests: $(REPLAY_BIN)

-include $(FUZZ_LIB_OBJ:.o=.d)

# Makefile for cgisnap. Knobs, not edits (see README):
#   make                 build ./cgisnap (objects under build/)
#   make SANITIZE=1      the same with AddressSanitizer + UndefinedBehaviorSanitizer
#   make test            install missing packages, build, run every test
#   make bench           the peer benchmarks (figures, never pass/fail)
#   make bench BENCH=apps  one section of them (bench/bench-apps.sh)
#   make fuzz            build the libFuzzer targets (clang), run each FUZZ_SECONDS
#   make install         PREFIX=/usr/local DESTDIR= honoured
#   make deb             build/deb/cgisnap_VERSION_ARCH.deb (debian/), checked by lintian
#   make V=1             show the commands
#   make DEVELOPER=1     warnings are errors (the default of make test, unit, fuzz);
#                        without it objects go to build/obj-warn (build/san-warn)
# Local settings can live in an uncommitted config.mak.

VERSION = 0.1.0
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
LIBDIR = $(PREFIX)/lib/cgisnap
MANDIR = $(PREFIX)/share/man/man1
PROFILEDIR = $(PREFIX)/share/cgisnap/profiles
DOCDIR = $(PREFIX)/share/doc/cgisnap
# systemd reads units from /usr/local/lib/systemd/system too; a package
# gives SYSTEMDUNITDIR=$(pkg-config --variable=systemdsystemunitdir systemd)
# (and COMPLETIONDIR=$(pkg-config --variable=completionsdir bash-completion)).
SYSTEMDUNITDIR = $(PREFIX)/lib/systemd/system
COMPLETIONDIR = $(PREFIX)/share/bash-completion/completions
# The site profiles and the helpers they run (profileopts.h).
PROFILE_FILES = $(wildcard profiles/*.conf profiles/*.php)
CC ?= cc
CFLAGS ?= -O2 -g
LDFLAGS ?=
PKG_CONFIG ?= pkg-config
PKGS = libxml-2.0 libmicrohttpd libcurl zlib sqlite3 libcrypto

-include config.mak

# Warnings are errors for the developers' targets (and so for CI): a
# packager's plain make, with a compiler newer than ours, only warns.
ifneq ($(filter test unit fuzz fuzz-build,$(MAKECMDGOALS)),)
DEVELOPER ?= 1
endif
ifeq ($(DEVELOPER),1)
WERROR = -Werror
endif
export DEVELOPER

ifeq ($(V),1)
Q =
else
Q = @
endif

ifeq ($(SANITIZE),1)
SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

# A library that pkg-config does not know stops the build at once, naming
# the Debian package to install rather than a header the compiler misses.
# The targets that install packages first (test, bench, demo, fuzz) check
# in the make they start after that.
PKG_DEB_libxml-2.0 = libxml2-dev
PKG_DEB_libmicrohttpd = libmicrohttpd-dev
PKG_DEB_libcurl = libcurl4-openssl-dev
PKG_DEB_zlib = zlib1g-dev
PKG_DEB_libcrypto = libssl-dev
PKG_DEB_sqlite3 = libsqlite3-dev
ifneq ($(filter-out clean deps deps-bench uninstall test bench demo fuzz,$(or $(MAKECMDGOALS),all)),)
ifeq ($(shell command -v $(PKG_CONFIG)),)
$(error cannot find '$(PKG_CONFIG)': install pkg-config (make deps installs what the build needs))
endif
PKG_MISSING := $(strip $(foreach p,$(PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) && echo y),,$(p))))
ifneq ($(PKG_MISSING),)
$(error missing $(foreach p,$(PKG_MISSING),'$(p)' (Debian package $(PKG_DEB_$(p))));\
 make deps installs what is missing)
endif
endif

PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra $(WERROR) -Wshadow -Wno-sign-compare \
	-Ilib -I. $(PKG_CFLAGS) -DCGISNAP_VERSION='"$(VERSION)"' -DCGISNAP_LIBDIR='"$(LIBDIR)"' \
	-DCGISNAP_PROFILEDIR='"$(PROFILEDIR)"' \
	$(SAN_FLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SAN_FLAGS) $(LDFLAGS)
LIBS = $(PKG_LIBS) -lpthread -lm

# Each mode keeps its own objects, so switching between a normal and a
# sanitizer build (or several people doing both) never mixes them; a
# build without DEVELOPER=1 keeps its own too (build/obj-warn), so that
# make and make test in turn do not rebuild everything each time.
ifeq ($(SANITIZE),1)
BUILD = build/san$(if $(WERROR),,-warn)
else
BUILD = build/obj$(if $(WERROR),,-warn)
endif
# lib/ is rooms (docs/hacking.md); the tracer, preloaded into CGI
# programs, is built apart (TRACE_SRCS).
TRACE_SRCS = lib/trace/preload.c lib/trace/preload_files.c lib/trace/preload_process.c \
	lib/trace/preload_children.c
SRCS = $(filter-out $(TRACE_SRCS),$(wildcard lib/*/*.c)) \
	$(wildcard snapshot/*.c serve/*.c watch/*.c bench/*.c config/*.c inspect/*.c verify/*.c)
OBJS = $(SRCS:%.c=$(BUILD)/%.o)
MAIN_OBJ = $(BUILD)/cgisnap.o
UNIT_SRCS = $(wildcard tests/unit/*.c)
UNIT_OBJS = $(UNIT_SRCS:%.c=$(BUILD)/%.o)
UNIT_RUNNER = $(BUILD)/tests/unit-runner
# The dependency tracer is preloaded into CGI programs (watch): it is never
# built with the sanitizers, whose runtime must come first in a process.
TRACE_LIB = build/cgisnap-trace.so

# The man page is made from the binary's own --help texts and the pages of
# docs/, the bash completion from the --help texts: never out of step.
MAN = build/cgisnap.1
COMPLETION = build/cgisnap.bash
# The systemd template units, with the installed binary's path in them.
UNIT_INS = $(wildcard contrib/*.service.in)
UNITS = $(UNIT_INS:contrib/%.in=build/units/%)
DOC_FILES = README.md LICENSE $(wildcard docs/*.md)

.PHONY: all test soak unit deps deps-bench bench demo deb install uninstall clean fuzz fuzz-build FORCE
all: cgisnap $(TRACE_LIB) $(MAN) $(COMPLETION) $(UNITS)

$(MAN): cgisnap tools/mkman.sh tools/md2roff.awk $(wildcard docs/*.md) build/BINDIR
	@$(if $(Q),echo '  MAN     $@')
	$(Q)tools/mkman.sh ./cgisnap $(LIBDIR) $(PROFILEDIR) $(SYSTEMDUNITDIR) $(DOCDIR) > $@.tmp && mv $@.tmp $@

$(COMPLETION): cgisnap tools/mkcompletion.sh
	@$(if $(Q),echo '  GEN     $@')
	$(Q)tools/mkcompletion.sh ./cgisnap > $@.tmp && mv $@.tmp $@

# build/BINDIR names the BINDIR the units were made for: another PREFIX
# remakes them.
build/BINDIR: FORCE
	@mkdir -p build
	@echo '$(BINDIR)' | cmp -s - $@ || echo '$(BINDIR)' > $@

build/units/%: contrib/%.in build/BINDIR
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  GEN     $@')
	$(Q)sed 's|@BINDIR@|$(BINDIR)|g' $< > $@.tmp && mv $@.tmp $@

# A change of flags (CFLAGS=...) rebuilds the mode's objects; build/LINKED
# names the mode ./cgisnap was last linked in, so switching modes relinks.
$(BUILD)/FLAGS: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(LIBS)' | cmp -s - $@ || \
		echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(LIBS)' > $@

build/LINKED: FORCE
	@mkdir -p build
	@echo '$(BUILD)' | cmp -s - $@ || echo '$(BUILD)' > $@

$(BUILD)/%.o: %.c $(BUILD)/FLAGS
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $<')
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

cgisnap: $(MAIN_OBJ) $(OBJS) build/LINKED
	@$(if $(Q),echo '  LINK    $@')
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(MAIN_OBJ) $(OBJS) $(LIBS)

$(UNIT_RUNNER): $(UNIT_OBJS) $(OBJS)
	@$(if $(Q),echo '  LINK    $@')
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(UNIT_OBJS) $(OBJS) $(LIBS)

# The tracer's own flags (never SAN_FLAGS) take the user's CFLAGS and
# LDFLAGS; a change of them rebuilds it, as for the objects.
TRACE_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra $(WERROR) -fPIC -Ilib $(CFLAGS)
TRACE_LDFLAGS = -shared $(LDFLAGS)

build/TRACE_FLAGS: FORCE
	@mkdir -p build
	@echo '$(CC) $(TRACE_CFLAGS) $(TRACE_LDFLAGS)' | cmp -s - $@ || \
		echo '$(CC) $(TRACE_CFLAGS) $(TRACE_LDFLAGS)' > $@

build/cgisnap-trace.so: $(TRACE_SRCS) lib/trace/preload.h lib/trace/protocol.h build/TRACE_FLAGS
	@$(if $(Q),echo '  LINK    $@')
	$(Q)$(CC) $(TRACE_CFLAGS) $(TRACE_LDFLAGS) -o $@ $(TRACE_SRCS) -ldl

deps:
	$(Q)tools/deps.sh build sites test deb

deps-bench:
	$(Q)tools/deps.sh build sites test deb bench

# make test T=t0110 runs only the tests whose names start with t0110.
# make test builds on every core unless make was given -j itself.
TEST_BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))

test:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory $(TEST_BUILD_JOBS) all $(UNIT_RUNNER)
	$(Q)SANITIZE=$(SANITIZE) UNIT_RUNNER=$(UNIT_RUNNER) tests/run $(T)

# make soak: the fault and endurance runs in full (make test runs them
# short): SOAK_KILLS kills of snapshot, watch and serve --fill (t0585),
# SOAK_SECONDS of watch and serve under edits and load (t0586),
# SOAK_CUTS power cuts of a throwaway filesystem under snapshot (t0587),
# a disk full at 15 points of a run (t0588), and SOAK_FAULTS failed
# writes, syncs and renames (t0589).
SOAK_KILLS ?= 200
SOAK_SECONDS ?= 600
SOAK_CUTS ?= 30
SOAK_FAULTS ?= 40

soak:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory $(TEST_BUILD_JOBS) all
	$(Q)KILLS=$(SOAK_KILLS) SOAK_SECONDS=$(SOAK_SECONDS) CUTS=$(SOAK_CUTS) FAULTS=$(SOAK_FAULTS) \
		FREE_STEPS='0 8 16 24 32 40 48 64 80 96 128 160 192 256 512' \
		TEST_TIMEOUT=7200 tests/run t0585 t0586 t0587 t0588 t0589

unit: all $(UNIT_RUNNER)
	$(Q)$(UNIT_RUNNER) $(T)

bench:
	$(Q)$(MAKE) --no-print-directory deps-bench
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bench/run-bench

# make deb: the Debian package, built by dpkg-buildpackage from a copy of
# the source (no build/, no .git) under DEB_DIR/src, so that the .deb
# lands in DEB_DIR (build/deb); lintian then checks it (errors fail,
# warnings show).
DEB_DIR ?= build/deb
deb:
	$(Q)tools/deps.sh build deb
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	$(Q)tar -c --exclude=./build --exclude=./.git --exclude=./cgisnap --exclude=./config.mak . | tar -x -C $(DEB_DIR)/src
	$(Q)cd $(DEB_DIR)/src && DEB_BUILD_OPTIONS="parallel=$(shell nproc 2>/dev/null || echo 2) $$DEB_BUILD_OPTIONS" \
		dpkg-buildpackage -us -uc -b > ../build.log 2>&1 || \
		{ tail -20 ../build.log; echo "make deb: dpkg-buildpackage failed ($(DEB_DIR)/build.log)"; exit 1; }
	$(Q)lintian --fail-on error $(if $(filter 0,$(shell id -u)),--allow-root) $(DEB_DIR)/*.changes
	$(Q)ls $(DEB_DIR)/cgisnap_*.deb

demo:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh

# Fuzzing: each tests/fuzz/fuzz_NAME.c is a libFuzzer target, linked with
# the library sources it needs, all instrumented, under build/fuzz/ (apart
# from build/obj and build/san: SANITIZE does not change it). make fuzz runs
# each for FUZZ_SECONDS (or FUZZ_RUNS inputs) on FUZZ_CORPUS/NAME, a working copy of the committed
# seeds in tests/fuzz/corpus/NAME (which a run never writes); what it finds
# is saved as FUZZ_ARTIFACTS/NAME-crash-... and fails the run.
FUZZ_CC ?= clang
FUZZ_CFLAGS ?= -O1 -g
FUZZ_SECONDS ?= 60
# At most this many inputs each (-1: as many as FUZZ_SECONDS allows): a
# count, unlike a time, does not shrink on a loaded machine (make test).
FUZZ_RUNS ?= -1
FUZZ_BUILD = build/fuzz
FUZZ_CORPUS = $(FUZZ_BUILD)/corpus
FUZZ_ARTIFACTS = $(FUZZ_BUILD)/artifacts
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra $(WERROR) -Wshadow -Wno-sign-compare \
	-Ilib -Itests/fuzz $(shell $(PKG_CONFIG) --cflags libxml-2.0 2>/dev/null) \
	$(FUZZ_SAN) $(FUZZ_CFLAGS)
FUZZ_LIBS = $(shell $(PKG_CONFIG) --libs libxml-2.0 libcrypto 2>/dev/null) -lpthread
FUZZ_LIB_SRCS = $(addprefix lib/base/,buf.c xalloc.c log.c hashmap.c sha256.c spill.c opts.c rewrite.c) \
	$(addprefix lib/url/,url.c site.c urlkey.c reqpath.c) $(addprefix lib/origin/,cgiresp.c response.c) \
	$(addprefix lib/crawl/,charset.c css.c links.c linkshtml.c linksxml.c robots.c)
FUZZ_LIB_OBJS = $(FUZZ_LIB_SRCS:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_NAMES = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS = $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)

$(FUZZ_BUILD)/FLAGS: FORCE
	@mkdir -p $(FUZZ_BUILD)
	@echo '$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) $(FUZZ_LIBS)' | cmp -s - $@ || \
		echo '$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) $(FUZZ_LIBS)' > $@

$(FUZZ_BUILD)/%.o: %.c $(FUZZ_BUILD)/FLAGS
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  FUZZCC  $<')
	$(Q)$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

# An archive: each target takes only the objects it uses.
$(FUZZ_BUILD)/libcgisnap.a: $(FUZZ_LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $(FUZZ_LIB_OBJS)

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_BUILD)/libcgisnap.a
	@$(if $(Q),echo '  FUZZLD  $@')
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_BUILD)/libcgisnap.a $(FUZZ_LIBS)

fuzz-build: $(FUZZ_BINS)
.SECONDARY: $(FUZZ_NAMES:%=$(FUZZ_BUILD)/tests/fuzz/fuzz_%.o)

# -max_total_time bounds each run. The seeds are copied into the working
# corpus each time (what earlier runs added stays), so the committed corpus
# is only read.
fuzz:
	$(Q)tools/deps.sh build fuzz
	$(Q)$(MAKE) --no-print-directory fuzz-build
	$(Q)mkdir -p $(FUZZ_ARTIFACTS)
	$(Q)for t in $(FUZZ_NAMES); do \
		mkdir -p $(FUZZ_CORPUS)/$$t && cp tests/fuzz/corpus/$$t/* $(FUZZ_CORPUS)/$$t/ && \
		echo "fuzz $$t: $(FUZZ_SECONDS) s" && \
		$(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -runs=$(FUZZ_RUNS) -timeout=10 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_ARTIFACTS)/$$t- $(FUZZ_CORPUS)/$$t || \
		{ echo "fuzz $$t: failed, see $(FUZZ_ARTIFACTS)/$$t-*" >&2; exit 1; }; \
	done

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(PROFILEDIR) \
		$(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(COMPLETIONDIR) $(DESTDIR)$(DOCDIR)
	install -m 755 cgisnap $(DESTDIR)$(BINDIR)/cgisnap
	$(if $(TRACE_LIB),install -m 644 $(TRACE_LIB) $(DESTDIR)$(LIBDIR)/cgisnap-trace.so)
	install -m 644 $(MAN) $(DESTDIR)$(MANDIR)/cgisnap.1
	install -m 644 $(PROFILE_FILES) $(DESTDIR)$(PROFILEDIR)/
	install -m 644 $(UNITS) $(DESTDIR)$(SYSTEMDUNITDIR)/
	install -m 644 $(COMPLETION) $(DESTDIR)$(COMPLETIONDIR)/cgisnap
	install -m 644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cgisnap $(DESTDIR)$(LIBDIR)/cgisnap-trace.so $(DESTDIR)$(MANDIR)/cgisnap.1
	rm -f $(patsubst profiles/%,$(DESTDIR)$(PROFILEDIR)/%,$(PROFILE_FILES))
	rm -f $(patsubst build/units/%,$(DESTDIR)$(SYSTEMDUNITDIR)/%,$(UNITS)) $(DESTDIR)$(COMPLETIONDIR)/cgisnap
	rm -f $(patsubst %,$(DESTDIR)$(DOCDIR)/%,$(notdir $(DOC_FILES)))
	-rmdir $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PROFILEDIR) $(DESTDIR)$(PREFIX)/share/cgisnap $(DESTDIR)$(DOCDIR)

# Every output of every mode lives under build/, but ./cgisnap.
clean:
	rm -rf build cgisnap

-include $(OBJS:.o=.d) $(MAIN_OBJ:.o=.d) $(UNIT_OBJS:.o=.d)
-include $(wildcard $(FUZZ_BUILD)/*/*.d $(FUZZ_BUILD)/tests/fuzz/*.d)

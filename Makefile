# profq - build, test, fuzz, benchmark, install. `make` builds build/profq, build/libprofq.a
# and build/libprofq.so; `make install PREFIX=/usr/local [DESTDIR=...]` installs them.
# Dependencies come from Debian packages, found with pkg-config (scripts/deps.sh installs them).

CC      ?= cc
# libzip reads nsys-jax archives (src/io/zip.c), snappy and libzstd decompress parquet pages
# (src/formats/parquet.c), libsqlite3 reads Nsight SQLite exports (src/formats/nsys_sqlite.c).
# DLOPEN_PKGS are compiled against (their headers type the calls) but not linked:
# src/io/lazylib.c dlopens libzip.so.4 / libsnappy.so.1 / libsqlite3.so.0 on first use, so that
# commands which read no nsys input do not load them, libstdc++, libbz2 and a shared
# libcrypto (docs/internals/parquet.md). dlopen is in libc (glibc >= 2.34: no -ldl).
# No libcrypto: SHA-256 is src/core/sha256.c (libcrypto's constructor ran CPUID probes in
# every process, docs/internals/speed.md).
STATIC_PKGS := liblzma zlib libzstd libdeflate
DLOPEN_PKGS := libzip snappy sqlite3
PKGS    := $(STATIC_PKGS)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) $(DLOPEN_PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# build/profq links these libraries statically (Debian's -dev packages ship the .a files): a
# shared library costs each process CPU in dynamic relocations (a shared libcrypto cost
# ~1.5 ms, twice what the whole memory-viewer of a small module takes). STATIC_DEPS=0 links them as shared libraries.
STATIC_DEPS ?= 1
# STATIC_EXE=1 (the default with STATIC_DEPS=1, not under SANITIZE: ASan cannot link
# statically) links the C library statically too: no dynamic loader runs at exec, 0.13-0.15
# ms and 30-40 page faults less in every process (docs/internals/speed.md). The nsys
# libraries are still dlopened (io/lazylib.c); the linker warns that a static program's
# dlopen needs the glibc it was linked with at run time, which a profq built here has.
STATIC_EXE ?= $(if $(SANITIZE),0,$(STATIC_DEPS))
ifeq ($(STATIC_EXE),1)
CLI_PKG_LIBS  := $(shell pkg-config --static --libs $(STATIC_PKGS) 2>/dev/null)
else ifeq ($(STATIC_DEPS),1)
PKG_LIBS_l    := $(shell pkg-config --libs-only-l $(STATIC_PKGS) 2>/dev/null)
CLI_PKG_LIBS  := $(shell pkg-config --libs-only-L $(PKGS) 2>/dev/null) -Wl,-Bstatic $(PKG_LIBS_l) \
                 -Wl,-Bdynamic $(filter-out $(PKG_LIBS_l),$(shell pkg-config --static --libs-only-l \
                 --libs-only-other $(STATIC_PKGS) 2>/dev/null))
else
CLI_PKG_LIBS  := $(PKG_LIBS)
endif
TEST_PKG_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
TEST_PKG_LIBS   := $(shell pkg-config --libs cmocka 2>/dev/null)

WARN    := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wformat=2 -Wvla -Werror
OPT     ?= -O2 -g
# -fvisibility=hidden: only what include/profq.h declares (its visibility push(default)
# region) is exported from libprofq; every other function stays inside the library.
CFLAGS_ALL = -std=c11 -D_POSIX_C_SOURCE=200809L $(OPT) $(WARN) -fvisibility=hidden -Iinclude -Isrc \
             $(PKG_CFLAGS) -MMD -MP $(CFLAGS)
LDLIBS_ALL = $(PKG_LIBS) -lpthread -lm $(LDLIBS)

ifdef SANITIZE
BUILD   ?= build/san
CFLAGS_ALL += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
else
BUILD   ?= build
endif

LIB_SRC := $(wildcard src/core/*.c src/io/*.c src/formats/*.c src/model/*.c src/analysis/*.c src/api/*.c \
                      src/render/*.c)
CLI_SRC := $(wildcard src/cli/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
PIC_OBJ := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

# One job per core unless the command line says otherwise (`make -j1` builds serially): a
# fresh build compiles every file twice (static and PIC objects).
ifeq ($(filter -j% j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

.PHONY: FORCE install all deps test test-run conformance bench-run unit format format-check fuzz fuzz-ttlog fuzz-trace-json fuzz-replay bench demo clean \
        fuzz-parquet fuzz-zip fuzz-pushpop fuzz-nsysjax fuzz-nsyshlo fuzz-sqlite fuzz-partial fuzz-xz

all: $(BUILD)/profq $(BUILD)/libprofq.a $(BUILD)/libprofq.so

# Three builds of the library from the same sources:
# - libprofq-internal.a: every object as it is, every symbol global; for the unit tests, fuzz
#   replays and benchmarks, which call internal functions (buf_*, xplane_*, ...).
# - libprofq.a: one relocatable object (ld -r of all objects) whose hidden symbols are made
#   local, so it defines only the pq_ API and a program with its own buf_init links with it.
#   The CLI links this one: it uses the public API only.
# - libprofq.so: the same objects compiled -fPIC in $(BUILD)/pic (build/profq stays non-PIC).
VERSION := $(shell sed -n 's/^\#define PQ_VERSION_STRING "\(.*\)"/\1/p' include/profq.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
SONAME  := libprofq.so.$(SOMAJOR)

$(BUILD)/libprofq-internal.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libprofq.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	$(LD) -r -o $(BUILD)/obj/libprofq.o $^
	objcopy --localize-hidden $(BUILD)/obj/libprofq.o
	rm -f $@ && ar rcs $@ $(BUILD)/obj/libprofq.o

$(BUILD)/libprofq.so.$(VERSION): $(PIC_OBJ)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined -o $@ $^ $(PKG_LIBS) \
	    -lpthread -lm $(LDLIBS)

$(BUILD)/libprofq.so: $(BUILD)/libprofq.so.$(VERSION)
	ln -sfn libprofq.so.$(VERSION) $(BUILD)/$(SONAME)
	ln -sfn $(SONAME) $@

$(BUILD)/pic/%.o: %.c $(BUILD)/cflags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -fPIC -c -o $@ $<

# -no-pie: a position-dependent executable has no relative relocations for the loader to
# apply (a PIE profq had 18,430, whose pages of pointers cost ~100 page faults and ~0.15 ms
# of every run: docs/internals/speed.md).
CLI_LDFLAGS ?= -no-pie $(if $(filter 1,$(STATIC_EXE)),-static)
$(BUILD)/profq: $(CLI_OBJ) $(BUILD)/libprofq.a
	$(CC) $(LDFLAGS) $(CLI_LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libprofq.a $(CLI_PKG_LIBS) -lpthread -lm $(LDLIBS)

# Objects depend on the compiler flags too: $(BUILD)/cflags changes when they change (a new
# -fvisibility or SANITIZE rebuilds every object, not only those whose headers changed).
$(BUILD)/cflags: FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(CFLAGS_ALL)' | cmp -s - $@ || echo '$(CC) $(CFLAGS_ALL)' > $@
FORCE:

$(BUILD)/obj/%.o: %.c $(BUILD)/cflags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c tests/unit/testutil.h $(BUILD)/libprofq-internal.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(TEST_PKG_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libprofq-internal.a \
	    $(TEST_PKG_LIBS) $(LDLIBS_ALL)

$(BUILD)/fuzz_replay: fuzz/fuzz_xspace.c fuzz/replay.c $(BUILD)/libprofq-internal.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ fuzz/fuzz_xspace.c fuzz/replay.c $(BUILD)/libprofq-internal.a \
	    $(LDLIBS_ALL)

# One replay driver per fuzz target: fuzz_replay_<target> replays fuzz/corpus/<target>.
$(BUILD)/fuzz_replay_%: fuzz/fuzz_%.c fuzz/replay.c $(BUILD)/libprofq-internal.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $< fuzz/replay.c $(BUILD)/libprofq-internal.a $(LDLIBS_ALL)

# The nsys readers' test driver (the tests/nsys scripts): what the zip, parquet and pushpop readers see.
$(BUILD)/tests/nsys_pqdump: tests/nsys/pqdump.c $(BUILD)/libprofq-internal.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $< $(BUILD)/libprofq-internal.a $(LDLIBS_ALL)

# The HLO text printer's driver (tests/conformance/hlo_text_xla.sh): every instruction's text.
$(BUILD)/tests/hlo_text_dump: tests/conformance/hlo_text_dump.c $(BUILD)/libprofq-internal.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $< $(BUILD)/libprofq-internal.a $(LDLIBS_ALL)

deps:
	@scripts/deps.sh test

# The one test command (README, .ci/run): unit tests, CLI golden cases, bad input,
# fuzz corpus replay, conformance against Python's protobuf. The packages are installed
# first and the build runs in a fresh make, because this make read `pkg-config` (cmocka,
# libcrypto...) when it started, before the packages were there.
test:
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory test-run

test-run: all $(BUILD)/libprofq-internal.a $(UNIT_BIN) $(BUILD)/fuzz_replay $(BUILD)/fuzz_replay_hlo \
      $(BUILD)/fuzz_replay_ttlog $(BUILD)/fuzz_replay_trace_json $(BUILD)/tests/nsys_pqdump \
      $(BUILD)/fuzz_replay_parquet $(BUILD)/fuzz_replay_zip $(BUILD)/fuzz_replay_pushpop \
      $(BUILD)/fuzz_replay_nsysjax $(BUILD)/fuzz_replay_nsyshlo $(BUILD)/fuzz_replay_sqlite \
      $(BUILD)/fuzz_replay_partial $(BUILD)/fuzz_replay_xz \
      $(BUILD)/tests/hlo_text_dump
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) tests/run.sh
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) tests/python.sh

# Every XProf tool profq reproduces against XProf itself (tests/conformance/xprof_all.sh, also
# run by `make test`): prints the fields compared per tool, fails on any difference.
conformance: all $(BUILD)/tests/hlo_text_dump
	@BUILD=$(BUILD) tests/conformance/xprof_all.sh

unit: $(UNIT_BIN)
	@for t in $(UNIT_BIN); do $$t || exit 1; done

FORMAT_FILES := $(shell find include src tests fuzz bench -name '*.[ch]' 2>/dev/null)
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	clang-format --dry-run -Werror $(FORMAT_FILES)

# libFuzzer with clang: `make fuzz FUZZ_SECONDS=1800`. New crashers land in fuzz/corpus/xspace.
FUZZ_SECONDS ?= 60
build/fuzz/fuzz_xspace: fuzz/fuzz_xspace.c $(LIB_SRC) $(wildcard include/*.h src/*/*.h)
	@mkdir -p $(@D)
	clang -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -Iinclude -Isrc $(PKG_CFLAGS) \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ fuzz/fuzz_xspace.c \
	    $(LIB_SRC) $(PKG_LIBS) -lpthread -lm
build/fuzz/fuzz_hlo: fuzz/fuzz_hlo.c $(LIB_SRC) $(wildcard include/*.h src/*/*.h)
	@mkdir -p $(@D)
	clang -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -Iinclude -Isrc $(PKG_CFLAGS) \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ fuzz/fuzz_hlo.c \
	    $(LIB_SRC) $(PKG_LIBS) -lpthread -lm
fuzz: build/fuzz/fuzz_xspace
	@scripts/fuzz.sh $(FUZZ_SECONDS)

# `make fuzz-ttlog FUZZ_SECONDS=N`: the Tenstorrent log reader; crashers land in fuzz/corpus/ttlog.
build/fuzz/fuzz_ttlog: fuzz/fuzz_ttlog.c $(LIB_SRC) $(wildcard include/*.h src/*/*.h)
	@mkdir -p $(@D)
	clang -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -Iinclude -Isrc $(PKG_CFLAGS) \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ fuzz/fuzz_ttlog.c \
	    $(LIB_SRC) $(PKG_LIBS) -lpthread -lm
fuzz-ttlog: deps build/fuzz/fuzz_ttlog
	@mkdir -p build/fuzz/corpus-ttlog build/fuzz/artifacts-ttlog
	@cp fuzz/corpus/ttlog/* build/fuzz/corpus-ttlog/
	build/fuzz/fuzz_ttlog build/fuzz/corpus-ttlog -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	    -rss_limit_mb=2048 -artifact_prefix=build/fuzz/artifacts-ttlog/

# The trace-event JSON fuzzer: `make fuzz-trace-json FUZZ_SECONDS=N` (corpus fuzz/corpus/trace_json).
build/fuzz/fuzz_trace_json: fuzz/fuzz_trace_json.c $(LIB_SRC) $(wildcard include/*.h src/*/*.h)
	@mkdir -p $(@D)
	clang -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -Iinclude -Isrc $(PKG_CFLAGS) \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ fuzz/fuzz_trace_json.c \
	    $(LIB_SRC) $(PKG_LIBS) -lpthread -lm
fuzz-trace-json: deps build/fuzz/fuzz_trace_json
	@mkdir -p build/fuzz/corpus_trace_json build/fuzz/artifacts_trace_json
	build/fuzz/fuzz_trace_json build/fuzz/corpus_trace_json fuzz/corpus/trace_json \
	    -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=10 \
	    -artifact_prefix=build/fuzz/artifacts_trace_json/

# The nsys readers' fuzzers: `make fuzz-parquet|fuzz-zip|fuzz-pushpop|fuzz-nsysjax|fuzz-sqlite
# FUZZ_SECONDS=N`, and fuzz-nsyshlo (the HLO dumps of nsys-jax archives, as nsys_hlo reads them).
# Seeds (fuzz/corpus/<target>) come from tests/nsys/gen_corpus.py (sqlite: fuzz/make_sqlite_seeds.py,
# nsyshlo: fuzz/make_nsyshlo_seeds.py); crashers land in
# build/fuzz/artifacts_<target>/ (copy them into the corpus once fixed). fuzz-partial (the
# partial results of `--partial`, read by `profq merge`) shares the rules, and so does fuzz-xz
# (profq's own xz decoder against liblzma; seeds: fuzz/make_xz_seeds.sh).
NSYS_FUZZ := parquet zip pushpop nsysjax nsyshlo sqlite partial xz
$(NSYS_FUZZ:%=build/fuzz/fuzz_%): build/fuzz/fuzz_%: fuzz/fuzz_%.c $(LIB_SRC) $(wildcard include/*.h src/*/*.h)
	@mkdir -p $(@D)
	clang -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -Iinclude -Isrc $(PKG_CFLAGS) \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ $< \
	    $(LIB_SRC) $(PKG_LIBS) -lpthread -lm
$(NSYS_FUZZ:%=fuzz-%): fuzz-%: deps build/fuzz/fuzz_%
	@mkdir -p build/fuzz/corpus_$* build/fuzz/artifacts_$*
	build/fuzz/fuzz_$* build/fuzz/corpus_$* fuzz/corpus/$* -max_total_time=$(FUZZ_SECONDS) \
	    -rss_limit_mb=2048 -timeout=10 -artifact_prefix=build/fuzz/artifacts_$*/

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory bench-run

bench-run: all
	@BUILD=$(BUILD) bench/run.sh
	@BUILD=$(BUILD) bench/memviewer.sh
	@BUILD=$(BUILD) bench/tt.sh
	@BUILD=$(BUILD) bench/summary.sh
	@BUILD=$(BUILD) bench/nsys.sh
	@BUILD=$(BUILD) bench/distributed.sh
	@BUILD=$(BUILD) bench/html.sh
	@if [ -n "$(BASELINE)" ]; then BUILD=$(BUILD) BASELINE=$(BASELINE) bench/compare.sh; fi

# `make install PREFIX=/usr/local [DESTDIR=/tmp/stage]`: the binary, its man page, the static
# and shared library (with the soname links), the header and a pkg-config file whose prefix
# is PREFIX (DESTDIR only stages the files). tests/lib/install.sh installs into a temporary
# prefix and builds a program with `pkg-config --cflags --libs [--static] profq`.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(LIBDIR)/pkgconfig \
	    $(DESTDIR)$(INCLUDEDIR)
	install -m 755 $(BUILD)/profq $(DESTDIR)$(BINDIR)/profq
	install -m 644 docs/profq.1 $(DESTDIR)$(MANDIR)/man1/profq.1
	install -m 644 $(BUILD)/libprofq.a $(DESTDIR)$(LIBDIR)/libprofq.a
	install -m 755 $(BUILD)/libprofq.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libprofq.so.$(VERSION)
	ln -sfn libprofq.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sfn $(SONAME) $(DESTDIR)$(LIBDIR)/libprofq.so
	install -m 644 include/profq.h $(DESTDIR)$(INCLUDEDIR)/profq.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' -e 's|@REQUIRES@|$(PKGS)|g' scripts/profq.pc.in \
	    > $(DESTDIR)$(LIBDIR)/pkgconfig/profq.pc

demo:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(PIC_OBJ:.o=.d)

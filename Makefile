# SPDX-License-Identifier: MIT
# One build for the dtrace command, its plugins and dtprobed.
#
#   make              build everything into build/
#   make check        run every test, then again under ASan/UBSan (build-san/)
#   make check-fast   run the tests on the normal build only
#   make modcycle     the module graph of dtrace/ has no cycle and its folders
#                     keep their order (part of both)
#   make check-vm     the kernel-side tests in a qemu virtual machine
#   make install      PREFIX=/usr/local DESTDIR=
#   make deb          a Debian package (debian/) into build/deb/
#   make deps         install missing build dependencies (Debian, root)
#   make demo         trace test/progs/demo.c with demo/demo.d (root)
#   make bench        the benchmarks of bench/ (root; see bench/README.md)
#   make SANITIZE=1   build with AddressSanitizer and UBSan into build-san/
#   make fuzz         run each libFuzzer target of test/fuzz/ for FUZZ_TIME
#                     seconds (clang, into build-fuzz/)
#   make soak         an hour of tracing with dtrace's memory measured
#                     (SOAK_TIME seconds; root)
#   make WERROR=1     warnings are errors (CI)
#
# Layout of the build directory $(B):
#   $(B)/dtrace                 the command
#   $(B)/dtprobed               the registration daemon (when dtprobed/ has sources)
#   $(B)/plugins/NAME.so        one per plugins/NAME/ with sources
#   $(B)/test/unit/NAME         unit tests (test/unit/NAME.c)
#   $(B)/test/progs/NAME        programs the tests trace (test/progs/NAME.c)
#   $(B)/obj/...                objects, mirroring the source tree
#
# Objects live under $(B)/obj/ because $(B)/dtrace is the command itself;
# `make build/dtrace/runtime/dt_foo.o` still works as an alias of
# build/obj/dtrace/runtime/dt_foo.o.

PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/sbin
LIBDIR     ?= $(PREFIX)/lib
PLUGINDIR  ?= $(LIBDIR)/dtrace/plugins
DLIBDIR    ?= $(LIBDIR)/dtrace
INCDIR     ?= $(PREFIX)/include
UNITDIR    ?= $(PREFIX)/lib/systemd/system
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
VERSION    := 0.1.0
EXAMPLEDIR ?= $(PREFIX)/share/dtrace/examples

CC         ?= cc
SANITIZE   ?= 0
WERROR     ?= 0

FUZZ       ?= 0
ifeq ($(FUZZ),1)
B          ?= build-fuzz
endif
ifeq ($(SANITIZE),1)
B          ?= build-san
SANFLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=undefined
else
B          ?= build
SANFLAGS   :=
endif
# The fuzz build: every object instrumented for libFuzzer's coverage.
ifeq ($(FUZZ),1)
SANFLAGS   := -fsanitize=address,undefined,fuzzer-no-link \
	      -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif
O          := $(B)/obj

WARNINGS   := -Wall -Wextra -Wshadow -Wpointer-arith -Wcast-align \
	      -Wwrite-strings -Wstrict-prototypes -Wmissing-prototypes \
	      -Wformat=2 -Wno-unused-parameter -Wno-missing-field-initializers \
	      -Wimplicit-fallthrough -Wundef -Wvla
ifeq ($(WERROR),1)
WARNINGS   += -Werror
endif

# The engine lives in the folders of its layers, dtrace/FOLDER/ (the table
# of scripts/layers.sh says which file goes where; HACKING.md has the map).
# Every folder is on the include path, so a source includes a header by
# its name alone ("dt_x.h") wherever either lives.  Found, not listed: the
# same lines build the tree before and after scripts/layers.sh move.
DTRACE_SRCS := $(wildcard dtrace/*.c dtrace/*/*.c)
DTRACE_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard dtrace/*.[ch] dtrace/*/*.[ch]))))
DTRACE_INCS := $(DTRACE_DIRS:%=-I%)

OPT        ?= -O2 -g
CPPFLAGS   += -Iinclude $(DTRACE_INCS) -D_GNU_SOURCE \
	      -DDT_PLUGINDIR='"$(PLUGINDIR)"' -DDT_LIBRARYDIR='"$(DLIBDIR)"'
CFLAGS     += -std=gnu11 $(OPT) $(WARNINGS) $(SANFLAGS) -fPIC
LDFLAGS    += $(SANFLAGS)

DTRACE_OBJS := $(DTRACE_SRCS:%.c=$(O)/%.o)
DTRACE_LIBS := -lbpf -lelf -ldw -lunwind-ptrace -lunwind-generic -lunwind \
	       -lZydis -lmicrohttpd -lpthread -ldl -lz

# Objects shared with the plugins and dtprobed (ELF and symbol handling,
# /proc/PID/maps, opening the files other processes name, and the utility
# layer of base/: the hash table, the growable array, the /proc readers):
# compiled once more into a static library.  Everything is built -fPIC, so
# the same flags serve; the separate directory keeps the two copies apart.
COMMON_SRCS := $(filter %/dt_elf.c %/dt_elf_stapsdt.c %/dt_procmaps.c \
		%/dt_untrusted.c %/dt_hash.c %/dt_array.c %/dt_procfs.c,\
		$(DTRACE_SRCS))
COMMON_OBJS := $(COMMON_SRCS:%.c=$(O)/common/%.o)
COMMON_LIB  := $(B)/libdtcommon.a
# What dtprobed sees of the engine: the headers of libdtcommon.a's sources
# (dt_elf.h, dt_procmaps.h, dt_untrusted.h), through the folders they live
# in, and no other folder of the engine.
COMMON_INCS := $(patsubst %/,-I%,$(sort $(dir $(COMMON_SRCS))))

# The USDT contract (libusdt/README.md): the registration message, the
# state files, the pinned map's key and value, the .dtrace_prov
# declarations, the probe site's note.  A static archive that the -G
# linker (dt_link.c, in the dtrace command), the usdt plugin and dtprobed
# link, each with -Ilibusdt; it calls nothing but libc and sees no folder
# of the engine.
LIBUSDT_SRCS := $(wildcard libusdt/*.c)
LIBUSDT_OBJS := $(LIBUSDT_SRCS:%.c=$(O)/%.o)
LIBUSDT      := $(B)/libusdt.a
LIBUSDT_INC  := -Ilibusdt

PLUGINS     := $(notdir $(wildcard plugins/*))
PLUGINS_BUILT := $(foreach p,$(PLUGINS),$(if $(wildcard plugins/$(p)/*.c),$(p)))
PLUGIN_SOS  := $(PLUGINS_BUILT:%=$(B)/plugins/%.so)
# No libelf: the engine reads ELF files and notes for the plugins
# (host->elf_*, dt_elf.c) and processes' mappings (host->proc_maps).
PLUGIN_LIBS := -lZydis -lbpf
# A plugin exports dtrace_provider_init only (scripts/plugin.map) and may
# not reference the engine: every undefined symbol must come from a library
# it links.  -z defs cannot hold with the sanitizer runtimes, whose symbols
# the executable provides.
PLUGIN_LDFLAGS := -shared -Wl,--version-script=scripts/plugin.map
ifneq ($(SANITIZE),1)
PLUGIN_LDFLAGS += -Wl,-z,defs
endif

DTPROBED_SRCS := $(wildcard dtprobed/*.c)
DTPROBED_OBJS := $(DTPROBED_SRCS:%.c=$(O)/%.o)
# dtprobed reads ELF files and probe notes through libdtcommon.a, as the
# engine does for the usdt plugin; it shares with the plugin and -G the
# USDT contract, libusdt.a (the message, the state files' reader and
# writer, the pinned map, the .dtrace_prov declarations).

TARGETS := $(B)/dtrace $(PLUGIN_SOS) $(if $(DTPROBED_SRCS),$(B)/dtprobed)

# Programs the tests trace (test/progs/*.c), built without sanitizers: they
# are traced, not tested, and uprobes want plain code.
TEST_PROG_SRCS := $(wildcard test/progs/*.c)
TEST_PROGS     := $(TEST_PROG_SRCS:test/progs/%.c=$(B)/test/progs/%)

# Unit tests in C (test/unit/*.c), linked with the engine's objects.
UNIT_SRCS := $(wildcard test/unit/*.c)
UNIT_BINS := $(UNIT_SRCS:test/unit/%.c=$(B)/test/unit/%)
ENGINE_OBJS_NOMAIN := $(filter-out %/dt_main.o,$(DTRACE_OBJS))

all: $(TARGETS) test-programs

# --- rebuild when the flags change ---------------------------------------
# Objects depend on a file that holds the flags that shape the code
# (PLUGINDIR is compiled in: `make install PREFIX=/usr` after `make` must
# rebuild).  Warnings are left out: -Werror changes no object.
FLAGS_STAMP := $(B)/.build-flags
FLAGS_NOW   := $(CC) $(CPPFLAGS) $(OPT) $(SANFLAGS) $(LDFLAGS)
ifeq ($(filter clean install-files,$(MAKECMDGOALS)),)
ifneq ($(file <$(FLAGS_STAMP)),$(FLAGS_NOW))
$(shell mkdir -p $(B))
$(file >$(FLAGS_STAMP),$(FLAGS_NOW))
endif
endif

# --- build dependencies ----------------------------------------------------
# Checked once per build directory, before anything compiles; installed
# when missing (root on Debian), else a clear message says what to do.
DEPS_STAMP := $(B)/.deps-ok
$(DEPS_STAMP): scripts/deps.sh
	@mkdir -p $(dir $@)
	@scripts/deps.sh --check 2>/dev/null || scripts/deps.sh --install
	@touch $@

# --- compilation -------------------------------------------------------------
$(O)/%.o: %.c $(FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(O)/common/%.o: %.c $(FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# dtrace -h writes include/dtrace/usdt.h into each header it generates, so
# that the header needs no dtrace installed: dt_header.o holds the file as a
# C string literal, made here.
USDT_TEXT := $(O)/gen/dt_usdt_text.h
$(USDT_TEXT): include/dtrace/usdt.h
	@mkdir -p $(dir $@)
	sed -e 's/[\\"]/\\&/g' -e 's/^/"/' -e 's/$$/\\n"/' $< >$@
DT_HEADER_OBJ := $(filter %/dt_header.o,$(DTRACE_OBJS))
$(DT_HEADER_OBJ): $(USDT_TEXT)
$(DT_HEADER_OBJ): CPPFLAGS += -I$(O)/gen

# Alias: `make build/dtrace/F/dt_foo.o` builds build/obj/dtrace/F/dt_foo.o.
$(B)/dtrace/%.o: $(O)/dtrace/%.o
	@:
$(B)/plugins/%.o: $(O)/plugins/%.o
	@:

$(COMMON_LIB): $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBUSDT): $(LIBUSDT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# -rdynamic: plugins see nothing of the engine but the host table; it is
# kept so that stack traces of the engine name its functions.  A directory
# in the way is a leftover of an older layout (objects in $(B)/dtrace/).
$(B)/dtrace: $(DTRACE_OBJS) $(LIBUSDT)
	@if [ -d $@ ]; then rm -rf $@; fi
	$(CC) $(LDFLAGS) -rdynamic -o $@ $^ $(DTRACE_LIBS)

# A plugin sees the engine through include/dtrace only, as a third
# party's would: none of the engine's folders.  The usdt plugin also sees
# and links the USDT contract (PLUGIN_INCS_NAME, PLUGIN_ARCHIVES_NAME).
PLUGIN_CPPFLAGS  := $(filter-out $(DTRACE_INCS),$(CPPFLAGS))
PLUGIN_INCS_usdt := $(LIBUSDT_INC)
PLUGIN_ARCHIVES_usdt := $(LIBUSDT)
$(foreach p,$(PLUGINS_BUILT),\
	$(eval $(O)/plugins/$(p)/%.o: CPPFLAGS := $(PLUGIN_CPPFLAGS) $(PLUGIN_INCS_$(p))))

# libusdt sees neither the engine nor include/: libc only.
$(O)/libusdt/%.o: CPPFLAGS := $(filter-out $(DTRACE_INCS) -Iinclude,$(CPPFLAGS)) $(LIBUSDT_INC)
# The engine's files that use the contract: the -G linker writes its
# images and checks its notes; the ELF reader decodes its notes (also in
# libdtcommon.a, which is linked before libusdt.a).
LIBUSDT_USERS := %/dt_link.o %/dt_elf_stapsdt.o
$(filter $(LIBUSDT_USERS),$(DTRACE_OBJS) $(COMMON_OBJS)): CPPFLAGS += $(LIBUSDT_INC)
# dtprobed: include/, the contract and libdtcommon.a's headers.
$(O)/dtprobed/%.o: CPPFLAGS := $(PLUGIN_CPPFLAGS) $(LIBUSDT_INC) $(COMMON_INCS)

# One rule per plugin: $(B)/plugins/NAME.so from plugins/NAME/*.c.
define plugin_rule
$(B)/plugins/$(1).so: $(patsubst %.c,$(O)/%.o,$(wildcard plugins/$(1)/*.c)) $(PLUGIN_ARCHIVES_$(1)) scripts/plugin.map
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) $$(PLUGIN_LDFLAGS) -o $$@ $$(filter %.o,$$^) $(PLUGIN_ARCHIVES_$(1)) $$(PLUGIN_LIBS)
endef
$(foreach p,$(PLUGINS_BUILT),$(eval $(call plugin_rule,$(p))))

$(B)/dtprobed: $(DTPROBED_OBJS) $(COMMON_LIB) $(LIBUSDT)
	@if [ -d $@ ]; then rm -rf $@; fi
	$(CC) $(LDFLAGS) -o $@ $^ -lbpf -lelf

test-programs: $(TEST_PROGS)
$(B)/test/progs/%: test/progs/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -Iinclude -O1 -g -fno-inline -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o $@ $< -ldl -lpthread

unit-tests: $(UNIT_BINS)
# Some unit tests include plugin sources: they depend on those too.  The
# tests see libusdt and link it (the engine's -G linker does).
PLUGIN_SOURCES := $(wildcard plugins/*/*.c plugins/*/*.h)
TEST_CPPFLAGS  = $(CPPFLAGS) $(LIBUSDT_INC)
TEST_OBJS      := $(ENGINE_OBJS_NOMAIN) $(LIBUSDT)
$(B)/test/unit/%: test/unit/%.c $(TEST_OBJS) $(PLUGIN_SOURCES) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CPPFLAGS) $(CFLAGS) -o $@ $< $(TEST_OBJS) $(LDFLAGS) $(DTRACE_LIBS)

# Fuzz targets (test/fuzz/fuzz_NAME.c, see test/fuzz/README.md): built
# with a plain main() that replays files (test/fuzz/replay.c) for make
# check, and with libFuzzer (FUZZ=1 builds, clang) for make fuzz.
FUZZ_SRCS    := $(wildcard test/fuzz/fuzz_*.c)
FUZZ_NAMES   := $(FUZZ_SRCS:test/fuzz/fuzz_%.c=%)
FUZZ_REPLAYS := $(FUZZ_NAMES:%=$(B)/test/fuzz/%-replay)
FUZZ_BINS    := $(FUZZ_NAMES:%=$(B)/test/fuzz/%-fuzzer)
FUZZ_TIME    ?= 60
# More seeds, read but never written: the D scripts of the tests.
FUZZ_SEEDS_d := $(sort $(dir $(wildcard test/d/*/*.d)))

fuzz-replay: $(FUZZ_REPLAYS)
$(B)/test/fuzz/%-replay: test/fuzz/fuzz_%.c test/fuzz/replay.c $(TEST_OBJS) $(PLUGIN_SOURCES) $(wildcard dtprobed/*.c dtprobed/*.h) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CPPFLAGS) $(CFLAGS) -o $@ $< test/fuzz/replay.c $(TEST_OBJS) $(LDFLAGS) $(DTRACE_LIBS)

$(B)/test/fuzz/%-fuzzer: test/fuzz/fuzz_%.c $(TEST_OBJS) $(PLUGIN_SOURCES) $(wildcard dtprobed/*.c dtprobed/*.h) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(TEST_OBJS) $(LDFLAGS) $(DTRACE_LIBS)

# Each target runs FUZZ_TIME seconds on a working corpus seeded from
# test/fuzz/corpus/NAME/; a crash is written there as crash-*, where make
# check replays it from then on.  Every target runs even when one fails.
fuzz:
	@echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' | \
		clang -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null || { \
		echo "make fuzz needs clang and libFuzzer (Debian:" \
		"apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
	$(MAKE) --no-print-directory FUZZ=1 CC=clang B=build-fuzz fuzz-run

fuzz-run: $(FUZZ_BINS)
	@st=0; for n in $(FUZZ_NAMES); do \
		mkdir -p $(B)/fuzz-corpus/$$n test/fuzz/corpus/$$n; \
		echo "== fuzz $$n ($(FUZZ_TIME) s)"; \
		ASAN_OPTIONS=detect_leaks=1 $(B)/test/fuzz/$$n-fuzzer \
			-max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=4096 \
			-artifact_prefix=test/fuzz/corpus/$$n/ \
			-print_final_stats=1 \
			$(B)/fuzz-corpus/$$n test/fuzz/corpus/$$n \
			$$(case $$n in d) echo $(FUZZ_SEEDS_d);; esac) \
			2>$(B)/fuzz-$$n.log || { st=1; tail -40 $(B)/fuzz-$$n.log; }; \
		grep -E '^stat::(number_of_executed_units|new_units_added):' \
			$(B)/fuzz-$$n.log | sed 's/^/   /'; \
	done; exit $$st

# Fold what the last make fuzz found into test/fuzz/corpus/NAME/: only the
# inputs that reach code the corpus does not reach yet (libFuzzer -merge).
fuzz-merge:
	$(MAKE) --no-print-directory FUZZ=1 CC=clang B=build-fuzz fuzz-merge-run

fuzz-merge-run: $(FUZZ_BINS)
	@for n in $(FUZZ_NAMES); do \
		$(B)/test/fuzz/$$n-fuzzer -merge=1 test/fuzz/corpus/$$n \
			$(B)/fuzz-corpus/$$n 2>&1 | grep -E '^MERGE-OUTER: [0-9]+ new files'; \
	done

# --- tests -------------------------------------------------------------------
# check runs both passes even when the first fails, then fails if either
# did.  The sanitizer pass is a separate make so that its variables (B,
# SANFLAGS) are computed afresh; the first pass's status waits in a file so
# that the line running $(MAKE), which make runs even under -n, runs nothing
# else.
check: all unit-tests fuzz-replay test-programs modcycle
	@B=$(B) test/run.sh; echo $$? >$(B)/.check-status
	@B=$(B) test/vm/check-vm.sh; rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ] || \
		echo 1 >$(B)/.check-status
	$(MAKE) --no-print-directory SANITIZE=1 B=build-san check-san && \
		[ "$$(cat $(B)/.check-status 2>/dev/null)" = 0 ]

# The kernel-side tests in a virtual machine (test/vm/check-vm.sh): 77 when
# qemu is missing, which it says.
check-vm: all test-programs
	B=$(B) test/vm/check-vm.sh

check-san: all unit-tests fuzz-replay
	B=$(B) DT_SANITIZED=1 test/run.sh

check-fast: all unit-tests fuzz-replay modcycle
	B=$(B) test/run.sh

# The module graph of dtrace/ has no cycle, the compiler and the consumer
# meet only in the program description, and no folder of the engine
# depends on one above it (scripts/modcycle.sh, scripts/layers.sh).
modcycle: all
	scripts/modcycle.sh $(B)

# --- demo and benchmarks -----------------------------------------------------
demo: all
	DTRACE_PLUGIN_PATH=$(B)/plugins $(B)/dtrace -s demo/demo.d -c $(B)/test/progs/demo

# An hour of tracing with dtrace's memory sampled (test/soak/soak.sh);
# SOAK_TIME=seconds shortens it.  Not part of make check.
SOAK_TIME ?= 3600
soak: all test-programs
	B=$(B) SOAK_TIME=$(SOAK_TIME) test/soak/soak.sh

# Every benchmark runs even when one misses its target; the status is 1 if
# any did.
BENCHES := startup.sh attach.sh firing.sh usdt_firing.sh compile.sh aggsnap.sh usdt_reg.sh \
	usdt_pg_first_event.sh exec_gate.sh ustack.sh syscall.sh fbt_vm.sh
bench: all test-programs
	@st=0; for b in $(BENCHES); do echo "== bench/$$b"; \
		B=$(B) bench/$$b || st=1; echo; done; exit $$st

# --- Debian package ----------------------------------------------------------
# The package of debian/ (dtrace_VERSION_ARCH.deb and its debug symbols)
# into $(B)/deb/, compiled in build-deb/ with Debian's flags; dpkg-dev and
# debhelper must be installed (`dpkg-buildpackage -b` works too, and leaves
# the packages in the parent directory as usual).
deb:
	dpkg-checkbuilddeps
	rm -rf $(B)/deb && mkdir -p $(B)/deb
	debian/rules clean
	debian/rules binary DEB_OUTDIR=$(abspath $(B))/deb
	@ls $(B)/deb/*.deb

# --- dependencies and installation -------------------------------------------
deps:
	scripts/deps.sh --install
	@mkdir -p $(B) && touch $(DEPS_STAMP)

# install-files installs what $(B) holds without building: the tests use it
# (B=build-san as well) to make a scratch installation.
install: all
	@$(MAKE) --no-print-directory install-files

install-files:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PLUGINDIR) \
		$(DESTDIR)$(INCDIR)/dtrace
	install -m 755 $(B)/dtrace $(DESTDIR)$(BINDIR)/dtrace
	$(if $(PLUGIN_SOS),install -m 644 $(PLUGIN_SOS) $(DESTDIR)$(PLUGINDIR)/)
	install -m 644 include/dtrace/*.h $(DESTDIR)$(INCDIR)/dtrace/
	for d in $(notdir $(wildcard examples/*)); do \
		install -d $(DESTDIR)$(EXAMPLEDIR)/$$d && \
		install -m 644 examples/$$d/* $(DESTDIR)$(EXAMPLEDIR)/$$d/ || exit 1; \
	done
	$(if $(DTPROBED_SRCS),install -m 755 $(B)/dtprobed $(DESTDIR)$(BINDIR)/dtprobed)
	$(if $(wildcard dtprobed/dtprobed.service),install -d $(DESTDIR)$(UNITDIR))
	$(if $(wildcard dtprobed/dtprobed.service),sed 's|^ExecStart=/usr/local/sbin/|ExecStart=$(BINDIR)/|' \
		dtprobed/dtprobed.service >$(DESTDIR)$(UNITDIR)/dtprobed.service)
	install -d $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(PKGCONFIGDIR)
	for m in man/*.[78]; do sed $(INSTALL_SUBST) $$m \
		>$(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/} || exit 1; done
	sed $(INSTALL_SUBST) scripts/dtrace-provider.pc.in \
		>$(DESTDIR)$(PKGCONFIGDIR)/dtrace-provider.pc

# The installed paths, written into the man pages and the pkg-config file.
INSTALL_SUBST := -e 's|@PLUGINDIR@|$(PLUGINDIR)|g' -e 's|@INCDIR@|$(INCDIR)|g' \
		 -e 's|@DLIBDIR@|$(DLIBDIR)|g' \
		 -e 's|@UNITDIR@|$(UNITDIR)|g' -e 's|@VERSION@|$(VERSION)|g'

clean:
	rm -rf build build-san build-fuzz build-deb debian/dtrace debian/.debhelper \
		debian/files debian/*.substvars debian/debhelper-build-stamp

.PHONY: all check check-san check-fast check-vm modcycle deps install install-files clean \
	demo bench deb test-programs unit-tests fuzz fuzz-run fuzz-replay \
	fuzz-merge fuzz-merge-run soak

-include $(shell find $(O) -name '*.d' 2>/dev/null)

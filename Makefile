# One build for the dtrace command, its plugins and dtprobed.
#
#   make              build everything into build/
#   make check        run every test, then again under ASan/UBSan (build-san/)
#   make check-fast   run the tests on the normal build only
#   make install      PREFIX=/usr/local DESTDIR=
#   make deps         install missing build dependencies (Debian, root)
#   make demo         trace test/progs/demo.c with demo/demo.d (root)
#   make bench        the benchmarks of bench/ (root; see bench/README.md)
#   make SANITIZE=1   build with AddressSanitizer and UBSan into build-san/
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
# `make build/dtrace/dt_foo.o` still works as an alias of
# build/obj/dtrace/dt_foo.o.

PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/sbin
LIBDIR     ?= $(PREFIX)/lib
PLUGINDIR  ?= $(LIBDIR)/dtrace/plugins
INCDIR     ?= $(PREFIX)/include
UNITDIR    ?= $(PREFIX)/lib/systemd/system
EXAMPLEDIR ?= $(PREFIX)/share/dtrace/examples

CC         ?= cc
SANITIZE   ?= 0
WERROR     ?= 0

ifeq ($(SANITIZE),1)
B          ?= build-san
SANFLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=undefined
else
B          ?= build
SANFLAGS   :=
endif
O          := $(B)/obj

WARNINGS   := -Wall -Wextra -Wshadow -Wpointer-arith -Wcast-align \
	      -Wwrite-strings -Wstrict-prototypes -Wmissing-prototypes \
	      -Wformat=2 -Wno-unused-parameter -Wno-missing-field-initializers \
	      -Wimplicit-fallthrough -Wundef -Wvla
ifeq ($(WERROR),1)
WARNINGS   += -Werror
endif

OPT        ?= -O2 -g
CPPFLAGS   += -Iinclude -Idtrace -D_GNU_SOURCE \
	      -DDT_PLUGINDIR='"$(PLUGINDIR)"'
CFLAGS     += -std=gnu11 $(OPT) $(WARNINGS) $(SANFLAGS) -fPIC
LDFLAGS    += $(SANFLAGS)

DTRACE_SRCS := $(wildcard dtrace/*.c)
DTRACE_OBJS := $(DTRACE_SRCS:%.c=$(O)/%.o)
DTRACE_LIBS := -lbpf -lelf -ldw -lunwind-ptrace -lunwind-generic -lunwind \
	       -lZydis -ldl -lz

# Objects shared with the plugins and dtprobed (ELF and symbol handling):
# compiled once more into a static library.  Everything is built -fPIC, so
# the same flags serve; the separate directory keeps the two copies apart.
COMMON_SRCS := $(wildcard dtrace/dt_elf.c dtrace/dt_subr_common.c)
COMMON_OBJS := $(COMMON_SRCS:%.c=$(O)/common/%.o)
COMMON_LIB  := $(B)/libdtcommon.a

PLUGINS     := $(notdir $(wildcard plugins/*))
PLUGINS_BUILT := $(foreach p,$(PLUGINS),$(if $(wildcard plugins/$(p)/*.c),$(p)))
PLUGIN_SOS  := $(PLUGINS_BUILT:%=$(B)/plugins/%.so)
PLUGIN_LIBS := -lelf -ldw -lZydis
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

TARGETS := $(B)/dtrace $(PLUGIN_SOS) $(if $(DTPROBED_SRCS),$(B)/dtprobed)

# Programs the tests trace (test/progs/*.c), built without sanitizers: they
# are traced, not tested, and uprobes want plain code.
TEST_PROG_SRCS := $(wildcard test/progs/*.c)
TEST_PROGS     := $(TEST_PROG_SRCS:test/progs/%.c=$(B)/test/progs/%)

# Unit tests in C (test/unit/*.c), linked with the engine's objects.
UNIT_SRCS := $(wildcard test/unit/*.c)
UNIT_BINS := $(UNIT_SRCS:test/unit/%.c=$(B)/test/unit/%)
ENGINE_OBJS_NOMAIN := $(filter-out $(O)/dtrace/dt_main.o,$(DTRACE_OBJS))

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

# Alias: `make build/dtrace/dt_foo.o` builds build/obj/dtrace/dt_foo.o.
$(B)/dtrace/%.o: $(O)/dtrace/%.o
	@:
$(B)/plugins/%.o: $(O)/plugins/%.o
	@:

$(COMMON_LIB): $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# -rdynamic: plugins see nothing of the engine but the host table; it is
# kept so that stack traces of the engine name its functions.  A directory
# in the way is a leftover of an older layout (objects in $(B)/dtrace/).
$(B)/dtrace: $(DTRACE_OBJS)
	@if [ -d $@ ]; then rm -rf $@; fi
	$(CC) $(LDFLAGS) -rdynamic -o $@ $^ $(DTRACE_LIBS)

# A plugin sees the engine through include/dtrace only, as a third
# party's would: no -Idtrace.  usdt, still built on the engine's ELF
# reading (dt_elf.h, libdtcommon.a), is the exception until it takes the
# host table's (host->proc_grab, host->elf_*).
PLUGINS_INTERNAL := usdt
PLUGIN_CPPFLAGS  := $(filter-out -Idtrace,$(CPPFLAGS))
$(foreach p,$(filter-out $(PLUGINS_INTERNAL),$(PLUGINS_BUILT)),\
	$(eval $(O)/plugins/$(p)/%.o: CPPFLAGS := $(PLUGIN_CPPFLAGS)))

# One rule per plugin: $(B)/plugins/NAME.so from plugins/NAME/*.c.
define plugin_rule
$(B)/plugins/$(1).so: $(patsubst %.c,$(O)/%.o,$(wildcard plugins/$(1)/*.c)) $(COMMON_LIB) scripts/plugin.map
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) $$(PLUGIN_LDFLAGS) -o $$@ $$(filter %.o,$$^) $(COMMON_LIB) $$(PLUGIN_LIBS)
endef
$(foreach p,$(PLUGINS_BUILT),$(eval $(call plugin_rule,$(p))))

$(B)/dtprobed: $(DTPROBED_OBJS) $(COMMON_LIB)
	@if [ -d $@ ]; then rm -rf $@; fi
	$(CC) $(LDFLAGS) -o $@ $^ -lbpf -lelf

test-programs: $(TEST_PROGS)
$(B)/test/progs/%: test/progs/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o $@ $< -ldl -lpthread

unit-tests: $(UNIT_BINS)
# Some unit tests include plugin sources: they depend on those too.
PLUGIN_SOURCES := $(wildcard plugins/*/*.c plugins/*/*.h)
$(B)/test/unit/%: test/unit/%.c $(ENGINE_OBJS_NOMAIN) $(PLUGIN_SOURCES) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(ENGINE_OBJS_NOMAIN) $(LDFLAGS) $(DTRACE_LIBS)

# --- tests -------------------------------------------------------------------
# check runs both passes even when the first fails, then fails if either
# did.  The sanitizer pass is a separate make so that its variables (B,
# SANFLAGS) are computed afresh; the first pass's status waits in a file so
# that the line running $(MAKE), which make runs even under -n, runs nothing
# else.
check: all unit-tests
	@B=$(B) test/run.sh; echo $$? >$(B)/.check-status
	$(MAKE) --no-print-directory SANITIZE=1 B=build-san check-san && \
		[ "$$(cat $(B)/.check-status 2>/dev/null)" = 0 ]

check-san: all unit-tests
	B=$(B) DT_SANITIZED=1 test/run.sh

check-fast: all unit-tests
	B=$(B) test/run.sh

# --- demo and benchmarks -----------------------------------------------------
demo: all
	DTRACE_PLUGIN_PATH=$(B)/plugins $(B)/dtrace -s demo/demo.d -c $(B)/test/progs/demo

# Every benchmark runs even when one misses its target; the status is 1 if
# any did.
BENCHES := startup.sh attach.sh firing.sh usdt_firing.sh aggsnap.sh usdt_reg.sh \
	usdt_pg_first_event.sh exec_gate.sh
bench: all test-programs
	@st=0; for b in $(BENCHES); do echo "== bench/$$b"; \
		B=$(B) bench/$$b || st=1; echo; done; exit $$st

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
	$(if $(wildcard dtprobed/dtprobed.service),install -m 644 dtprobed/dtprobed.service $(DESTDIR)$(UNITDIR)/)

clean:
	rm -rf build build-san

.PHONY: all check check-san check-fast deps install install-files clean \
	demo bench \
	test-programs unit-tests

-include $(shell find $(O) -name '*.d' 2>/dev/null)

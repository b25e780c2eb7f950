# taod: build, test and install.
#   make                 taod, taoctl and the test workload, in build/
#   make check           unit tests (plain and sanitized) and integration tests
#   make SANITIZE=address,undefined   a sanitized build, in build-san/
#   make install DESTDIR=... PREFIX=...

# Both cores for builds and for the stages of make check, unless a -j on
# the command line says otherwise (the top make only: sub-makes share its
# job slots).
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(shell nproc)
endif

CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
PYTHON ?= /usr/bin/python3
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
DESTDIR ?=

ifneq ($(SANITIZE),)
BUILD ?= build-san
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD ?= build
SAN_FLAGS :=
endif

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/')
PKGS := libbpf libsystemd inih json-c sqlite3
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-missing-field-initializers -Wno-format-truncation \
	-Iinclude -Idaemon -I$(BUILD) $(PKG_CFLAGS) $(SAN_FLAGS) -MMD -MP \
	-DTAOD_VERSION=\"$(VERSION)\" -DTAOD_SYSCONFDIR=\"$(SYSCONFDIR)\"
override LDFLAGS += $(SAN_FLAGS)
# assert() holds taod's own code to the contracts its callers guarantee
# (docs/contributing.md, "Asserts and errors"), and stays on in every build
# here: the tests (plain, sanitized, integration, fuzz), which prove that
# a broken contract aborts, and the package too (dpkg-buildflags adds no
# NDEBUG): a daemon acting on the kernel as root had better stop, and be
# restarted by systemd, than act on a table it has corrupted.
ifneq ($(findstring NDEBUG,$(CFLAGS) $(CPPFLAGS)),)
$(error taod keeps assert() on: build without -DNDEBUG (docs/contributing.md))
endif
LDLIBS += $(PKG_LIBS) -lm
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror -Iinclude -I$(BUILD)

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)

comma := ,

# observe -> account -> decide -> act -> report, plus shared pieces; a
# stage's files, and those of its rooms (daemon/act/gate/, ...).
LIB_DIRS := common config observe account decide act report control
# The pipeline's metrics_source.c too: the control plane's `metrics` asks it.
LIB_SRCS := $(foreach d,$(LIB_DIRS),$(wildcard daemon/$(d)/*.c daemon/$(d)/*/*.c)) \
	daemon/metrics_source.c
TAOCTL_SRCS := $(wildcard daemon/taoctl/*.c)
# Unit tests in a folder per stage and room, as daemon/ is; shared fixtures
# in support/ (and a stage's own, such as act/act_fixture.c).
UNIT_SRCS := $(wildcard tests/unit/*/*.c tests/unit/*/*/*.c)
# One BPF object per folder of bpf/, its files linked (bpftool gen object)
# into bpf/<name>.bpf.o, from which comes the one skeleton <name>.skel.h.
BPF_DIRS := $(patsubst %/,%,$(wildcard bpf/*/))
BPF_HDRS := $(wildcard bpf/*/*.bpf.h) include/taod/thp_observe.h include/taod/split_cause_rules.h

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
TAOCTL_OBJS := $(TAOCTL_SRCS:%.c=$(BUILD)/%.o)
UNIT_OBJS := $(UNIT_SRCS:%.c=$(BUILD)/%.o)
SKELS := $(BPF_DIRS:bpf/%=$(BUILD)/%.skel.h)

# Keep BPF objects: they are what the skeleton embeds, and handy to inspect.
.SECONDARY:

.PHONY: all clean check unit-test integration-test deps install format format-check bench \
	fuzz fuzz-smoke $(FUZZ_SMOKES) vm-deps vmtest vmtest-coverage vmtest-tenants vmtest-systemd vmtest-tao FORCE \
	deb fleet-test

all: $(BUILD)/taod $(BUILD)/taoctl $(BUILD)/thp_workload $(BUILD)/tao_boot_split.so $(BUILD)/tenants/kvcache \
	$(BUILD)/mmap_lock_holder

$(BUILD)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(BPF_HDRS) $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The linked object of folder bpf/<name>/ (make takes the rule above for
# its parts: the shorter stem wins). No % in the list: make would put the
# stem there. shared.bpf.o, which defines the maps the others declare
# extern, goes first ($^ keeps a name's first place): bpftool 7.1's linker
# (libbpf 1.1) puts a map met extern before its definition at offset 0,
# and the skeleton's relocations then miss.
.SECONDEXPANSION:
$(BUILD)/%.bpf.o: $(BUILD)/bpf/$$*/shared.bpf.o $$(addprefix $(BUILD)/,$$(addsuffix .o,$$(basename $$(wildcard bpf/$$*/*.bpf.c))))
	$(BPFTOOL) gen object $@ $^

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

# Objects that include a skeleton wait for it.
$(LIB_OBJS) $(BUILD)/daemon/taod.o $(BUILD)/daemon/pipeline.o $(BUILD)/daemon/tree_sync.o: | $(SKELS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

# version.o is rebuilt when git describe changes (a new commit, a dirty
# tree): taod -V and taoctl --version name what was really built.
$(BUILD)/daemon/common/version.o: $(BUILD)/version.txt
$(BUILD)/version.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@

$(BUILD)/libtaod.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

$(BUILD)/taod: $(BUILD)/daemon/taod.o $(BUILD)/daemon/pipeline.o $(BUILD)/daemon/tree_sync.o \
		$(BUILD)/libtaod.a
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/taoctl: $(TAOCTL_OBJS) $(BUILD)/libtaod.a
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# Frame pointers and no tail calls: the kernel walks a user stack by frame
# pointers (taoctl explain's split stacks).
$(BUILD)/thp_workload: tests/workload/thp_workload.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fno-omit-frame-pointer -fno-optimize-sibling-calls $< -o $@

# A tenant holding its own mmap lock against readers (test_lock_holder.py).
$(BUILD)/mmap_lock_holder: tests/workload/mmap_lock_holder.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wall -Wextra -Werror -pthread $< -o $@

# The boot-zone TAO fixture's debugfs split, preloaded into taod by its
# test: never sanitized (a preloaded library must not bring its own runtime).
$(BUILD)/tao_boot_split.so: tests/workload/tao_boot_split.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Werror -shared -fPIC $< -o $@ -ldl

$(BUILD)/fault_bench: tests/bench/fault_bench.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@

$(BUILD)/unit_tests: $(UNIT_OBJS) $(BUILD)/libtaod.a
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -lcriterion -o $@

unit-test: $(BUILD)/unit_tests
	cd tests && ../$(BUILD)/unit_tests --jobs 2

# JUnit files (per-test times) go where tests/test_times.py reads them.
TEST_TIMES := build/test-times
integration-test: all
	TAOD_BUILD=$(abspath $(BUILD)) $(PYTHON) -m pytest -v tests/integration \
		--junitxml=$(TEST_TIMES)/check/integration.xml

# The whole suite: unit tests plain and under ASan+UBSan, then the
# integration tests against the running kernel with the sanitized daemon.
# Each stage is timed; the stages and the 10 slowest tests are printed last.
timed = $(PYTHON) tests/test_times.py stage check $(1) -- $(MAKE) --no-print-directory $(2)
check:
	@$(PYTHON) tests/test_times.py reset check
	$(call timed,format-check,format-check)
	$(call timed,fuzz-smoke,-j2 --output-sync=target fuzz-smoke)
	$(call timed,unit-test,unit-test)
	$(call timed,sanitized-build+unit-test,SANITIZE=address$(comma)undefined unit-test all)
	$(call timed,integration-test,SANITIZE=address$(comma)undefined integration-test)
	$(call timed,fleet-test,fleet-test)
	@$(PYTHON) tests/test_times.py report check

# libFuzzer targets (tests/fuzz/), built with clang, ASan and UBSan against
# a libtaod.a of their own in build-fuzz/. Each runs from its seed corpus
# (tests/fuzz/corpus/NAME); new inputs go to build-fuzz/corpus/NAME, a
# crashing one to build-fuzz/crash-*. FORCE is phony: .SECONDARY would
# otherwise let a stale libtaod.a stand after a source change.
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BUILD := build-fuzz
FUZZ_SAN := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_RUNS ?= 1000000
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/%)

ifneq ($(BUILD),$(FUZZ_BUILD))
$(FUZZ_BUILD)/libtaod.a: FORCE
	$(MAKE) CC=$(CLANG) CFLAGS="-O1 -g -Wno-unknown-warning-option" BUILD=$(FUZZ_BUILD) \
		SANITIZE=fuzzer-no-link,address,undefined $(FUZZ_BUILD)/libtaod.a
endif

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/input.c $(FUZZ_BUILD)/libtaod.a
	$(CLANG) -g -O1 $(FUZZ_SAN) -Iinclude -Idaemon -I$(FUZZ_BUILD) $(PKG_CFLAGS) $^ $(LDLIBS) -o $@

# One target's run: NAME, and the libFuzzer limit (-runs=N or -max_total_time=S).
fuzz_run = mkdir -p $(FUZZ_BUILD)/corpus/$(1) && \
	$(FUZZ_BUILD)/$(1) $(2) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_BUILD)/ $(FUZZ_BUILD)/corpus/$(1) tests/fuzz/corpus/$(1) 2>&1 | \
		grep -E '^(stat::number_of_executed_units|Done|==[0-9]+==ERROR|SUMMARY|Test unit written)' ; \
	test $${PIPESTATUS[0]} -eq 0

fuzz: SHELL := /bin/bash
fuzz: $(FUZZ_BINS)
	@set -e; $(foreach t,$(FUZZ_TARGETS),echo "== $(t)"; $(call fuzz_run,$(t),-runs=$(FUZZ_RUNS));)

# One target per job: `make -j2 fuzz-smoke` (as check runs it) fuzzes two
# at a time, each on its own core for its FUZZ_SMOKE_SECONDS.
FUZZ_SMOKES := $(FUZZ_TARGETS:%=fuzz-smoke-%)
fuzz-smoke: $(FUZZ_SMOKES)
fuzz-smoke-%: SHELL := /bin/bash
fuzz-smoke-%: $(FUZZ_BUILD)/%
	@echo "== $*"; $(call fuzz_run,$*,-max_total_time=$(FUZZ_SMOKE_SECONDS))

FORCE:

# Fault-path cost (BPF runs and ns per 4 KiB and THP fault, fault times
# with taod detached and attached), tick and RSS at 0/1000/10000 cgroups,
# then per-event cost and daemon CPU under a THP churn workload.
BENCH_SECONDS ?= 60
BENCH_CGROUPS ?= 0 1000 10000
bench: all $(BUILD)/fault_bench
	$(PYTHON) tests/bench/bench_scale.py $(BENCH_CGROUPS)
	$(PYTHON) tests/bench/bench_observe.py $(BENCH_SECONDS)

# Debian packages needed to build, test and run; the kernel lab's host
# tools (tests/vm/README.md: QEMU, which ships virtiofsd, busybox for the
# initramfs, module and package tools) are part of it since CI runs make vmtest.
VM_PKGS := qemu-system-x86 busybox-static cpio kmod xz-utils zstd
# Real tenants for make vmtest-tenants, from Debian (the guests see the
# host's root, so what is installed here runs there): jemalloc, tcmalloc
# (gperftools), Go (to build the Go tenant), a JDK (javac for the JVM
# tenant), Redis, numpy, mimalloc, Node.js, Ruby, PHP, memcached.
VM_TENANT_PKGS := libjemalloc2 libmimalloc2.0 libgoogle-perftools4 golang-go openjdk-17-jdk-headless \
	redis-server redis-tools python3-numpy nodejs ruby php-cli memcached

DEB_PKGS := make gcc clang llvm bpftool libbpf-dev libsystemd-dev libinih-dev \
	libjson-c-dev libsqlite3-dev libcriterion-dev pkg-config git systemd \
	python3 python3-pytest python3-prometheus-client clang-format chromium libclang-rt-dev groff-base man-db logrotate \
	dpkg-dev lintian prometheus \
	$(VM_PKGS) $(VM_TENANT_PKGS)
deps:
	@if ! dpkg -s $(DEB_PKGS) >/dev/null 2>&1; then \
		apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(DEB_PKGS); \
	fi
vm-deps: deps

# The integration suite in QEMU guests of Debian's 6.1, 6.12 and newest
# kernels (tests/vm/README.md); VM_KERNELS, VM_JOBS and PYTEST_ARGS narrow it.
vmtest: all
	tests/vm/vmtest

# Does taod give a good tenant its THPs back beside an abuser? Fresh guests
# per kernel, mode and scenario; report in build/vm/coverage/report.md;
# fails when a target is missed (tests/vm/coverage: VM_KERNELS, VM_JOBS,
# COVERAGE_REPEAT, COVERAGE_TARGETS=0 to report only).
vmtest-coverage: all
	tests/vm/coverage

# The tenants' drivers: a cache heap for the malloc tenants, a Go and a
# Java churner (built on the host, run in the guests).
$(BUILD)/tenants/kvcache: tests/tenants/kvcache.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -Werror -pthread $< -o $@

$(BUILD)/tenants/gochurn: tests/tenants/gochurn/main.go
	@mkdir -p $(@D)
	cd tests/tenants/gochurn && GO111MODULE=off GOCACHE=$(abspath $(@D))/gocache \
		GOPATH=$(abspath $(@D))/gopath go build -o $(abspath $@) .

$(BUILD)/tenants/Churn.class: tests/tenants/Churn.java
	@mkdir -p $(@D)
	javac -d $(@D) $<

TENANT_BINS := $(BUILD)/tenants/kvcache $(BUILD)/tenants/gochurn $(BUILD)/tenants/Churn.class

# Real tenants (allocators, runtimes, Redis, numpy) and two abusers judged
# by taod with the shipped config in guests of 6.12 and the newest kernel;
# report in build/vm/tenants/report.md; fails on a good citizen punished or
# an abuser left good (tests/vm/tenants: VM_KERNELS, VM_JOBS, TENANTS_SECONDS).
vmtest-tenants: all $(TENANT_BINS)
	tests/vm/tenants

# taod.service under systemd as PID 1 in guests of 6.12 and the newest
# kernel: socket activation, notify, watchdog, reload, restart, and every
# lever inside the unit's sandbox (tests/vm/vmtest-systemd; UNIT_DROP).
vmtest-systemd: all
	+tests/vm/vmtest-systemd

# taod on a kernel with the TAO code (TAO_KERNEL, default ../shared/tao-kernel;
# tests/vm/build-kernel makes one): a guest per zone profile (bytes, percent,
# orders 2..9, one the kernel refuses, the command line taod recommended)
# running tests/tao, then taod.service under systemd there. Without a kernel
# it says how to get one and prints SKIPPED (tests/vm/vmtest-tao).
vmtest-tao: all
	tests/vm/vmtest-tao

# The Debian package, built with dpkg-deb from a `make install` tree
# (config/debian/build-deb; no debian/ at the top level), with Debian's
# hardening flags in a build directory of its own. Its version orders by
# commit count; taod -V and taoctl --version print the git hash in it.
DEB_BUILD := build-deb
DEB_VERSION := 0.1+git$(shell git rev-list --count HEAD 2>/dev/null || echo 0).$(shell \
	git rev-parse --short HEAD 2>/dev/null || echo none)
DEB := $(DEB_BUILD)/taod_$(DEB_VERSION)_$(shell dpkg --print-architecture 2>/dev/null).deb
DEB_MAKE = $(MAKE) BUILD=$(DEB_BUILD) \
	CFLAGS="$$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS) \
		$$(dpkg-buildflags --get CPPFLAGS)" \
	LDFLAGS="$$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get LDFLAGS)"
deb:
	$(DEB_MAKE) all
	rm -rf $(DEB_BUILD)/root $(DEB_BUILD)/*.deb
	$(DEB_MAKE) install DESTDIR=$(abspath $(DEB_BUILD)/root) PREFIX=/usr \
		UNITDIR=/lib/systemd/system
	config/debian/build-deb $(abspath $(DEB_BUILD)/root) $(DEB_VERSION) $(DEB)

# What a fleet installs: the package (lintian, installed into a scratch
# root with dpkg --root, the installed taod and taoctl run), the
# Prometheus rules (promtool check and unit tests) and the Grafana
# dashboard (structure, PromQL, metric names).
# (test_deb.py runs the scripts chrooted into busybox-static's /bin/busybox.)
fleet-test: deb
	TAOD_DEB=$(abspath $(DEB)) $(PYTHON) -m pytest -v tests/fleet \
		--junitxml=$(TEST_TIMES)/check/fleet.xml

install: all
	install -D -m 0755 $(BUILD)/taod $(DESTDIR)$(PREFIX)/sbin/taod
	install -D -m 0755 $(BUILD)/taoctl $(DESTDIR)$(PREFIX)/bin/taoctl
	install -d $(DESTDIR)$(SYSCONFDIR)/taod.conf.d
	test -e $(DESTDIR)$(SYSCONFDIR)/taod.conf || \
		install -D -m 0644 config/taod.conf $(DESTDIR)$(SYSCONFDIR)/taod.conf
	install -d $(DESTDIR)$(UNITDIR)
	sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		systemd/taod.service.in > $(DESTDIR)$(UNITDIR)/taod.service
	install -m 0644 systemd/taod.socket $(DESTDIR)$(UNITDIR)/taod.socket
	install -D -m 0644 man/taod.8 $(DESTDIR)$(PREFIX)/share/man/man8/taod.8
	install -D -m 0644 man/taoctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/taoctl.8
	install -D -m 0644 man/taod.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/taod.conf.5
	install -D -m 0644 completion/taoctl.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/taoctl

FORMAT_SRCS = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
format:
	clang-format -i $(FORMAT_SRCS)

# Fails when a source file is not formatted as .clang-format says.
format-check:
	@clang-format --dry-run -Werror $(FORMAT_SRCS) && echo "format: $(words $(FORMAT_SRCS)) files clean"

clean:
	rm -rf build build-san build-fuzz build-deb

-include $(shell find $(BUILD) -path $(BUILD)/vm -prune -o -name '*.d' -type f -print 2>/dev/null)

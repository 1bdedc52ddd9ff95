# SaaKM: build, boot and test. `make help` lists the targets.
#
# Variables: CPUS (guest vCPUs, default 2), ICOUNT (1: deterministic
# `-icount shift=0,sleep=off`), TIMEOUT (guest wall-clock limit in seconds),
# T (test selection: substrings of test names, space separated).

CPUS    ?= 2
ICOUNT  ?=
# make bench: guest vCPUs (default 2; 1 for the dispersive study in icount
# mode) or a shape (scripts/shapes.sh), repetitions, icount|realtime,
# workload subset
BENCH_CPUS ?=
BENCH_SHAPE ?=
BENCH_REPS ?= 5
BENCH_MODE ?= icount
BENCH_WORKLOADS ?=
TIMEOUT ?=
T       ?=
export CPUS ICOUNT TIMEOUT

BUILD   := build
KDIR    := $(BUILD)/linux
# Module directories: every policies/*/ and tests/modules/*/ with a Kbuild or Makefile.
MODDIRS := $(sort $(patsubst %/,%,$(dir $(wildcard policies/*/Kbuild policies/*/Makefile \
			tests/modules/*/Kbuild tests/modules/*/Makefile))))
# C guest tests: tests/guest/t_foo.c (SaaKM) and tests/harness/guest/t_foo.c
# (the harness's own) -> build/tests/t_foo
TESTSRC := $(wildcard tests/guest/t_*.c tests/harness/guest/t_*.c)
TESTBIN := $(addprefix $(BUILD)/tests/,$(basename $(notdir $(TESTSRC))))
# The user-space ABI headers <linux/saakm.h> and <linux/saakm_replay.h> are
# files of the class (kernel/src): user space (tests, tools, bench) includes
# them from there, and libc's other <linux/*.h> stay the ones in use.
UAPI    := kernel/src/include/uapi
UAPI_H  := $(UAPI)/linux/saakm.h $(UAPI)/linux/saakm_replay.h
# The few pristine 6.12 files the host side compiles against (libusim:
# tools/include, tools/lib/rbtree.c), taken once (scripts/host-tree.sh).
KHOST   := $(BUILD)/khost/.stamp
TESTDEPS := tests/guest/tap.h tests/guest/saakm_test.h tools/lib/saakm.h tools/lib/saakm.c \
	$(UAPI_H)
TESTCFLAGS ?= -O2 -g -Wall -Itests/guest -Itools/lib -I$(UAPI)

.PHONY: help setup kernel modules tools install uninstall deb deb-check test-progs replay-progs test test-full test-scale demo vm patch clean distclean policy-test policy-soak
.PHONY: bench bench-overhead bench-record bench-replay bench-dispersive bench-fair bench-all bench-smoke bench-setup bench-progs bench-vanilla bench-cpus bench-upgrade

help:
	@echo "SaaKM targets:"
	@echo "  make demo        build, boot a guest, load a module, run hackbench, print results"
	@echo "  make test        the whole suite on the normal, then the debug kernel, CI tier (T='name ...' selects tests, DEBUG=0 skips the debug pass)"
	@echo "  make test-full   the same with the long rounds and soaks (no time budget)"
	@echo "  make vm          interactive shell in a guest running the built kernel (SHAPE=llc4|epyc8|smt16: a topology)"
	@echo "  make test-scale  fifo, wfq, eevdf and locality with 1,000 threads under CPU hotplug on smt16, balance on epyc8"
	@echo "  make setup       install apt packages and virtme-ng (build/venv); idempotent"
	@echo "  make kernel      extract, patch, configure and build build/linux"
	@echo "  make modules     build every policies/*/ and tests/modules/*/ module"
	@echo "  make tools       build the saakm CLI and libsaakm into build/tools"
	@echo "  make install     install saakm, libsaakm, the man page, the completion and the built policies (DESTDIR, PREFIX, KVER); make uninstall"
	@echo "  make deb         Debian packages: the patched kernel (CONFIG=FILE, default /boot/config-*) and saakm-tools; deb-check boots them"
	@echo "  make patch       write build/saakm-6.12.patch (one patch for a 6.12 tree); export work committed in build/linux"
	@echo "  make policy-test policies' unit tests and seeded stress on the host (tests/policy/); P=NAME: one policy; policy-soak N=10000"
	@echo "  make bench       SaaKM FIFO vs its sched_ext twin vs EEVDF (docs/benchmarks.md)"
	@echo "  make bench-overhead  no-policy patched vs unpatched kernel, 1 vs 8 policies"
	@echo "  make bench-record    saakm_fifo recorded vs not (recording overhead)"
	@echo "  make bench-replay    replay speed of a recorded 10 s hackbench run"
	@echo "  make bench-dispersive  ghOSt/Shinjuku dispersive load: p99 vs load (EEVDF, fifo, shinjuku, scx_central)"
	@echo "  make bench-fair      every workload under EEVDF, the eevdf module, wfq and its twin ext_wfq (--ext own)"
	@echo "  make bench-cpus      kernel instructions per operation of EEVDF, fifo and ext_fifo on 2-16 vCPUs (kprof; BENCH_CPU_LIST=\"2 16\")"
	@echo "  make bench-upgrade   blackout of a live upgrade, and a switch's time, on 2 and 8 vCPUs with 10-10,000 tasks (icount)"
	@echo "  make bench-all   both in one run; make bench-smoke: 1 tiny repetition"
	@echo "  make clean       remove module outputs, compiled tests, results and logs"
	@echo "  make distclean   remove build/ entirely (kernel tree, venv, everything)"
	@echo "Variables: CPUS=$(CPUS) ICOUNT=$(ICOUNT) TIMEOUT=$(TIMEOUT) T=$(T)"
	@echo "  bench: BENCH_CPUS=$(BENCH_CPUS) BENCH_SHAPE=$(BENCH_SHAPE) BENCH_REPS=$(BENCH_REPS) BENCH_MODE=$(BENCH_MODE) BENCH_WORKLOADS=$(BENCH_WORKLOADS)"

setup:
	@bash scripts/setup.sh

kernel: setup
	@bash scripts/build-kernel.sh

# KEEP_GOING=1: build the other modules when one fails (make test does, so
# one broken module fails its tests instead of the whole run)
modules: $(if $(SKIP_KERNEL),,kernel)
	@rc=0; for d in $(MODDIRS); do \
		echo "modules: $$d"; \
		bash scripts/build-module.sh "$$d" || { rc=1; [ -n "$(KEEP_GOING)" ] || exit 1; }; \
	done; [ -n "$(KEEP_GOING)" ] || exit $$rc

# user-space tools (saakm CLI, libsaakm) into build/tools, when present
tools: $(KHOST)
	@if [ -f tools/Makefile ]; then echo "tools: build/tools"; $(MAKE) -s -C tools O=$(CURDIR)/$(BUILD)/tools; fi

# make install / make uninstall [DESTDIR=...] [PREFIX=/usr/local] [KVER=...]:
# the CLI, libsaakm (headers, pkg-config file), saakm.1, the bash completion
# and the policy modules already built (tools/Makefile). Builds the tools
# if needed; never the kernel or the modules.
install uninstall:
	@$(MAKE) --no-print-directory -C tools $@

# make deb [CONFIG=FILE]: Debian packages of the patched kernel (bindeb-pkg,
# this machine's /boot/config-* plus SaaKM, sched_ext and tracing) and of
# the tools and policies, in build/deb (docs/bare-metal.md). deb-check, run
# outside make test: the same with the guest configuration, installed into
# a scratch root and booted in a guest that loads the packaged fifo.
deb: kernel
	@bash scripts/deb.sh
deb-check: kernel
	@bash scripts/deb.sh --check

$(KHOST): scripts/host-tree.sh
	@bash scripts/host-tree.sh

test-progs: $(TESTBIN) bench-progs replay-progs

# The replay programs the guest's record tests use, built on the host
# (tests/guest/replay-prebuild.sh): a replay in the guest starts at once.
replay-progs: tools
	@echo "test-progs: replay programs in $(BUILD)/replay-cache"
	@bash tests/guest/replay-prebuild.sh $(CURDIR)/$(BUILD)/replay-cache

# Each test links libsaakm's source: /proc/saakm is parsed there only.
$(BUILD)/tests/%: tests/guest/%.c $(TESTDEPS)
	@mkdir -p $(@D)
	@echo "test-progs: $@"
	@$(CC) $(TESTCFLAGS) -o $@ $< tools/lib/saakm.c

$(BUILD)/tests/%: tests/harness/guest/%.c $(TESTDEPS)
	@mkdir -p $(@D)
	@echo "test-progs: $@"
	@$(CC) $(TESTCFLAGS) -o $@ $< tools/lib/saakm.c

# A module or C test that does not build fails its tests, not the whole run.
# test-full runs the same suite with the long rounds and soaks (tests/all.sh).
# The debug kernel starts building first, in the background at the idle
# priority (tests/debug-build.sh), and takes what the rest leaves idle.
test test-full: setup
	@if [ "$(DEBUG)" != 0 ]; then bash tests/debug-build.sh start; fi
	@$(MAKE) -s kernel tools
	@$(MAKE) -s modules KEEP_GOING=1 SKIP_KERNEL=1
	@$(MAKE) -s -k test-progs || echo "test-progs: some C tests did not compile; they will be reported as failed"
	@bash tests/all.sh $(if $(filter test-full,$@),--full) $(foreach t,$(T),-t $(t))

demo: modules tools
	@bash scripts/demo.sh

vm: kernel
	@bash scripts/vm.sh $(if $(SHAPE),--shape $(SHAPE))

# The policies at scale under hotplug (tests/guest/t_saakm_scale.c), outside
# make test: the soak (1,000 threads, 60 s, every CPU but 0 offline and
# online 20 times) on smt16, then the balance check on epyc8; both in
# icount guests, whose clock does not run while the host leaves a vCPU
# waiting. make test runs a small version.
test-scale: modules tools test-progs
	@ICOUNT=1 SAAKM_FULL=1 SAAKM_SCALE_PARTS=1 bash tests/run.sh --no-build --no-host --shape smt16 -t saakm_scale; \
	rc=$$?; ICOUNT=1 SAAKM_SCALE_PARTS=2 bash tests/run.sh --no-build --no-host --shape epyc8 -t saakm_scale || rc=1; \
	exit $$rc

# --- benchmarks (bench/, docs/benchmarks.md) -----------------------------------
BENCH_ARGS = --mode $(BENCH_MODE) $(if $(BENCH_CPUS),--cpus $(BENCH_CPUS)) $(if $(BENCH_SHAPE),--shape $(BENCH_SHAPE)) \
	--reps $(BENCH_REPS) \
	$(if $(BENCH_WORKLOADS),--workloads "$(BENCH_WORKLOADS)")

bench-setup: setup
	@bash bench/setup.sh

# schedrun, wakelat, the ext_fifo twin and the nullpol module (build/bench/)
bench-progs:
	@$(MAKE) -s -C bench

bench-vanilla: setup
	@bash bench/build-vanilla.sh

# policies' host unit tests and seeded stress on libusim (tests/policy/);
# make test runs them too. policy-soak: N scenarios per policy (10,000).
policy-test: $(KHOST)
	@bash tests/policy/run.sh $(if $(P),--policy $(P))

policy-soak: $(KHOST)
	@bash tests/policy/run.sh --soak $(or $(N),10000)

# every benchmark target: the modules, tools and programs, then one study
define bench_study
	@$(MAKE) -s modules tools SKIP_KERNEL=1
	@$(MAKE) -s bench-progs
	@bash bench/run.sh --study $(1) $(BENCH_ARGS)
endef

bench: kernel bench-setup
	$(call bench_study,main)

bench-overhead: kernel bench-setup bench-vanilla
	$(call bench_study,overhead)

bench-record: kernel bench-setup
	$(call bench_study,record)

bench-dispersive: kernel bench-setup
	$(call bench_study,dispersive)

bench-fair: kernel bench-setup
	$(call bench_study,main --ext own --configs "eevdf eevdf_mod wfq ext_wfq")

# replay speed: record hackbench in a guest, replay it on the host
bench-replay: kernel
	@$(MAKE) -s modules tools SKIP_KERNEL=1
	@bash bench/replay-speed.sh $(BENCH_REPLAY_ARGS)

bench-all: kernel bench-setup bench-vanilla
	$(call bench_study,all)

# the classes' cost as the vCPU count grows: one kprof guest per count
# (bench/cpus.sh; BENCH_CPU_LIST, default "2 4 8 16")
bench-cpus: kernel bench-setup
	@$(MAKE) -s modules tools SKIP_KERNEL=1
	@$(MAKE) -s bench-progs
	@bash bench/cpus.sh $(if $(BENCH_CPU_LIST),--cpus "$(BENCH_CPU_LIST)")

bench-upgrade: kernel
	@$(MAKE) -s modules tools SKIP_KERNEL=1
	@$(MAKE) -s bench-progs
	@bash bench/upgrade.sh $(if $(BENCH_CPU_LIST),--cpus "$(BENCH_CPU_LIST)")

bench-smoke: kernel bench-setup
	@$(MAKE) -s modules tools SKIP_KERNEL=1
	@$(MAKE) -s bench-progs
	@bash bench/run.sh --study main --smoke --reps 1 --cpus $(or $(BENCH_CPUS),2) --mode $(BENCH_MODE) \
		--workloads "$(or $(BENCH_WORKLOADS),hackbench_proc pipe wakelat)"

patch: setup
	@bash scripts/make-patch.sh

clean:
	@for d in $(MODDIRS); do \
		[ -d $(KDIR)/scripts ] && $(MAKE) -s -C $(KDIR) M=$(CURDIR)/$$d clean || \
		(cd $$d && rm -f *.ko *.o *.mod *.mod.c .*.cmd Module.symvers modules.order); \
	done
	rm -rf $(BUILD)/policy-tests $(BUILD)/usim $(BUILD)/usim-san
	rm -rf $(BUILD)/tests $(BUILD)/results $(BUILD)/logs $(BUILD)/vm-state.* $(BUILD)/saakm-6.12.patch $(BUILD)/khost $(BUILD)/replay-cache

distclean: clean
	rm -rf $(BUILD)

# Secret memory for memfd_create(2): the series and its test harness.
# See README.md. The two commands: 'make run' (the demo), 'make check'.

ARCH ?= x86_64
FLAVOR ?= tests
S := scripts

.PHONY: run check help deps tree export kernel userland shell vm-run \
	harness-test series-check bench fuzz clean

run: deps
	$(S)/prepare.sh $(ARCH) $(FLAVOR)
	SHOW=1 $(S)/vm.sh $(ARCH) $(FLAVOR) demo

check:
	$(S)/check.sh

help:
	@echo 'make run            the demo: build a kernel, boot it, run examples/secret-demo'
	@echo 'make check          every test, on x86_64 and arm64 (what CI runs)'
	@echo 'make deps           install the host packages (apt)'
	@echo 'make tree           build/linux: the base plus one commit per patch'
	@echo 'make export         write build/linux back to patches/ and the cover letter'
	@echo 'make kernel         build one kernel (ARCH=x86_64|arm64 FLAVOR=tests|debug)'
	@echo 'make userland       headers, kselftests, examples and initramfs for ARCH'
	@echo 'make shell          an interactive shell in the VM (Ctrl-A x quits)'
	@echo 'make vm-run PROG=.. run a static program in the VM [ARGS=...]'
	@echo 'make harness-test   the harness self-tests (recorded logs, bench checks, shellcheck)'
	@echo 'make series-check   checkpatch, commits, uapi, docs, bisect, sparse; its self-tests'
	@echo 'make bench          base and series kernels measured in one run; fails on a missed target'
	@echo 'make fuzz           the fuzzer on the debug kernel [SECONDS=60 SEED=...]'
	@echo 'make clean          remove build/ (ccache in ~/.cache/ccache stays)'
	@echo 'Variables: ARCH, FLAVOR, KVM=1, TIMEOUT=s, SMP=n, SHOW=1, CHECK_TARGETS="x86_64:tests ..."'

deps:
	$(S)/deps.sh

tree:
	$(S)/tree.sh tree

export:
	$(S)/tree.sh export

kernel: tree
	$(S)/kernel.sh $(ARCH) $(FLAVOR)

userland: tree
	$(S)/userland.sh $(ARCH)

shell:
	$(S)/prepare.sh $(ARCH) $(FLAVOR)
	$(S)/vm.sh $(ARCH) $(FLAVOR) shell

vm-run:
	@test -n "$(PROG)" || { echo "ERROR: usage: make vm-run ARCH=$(ARCH) PROG=path/to/static-binary [ARGS=...]" >&2; exit 2; }
	@$(S)/prepare.sh $(ARCH) $(FLAVOR)
	@SHOW=1 $(S)/vm.sh $(ARCH) $(FLAVOR) run $(abspath $(PROG)) $(ARGS) || \
		{ rc=$$?; echo "vm-run: $(PROG) exited with status $$rc" >&2; exit $$rc; }

bench: deps
	$(S)/bench.sh

# make fuzz [SECONDS=60] [SEED=...] [ARCH=x86_64] [FUZZ_FLAVOR=debug]
fuzz: deps
	$(S)/fuzz.sh $(ARCH) $(or $(FUZZ_FLAVOR),debug) $(or $(SEED),$(shell date +%s)) $(or $(SECONDS),60)

harness-test:
	tests/harness/run.sh

series-check: deps tree
	tests/series/run.sh
	$(S)/series-check.sh

clean:
	rm -rf build

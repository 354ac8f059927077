# Secret memory for memfd_create(2): the series and its test harness.
# See README.md. The two commands: 'make run' (the demo), 'make check'.

ARCH ?= x86_64
FLAVOR ?= tests
S := scripts

.PHONY: run check deps tree export kernel selftests initramfs userland \
	shell vm-run harness-test series-check bench fuzz clean

run: deps tree
	$(S)/kernel.sh $(ARCH) $(FLAVOR)
	$(MAKE) --no-print-directory userland ARCH=$(ARCH)
	SHOW=1 $(S)/vm.sh $(ARCH) $(FLAVOR) demo

check:
	$(S)/check.sh

deps:
	$(S)/deps.sh

tree:
	$(S)/tree.sh tree

export:
	$(S)/tree.sh export

kernel: tree
	$(S)/kernel.sh $(ARCH) $(FLAVOR)

userland:
	$(S)/selftests.sh $(ARCH)
	$(S)/examples.sh $(ARCH)
	$(S)/initramfs.sh $(ARCH)

shell: kernel
	$(MAKE) --no-print-directory userland ARCH=$(ARCH)
	$(S)/vm.sh $(ARCH) $(FLAVOR) shell

vm-run: kernel
	@test -n "$(PROG)" || { echo "ERROR: usage: make vm-run ARCH=$(ARCH) PROG=path/to/static-binary [ARGS=...]" >&2; exit 2; }
	$(MAKE) --no-print-directory userland ARCH=$(ARCH)
	@SHOW=1 $(S)/vm.sh $(ARCH) $(FLAVOR) run $(abspath $(PROG)) $(ARGS) || \
		{ rc=$$?; echo "vm-run: $(PROG) exited with status $$rc" >&2; exit $$rc; }

bench: deps
	$(S)/bench.sh

# make fuzz [SECONDS=60] [SEED=...] [ARCH=x86_64] [FUZZ_FLAVOR=debug]
fuzz: deps tree
	$(S)/fuzz.sh $(ARCH) $(or $(FUZZ_FLAVOR),debug) $(or $(SEED),$(shell date +%s)) $(or $(SECONDS),60)

harness-test:
	tests/harness/run.sh

series-check: deps tree
	$(S)/series-check.sh
	tests/series/run.sh

clean:
	rm -rf build


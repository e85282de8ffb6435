# SPDX-License-Identifier: GPL-2.0
#
# make                build twheel.ko against KDIR
# make check          build the test kernels and run every test in QEMU
#                     (KVERS="6.12" for one kernel only)
# make kcsan          every KUnit suite on a KCSAN build of the newest test
#                     kernel, under both schemes (not part of make check)
# make install        install twheel.ko for KDIR's kernel, and what clients
#                     build against (as root; DESTDIR or INSTALL_MOD_PATH
#                     stages it under another root)
# make uninstall      take all of that away again
# make demo           the main job: twheel and a workload in QEMU, with stats
# make trace          twheel's trace events through trace-cmd and perf, in
#                     QEMU (not part of make check)
# make torture        twheel_torture (torture/) in QEMU on 4 vCPUs with CPU
#                     hotplug, for DURATION=s (default 60) on KERNEL=6.12
#                     (or 6.1, debian, debian-rt); make check runs a
#                     bounded one on each kernel
# make torture-races  plant three races, one at a time, and show that the
#                     torture catches each (not part of make check)
# make bench          in QEMU: the paper's Fig. 9, every scheme of the papers,
#                     live callouts, wheel boundaries; into bench/results/bench/
# make user-check     the wheels in user space against the KUnit suites'
#                     reference model, under ASan and UBSan: seeded runs,
#                     libFuzzer (FUZZ_TIME=s, default 60), planted bugs
# make user-bench     the wheels' moves per tick in user space (BASELINE=rev:
#                     that core's beside them, into build/baseline-rev/)
# make user-ops       instructions (callgrind) and ns per operation of the
#                     wheels, beside the paper's VAX counts (BASELINE=rev:
#                     that core's instructions too)
# make fuzz           the same as make user-check
# make clean

# The running kernel's build directory, else the stock Debian 12 headers.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(wildcard /usr/src/linux-headers-*-amd64))

# "make install" puts twheel.ko in lib/modules/KVER/updates/twheel/ and the
# client kit in usr/src/twheel/KVER/ (scripts/kit.sh), under this root.  It
# does not sign the module: on a machine with Secure Boot, use DKMS, which
# signs with its own key (README.md).
INSTALL_MOD_PATH ?= $(if $(DESTDIR),$(abspath $(DESTDIR)))
KVER = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
		$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
MODDIR = lib/modules/$(KVER)/updates/twheel

all: modules

modules clean:
	@test -n "$(KDIR)" || { echo "KDIR not set and no kernel build directory found: apt-get install linux-headers-amd64, or make KDIR=..." >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) $@

# depmod runs for the live system only; a staged root is the packager's.
install: modules
	@test -n "$(KVER)" || { echo "no kernel release in $(KDIR)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH="$(INSTALL_MOD_PATH)" \
		INSTALL_MOD_DIR=updates/twheel DEPMOD=true \
		CONFIG_MODULE_SIG_ALL= modules_install
	scripts/kit.sh install $(KVER) "$(INSTALL_MOD_PATH)"
	$(if $(INSTALL_MOD_PATH),,depmod -a $(KVER))

uninstall:
	@test -n "$(KVER)" || { echo "no kernel release in $(KDIR)" >&2; exit 1; }
	rm -rf "$(INSTALL_MOD_PATH)/$(MODDIR)"
	cd "$(or $(INSTALL_MOD_PATH),/)" && \
		rmdir -p --ignore-fail-on-non-empty $(dir $(MODDIR)) 2>/dev/null || true
	scripts/kit.sh remove $(KVER) "$(INSTALL_MOD_PATH)"
	$(if $(INSTALL_MOD_PATH),,depmod -a $(KVER))

check:
	scripts/check.sh

kcsan:
	scripts/kcsan.sh

demo:
	scripts/demo.sh

trace:
	scripts/trace-example.sh

torture:
	scripts/torture.sh $(KERNEL)

torture-races:
	scripts/torture-races.sh $(KERNEL)

bench:
	scripts/bench.sh

user-check:
	scripts/user-check.sh $(FUZZ_TIME)

user-bench:
	scripts/user-bench.sh $(BASELINE)

user-ops:
	scripts/user-ops.sh $(BASELINE)

fuzz:
	scripts/user-check.sh $(FUZZ_TIME)

.PHONY: all modules clean install uninstall check kcsan demo trace torture \
	torture-races bench \
	user-check user-bench user-ops fuzz

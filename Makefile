# SPDX-License-Identifier: GPL-2.0
#
# make                build twheel.ko against KDIR
# make check          build the test kernels and run every test in QEMU
#                     (KVERS="6.12" for one kernel only)
# make demo           the main job: twheel and a workload in QEMU, with stats
# make bench          the paper's Fig. 9 and memory, into bench/results/
# make clean

# The running kernel's build directory, else the stock Debian 12 headers.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(wildcard /usr/src/linux-headers-*-amd64))

all: modules

modules clean:
	@test -n "$(KDIR)" || { echo "KDIR not set and no kernel build directory found: apt-get install linux-headers-amd64, or make KDIR=..." >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) $@

check:
	scripts/check.sh

demo:
	scripts/demo.sh

bench:
	scripts/bench.sh

.PHONY: all modules clean check demo bench

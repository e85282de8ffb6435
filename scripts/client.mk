# SPDX-License-Identifier: GPL-2.0
#
# client.mk - the Makefile of a twheel client built out of tree, which the
# Makefiles of bench/, samples/, torture/ and kunit/client/ include.
# twheel must be built first (make in TWHEEL), for its Module.symvers and
# include/; the folder's Kbuild says what to build, with
# ccflags-y := -I$(TWHEEL)/include.
#
#   make TWHEEL=/path/to/twheel [KDIR=/path/to/kernel/build]
#
# TWHEEL defaults to the tree this file is in; KDIR to the running
# kernel's build directory, else the stock Debian 12 headers.

TWHEEL ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(wildcard /usr/src/linux-headers-*-amd64))

all modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) TWHEEL=$(TWHEEL) \
		KBUILD_EXTRA_SYMBOLS=$(TWHEEL)/Module.symvers modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

.PHONY: all modules clean

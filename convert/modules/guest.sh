#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh MODULE... - the guest's part of scripts/convert-check.sh.
#
# ledprobe.ko and twheel.ko are loaded.  Each LED trigger MODULE runs its
# steps on the ledprobe LED, each step twice: with the kernel's own copy
# (/lib/convert/orig/MODULE.ko) and then with the copy converted to
# twheel (/lib/convert/twheel/MODULE.ko), loaded in turn, so that the two
# run a few seconds apart whatever the host is doing.  A step attaches
# the trigger, writes its attributes, waits for the brightness changes
# the step expects (n=) and a little longer (settle=, ms), and detaches
# it.  Marks in the probe's record ("begin MODULE SIDE", "step ...",
# "done", "end") let scripts/convert-compare.py cut the record into
# steps; at the end the whole record goes to the console, each line
# prefixed with "ledprobe: ".
#
# A step is a list of KEY=VALUE: n, settle and cancel (ms after the
# writes, write 0 to activate) are this script's; every other key is an
# attribute of the trigger, written in order (commas in a value become
# spaces).  convert-compare.py reads the same keys from the marks.

led=/sys/class/leds/ledprobe
probe=/sys/kernel/debug/ledprobe

say() { echo "convert-check: $*"; }
# ktap.py --health-only fails a run on a harness line saying "failed".
fail() { echo "twheel-harness: convert-check: $* failed"; }
mark() { echo "$*" >$probe/mark; }

# The steps of each trigger, one a line.
steps() {
	case "$1" in
	ledtrig-heartbeat)
		# The first change and two whole beats (thump, pause,
		# thump, long pause), twice.
		echo "n=9"
		echo "n=9"
		;;
	ledtrig-transient)
		for round in 1 2 3 4; do
			echo "n=2 state=1 duration=30 activate=1"
			echo "n=2 state=1 duration=100 activate=1"
			echo "n=2 state=0 duration=250 activate=1"
		done
		# Cancelled long before it is due: it must not fire later.
		echo "n=2 state=1 duration=1000 activate=1 cancel=200 settle=1500"
		;;
	ledtrig-pattern)
		echo "n=6 repeat=3 pattern=255,100,255,0,0,100,0,0"
		echo "n=9 repeat=3 pattern=255,30,255,0,0,70,0,0,128,30,128,0"
		echo "n=20 repeat=2 pattern=0,200,255,200"
		;;
	*)
		fail "no steps for $1:"
		;;
	esac
}

# wait_count N SECONDS: until the probe has seen N changes, or SECONDS.
wait_count() {
	local left=$(($2 * 50))

	while [ "$(cat $probe/count)" -lt "$1" ]; do
		left=$((left - 1))
		[ $left -gt 0 ] || return 1
		usleep 20000
	done
}

# run_step TRIGGER STEP
run_step() {
	local trig=$1 step=$2 n=0 settle=300 cancel= base kv k v

	mark "step $step"
	base=$(cat $probe/count)
	echo "$trig" >$led/trigger || { fail "attaching $trig"; return; }
	for kv in $step; do
		k=${kv%%=*} v=${kv#*=}
		case "$k" in
		n) n=$v ;;
		settle) settle=$v ;;
		cancel) cancel=$v ;;
		*)
			echo "$v" | tr , ' ' >$led/$k ||
				fail "$trig: writing $v to $k"
			;;
		esac
	done
	if [ -n "$cancel" ]; then
		usleep $((cancel * 1000))
		echo 0 >$led/activate
	fi
	wait_count $((base + n)) 60 ||
		fail "$trig: step '$step': $(($(cat $probe/count) - base)) of $n changes"
	usleep $((settle * 1000))
	mark done
	echo none >$led/trigger
}

# run_side MODULE SIDE STEP: SIDE is orig or twheel.
run_side() {
	local mod=$1 side=$2

	if ! insmod /lib/convert/$side/$mod.ko; then
		fail "insmod $side/$mod"
		return
	fi
	mark "begin $mod $side"
	run_step "${mod#ledtrig-}" "$3"
	mark "end $mod $side"
	rmmod "$(echo "$mod" | tr - _)" || fail "rmmod $side/$mod"
}

say "twheel $(grep '^tick_ns:' /sys/kernel/debug/twheel/config)"
for mod in "$@"; do
	say "$mod"
	steps "$mod" | while read -r step; do
		run_side "$mod" orig "$step"
		run_side "$mod" twheel "$step"
	done
done
sed 's/^/ledprobe: /' $probe/events
echo "ledprobe: end"

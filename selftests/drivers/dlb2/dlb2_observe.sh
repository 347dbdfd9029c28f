#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a bug report carries (Documentation/admin-guide/dlb2.rst, "What to
# send with a bug report"): with the dlb2 trace events on, a domain made
# through configfs, enabled and disabled must leave exactly the events
# dlb2_domain_enable, dlb2_domain_disable and dlb2_domain_reset in the
# trace; while enabled, the debugfs dump must name it, its queues, ports
# and links; a refused write must be explained in the kernel log when
# dynamic debug is on for dlb2 (skipped on kernels without
# CONFIG_DYNAMIC_DEBUG).  Prints TAP; skips without a DLB device.
. "$(dirname "$0")/tap.sh"

echo "TAP version 13"
bdf=$(basename "$(ls -d /sys/bus/pci/drivers/dlb2/0000:* 2>/dev/null | head -1)")
if [ -z "$bdf" ]; then
	echo "1..0 # SKIP no DLB device bound to dlb2"
	exit 4
fi
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
tracing=/sys/kernel/tracing
[ -e $tracing/trace ] || mount -t tracefs none $tracing 2>/dev/null
if [ ! -d $tracing/events/dlb2 ]; then
	echo "1..0 # SKIP no dlb2 trace events ($tracing/events/dlb2)"
	exit 4
fi
echo "1..8"
tmp=$(mktemp -d)
dev=$(cat "/sys/bus/pci/devices/$bdf/dev_id")
cfs=/sys/kernel/config/dlb2/dlb2_$dev
dom=$cfs/obs_test
dump=/sys/kernel/debug/dlb2/$bdf/domains
ddebug=/sys/kernel/debug/dynamic_debug/control

cleanup() {
	echo 0 >$tracing/events/dlb2/enable
	echo 1 >$tracing/tracing_on
	[ -e $ddebug ] && echo 'module dlb2 -p' >$ddebug
	if [ -d "$dom" ]; then
		echo 0 >"$dom/enable"
		rmdir "$dom/ports/p0/links/q0" "$dom/ports/d0/links/dq" \
			"$dom"/ports/* "$dom"/queues/* "$dom" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

echo 0 >$tracing/tracing_on
echo >$tracing/trace
echo 1 >$tracing/events/dlb2/enable
echo 1 >$tracing/tracing_on

mkdir "$dom" "$dom/queues/q0" "$dom/queues/dq" "$dom/ports/p0" "$dom/ports/d0"
echo dir >"$dom/queues/dq/type"
echo dir >"$dom/ports/d0/type"
mkdir "$dom/ports/p0/links/q0" "$dom/ports/d0/links/dq"
echo 64 >"$dom/ldb_credits"
echo 64 >"$dom/dir_credits"
echo 1 >"$dom/enable"
id=$(cat "$dom/id")
cat "$dump" >"$tmp/dump"
echo 0 >"$dom/enable"
echo 0 >$tracing/tracing_on
# the trace's events, without the task, CPU and time columns
sed -n 's/^.* \(dlb2_[a-z_]*: \)/\1/p' $tracing/trace >"$tmp/events"

ok "the domain was enabled with a hardware id" '[ "$id" -ge 0 ]'
ok "enable, disable and reset are traced, in this order and nothing else" \
	'printf "%s\n" \
		"dlb2_domain_enable: dev=$bdf domain=obs_test id=$id ret=0 status=\"enabled\"" \
		"dlb2_domain_disable: dev=$bdf domain=obs_test id=$id status=\"disabled\"" \
		"dlb2_domain_reset: dev=$bdf domain=obs_test id=$id ret=0" |
	 diff -u - <(sed "s/ usecs=[0-9]*$//" "$tmp/events")'
ok "debugfs names the device and the domain in configfs" \
	'grep -q "^device $bdf dlb2_$dev version=.* state=ready " "$tmp/dump" &&
	 grep -qx "configfs obs_test id=$id status=\"enabled\"" "$tmp/dump"'
# what the domain holds: DLB 2.5 has one credit pool, the sum
credits="ldb_credits=64 dir_credits=64"
[ "$(cat "/sys/bus/pci/devices/$bdf/hw_version")" = 2.5 ] &&
	credits="ldb_credits=128 dir_credits=0"
ok "debugfs names the enabled domain" \
	'grep -q "^domain obs_test id=$id $credits .* queues=2 ports=2$" "$tmp/dump"'
ok "debugfs names its queues" \
	'grep -q "^  queue q0 type=ldb id=[0-9]* depth=0 .* sched=atomic " "$tmp/dump" &&
	 grep -q "^  queue dq type=dir id=[0-9]* depth=0 " "$tmp/dump"'
ok "debugfs names its ports and their links" \
	'grep -q "^  port p0 type=ldb id=[0-9]* cq_depth=64 wait_mode=poll .* open=0 pins=0 pins_revoked=0 " "$tmp/dump" &&
	 grep -qx "    link q0 slot=0 priority=0 state=mapped" "$tmp/dump" &&
	 grep -q "^  port d0 type=dir " "$tmp/dump" &&
	 grep -qx "    link dq" "$tmp/dump"'
ok "the disabled domain reads as such" \
	'grep -qx "configfs obs_test id=-1 status=\"disabled\"" "$dump" &&
	 ! grep -q "^domain obs_test " "$dump"'

name="a refused write is explained with dynamic debug on"
if [ ! -e $ddebug ]; then
	n=$((n + 1))
	echo "ok $n $name # SKIP no $ddebug (kernel without CONFIG_DYNAMIC_DEBUG)"
else
	echo 'module dlb2 +p' >$ddebug
	echo foo >"$dom/queues/q0/type" 2>/dev/null
	ok "$name" \
		'dmesg | grep -qF "dlb2 $bdf: configfs dlb2_$dev/obs_test/queues/q0: type \"foo\": not one of ldb dir (-EINVAL)"'
fi
exit $failed

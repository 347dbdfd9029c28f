#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dlb2ctl against the driver: apply the example configuration of libdlb2,
# check that its domain is enabled with hardware ids and port devices, that
# show and stats name it (also as JSON), that a second apply is refused
# without a change, that save writes a file that apply takes back (save,
# destroy, apply, save: the same file), that the command of
# dlb2-apply@.service re-creates it from a directory and then leaves it
# alone, and that destroy removes it.  Prints TAP; skips without a DLB
# device.
# Run from the source tree or from a build directory inside it.
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
ctl=$top/tools/dlb2ctl/dlb2ctl
example=$top/tools/lib/dlb2/examples/pipeline.json
. "$(dirname "$0")/tap.sh"

echo "TAP version 13"
bdf=$(basename "$(ls -d /sys/bus/pci/drivers/dlb2/0000:* 2>/dev/null | head -1)")
if [ -z "$bdf" ] || [ ! -x "$ctl" ]; then
	echo "1..0 # SKIP no DLB device bound to dlb2, or dlb2ctl not built"
	exit 4
fi
echo "1..13"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the unit's command line, for device $bdf and directory $tmp/etc
unit_cmd=$(sed -n 's|^ExecStart=@sbindir@/dlb2ctl ||p' "$top/tools/dist/dlb2-apply@.service.in" |
	sed "s|%I|$bdf|; s|@sysconfdir@/dlb2|$tmp/etc|")
dev=$(cat "/sys/bus/pci/devices/$bdf/dev_id")
dom=/sys/kernel/config/dlb2/dlb2_$dev/pipeline
"$ctl" destroy -d "$dev" pipeline >/dev/null 2>&1

ok "apply enables the domain" \
	'"$ctl" apply "$example" && [ "$(cat $dom/status)" = enabled ]'
ok "queues and ports have hardware ids" \
	'[ "$(cat $dom/queues/rx/id)" -ge 0 ] && [ "$(cat $dom/ports/out/id)" -ge 0 ] &&
	 [ "$(cat $dom/queues/tx/id)" = "$(cat $dom/ports/out/id)" ]'
ok "configured values reached configfs" \
	'[ "$(cat $dom/queues/rx/sequence_numbers)" = 128 ] &&
	 [ "$(cat $dom/ports/w0/links/flows/priority)" = 2 ] &&
	 [ "$(cat $dom/ports/w1/wait_mode)" = interrupt ]'
ok "port devices exist" \
	'[ -c /dev/dlb2/$dev/pipeline/w0 ] && [ -c /dev/dlb2/$dev/pipeline/out ]'
ok "show and stats name the domain" \
	'"$ctl" show | grep -q "pipeline: .*status=enabled" &&
	 "$ctl" stats | grep -q pipeline'
ok "show -j and stats -j as JSON" \
	'[ "$("$ctl" show -j -d "$dev" pipeline | python3 -c "import json, sys
d = json.load(sys.stdin)[\"dlb2_$dev\"][\"pipeline\"]
print(d[\"status\"], d[\"queues\"][\"rx\"][\"sequence_numbers\"], d[\"ports\"][\"w1\"][\"wait_mode\"])")" = "enabled 128 interrupt" ] &&
	 "$ctl" stats -j | python3 -c "import json, sys
d = json.load(sys.stdin)[\"$bdf\"]
assert \"pipeline\" in d[\"domains\"], d"'
# stats reads sysfs (dlb2_domain/dlb2_N.pipeline/{queue,port}.NAME): exact
# lines of the domain, of its queues and of its ports, with the hardware ids
# configfs reports
ok "stats: the domain's, queues' and ports' statistics, exactly" \
	'"$ctl" stats "$bdf" | sed -n "/^  domains\/pipeline:/,/^  domains\//p" >"$tmp/stats" &&
	 grep -qx "  domains/pipeline: alarms=0 dequeued=0 enqueued=0 id=$(cat $dom/id)" "$tmp/stats" &&
	 grep -qx "    queues/rx: depth=0 enqueued=0 id=$(cat $dom/queues/rx/id) type=ldb" "$tmp/stats" &&
	 grep -qx "    queues/tx: depth=0 enqueued=0 id=$(cat $dom/queues/tx/id) type=dir" "$tmp/stats" &&
	 grep -qx "    ports/out: alarms=0 cq_depth=$(cat $dom/ports/out/cq_depth) dequeued=0 id=$(cat $dom/ports/out/id) inflight=0 outstanding=0 released=0 type=dir" "$tmp/stats" &&
	 grep -qx "    ports/w1: alarms=0 cq_depth=64 dequeued=0 id=$(cat $dom/ports/w1/id) inflight=0 outstanding=0 released=0 type=ldb" "$tmp/stats" &&
	 [ "$(grep -c "^    queues/" "$tmp/stats")" = 3 ] &&
	 [ "$(grep -c "^    ports/" "$tmp/stats")" = 3 ]'
ok "stats -j: the same values" \
	'[ "$("$ctl" stats -j "$bdf" | python3 -c "import json, sys
d = json.load(sys.stdin)[\"$bdf\"][\"domains\"][\"pipeline\"]
print(d[\"id\"], d[\"queues\"][\"rx\"][\"id\"], d[\"queues\"][\"tx\"][\"type\"],
      d[\"ports\"][\"w0\"][\"cq_depth\"], d[\"ports\"][\"out\"][\"id\"], \",\".join(sorted(d)))")" = \
	   "$(cat $dom/id) $(cat $dom/queues/rx/id) dir 64 $(cat $dom/ports/out/id) alarms,dequeued,enqueued,id,ports,queues" ]'
ok "a second apply is refused and changes nothing" \
	'! "$ctl" apply "$example" 2>/dev/null && [ "$(cat $dom/status)" = enabled ]'
mkdir "$tmp/etc"
ok "save, destroy, apply, save: the same file, the domain enabled" \
	'"$ctl" save -d "$dev" -o "$tmp/etc/pipeline.json" pipeline &&
	 "$ctl" destroy -d "$dev" pipeline >/dev/null && [ ! -e $dom ] &&
	 "$ctl" apply "$tmp/etc/pipeline.json" >/dev/null &&
	 "$ctl" save -d "$dev" pipeline >"$tmp/again.json" &&
	 cmp "$tmp/etc/pipeline.json" "$tmp/again.json" &&
	 [ "$(cat $dom/status)" = enabled ] && [ -c /dev/dlb2/$dev/pipeline/w0 ]'
ok "dlb2-apply@.service: re-creates the saved domain" \
	'"$ctl" destroy -d "$dev" pipeline >/dev/null &&
	 [ "$("$ctl" $unit_cmd)" = "dlb2_$dev/pipeline: enabled" ] &&
	 [ "$(cat $dom/status)" = enabled ]'
ok "dlb2-apply@.service: run again, leaves it alone" \
	'[ "$("$ctl" $unit_cmd)" = "dlb2_$dev/pipeline: exists, left alone" ] &&
	 [ "$(cat $dom/status)" = enabled ]'
ok "destroy removes the domain" \
	'"$ctl" destroy -d "$dev" pipeline && [ ! -e $dom ] && [ ! -e /dev/dlb2/$dev/pipeline ]'
exit $failed

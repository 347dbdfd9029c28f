# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by selftests/drivers/dlb2/accdirect.sh and tools/bench: a
# Soft-RoCE network for the AccDirect programs in one machine.  The server
# stays in the initial network namespace; the agent's namespace accd-agent
# is on 10.78.1.0/24 and the client's accd-client on 10.78.2.0/24, each a
# veth pair to the initial namespace (.1, the server's address facing it,
# .2 theirs) with an rxe device on both ends (accd0..accd3); the initial
# namespace routes between them.
#   net_up     (re)creates it: status 0, or 1 with the step that failed
#   net_down   removes it, and restores net.ipv4.ip_forward
#   accd_up DIR   for the benchmarks (tools/bench): the domain of
#              accdirect.json on the first device bound to dlb2 ($dev set to
#              its number, the spec written into DIR), then net_up
#   accd_down  net_down, and that domain destroyed
# All work with errexit set.

net_down() {
	local d
	for d in accd0 accd1 accd2 accd3; do rdma link del "$d" 2>/dev/null || :; done
	ip netns del accd-agent 2>/dev/null || :
	ip netns del accd-client 2>/dev/null || :
	[ -z "${forwarding:-}" ] || sysctl -qw net.ipv4.ip_forward="$forwarding"
}

net_up() {
	local i ns
	net_down
	modprobe rdma_rxe || return 1
	forwarding=$(sysctl -n net.ipv4.ip_forward)
	sysctl -qw net.ipv4.ip_forward=1 || return 1
	i=1
	for ns in accd-agent accd-client; do
		ip netns add $ns &&
		ip link add accdv$i type veth peer name eth0 netns $ns &&
		ip addr add 10.78.$i.1/24 dev accdv$i && ip link set accdv$i up &&
		ip -n $ns addr add 10.78.$i.2/24 dev eth0 &&
		ip -n $ns link set eth0 up &&
		ip -n $ns route add default via 10.78.$i.1 &&
		rdma link add accd$((2 * i - 2)) type rxe netdev accdv$i &&
		ip netns exec $ns rdma link add accd$((2 * i - 1)) type rxe netdev eth0 ||
			return 1
		i=$((i + 1))
	done
}

accd_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
accd_ctl=$accd_dir/../dlb2ctl/dlb2ctl

accd_up() {
	local bdf
	bdf=$(basename "$(ls -d /sys/bus/pci/drivers/dlb2/0000:* | head -1)")
	dev=$(cat "/sys/bus/pci/devices/$bdf/dev_id")
	"$accd_ctl" destroy -d "$dev" accdirect >/dev/null 2>&1 || :
	sed "s/\"device\": 0/\"device\": $dev/" "$accd_dir/accdirect.json" >"$1/spec.json" &&
		"$accd_ctl" apply "$1/spec.json" >/dev/null && net_up
}

accd_down() {
	net_down
	[ -z "${dev:-}" ] || "$accd_ctl" destroy -d "$dev" accdirect >/dev/null 2>&1 || :
}

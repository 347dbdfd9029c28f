#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The AccDirect system (tools/accdirect) on Soft-RoCE: the server in the
# initial network namespace, the agent and the client in namespaces of their
# own, each behind a veth pair with an rxe device on both ends; the initial
# namespace routes between the agent and the client.  The client RDMA-WRITEs
# DLB2_ACCDIRECT_REQUESTS (default 100000) payloads into the server and their
# metadata into the agent's ring, a window of requests in flight; the agent
# takes credits in portions by RDMA atomics and RDMA-WRITEs the QEs, four per
# line, into the server's DLB producer port; the server's two workers dequeue
# them, check every payload byte and answer each request by RDMA SEND, which
# the client checks (libaccdirect, tools/lib/accdirect).  Runs twice: the server
# registers the producer port through peer memory (peermem_dlb), then
# through the port's dma-buf; then two clients share the agent (-m auto);
# then the dlb-lib baseline: no agent, the server's own thread takes the
# client's metadata and enqueues it with the CPU (accdirect-server -c).
# Then the domain again with its queue atomic: the client's requests in
# three flows, of the queue's own type, through an agent and through the
# server's CPU agent, DLB2_ACCDIRECT_FLOW_REQUESTS each (default
# DLB2_ACCDIRECT_REQUESTS, at most 20000); the server's flow check (-F)
# counts the requests its two workers handled while the other handled one
# of the same flow: none, every QE atomic.  (Three: request i is of flow
# i % flows, and the model deals unordered QEs to the two workers in turn,
# so with an even number each flow would stay on one worker by chance.)
# Prints TAP; skips without a DLB or the programs, and a run without
# peermem_dlb or without dma-buf MRs on rxe.
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
bin=$top/tools/accdirect
ctl=$top/tools/dlb2ctl/dlb2ctl
count=${DLB2_ACCDIRECT_REQUESTS:-100000}
fcount=${DLB2_ACCDIRECT_FLOW_REQUESTS:-$((count < 20000 ? count : 20000))}
flows=3
log=$(mktemp -d)
n=0 failed=0

ok() {
	n=$((n + 1))
	if eval "$2"; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		sed 's/^/# /' "$log"/*.log
		failed=1
	fi
}

# net_up, net_down: the namespaces and rxe devices
. "$bin/soft-roce-net.sh"

echo "TAP version 13"
bdf=$(basename "$(ls -d /sys/bus/pci/drivers/dlb2/0000:* 2>/dev/null | head -1)")
if [ -z "$bdf" ]; then
	echo "1..0 # SKIP no DLB device bound to dlb2"
	exit 4
fi
if [ ! -x "$bin/accdirect-server" ] || [ ! -x "$ctl" ]; then
	echo "1..0 # SKIP needs tools/accdirect and dlb2ctl built"
	exit 4
fi
echo "1..20"
dev=$(cat "/sys/bus/pci/devices/$bdf/dev_id")
"$ctl" destroy -d "$dev" accdirect >/dev/null 2>&1
trap 'net_down; "$ctl" destroy -d "$dev" accdirect >/dev/null 2>&1; rm -rf "$log"' EXIT

ok "set-up: domain, namespaces, rxe devices" \
	'sed "s/\"device\": 0/\"device\": $dev/" "$bin/accdirect.json" >"$log/spec.json" &&
	 "$ctl" apply "$log/spec.json" && net_up'

skip3() {
	local i
	for i in 1 2 3; do
		n=$((n + 1))
		echo "ok $n # SKIP $1"
	done
}

# run MR-PATH HOW: the three programs, the server registering the producer
# port through MR-PATH (accdirect-server -m), which it reports as "registered
# through HOW"; three results.
run() {
	local mr=$1 how=$2 server agent client_rc agent_rc server_rc

	rm -f "$log"/*.log
	# Each under timeout(1): the server and the agent end once they have
	# seen $count requests.  (Not a watchdog subshell killed at the end: a
	# subshell killed before it has reset its traps runs the EXIT trap.)
	timeout 700 "$bin/accdirect-server" -a 0.0.0.0 -d "$dev" -n "$count" -m "$mr" \
		>"$log/server.log" 2>&1 &
	server=$!
	for _ in $(seq 50); do grep -q listening "$log/server.log" && break; sleep 0.2; done
	timeout 700 ip netns exec accd-agent "$bin/accdirect-agent" -s 10.78.1.1 -a 10.78.1.2 \
		-n "$count" >"$log/agent.log" 2>&1 &
	agent=$!
	timeout 600 ip netns exec accd-client "$bin/accdirect-client" -s 10.78.2.1 \
		-g 10.78.1.2 -n "$count" >"$log/client.log" 2>&1
	client_rc=$?
	wait "$agent"; agent_rc=$?
	wait "$server"; server_rc=$?

	ok "$mr: client sent $count requests, every answer correct" \
		'[ $client_rc = 0 ] &&
		 grep -q "^accdirect-client: $count requests sent .* $count answered, 0 errors" "$log/client.log"'
	ok "$mr: agent enqueued $count requests into the producer port" \
		'[ $agent_rc = 0 ] && grep -q "^accdirect-agent: $count requests enqueued" "$log/agent.log"'
	ok "$mr: server processed $count requests, every payload intact, on both workers" \
		'[ $server_rc = 0 ] &&
		 grep -q "^accdirect-server: $count requests processed, 0 bad" "$log/server.log" &&
		 grep -q "^accdirect-server: producer port registered through $how" "$log/server.log" &&
		 [ "$(grep -c "worker w[01] processed [1-9]" "$log/server.log")" = 2 ]'
	sed -n "s/^accdirect-\(.*\)/# $mr: \1/p" "$log"/client.log "$log"/agent.log "$log"/server.log
}

# run_clients K: K clients share one agent, $count requests in all, the
# server registering the producer port as it can (-m auto); three results.
run_clients() {
	local k=$1 per=$((count / $1)) total server agent agent_rc server_rc
	local i pids= clients_rc=0

	total=$((per * k))
	rm -f "$log"/*.log
	timeout 700 "$bin/accdirect-server" -a 0.0.0.0 -d "$dev" -n "$total" \
		>"$log/server.log" 2>&1 &
	server=$!
	for _ in $(seq 50); do grep -q listening "$log/server.log" && break; sleep 0.2; done
	timeout 700 ip netns exec accd-agent "$bin/accdirect-agent" -s 10.78.1.1 -a 10.78.1.2 \
		-n "$total" >"$log/agent.log" 2>&1 &
	agent=$!
	for i in $(seq "$k"); do
		timeout 600 ip netns exec accd-client "$bin/accdirect-client" -s 10.78.2.1 \
			-g 10.78.1.2 -n "$per" -f 16 >"$log/client$i.log" 2>&1 &
		pids="$pids $!"
	done
	for i in $pids; do wait "$i" || clients_rc=1; done
	wait "$agent"; agent_rc=$?
	wait "$server"; server_rc=$?

	ok "$k clients: each sent $per requests, every answer correct" \
		'[ $clients_rc = 0 ] &&
		 [ "$(grep -l "^accdirect-client: $per requests sent .* $per answered, 0 errors" \
			"$log"/client*.log | wc -l)" = "$k" ]'
	ok "$k clients: one agent enqueued their $total requests" \
		'[ $agent_rc = 0 ] && grep -q "^accdirect-agent: $total requests enqueued" "$log/agent.log" &&
		 grep -q "; $k clients$" "$log/agent.log"'
	ok "$k clients: server processed $total requests, every payload intact" \
		'[ $server_rc = 0 ] &&
		 grep -q "^accdirect-server: $total requests processed, 0 bad.*, $k clients$" "$log/server.log"'
	sed -n "s/^accdirect-\(.*\)/# $k clients: \1/p" "$log"/client*.log "$log"/agent.log \
		"$log"/server.log
}

# run_cpu: the dlb-lib baseline, the client's metadata ring at the server,
# whose thread enqueues with libdlb2; three results.
run_cpu() {
	local server client_rc server_rc

	rm -f "$log"/*.log
	timeout 700 "$bin/accdirect-server" -a 0.0.0.0 -d "$dev" -n "$count" -c 10.78.2.1 \
		>"$log/server.log" 2>&1 &
	server=$!
	for _ in $(seq 50); do grep -q listening "$log/server.log" && break; sleep 0.2; done
	timeout 600 ip netns exec accd-client "$bin/accdirect-client" -s 10.78.2.1 \
		-g 10.78.2.1 -n "$count" >"$log/client.log" 2>&1
	client_rc=$?
	wait "$server"; server_rc=$?

	ok "dlb-lib: client sent $count requests, every answer correct" \
		'[ $client_rc = 0 ] &&
		 grep -q "^accdirect-client: $count requests sent .* $count answered, 0 errors" "$log/client.log"'
	ok "dlb-lib: the server's thread enqueued $count requests with the CPU" \
		'grep -q "^accdirect-server: producer port agent: enqueued by the CPU" "$log/server.log" &&
		 grep -q "^accdirect-server: CPU enqueue: $count requests enqueued, 1 clients$" "$log/server.log"'
	ok "dlb-lib: server processed $count requests, every payload intact, no agent" \
		'[ $server_rc = 0 ] &&
		 grep -q "^accdirect-server: $count requests processed, 0 bad.*, 1 agents, 1 clients$" "$log/server.log"'
	sed -n "s/^accdirect-\(.*\)/# dlb-lib: \1/p" "$log"/client.log "$log"/server.log
}

# run_atomic rdma|cpu: requests in $flows flows to the atomic queue, of the
# queue's own type, through an agent (-m auto) or the server's CPU agent;
# each request holds its flow 100 us in the server's handler (-F); three
# results.
run_atomic() {
	local how=$1 what=agent agent_ip=10.78.1.2 server agent client_rc
	local agent_rc=0 server_rc cpu=

	if [ "$how" = cpu ]; then
		what="CPU agent" agent_ip=10.78.2.1 cpu="-c 10.78.2.1"
	fi
	rm -f "$log"/*.log
	timeout 700 "$bin/accdirect-server" -a 0.0.0.0 -d "$dev" -n "$fcount" -F 100 $cpu \
		>"$log/server.log" 2>&1 &
	server=$!
	for _ in $(seq 50); do grep -q listening "$log/server.log" && break; sleep 0.2; done
	if [ "$how" = rdma ]; then
		timeout 700 ip netns exec accd-agent "$bin/accdirect-agent" -s 10.78.1.1 \
			-a 10.78.1.2 -n "$fcount" >"$log/agent.log" 2>&1 &
		agent=$!
	fi
	timeout 600 ip netns exec accd-client "$bin/accdirect-client" -s 10.78.2.1 \
		-g "$agent_ip" -n "$fcount" -f "$flows" >"$log/client.log" 2>&1
	client_rc=$?
	[ "$how" = cpu ] || { wait "$agent"; agent_rc=$?; }
	wait "$server"; server_rc=$?

	ok "atomic queue, $what: client sent $fcount requests in $flows flows, every answer correct" \
		'[ $client_rc = 0 ] &&
		 grep -q "^accdirect-client: $fcount requests sent .* $fcount answered, 0 errors" "$log/client.log"'
	ok "atomic queue, $what: server processed $fcount requests, every QE atomic, on both workers" \
		'[ $server_rc = 0 ] && [ $agent_rc = 0 ] &&
		 grep -q "^accdirect-server: $fcount requests processed, 0 bad" "$log/server.log" &&
		 grep -q "^accdirect-server: flow check: $fcount requests of $flows flows, .*; QEs $fcount atomic, 0 unordered, 0 ordered, 0 directed$" "$log/server.log" &&
		 [ "$(grep -c "worker w[01] processed [1-9]" "$log/server.log")" = 2 ]'
	ok "atomic queue, $what: no two requests of one flow handled at once by two workers" \
		'grep -q "^accdirect-server: flow check: $fcount requests of $flows flows, 0 overlapping" "$log/server.log"'
	sed -n "s/^accdirect-\(.*\)/# atomic, $what: \1/p" "$log"/client.log \
		"$log"/agent.log "$log"/server.log 2>/dev/null
}

if [ -d /sys/kernel/peermem_dlb ]; then
	run peermem "peer memory"
else
	skip3 "peermem: peermem_dlb not loaded (needs the peer-memory interface: patches/linux)"
fi
# rxe takes dma-buf MRs with patch 5 of patches/linux (and user space with
# patches/rdma-core, which run-selftests puts on LD_LIBRARY_PATH).
if grep -qw rxe_reg_user_mr_dmabuf /proc/kallsyms; then
	run dmabuf "its dma-buf"
else
	skip3 "dmabuf: rxe has no dma-buf MRs here (patch 5 of patches/linux and patches/rdma-core)"
fi
if [ -d /sys/kernel/peermem_dlb ] || grep -qw rxe_reg_user_mr_dmabuf /proc/kallsyms; then
	run_clients 2
else
	skip3 "2 clients: neither peer memory nor dma-buf MRs on rxe"
fi
run_cpu

# The same domain with its queue atomic.
ok "set-up: the domain again, its queue atomic" \
	'"$ctl" destroy -d "$dev" accdirect &&
	 sed "s/\"unordered\"/\"atomic\"/" "$log/spec.json" >"$log/atomic.json" &&
	 grep -q "\"sched\": \"atomic\"" "$log/atomic.json" && "$ctl" apply "$log/atomic.json"'
if [ -d /sys/kernel/peermem_dlb ] || grep -qw rxe_reg_user_mr_dmabuf /proc/kallsyms; then
	run_atomic rdma
else
	skip3 "atomic queue, agent: neither peer memory nor dma-buf MRs on rxe"
fi
run_atomic cpu
exit $failed

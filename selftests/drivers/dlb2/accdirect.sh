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
# Then a crash: the agent is killed (SIGKILL) while its client's requests
# flow; a second agent on the domain's second producer port serves a
# second client, DLB2_ACCDIRECT_FLOW_REQUESTS requests; the first client
# gets every request the dead agent enqueued answered once (the server
# reports how many it enqueued, from its grant slot) and the others never;
# after the server's exit the domain's credit pool (dlb2's debugfs) holds
# every credit again: the dead agent's cache was reclaimed
# (Documentation/accdirect/credits.rst).  Then two agents and the CPU
# agent on the one credit pool at once, a client each, more QEs wanted
# than there are credits: every request answered, the pool whole again
# after the server's exit; each producer's credits, portions and lost
# compare-and-swaps, and the fairness of the clients' rates, as comments
# (tools/accdirect/shared-pool-figure draws them).  Then priorities: two
# clients on one agent at QE priorities 0 and 6, a backlog in the queue
# (the server's handler holds each request 2 ms): every QE dequeued at
# its client's priority, and the priority-0 client done in less than 0.8
# of the other's time.  Last, a next stage: the queue ordered, the workers
# forwarding every request to a second queue whose sink answers them in
# arrival order: none out of its client's order; with the queue unordered
# (the control) some are.
# DLB2_ACCDIRECT_CASES chooses groups of these cases (below; all by
# default).  Prints TAP; skips without a DLB or the programs, and a run without
# peermem_dlb or without dma-buf MRs on rxe.
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
bin=$top/tools/accdirect
ctl=$top/tools/dlb2ctl/dlb2ctl
count=${DLB2_ACCDIRECT_REQUESTS:-100000}
fcount=${DLB2_ACCDIRECT_FLOW_REQUESTS:-$((count < 20000 ? count : 20000))}
flows=3
log=$(mktemp -d)
. "$(dirname "$0")/tap.sh"
# the programs' logs with a failed case (tap.sh calls it)
# shellcheck disable=SC2317
tap_on_failure() {
	sed 's/^/# /' "$log"/*.log
}

# net_up, net_down: the namespaces and rxe devices
. "$bin/soft-roce-net.sh"

echo "TAP version 13"
# DLB2_ACCDIRECT_CASES: the groups of cases to run (all by default), each
# with its results: peermem 3, dmabuf 3, clients 3, dlb-lib 3, crash 4,
# shared 3, priority 3, atomic 7 (its set-up too), next 4; the set-up is
# always one more.
all_cases="peermem dmabuf clients dlb-lib crash shared priority atomic next"
cases=${DLB2_ACCDIRECT_CASES:-$all_cases}
plan=1
for c in $cases; do
	case $c in
	peermem|dmabuf|clients|dlb-lib|shared|priority) plan=$((plan + 3)) ;;
	crash|next) plan=$((plan + 4)) ;;
	atomic) plan=$((plan + 7)) ;;
	*) echo "Bail out! DLB2_ACCDIRECT_CASES: no group '$c' (groups: $all_cases)"; exit 1 ;;
	esac
done
# want GROUP: GROUP is among those to run
want() {
	case " $cases " in *" $1 "*) return 0 ;; esac
	return 1
}
bdf=$(basename "$(ls -d /sys/bus/pci/drivers/dlb2/0000:* 2>/dev/null | head -1)")
if [ -z "$bdf" ]; then
	echo "1..0 # SKIP no DLB device bound to dlb2"
	exit 4
fi
if [ ! -x "$bin/accdirect-server" ] || [ ! -x "$ctl" ]; then
	echo "1..0 # SKIP needs tools/accdirect and dlb2ctl built"
	exit 4
fi
echo "1..$plan"
dev=$(cat "/sys/bus/pci/devices/$bdf/dev_id")
"$ctl" destroy -d "$dev" accdirect >/dev/null 2>&1
trap 'net_down; "$ctl" destroy -d "$dev" accdirect >/dev/null 2>&1; rm -rf "$log"' EXIT

# The domain of accdirect.json with two more directed producer ports
# (agent2, agent3): for the agent that takes over after a crash, and for
# two agents and the CPU agent on one credit pool.
ok "set-up: domain, namespaces, rxe devices" \
	'sed -e "s/\"device\": 0/\"device\": $dev/" \
	     -e "s/^\( *\){ \"name\": \"agent\", \"type\": \"dir\", \"cq_depth\": 8 },/&\n\1{ \"name\": \"agent2\", \"type\": \"dir\", \"cq_depth\": 8 },\n\1{ \"name\": \"agent3\", \"type\": \"dir\", \"cq_depth\": 8 },/" \
	     "$bin/accdirect.json" >"$log/spec.json" &&
	 grep -q "\"agent3\"" "$log/spec.json" &&
	 "$ctl" apply "$log/spec.json" && net_up'

# start_server ARGS...: accdirect-server on every address for the DLB,
# ARGS added, under timeout(1), its output in server.log; returns once it
# listens, its pid in $server.
start_server() {
	timeout 700 "$bin/accdirect-server" -a 0.0.0.0 -d "$dev" "$@" >"$log/server.log" 2>&1 &
	server=$!
	for _ in $(seq 50); do grep -q listening "$log/server.log" && break; sleep 0.2; done
}

# agent LOG ARGS..., client LOG ARGS...: an agent (in namespace
# accd-agent) or a client (accd-client) of that server, ARGS added, under
# timeout(1), its output in LOG; their exit status.  The server ends once
# it has seen -n requests, an agent too; a test that kills an agent runs
# it without timeout(1) (run_crash).
agent() {
	local out=$1

	shift
	timeout 700 ip netns exec accd-agent "$bin/accdirect-agent" -s 10.78.1.1 "$@" \
		>"$log/$out" 2>&1
}

client() {
	local out=$1

	shift
	timeout 600 ip netns exec accd-client "$bin/accdirect-client" -s 10.78.2.1 "$@" \
		>"$log/$out" 2>&1
}

# summary LABEL LOG...: the programs' own summaries ("accdirect-...:"
# lines) of each LOG there is, as comments.
summary() {
	local label=$1

	shift
	sed -n "s/^accdirect-\(.*\)/# $label: \1/p" "$@" 2>/dev/null
}

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
	start_server -n "$count" -m "$mr"
	agent agent.log -a 10.78.1.2 -n "$count" &
	agent=$!
	client client.log -g 10.78.1.2 -n "$count"
	client_rc=$?
	wait "$agent"; agent_rc=$?
	wait "$server"; server_rc=$?

	ok "$mr: client sent $count requests, every answer correct" \
		'[ $client_rc = 0 ] &&
		 grep -q "^accdirect-client: $count requests sent .* $count answered, 0 errors" "$log/client.log"'
	ok "$mr: agent enqueued $count requests into the producer port, credits taken ahead of need" \
		'[ $agent_rc = 0 ] && grep -q "^accdirect-agent: $count requests enqueued" "$log/agent.log" &&
		 grep -q "^accdirect-agent: credits ahead of need: [0-9]* READs of the pool, [1-9][0-9]* takes begun ahead" \
			"$log/agent.log"'
	ok "$mr: server processed $count requests, every payload intact, on both workers" \
		'[ $server_rc = 0 ] &&
		 grep -q "^accdirect-server: $count requests processed, 0 bad" "$log/server.log" &&
		 grep -q "^accdirect-server: producer port registered through $how" "$log/server.log" &&
		 [ "$(grep -c "worker w[01] processed [1-9]" "$log/server.log")" = 2 ]'
	summary "$mr" "$log"/client.log "$log"/agent.log "$log"/server.log
}

# run_clients K: K clients share one agent, $count requests in all, the
# server registering the producer port as it can (-m auto); three results.
run_clients() {
	local k=$1 per=$((count / $1)) total server agent agent_rc server_rc
	local i pids= clients_rc=0

	total=$((per * k))
	rm -f "$log"/*.log
	start_server -n "$total"
	agent agent.log -a 10.78.1.2 -n "$total" &
	agent=$!
	for i in $(seq "$k"); do
		client client$i.log -g 10.78.1.2 -n "$per" -f 16 &
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
	summary "$k clients" "$log"/client*.log "$log"/agent.log \
		"$log"/server.log
}

# run_cpu: the dlb-lib baseline, the client's metadata ring at the server,
# whose thread enqueues with libdlb2; three results.
run_cpu() {
	local server client_rc server_rc

	rm -f "$log"/*.log
	start_server -n "$count" -c 10.78.2.1
	client client.log -g 10.78.2.1 -n "$count"
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
	summary "dlb-lib" "$log"/client.log "$log"/server.log
}

# run_priority: two clients on one agent, one asking for QE priority 0
# (the highest), the other for 6 (the lowest but one; the device keeps 4
# levels, priority >> 1), $fcount requests each, both windows of 256 full
# while the server's handler holds each request 2 ms (-F): the two workers
# take fewer requests per second than the agent enqueues, so the queue
# holds a backlog beyond the workers' CQs, and the DLB schedules a queue's
# higher-priority QEs first (Documentation/qemu-dlb2-model.rst): the first
# client's requests go ahead of the other's whenever both are queued, so
# it finishes first, where at one priority the two would take turns and
# finish together.  Its time (first request to last answer) must be below
# 0.8 of the other's: 0.56 to 0.63 in 3 runs on DLB 2.0, 0.55 to 0.61 in
# 3 on 2.5, and 0.97 and 1.04 with both clients at priority 6 (2 runs on
# 2.0, 2026-11-27).  Not
# the latencies: in a closed loop each client's is its window over its
# rate, and most of the second client's requests run after the first has
# finished, alone (its median was the lower one in those runs).  Three
# results.
run_priority() {
	local server agent agent_rc server_rc c0 c6 rc0 rc6 p0 p6 total=$((2 * fcount))

	rm -f "$log"/*.log
	start_server -n "$total" -F 2000
	agent agent.log -a 10.78.1.2 -n "$total" &
	agent=$!
	client client0.log -g 10.78.1.2 -n "$fcount" -P 0 &
	c0=$!
	client client6.log -g 10.78.1.2 -n "$fcount" -P 6 &
	c6=$!
	wait "$c0"; rc0=$?
	wait "$c6"; rc6=$?
	wait "$agent"; agent_rc=$?
	wait "$server"; server_rc=$?
	# the time from each client's first request to its last answer
	p0=$(sed -n 's/^accdirect-client: [0-9]* requests sent in \([0-9.]*\) s .*/\1/p' "$log/client0.log")
	p6=$(sed -n 's/^accdirect-client: [0-9]* requests sent in \([0-9.]*\) s .*/\1/p' "$log/client6.log")

	ok "priority: two clients sent $fcount requests each, at priorities 0 and 6, every answer correct" \
		'[ $rc0 = 0 ] && [ $rc6 = 0 ] && [ $agent_rc = 0 ] &&
		 grep -q "^accdirect-client: $fcount requests sent .* $fcount answered, 0 errors" "$log/client0.log" &&
		 grep -q "^accdirect-client: $fcount requests sent .* $fcount answered, 0 errors" "$log/client6.log"'
	ok "priority: the server dequeued $fcount QEs at priority 0 and $fcount at 6, none at another" \
		'[ $server_rc = 0 ] &&
		 grep -q "^accdirect-server: $total requests processed, 0 bad" "$log/server.log" &&
		 grep -q "^accdirect-server: flow check: QEs by priority 0-7: $fcount 0 0 0 0 0 $fcount 0$" "$log/server.log"'
	ok "priority: the priority-0 client took less than 0.8 of the priority-6 client's time" \
		'[ -n "$p0" ] && [ -n "$p6" ] && awk -v a="$p0" -v b="$p6" "BEGIN { exit !(a < 0.8 * b) }"'
	echo "# priority: ${p0:-?} s at priority 0, ${p6:-?} s at priority 6 (ratio $(awk -v a="${p0:-0}" -v b="${p6:-1}" 'BEGIN { printf "%.2f", a / b }'))"
	summary "priority" "$log"/client0.log "$log"/client6.log \
		"$log"/agent.log "$log"/server.log
}

# run_next ordered|unordered: the domain again with its queue of that type
# and a next stage (queue stage2, its port sink), the workers forwarding
# every request there after its handler held it 50 us (accdirect-server -x
# stage2:sink -F 50), the sink answering them in the order they arrive and
# counting those out of their client's order; $fcount requests through an
# agent.  The device restores an ordered queue's order at the next queue:
# none out of order (three results); an unordered queue's two workers
# forward in the order they finish: some (one result, the control that
# shows the count can see it).
run_next() {
	local sched=$1 server agent client_rc agent_rc server_rc ooo

	rm -f "$log"/*.log
	"$ctl" destroy -d "$dev" accdirect >/dev/null 2>&1
	sed -e "s/{ \"name\": \"requests\", \"sched\": \"unordered\" }/{ \"name\": \"requests\", \"sched\": \"$sched\"$([ "$sched" = ordered ] && echo ', \"sequence_numbers\": 512') },\n        { \"name\": \"stage2\", \"sched\": \"unordered\" }/" \
	    -e "s/^\( *\)\({ \"name\": \"w1\", .*\)$/\1\2,\n\1{ \"name\": \"sink\", \"cq_depth\": 64, \"links\": [ \"stage2\" ] }/" \
	    "$log/spec.json" >"$log/next.json"
	"$ctl" apply "$log/next.json" >"$log/apply.log" 2>&1 || cat "$log/apply.log" >&2
	start_server -n "$fcount" -F 50 -x stage2:sink
	agent agent.log -a 10.78.1.2 -n "$fcount" &
	agent=$!
	client client.log -g 10.78.1.2 -n "$fcount"
	client_rc=$?
	wait "$agent"; agent_rc=$?
	wait "$server"; server_rc=$?
	ooo=$(sed -n 's/^accdirect-server: next stage stage2: .*, \([0-9]*\) of them out of their client.s order$/\1/p' \
		"$log/server.log")

	if [ "$sched" = ordered ]; then
		ok "next stage, ordered queue: client sent $fcount requests, every answer correct" \
			'[ $client_rc = 0 ] && [ $agent_rc = 0 ] &&
			 grep -q "^accdirect-client: $fcount requests sent .* $fcount answered, 0 errors" "$log/client.log"'
		ok "next stage, ordered queue: every QE ordered, forwarded, and answered by the sink" \
			'[ $server_rc = 0 ] &&
			 grep -q "^accdirect-server: $fcount requests processed, 0 bad" "$log/server.log" &&
			 grep -q "^accdirect-server: flow check: .*; QEs 0 atomic, 0 unordered, $fcount ordered, 0 directed$" "$log/server.log" &&
			 grep -q "^accdirect-server: next stage stage2: $fcount requests forwarded, $fcount answered by sink" "$log/server.log" &&
			 [ "$(grep -c "worker w[01] processed [1-9]" "$log/server.log")" = 2 ]'
		ok "next stage, ordered queue: the sink got every request in its client's order" \
			'[ "$ooo" = 0 ]'
	else
		# The count varies from run to run: a comment, not the name.
		ok "next stage, unordered queue (control): the sink got $fcount requests, some out of order" \
			'[ $client_rc = 0 ] && [ $server_rc = 0 ] &&
			 grep -q "^accdirect-server: next stage stage2: $fcount requests forwarded, $fcount answered by sink" "$log/server.log" &&
			 [ -n "$ooo" ] && [ "$ooo" -gt 0 ]'
		echo "# next stage, unordered queue: ${ooo:-?} of $fcount out of their client's order"
	fi
	summary "next stage, $sched" "$log"/client.log \
		"$log"/agent.log "$log"/server.log
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
	start_server -n "$fcount" -F 100 $cpu
	if [ "$how" = rdma ]; then
		agent agent.log -a 10.78.1.2 -n "$fcount" &
		agent=$!
	fi
	client client.log -g "$agent_ip" -n "$fcount" -f "$flows"
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
	summary "atomic, $what" "$log"/client.log \
		"$log"/agent.log "$log"/server.log 2>/dev/null
}

# The domain's load-balanced credits and what its credit pool holds now,
# "CREDITS POOL", from dlb2's debugfs.
pool() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	sed -n 's/^domain accdirect .* ldb_credits=\([0-9]*\) .* pool_ldb=\([0-9]*\) .*/\1 \2/p' \
		/sys/kernel/debug/dlb2/"$bdf"/domains
}

# run_crash: the agent killed by SIGKILL while its client's requests flow,
# then a second agent on the second producer port for a second client;
# four results.
run_crash() {
	local server agent agent2 client client_rc client2_rc agent2_rc server_rc
	local alive=0 once=x twice=x spent=y reclaimed total pool

	rm -f "$log"/*.log
	start_server -p agent,agent2
	# Not under timeout(1): $! is the agent itself (ip netns exec execs
	# it).  Portions of 127 credits: the agent spends up to 32 a round, so
	# its cache is empty only when a sum of portions is a multiple of 32
	# spent to the last credit, once in 32 takes; it is killed holding
	# credits nearly always (the server reports how many it reclaimed).
	ip netns exec accd-agent "$bin/accdirect-agent" -s 10.78.1.1 -a 10.78.1.2 -q 127 \
		>"$log/agent.log" 2>&1 &
	agent=$!
	client client1.log -g 10.78.1.2 -n 10000000 -W 5 &
	client=$!
	# mid-run: 3 s after the client's first requests went out
	for _ in $(seq 100); do grep -q "window of" "$log/client1.log" && break; sleep 0.2; done
	sleep 3
	kill -0 "$client" 2>/dev/null && kill -0 "$agent" 2>/dev/null && alive=1
	kill -KILL "$agent"
	wait "$agent"
	# the second agent listens where the first did
	agent agent2.log -a 10.78.1.2 -n "$fcount" &
	agent2=$!
	client client2.log -g 10.78.1.2 -n "$fcount"
	client2_rc=$?
	wait "$agent2"; agent2_rc=$?
	wait "$client"; client_rc=$?
	kill -TERM "$server"
	wait "$server"; server_rc=$?
	read -r total pool < <(pool)

	# "agent lost (...): A requests answered once, D twice or more, ..."
	once=$(sed -n 's/^accdirect-client: agent lost .*: \([0-9]*\) requests answered once, \([0-9]*\) twice.*/\1/p' \
		"$log/client1.log")
	twice=$(sed -n 's/^accdirect-client: agent lost .*: [0-9]* requests answered once, \([0-9]*\) twice.*/\1/p' \
		"$log/client1.log")
	# "agent 0 gone (...): took T credits, spent S on QEs, ..."
	spent=$(sed -n 's/^accdirect-server: agent 0 gone .* spent \([0-9]*\) on QEs.*/\1/p' \
		"$log/server.log")
	reclaimed=$(sed -n 's/^accdirect-server: agent 0 gone .*; reclaimed \([0-9]*\).*/\1/p' \
		"$log/server.log")
	ok "crash: the agent killed by SIGKILL while its client's requests flowed" \
		'[ $alive = 1 ] && [ $client_rc != 0 ] &&
		 grep -q "^accdirect-client: agent lost (" "$log/client1.log"'
	ok "crash: a second agent served a second client's $fcount requests, every answer correct" \
		'[ $client2_rc = 0 ] && [ $agent2_rc = 0 ] &&
		 grep -q "^accdirect-client: $fcount requests sent .* $fcount answered, 0 errors" "$log/client2.log" &&
		 grep -q "^accdirect-agent: $fcount requests enqueued" "$log/agent2.log" &&
		 grep -q "^accdirect-server: agent 1 connected" "$log/server.log"'
	ok "crash: every request the dead agent enqueued answered once, none twice, the rest never" \
		'[ -n "$once" ] && [ "$twice" = 0 ] && [ "$once" = "$spent" ] &&
		 grep -q "^accdirect-client: .* requests sent .* answered, 0 errors" "$log/client1.log" &&
		 grep -q "^accdirect-server: $((once + fcount)) requests processed, 0 bad" "$log/server.log"'
	ok "crash: the credit pool holds all the domain's credits again" \
		'[ $server_rc = 0 ] && [ -n "$total" ] && [ "$pool" = "$total" ]'
	echo "# crash: credit pool $pool of $total after the server's exit${pool:+ (short by $((total - pool)))}"
	echo "# crash: the dead agent enqueued ${spent:-?} (its grant slot); its client got ${once:-?} answered once, ${twice:-?} twice; the server reclaimed ${reclaimed:-?} credits of it"
	summary "crash" "$log"/client1.log "$log"/agent.log \
		"$log"/client2.log "$log"/agent2.log "$log"/server.log
}

# run_shared: the credit pool shared under contention: two agents (the
# second listening on 10.78.1.3) and the server's CPU agent (-c), each
# serving a client of its own, DLB2_ACCDIRECT_FLOW_REQUESTS requests each,
# all at once; the three clients' windows (256 each) ask for more QEs than
# the domain has credits.  Three results; each producer's credits,
# portions and lost compare-and-swaps, each client's rate and Jain's
# fairness index of the three rates as comments ("# shared: ...").
run_shared() {
	local server a1 a2 server_rc agents_rc=0 clients_rc=0 total pool p i
	local pids=

	rm -f "$log"/*.log
	ip -n accd-agent addr add 10.78.1.3/24 dev eth0 2>/dev/null
	start_server -p agent,agent2,agent3 -c 10.78.2.1 -n $((3 * fcount))
	agent agent1.log -a 10.78.1.2 -n "$fcount" &
	a1=$!
	agent agent2.log -a 10.78.1.3 -n "$fcount" &
	a2=$!
	i=1
	for p in 10.78.1.2 10.78.1.3 10.78.2.1; do
		client client$i.log -g "$p" -n "$fcount" &
		pids="$pids $!"
		i=$((i + 1))
	done
	for p in $pids; do wait "$p" || clients_rc=1; done
	wait "$a1" || agents_rc=1
	wait "$a2" || agents_rc=1
	wait "$server"; server_rc=$?
	read -r total pool < <(pool)

	ok "shared pool: three clients sent $fcount requests each, through two agents and the CPU agent, every answer correct" \
		'[ $clients_rc = 0 ] &&
		 [ "$(grep -l "^accdirect-client: $fcount requests sent .* $fcount answered, 0 errors" \
			"$log"/client*.log | wc -l)" = 3 ]'
	ok "shared pool: each agent and the CPU agent enqueued $fcount requests; the server processed $((3 * fcount))" \
		'[ $agents_rc = 0 ] && [ $server_rc = 0 ] &&
		 grep -q "^accdirect-agent: $fcount requests enqueued" "$log/agent1.log" &&
		 grep -q "^accdirect-agent: $fcount requests enqueued" "$log/agent2.log" &&
		 grep -q "^accdirect-server: CPU enqueue: $fcount requests enqueued" "$log/server.log" &&
		 grep -q "^accdirect-server: $((3 * fcount)) requests processed, 0 bad" "$log/server.log"'
	ok "shared pool: the credit pool holds all the domain's credits again (conservation)" \
		'[ -n "$total" ] && [ "$pool" = "$total" ]'
	echo "# shared: credit pool $pool of $total after the server's exit"
	for i in 1 2; do
		sed -n "s/^accdirect-agent: .* credits: \([0-9]*\) taken in \([0-9]*\) portions, \([0-9]*\) lost races.*/# shared: agent $i: \1 credits taken in \2 portions, \3 compare-and-swaps lost (\3 per \2 takes)/p" \
			"$log/agent$i.log"
	done
	awk '/^accdirect-client: [0-9]+ requests sent in/ {
		r = $8; sub(/^\(/, "", r); sub(/\/s\),$/, "", r)
		n++; s += r; q += r * r
		printf "# shared: client %d: %s requests/s\n", n, r
	}
	END { if (n) printf "# shared: Jain'"'"'s fairness index of the %d clients'"'"' rates: %.3f\n", n, s * s / (n * q) }' \
		"$log"/client1.log "$log"/client2.log "$log"/client3.log
	summary "shared" "$log"/client*.log "$log"/agent*.log \
		"$log"/server.log
}

# mrs: the producer port can be registered (peer memory or dma-buf MRs)
mrs=
[ -d /sys/kernel/peermem_dlb ] || grep -qw rxe_reg_user_mr_dmabuf /proc/kallsyms && mrs=1
no_mrs="neither peer memory nor dma-buf MRs on rxe"
if want peermem; then
	if [ -d /sys/kernel/peermem_dlb ]; then
		run peermem "peer memory"
	else
		skip3 "peermem: peermem_dlb not loaded (needs the peer-memory interface: patches/linux)"
	fi
fi
# rxe takes dma-buf MRs with patch 5 of patches/linux (and user space with
# patches/rdma-core, which run-selftests puts on LD_LIBRARY_PATH).
if want dmabuf; then
	if grep -qw rxe_reg_user_mr_dmabuf /proc/kallsyms; then
		run dmabuf "its dma-buf"
	else
		skip3 "dmabuf: rxe has no dma-buf MRs here (patch 5 of patches/linux and patches/rdma-core)"
	fi
fi
if want clients; then
	if [ "$mrs" ]; then run_clients 2; else skip3 "2 clients: $no_mrs"; fi
fi
if want dlb-lib; then
	run_cpu
fi
if want crash; then
	if [ "$mrs" ]; then
		run_crash
	else
		for _ in 1 2 3 4; do
			n=$((n + 1))
			echo "ok $n # SKIP crash: $no_mrs"
		done
	fi
fi
if want shared; then
	if [ "$mrs" ]; then run_shared; else skip3 "shared pool: $no_mrs"; fi
fi
if want priority; then
	if [ "$mrs" ]; then run_priority; else skip3 "priority: $no_mrs"; fi
fi
# The same domain with its queue atomic (run_next applies its own).
if want atomic; then
	ok "set-up: the domain again, its queue atomic" \
		'"$ctl" destroy -d "$dev" accdirect &&
		 sed "s/\"unordered\"/\"atomic\"/" "$log/spec.json" >"$log/atomic.json" &&
		 grep -q "\"sched\": \"atomic\"" "$log/atomic.json" && "$ctl" apply "$log/atomic.json"'
	if [ "$mrs" ]; then run_atomic rdma; else skip3 "atomic queue, agent: $no_mrs"; fi
	run_atomic cpu
fi
if want next; then
	if [ "$mrs" ]; then
		run_next ordered
		run_next unordered
	else
		skip3 "next stage, ordered queue: $no_mrs"
		n=$((n + 1))
		echo "ok $n # SKIP next stage, unordered queue: $no_mrs"
	fi
fi
exit $failed

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libaccdirect: acc-dlb-lib of the AccDirect paper (ISCA'25, §4) as a
 * library.  Three roles, each an object an application drives:
 *
 *  - the server (struct accd_server) owns a DLB scheduling domain: it gives
 *    each agent a producer port (RDMA-registered: dma-buf or peer memory)
 *    and the domain's credit word, gives each client payload slots, and
 *    runs worker ports that dequeue, call the application's handler and
 *    answer the requests by RDMA SEND to their clients;
 *  - the agent (struct accd_agent), what the paper runs on a SmartNIC's
 *    Arm cores, polls the metadata rings its clients RDMA-WRITE, packs up to
 *    four QEs per 64-byte line and RDMA-WRITEs the lines into its producer
 *    port: posted unsignalled with a signalled work request every
 *    signal_every, several in flight, credits taken in portions (READ +
 *    compare-and-swap on the credit word) and cached, the unused ones
 *    returned at the end;
 *  - the client (struct accd_client) writes payloads into its server slots
 *    and, once they have landed, their metadata (address, size, flow,
 *    queue, priority, scheduling type) into its agent ring, in batches, with
 *    a window of requests in flight; answers arrive by RDMA SEND, those of
 *    a worker's burst in one message.
 *
 * The wire format and the pure logic (encoding, line packing, credit cache,
 * signalling cadence, client window) are declared first: they need no RDMA
 * device, and tests/ checks them.  Functions return 0 (or a count) on
 * success and a negative errno on failure.  See README.md.
 *
 * Link with libaccdirect.a, libdlb2_rdma.a and libdlb2.a (the server), then
 * -lrdmacm -libverbs -pthread.  C and C++ (tests/test-cxx.cc).
 */
#ifndef LIBACCDIRECT_H
#define LIBACCDIRECT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <infiniband/verbs.h>

#include "libdlb2_rdma.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACCD_SERVER_PORT	7480	/* the server, for agents and clients */
#define ACCD_AGENT_PORT		7481	/* the agent, for clients */
#define ACCD_VERSION		4	/* of the wire protocol (struct accd_hello) */

#define ACCD_MAX_QUEUES		8	/* load-balanced queues a server offers */
#define ACCD_QES_PER_LINE	4	/* HCWs per 64-byte producer-port write */
#define ACCD_LINE_SIZE		64
#define ACCD_MAX_RING		32768	/* ring entries: seq is 16 bits */

/* ================================================================ wire */

enum accd_role { ACCD_ROLE_AGENT = 1, ACCD_ROLE_CLIENT = 2 };

/**
 * struct accd_hello - connect request's private data: who connects
 * @role: enum accd_role
 * @version: ACCD_VERSION; the accepting side rejects another
 */
struct accd_hello {
	uint32_t role;
	uint32_t version;
};

/**
 * struct accd_dlb_offer - server -> agent, in the accept's private data
 * @pp_addr, @pp_rkey: the agent's producer-port window (its own port)
 * @credit_addr, @credit_rkey: the domain's load-balanced credit word
 * @grant_addr, @grant_rkey: the agent's grant slot (struct accd_grant),
 *			     which it keeps up to date by RDMA WRITE
 * @lease_ms: the agent writes its grant slot at least every @lease_ms / 4
 *	      ms; one silent for @lease_ms is taken for dead (0: no lease)
 * @agent: the agent's index at the server
 * @nr_queues: entries of @qid and @sched
 * @producers: producer ports sharing the credit word (agents and the CPU
 *	       agent; at most 255): an agent takes a share of the pool
 * @qid: hardware id of each queue the server offers, by request queue index
 * @sched: DLB2_SCHED() type of each queue's QEs when a request asks for
 *	   ACCD_SCHED_QUEUE: the queue's configured type (accd_queue_sched())
 */
struct accd_dlb_offer {
	uint64_t pp_addr;
	uint64_t credit_addr;
	uint64_t grant_addr;
	uint32_t pp_rkey;
	uint32_t credit_rkey;
	uint32_t grant_rkey;
	uint32_t lease_ms;
	uint32_t agent;
	uint8_t nr_queues;
	uint8_t producers;
	uint8_t pad[2];
	uint8_t qid[ACCD_MAX_QUEUES];
	uint8_t sched[ACCD_MAX_QUEUES];
};

/**
 * struct accd_grant_state - what an agent holds of the credit pool: the
 * first line of its grant slot, written whole (one RDMA WRITE of 64 bytes)
 * on its connection to the server, so that the server's device executes
 * it in order with the agent's compare-and-swaps on the credit word and
 * its QE writes into the producer port
 * @taken: credits taken from the pool by the takes up to @folded
 * @spent: credits spent: counted here before the QEs' writes are posted
 * @returned: credits given back: counted here before the fetch-and-add
 * @begun: takes begun (compare-and-swaps posted, lost ones included)
 * @folded: takes whose outcome @taken includes (@begun - 1 while take
 *	    @begun is in flight, else @begun)
 * @expect, @portion: take @begun's compare-and-swap: the credit word from
 *		      @expect to @expect - @portion
 * @beat: incremented by every write of the slot: the lease
 */
struct accd_grant_state {
	uint64_t taken;
	uint64_t spent;
	uint64_t returned;
	uint64_t begun;
	uint64_t folded;
	uint64_t expect;
	uint64_t portion;
	uint64_t beat;
};

/**
 * struct accd_grant - an agent's grant slot (128 bytes) in the server's
 * memory, one per producer port; the agent writes it, the server reads it
 * once the agent's connection is fenced (its queue pair in error: no more
 * of the agent's operations execute)
 * @s: the state, written before each take, each chain of QE writes and each
 *     return
 * @cas_old, @cas_take: written by a fenced RDMA WRITE posted right behind
 *			a take's compare-and-swap, which the agent's device
 *			sends once the compare-and-swap's answer is there: the
 *			value the CAS found, and the take's number (@s.begun)
 */
struct accd_grant {
	struct accd_grant_state s;
	uint64_t cas_old;
	uint64_t cas_take;
	uint64_t pad[6];
};

/**
 * struct accd_reclaim - what the server gives back for a dead agent
 * @held: credits it took and neither spent nor returned: given back
 * @doubt: credits of a take whose outcome is unknown (the agent died
 *	   between the take's state write and its result's write, a window
 *	   its device, not its program, closes): not given back, since
 *	   giving back credits that were not taken would let the domain's
 *	   producers enqueue beyond the device's credits
 * @bad: the slot is inconsistent (spent + returned > taken): nothing given
 */
struct accd_reclaim {
	uint64_t held;
	uint64_t doubt;
	bool bad;
};

/**
 * struct accd_payload_offer - server -> client, in the accept's private data
 * @slots_addr, @slots_rkey: the client's @nr_slots slots of @slot_size bytes
 * @client: the client's index at the server
 * @nr_queues: queues a request may name (struct accd_qe_attr.queue)
 */
struct accd_payload_offer {
	uint64_t slots_addr;
	uint32_t slots_rkey;
	uint32_t nr_slots;
	uint32_t slot_size;
	uint32_t client;
	uint32_t nr_queues;
	uint32_t pad;
};

/**
 * struct accd_ring_offer - agent -> client: the client's metadata ring
 * @ring_addr, @ring_rkey: @nr_entries struct accd_meta
 */
struct accd_ring_offer {
	uint64_t ring_addr;
	uint32_t ring_rkey;
	uint32_t nr_entries;
};

/* struct accd_qe_attr.sched_type: the queue's own type (the default) */
#define ACCD_SCHED_QUEUE	3

/**
 * struct accd_qe_attr - what a request asks of the DLB
 * @flow: flow id (the QE's lock_id: atomic queues keep a flow on one worker)
 * @queue: index of the queue in the server's list (0..nr_queues - 1)
 * @sched_type: DLB2_SCHED_ATOMIC, _UNORDERED, _ORDERED or ACCD_SCHED_QUEUE
 * @prio: priority 0 (highest) .. 7
 */
struct accd_qe_attr {
	uint16_t flow;
	uint8_t queue;
	uint8_t sched_type;
	uint8_t prio;
};

/**
 * struct accd_meta - one metadata ring entry (16 bytes), client -> agent
 * @addr: the payload's address in the server
 * @size: its size in bytes
 * @flow: struct accd_qe_attr.flow
 * @queue: struct accd_qe_attr.queue
 * @sched: DLB2_SCHED(sched_type, prio)
 * @seq: (request number + 1) mod 2^16, the last bytes written: the agent
 *	 polls it (the RDMA device places a write's bytes in address order)
 *
 * Request r of a client goes to entry r % nr_entries.
 */
struct accd_meta {
	uint64_t addr;
	uint16_t size;
	uint16_t flow;
	uint8_t queue;
	uint8_t sched;
	uint16_t seq;
};

/* Responses per SEND, at most: the client's receive buffers hold these. */
#define ACCD_RESP_MAX		64

/**
 * struct accd_resp - server -> client: the answer to a request.  A SEND
 * carries 1..ACCD_RESP_MAX of them (the answers of one dequeue burst to
 * the client).
 * @slot: the request's slot
 * @status: the handler's return value (negative: an error)
 * @value: what the handler set
 */
struct accd_resp {
	uint32_t slot;
	int32_t status;
	uint64_t value;
};

/* ========================================================= pure logic */

/**
 * accd_meta_encode() - the ring entry of request @req (its number, from 0)
 * @m: the entry (in a local staging ring); seq is stored last
 *
 * Return: 0, or -EINVAL when @a names a type or priority out of range (the
 * queue index is checked by the client, which knows the server's count).
 */
int accd_meta_encode(struct accd_meta *m, uint64_t req, uint64_t addr,
		     uint16_t size, const struct accd_qe_attr *a);

/* Has request @req been written into @m (its seq seen, with acquire)? */
static inline bool accd_meta_ready(const struct accd_meta *m, uint64_t req)
{
	return __atomic_load_n(&m->seq, __ATOMIC_ACQUIRE) == (uint16_t)(req + 1);
}

/**
 * struct accd_queue_map - the agent's view of the server's queues
 * @nr: queues
 * @qid, @sched: as struct accd_dlb_offer
 */
struct accd_queue_map {
	unsigned int nr;
	uint8_t qid[ACCD_MAX_QUEUES];
	uint8_t sched[ACCD_MAX_QUEUES];
};

/**
 * accd_meta_to_hcw() - the NEW QE for entry @m: data = addr, opaque = size,
 * lock_id = flow, qid and scheduling type from @q (a queue index out of
 * range goes to queue 0).
 *
 * Return: true if @m named a queue in range.
 */
bool accd_meta_to_hcw(const struct accd_meta *m, const struct accd_queue_map *q,
		      struct dlb2_hcw *h);

/**
 * accd_pack_lines() - @n QEs into 64-byte lines of four, the last padded
 * with NOOPs (all zero), at most @max_lines lines.
 *
 * Return: lines filled (QEs packed: min(n, 4 * max_lines)).
 */
unsigned int accd_pack_lines(struct dlb2_hcw (*lines)[ACCD_QES_PER_LINE],
			     unsigned int max_lines, const struct dlb2_hcw *qes,
			     unsigned int n);

/**
 * struct accd_credits - credits an enqueuer took from the domain's pool
 * @quanta: credits asked for per take (at least those needed)
 * @cache: taken, not yet spent
 * @taken, @spent, @returned: totals; taken = spent + cache + returned
 * @takes: successful takes (compare-and-swaps won)
 */
struct accd_credits {
	uint64_t quanta;
	uint64_t cache;
	uint64_t taken;
	uint64_t spent;
	uint64_t returned;
	uint64_t takes;
};

/*
 * How many credits to take when the pool holds @avail and @need are wanted:
 * 0 when the cache already has them (or the pool is empty), else
 * min(@avail, max(quanta, need - cache)).
 */
uint64_t accd_credits_portion(const struct accd_credits *c, uint64_t avail,
			      uint64_t need);
/*
 * How many credits a take ahead of need asks for when the pool holds
 * @avail and @producers (0 counts as 1) share it: a fair share of what is
 * there, @avail / @producers, at least the quanta, at most @avail; 0 when
 * the cache holds a quanta or more already.  Every producer's first take
 * finds the pool full and takes its share of the whole, as the paper's
 * artifact does (8192 / ports); later ones a share of what the others left.
 */
uint64_t accd_credits_ahead(const struct accd_credits *c, uint64_t avail,
			    unsigned int producers);
/* Taken @n (a compare-and-swap won). */
void accd_credits_add(struct accd_credits *c, uint64_t n);
/* Spend up to @n cached credits (one per QE): returns those spent. */
uint64_t accd_credits_spend(struct accd_credits *c, uint64_t n);
/* Everything cached, to give back: the cache is then empty. */
uint64_t accd_credits_drain(struct accd_credits *c);

/*
 * What the server gives back for an agent whose grant slot is @g, read
 * after the agent's connection was fenced: taken - spent - returned, plus
 * the portion of a take in flight whose compare-and-swap the fenced result
 * shows won; a take in flight without its result is in doubt.
 */
void accd_grant_reclaim(const struct accd_grant *g, struct accd_reclaim *r);
/*
 * The lease: @beat is the slot's beat now, *@last_beat and *@last_seen
 * what the server saw and when (seconds, @now's clock); updates them.
 * Returns true when the beat did not move for @lease seconds (0: never).
 */
bool accd_lease_expired(uint64_t beat, double now, double lease,
			uint64_t *last_beat, double *last_seen);

/**
 * struct accd_sq - a send queue posted mostly unsignalled
 * @depth: work requests it holds (the QP's max_send_wr)
 * @signal_every: every this many-th work request is signalled (1..depth)
 * @posted: work requests posted; the next one's index
 * @completed: work requests known complete: all before the last signalled
 *	       one that completed (an RC send queue completes in order)
 * @signalled: signalled work requests posted
 *
 * A signalled request's wr_id is its index (see accd_sq_wr_id()).  Any
 * @signal_every consecutive requests hold a signalled one, so with
 * @signal_every <= @depth a full queue always has a completion coming.
 */
struct accd_sq {
	uint32_t depth;
	uint32_t signal_every;
	uint64_t posted;
	uint64_t completed;
	uint64_t signalled;
};

void accd_sq_init(struct accd_sq *q, uint32_t depth, uint32_t signal_every);
/* Work requests that can be posted now. */
static inline uint32_t accd_sq_room(const struct accd_sq *q)
{
	return q->depth - (uint32_t)(q->posted - q->completed);
}
/*
 * Account one work request about to be posted: returns whether it must be
 * signalled (its index is a multiple of signal_every minus one, or @force).
 */
bool accd_sq_post(struct accd_sq *q, bool force);
/* The wr_id the request just accounted by accd_sq_post() carries. */
static inline uint64_t accd_sq_wr_id(const struct accd_sq *q)
{
	return q->posted - 1;
}
/* A signalled request with wr_id @id completed: so did all before it. */
void accd_sq_complete(struct accd_sq *q, uint64_t id);
/* Nothing outstanding. */
static inline bool accd_sq_idle(const struct accd_sq *q)
{
	return q->posted == q->completed;
}
/*
 * What the completed work of @q stands for: @tags holds @q->depth values,
 * tags[i % depth] given to work request i when it was posted.  Returns the
 * tag of the newest completed request when @q->completed moved past
 * @before (its value before the completions just retired), else @cur: with
 * no progress the newest completed request's slot may already hold the tag
 * of a request posted @q->depth later (a full queue), not yet complete.
 */
uint64_t accd_sq_done_tag(const struct accd_sq *q, const uint64_t *tags,
			  uint64_t before, uint64_t cur);

/**
 * struct accd_window - a client's requests in flight
 * @size: requests in flight at most (<= @nr_slots and <= ring entries)
 * @nr_slots: payload slots; request r uses slot r % nr_slots
 * @next: the next request's number
 * @oldest: the oldest request not answered yet (== @next: none)
 * @done: per slot, whether its request was answered
 *
 * Request r may be issued only when r < oldest + size, so that its slot and
 * its ring entry (r % entries) were freed by an answer, and the agent had
 * consumed the entry before (the answer comes after the QE).  Answers come
 * in any order; @oldest moves past each run of answered requests.
 */
struct accd_window {
	uint32_t size;
	uint32_t nr_slots;
	uint64_t next;
	uint64_t oldest;
	uint8_t *done;
};

int accd_window_init(struct accd_window *w, uint32_t size, uint32_t nr_slots);
void accd_window_fini(struct accd_window *w);
static inline bool accd_window_full(const struct accd_window *w)
{
	return w->next - w->oldest >= w->size;
}
/* Take the next request number: -EAGAIN when the window is full. */
int accd_window_open(struct accd_window *w, uint64_t *req);
/*
 * The answer for @slot: returns its request's number, or -EINVAL (as a
 * negative value in an int64_t) for a slot with no request in flight.
 */
int64_t accd_window_answer(struct accd_window *w, uint32_t slot);

/**
 * struct accd_backoff - what a polling thread does when it finds nothing
 * @spin: empty polls in a row before it yields (0: 4)
 * @yield: empty polls in a row before it sleeps (0: 32)
 * @sleep_us: how long it sleeps (0: 20)
 *
 * Busy polling is fastest with a core to spare; on a few shared cores
 * (or with Soft-RoCE's kernel work) sleeping sooner leaves them to others.
 */
struct accd_backoff {
	unsigned int spin;
	unsigned int yield;
	unsigned int sleep_us;
};

/* Parse "SPIN,YIELD,SLEEP_US" (each may be empty: the default): 0 or -EINVAL. */
int accd_backoff_parse(const char *s, struct accd_backoff *b);
/* After @*idle empty polls in a row (counted here): spin, yield or sleep. */
void accd_backoff_wait(const struct accd_backoff *b, unsigned int *idle);

/* ============================================================== server */

struct accd_server;
struct accd_agent;
struct accd_agent_attr;

/**
 * struct accd_request - a request as the server's handler sees it
 * @payload: its bytes, in the client's slot
 * @size: their count
 * @flow, @queue, @sched_type, @prio: as the client asked (the QE's)
 * @client: the client's index at the server
 * @slot: the slot (the response names it)
 * @worker: the index of the worker port that dequeued it
 */
struct accd_request {
	const void *payload;
	uint16_t size;
	uint16_t flow;
	uint8_t queue;
	uint8_t sched_type;
	uint8_t prio;
	uint32_t client;
	uint32_t slot;
	unsigned int worker;
};

/**
 * accd_queue_sched() - a queue's scheduling type, from the domain's configfs
 * @dev, @domain, @queue: <dlb2_configfs_root()>/dlb2_<dev>/<domain>/queues/<queue>
 * @why, @len: on failure, one line saying which queue, which attribute
 *	       and why (the server logs it)
 *
 * The queue's "type" "dir" is DLB2_SCHED_DIRECTED; "ldb" is its "sched":
 * "atomic", "ordered" or "unordered", DLB2_SCHED_ATOMIC, _ORDERED or
 * _UNORDERED.  This is what a request of ACCD_SCHED_QUEUE gets (struct
 * accd_dlb_offer.sched): the DLB schedules a QE by the type in its own
 * sched bits, not the queue's.
 *
 * Return: the type, or -errno: -EINVAL for a device number below 0 or a
 * name that is none, the read's error when an attribute cannot be read,
 * -EPROTO for a value that is none of these.
 */
int accd_queue_sched(int dev, const char *domain, const char *queue,
		     char *why, size_t len);
/* "atomic", "unordered", "ordered", "directed" for DLB2_SCHED_*, else "?". */
const char *accd_sched_name(unsigned int type);

/*
 * The application's work: returns the response's status (negative: the
 * request was bad, counted in struct accd_server_stats.bad) and may set
 * *@value.  Called on the worker's thread; must not block for long.
 */
typedef int (*accd_handler_fn)(void *arg, const struct accd_request *req,
			       uint64_t *value);

/**
 * struct accd_server_attr - accd_server_create() parameters
 * @ip: the address to listen on (IPv4)
 * @port: 0 for ACCD_SERVER_PORT
 * @dev: the DLB device number
 * @domain: the configured scheduling domain
 * @queues, @nr_queues: its load-balanced queues requests may name (1..8)
 * @producers, @nr_producers: producer ports, one per agent (1..)
 * @workers, @nr_workers: worker ports, each linked to the queues (1..)
 * @max_clients: clients over the server's life (0: 16)
 * @nr_slots, @slot_size: each client's payload slots (0: 256, 1024; sizes a
 *		       multiple of 8, 64..65528)
 * @mr: how producer ports are registered (DLB2_MR_AUTO: dma-buf, else
 *	peer memory)
 * @burst: QEs a worker dequeues at once (0: 32, at most 64)
 * @signal_every: one SEND in this many is signalled (0: 16, at most 64)
 * @backoff: the worker threads' (ACCD_SERVER_THREADS) when idle
 * @lease: seconds an agent may leave its grant slot unwritten before it is
 *	   taken for dead, disconnected and its credits reclaimed (0: 30;
 *	   < 0: no lease, only a disconnection reclaims)
 * @log: where connections are reported, one line each ("@name: ..."), or
 *	 NULL
 * @name: the prefix of @log's lines (NULL: "accdirect-server")
 * @next_queue: a load-balanced queue of @domain, the next stage (NULL:
 *		none): the workers forward every request to it after its
 *		handler ran (HCW FWD: an ordered queue's order is restored
 *		there) instead of answering it
 * @sink: with @next_queue, the port linked to it whose thread answers the
 *	  requests in the order they arrive (and counts, per client, those
 *	  that came out of the order the client sent them in)
 */
struct accd_server_attr {
	const char *ip;
	int port;
	int dev;
	const char *domain;
	const char *const *queues;
	unsigned int nr_queues;
	const char *const *producers;
	unsigned int nr_producers;
	const char *const *workers;
	unsigned int nr_workers;
	unsigned int max_clients;
	uint32_t nr_slots;
	uint32_t slot_size;
	enum dlb2_mr_path mr;
	unsigned int burst;
	unsigned int signal_every;
	struct accd_backoff backoff;
	double lease;
	FILE *log;
	const char *name;
	const char *next_queue;
	const char *sink;
};

/**
 * struct accd_server_stats - what accd_server_stats() reports
 * @processed: requests handled (with a next stage: answered by the sink)
 * @bad: of which the handler returned a negative status
 * @responses: responses posted (not those of clients gone)
 * @agents, @clients: connected so far
 * @agents_gone: agents whose credits were reclaimed (disconnected or
 *		 their lease expired)
 * @reclaimed: credits given back to the pool for them
 * @doubt: credits of theirs in doubt, not given back
 * @worker: requests each worker port handled (the first 64)
 * @forwarded: with a next stage, requests the workers forwarded to it
 * @out_of_order: with a next stage, requests the sink received out of the
 *		  order their client sent them in
 */
struct accd_server_stats {
	uint64_t processed;
	uint64_t bad;
	uint64_t responses;
	unsigned int agents_gone;
	uint64_t reclaimed;
	uint64_t doubt;
	unsigned int agents;
	unsigned int clients;
	uint64_t worker[64];
	uint64_t forwarded;
	uint64_t out_of_order;
};

/*
 * Read each queue's id and scheduling type (accd_queue_sched(): an error,
 * logged, when it cannot be known), open the domain's ports, allocate the
 * clients' slots, listen.  Nothing runs until accd_server_start().
 */
int accd_server_create(const struct accd_server_attr *attr,
		       struct accd_server **s);
/* The handler every worker calls (before accd_server_start()). */
void accd_server_set_handler(struct accd_server *s, accd_handler_fn fn,
			     void *arg);

#define ACCD_SERVER_THREADS	0x1	/* a thread per worker port */

/*
 * Start accepting agents and clients (a thread of the library), and with
 * ACCD_SERVER_THREADS a thread per worker port running
 * accd_server_worker_poll().  Without it the application calls that itself,
 * one thread per worker index; a server with a next stage needs it (its
 * sink runs on a thread of the library): -EINVAL.
 */
int accd_server_start(struct accd_server *s, unsigned int flags);
/*
 * One dequeue burst of worker @w: each request through the handler, then
 * its response, then the burst released (with a next stage: the burst
 * forwarded to the next queue, the responses staged for the sink).  Returns the requests handled (0:
 * none were there) or -errno.
 */
int accd_server_worker_poll(struct accd_server *s, unsigned int w);
/*
 * Wait until @count requests were handled (with a next stage: answered by
 * the sink) (0: forever), the server is
 * stopped or @stop (may be NULL) becomes non-zero.  Returns 0.
 */
int accd_server_wait(struct accd_server *s, uint64_t count,
		     const volatile int *stop);
/*
 * The dlb-lib baseline: a CPU agent (struct accd_agent_attr.cpu_enqueue)
 * enqueuing with libdlb2 on the server's next producer port not yet given
 * to an agent; its queue map is the server's (@attr's cpu_* fields are set
 * here).  Clients connect to it at @attr->ip and @attr->port as to an
 * agent.  The application runs it (accd_agent_run() on a thread of its
 * own) and destroys it before the server.  Call before accd_server_start();
 * -EBUSY when every producer port is taken.
 */
int accd_server_cpu_agent(struct accd_server *s,
			  const struct accd_agent_attr *attr,
			  struct accd_agent **a);
/* Stop the worker threads (accd_server_wait() returns). */
void accd_server_stop(struct accd_server *s);
void accd_server_stats(struct accd_server *s, struct accd_server_stats *st);
/*
 * Stop, give the clients up to @linger seconds to disconnect (so that the
 * last responses are delivered), then close everything.
 */
void accd_server_destroy(struct accd_server *s, double linger);

/* =============================================================== agent */

/* Where a take ahead of need is (struct accd_enq's @take). */
enum accd_take_step { ACCD_TAKE_IDLE, ACCD_TAKE_READ, ACCD_TAKE_CAS };

/**
 * struct accd_enq - the enqueue engine: QEs into a producer port by RDMA
 * WRITE on one RC queue pair, credits from the credit word by RDMA atomics
 * @qp, @cq: the queue pair to the server (its send CQ)
 * @lkey: of @lines' registration
 * @lines: staging lines, @sq.depth of them: line i % depth belongs to work
 *	   request i until it completes
 * @inline_ok: post lines IBV_SEND_INLINE (the QP takes 64 inline bytes)
 * @pp_addr, @pp_rkey: the producer port
 * @credit_addr, @credit_rkey: the credit word
 * @atomic: 8 bytes in the registration for READ and atomic results
 * @sq: the send queue's accounting
 * @credits: the credit cache
 * @max_lines: lines per ibv_post_send() chain
 * @grant_addr, @grant_rkey: the agent's grant slot at the server (0: none,
 *			     nothing recorded)
 * @grant: the state last written there (staged in the registration)
 * @on_demand: take credits only when an enqueue needs them, waiting for
 *	       the READ and the compare-and-swap (the manager before the
 *	       one ahead of need); else see accd_enq_ahead()
 * @producers: of the credit word (struct accd_dlb_offer), for the shares
 * @take: the take ahead of need in flight: ACCD_TAKE_IDLE, or its READ or
 *	  compare-and-swap, work request @take_wr, result in @take_res
 * @take_expect, @take_portion: its compare-and-swap: the word from
 *				 @take_expect to @take_expect - @take_portion
 * @take_tries: compare-and-swaps of this take so far
 * @ahead_dry: a take ahead of need found the pool empty: none is begun
 *	       until a take on demand wins (an idle agent does not poll the
 *	       word)
 * @lines_posted, @qes, @cas_lost, @reads, @empty: statistics
 * @ahead: takes begun ahead of need
 * @waits: enqueues that waited for a take (its READ and compare-and-swap)
 *
 * With a grant slot, @atomic is 16 bytes: the READ or atomic result, then
 * the take number the fenced WRITE behind a compare-and-swap copies with
 * it; the state is written from the line of its own work request (or
 * inline).
 */
struct accd_enq {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	uint32_t lkey;
	struct dlb2_hcw (*lines)[ACCD_QES_PER_LINE];
	bool inline_ok;
	uint64_t pp_addr;
	uint32_t pp_rkey;
	uint64_t credit_addr;
	uint32_t credit_rkey;
	uint64_t *atomic;
	struct accd_sq sq;
	struct accd_credits credits;
	unsigned int max_lines;
	uint64_t grant_addr;
	uint32_t grant_rkey;
	struct accd_grant_state grant;
	bool on_demand;
	unsigned int producers;
	enum accd_take_step take;
	uint64_t take_wr;
	uint64_t *take_res;
	uint64_t take_expect;
	uint64_t take_portion;
	unsigned int take_tries;
	bool ahead_dry;
	uint64_t lines_posted, qes, cas_lost, reads, empty;
	uint64_t ahead, waits;
};

/*
 * Take credits so that @need are cached: first the take ahead of need in
 * flight, waited for; then, if still short, one READ of the word and
 * compare-and-swaps of a portion (accd_credits_portion()) until one wins
 * or the pool has none, waited for.  Returns the credits cached
 * afterwards (may be fewer than @need: the pool was short), or -errno.
 */
int accd_enq_credits(struct accd_enq *e, uint64_t need);
/*
 * The credit manager ahead of need (unless @e->on_demand): moves the take
 * in flight on when its READ or compare-and-swap completed (reaped), and
 * begins one when fewer than a quanta are cached: a READ, then a
 * compare-and-swap of accd_credits_ahead() credits, retried with the value
 * it returned when another producer won (at most 64 times per take).
 * Nothing is waited for: the enqueues go on with the cache meanwhile.
 * 0 or -errno.
 */
int accd_enq_ahead(struct accd_enq *e);
/*
 * Enqueue up to @n QEs (cmd NEW) of @qes: as many as there are credits
 * for (taken as needed), packed four per line, posted as one chain of
 * writes, mostly unsignalled.  Returns the QEs enqueued (0: no credit, or
 * no room in the send queue yet) or -errno.
 */
int accd_enq_put(struct accd_enq *e, const struct dlb2_hcw *qes,
		 unsigned int n);
/* Reap completions without waiting: the work requests retired, or -errno. */
int accd_enq_reap(struct accd_enq *e);
/*
 * Write the grant slot's state once more (the lease's beat), unsignalled;
 * 0 or -errno.  Nothing without a grant slot.
 */
int accd_enq_beat(struct accd_enq *e);
/*
 * Wait until every work request posted completed (posting a signalled READ
 * of the credit word if the last one was not signalled), then give the
 * cached credits back (fetch-and-add; the grant slot counts them first).
 * 0 or -errno.
 */
int accd_enq_drain(struct accd_enq *e);

/**
 * struct accd_ring - a client's metadata ring at the agent
 * @m: @nr entries, written by the client
 * @nr: entries (<= ACCD_MAX_RING)
 * @head: requests taken so far
 */
struct accd_ring {
	struct accd_meta *m;
	uint32_t nr;
	uint64_t head;
};

/* Entries ready from @r->head, at most @max. */
unsigned int accd_ring_ready(const struct accd_ring *r, unsigned int max);
/*
 * The QEs of the next @n (ready) entries into @h; advances @r->head.
 * Returns the entries that named a queue out of range.
 */
unsigned int accd_ring_take(struct accd_ring *r, const struct accd_queue_map *q,
			    struct dlb2_hcw *h, unsigned int n);


/**
 * struct accd_agent_attr - accd_agent_create() parameters
 * @server, @server_port: the server (0: ACCD_SERVER_PORT)
 * @ip, @port: where clients connect (0: ACCD_AGENT_PORT)
 * @ring_entries: of each client's ring (0: 256; at most ACCD_MAX_RING)
 * @max_clients: clients served at once (0: 16)
 * @quanta: credits taken at a time (0: 32)
 * @sq_depth: RDMA WRITEs in flight at most (0: 128)
 * @signal_every: writes per signalled one (0: 16; at most @sq_depth)
 * @max_lines: lines per post (0: 8)
 * @rc_flags: DLB2_RC_* for the device check (libdlb2_rdma.h)
 * @backoff: accd_agent_run()'s when nothing is ready
 * @log, @name: as struct accd_server_attr ("accdirect-agent")
 * @cpu_enqueue: NULL for an agent that enqueues by RDMA.  Else a CPU
 *	agent: it hands the QEs to this function, which enqueues a prefix of
 *	the @n (with the CPU: libdlb2's dlb2_enqueue_burst()) and returns its
 *	length (0: no credit now; the rest is offered again) or -errno.  It
 *	is the paper's dlb-lib baseline, a host thread that receives the
 *	requests and enqueues them.  @server, @server_port, @quanta,
 *	@sq_depth, @signal_every and @rc_flags are then not used, and the
 *	queues are @cpu_queues.  accd_server_cpu_agent() makes one.
 * @cpu_arg: @cpu_enqueue's first argument
 * @credits_on_demand: take credits when an enqueue needs them and wait
 *		       (struct accd_enq's @on_demand); default: ahead of need
 * @cpu_queues: the queues requests name, for a CPU agent
 */
struct accd_agent_attr {
	const char *server;
	int server_port;
	const char *ip;
	int port;
	uint32_t ring_entries;
	unsigned int max_clients;
	unsigned int quanta;
	unsigned int sq_depth;
	unsigned int signal_every;
	unsigned int max_lines;
	unsigned int rc_flags;
	struct accd_backoff backoff;
	FILE *log;
	const char *name;
	int (*cpu_enqueue)(void *arg, const struct dlb2_hcw *qes,
			   unsigned int n);
	void *cpu_arg;
	struct accd_queue_map cpu_queues;
	bool credits_on_demand;
};

/**
 * struct accd_agent_stats - what accd_agent_stats() reports
 * @enqueued: QEs written into the producer port
 * @lines: 64-byte writes (RDMA; 0 for a CPU agent)
 * @signalled: of which signalled
 * @credit_takes, @credits_taken, @credits_returned: the credit cache's
 * @cas_lost: compare-and-swaps lost to another user of the word
 * @credit_reads: READs of the word
 * @credits_ahead: takes begun ahead of need
 * @credit_waits: enqueues that waited for a take
 * @bad_queue: entries that named a queue out of range (sent to queue 0)
 * @clients: connected so far
 */
struct accd_agent_stats {
	uint64_t enqueued;
	uint64_t lines;
	uint64_t signalled;
	uint64_t credit_takes;
	uint64_t credits_taken;
	uint64_t credits_returned;
	uint64_t cas_lost;
	uint64_t credit_reads;
	uint64_t credits_ahead;
	uint64_t credit_waits;
	uint64_t bad_queue;
	unsigned int clients;
};

/*
 * Connect to the server (and check that the device's atomics are global:
 * -EOPNOTSUPP, dlb2_rc_strerror() says why), then listen for clients.  A
 * CPU agent (@attr->cpu_enqueue) only listens.
 */
int accd_agent_create(const struct accd_agent_attr *attr,
		      struct accd_agent **a);
/*
 * One round: accept a waiting client, take what the clients' rings hold
 * (round robin, up to max_lines * 4 QEs), enqueue it, reap completions.
 * Returns the QEs enqueued (0: nothing was ready or no credit) or -errno.
 */
int accd_agent_poll(struct accd_agent *a);
/*
 * Poll until @count QEs were enqueued (0: no limit), *@stop (may be NULL)
 * becomes non-zero, or, once a client was served, no request came for
 * @idle_timeout seconds (0: no timeout).  Backs off while idle (struct
 * accd_agent_attr.backoff).  0 or -errno.
 */
int accd_agent_run(struct accd_agent *a, uint64_t count, double idle_timeout,
		   const volatile int *stop);
void accd_agent_stats(struct accd_agent *a, struct accd_agent_stats *st);
/* The server's queue of index 0: its hardware id (for a log line). */
unsigned int accd_agent_qid(struct accd_agent *a);
/* Complete what is in flight, return the cached credits, disconnect. */
int accd_agent_destroy(struct accd_agent *a);

/* ============================================================== client */

struct accd_client;

/**
 * struct accd_client_attr - accd_client_connect() parameters
 * @server, @server_port: the server (0: ACCD_SERVER_PORT)
 * @agent, @agent_port: the agent (0: ACCD_AGENT_PORT)
 * @window: requests in flight at most (0: as many as slots and ring
 *	    entries allow)
 * @batch: metadata entries per RDMA WRITE to the agent, at most (0: 32)
 * @signal_every: payload writes per signalled one (0: 16)
 * @agent_wait: seconds to retry connecting to the agent (0: 10)
 * @coalesce: requests in consecutive slots go in one payload write (the
 *	      slots' bytes beyond a payload are written too): fewer, larger
 *	      messages
 */
struct accd_client_attr {
	const char *server;
	int server_port;
	const char *agent;
	int agent_port;
	uint32_t window;
	uint32_t batch;
	uint32_t signal_every;
	double agent_wait;
	bool coalesce;
};

/**
 * struct accd_response - an answer, as accd_client_poll() returns it
 * @req: the request's number (the order of accd_client_submit())
 * @status, @value: the server handler's
 */
struct accd_response {
	uint64_t req;
	int32_t status;
	uint64_t value;
};

int accd_client_connect(const struct accd_client_attr *attr,
			struct accd_client **c);
/* The slot size (largest payload) and the queues the server offers. */
uint32_t accd_client_slot_size(const struct accd_client *c);
uint32_t accd_client_nr_queues(const struct accd_client *c);
uint32_t accd_client_window(const struct accd_client *c);
/*
 * The buffer of the next request (accd_client_slot_size() bytes) and its
 * number, or NULL when the window is full (poll for answers first).
 */
void *accd_client_next(struct accd_client *c, uint64_t *req);
/*
 * Send the request whose buffer accd_client_next() gave, @size bytes of it
 * (1..slot size), with @a (NULL: flow 0, queue 0, the queue's type,
 * priority 0).  Its payload write is posted now; its metadata goes to the
 * agent, batched, once the payload has landed (accd_client_poll()).
 */
int accd_client_submit(struct accd_client *c, uint32_t size,
		       const struct accd_qe_attr *a);
/*
 * Make progress: payload completions, metadata writes, answers.  Up to @max
 * answers go to @out.  With @wait, blocks (in the RDMA completion channel)
 * until there is at least one answer.  Returns the answers or -errno.
 */
int accd_client_poll(struct accd_client *c, struct accd_response *out,
		     unsigned int max, bool wait);
/*
 * Requests in the window: from the oldest not answered yet on (0: every
 * request was answered).
 */
uint64_t accd_client_in_flight(const struct accd_client *c);
/*
 * 0 while the agent's connection works, else why it failed (-ENOTCONN: the
 * agent disconnected, as a process that died does; a failed write to its
 * ring's error).  Then accd_client_submit() answers it and no more
 * metadata goes out, but accd_client_poll() still delivers the server's
 * answers: those of the requests whose QEs reached the DLB.  With @wait it
 * then returns 0 after at most 100 ms without one.  accd_client_poll()
 * looks for the agent's disconnection when it finds no answer.
 */
int accd_client_agent_status(const struct accd_client *c);
/* Requests whose metadata was posted to the agent's ring. */
uint64_t accd_client_meta_sent(const struct accd_client *c);
void accd_client_close(struct accd_client *c);

#ifdef __cplusplus
}
#endif

#endif /* LIBACCDIRECT_H */

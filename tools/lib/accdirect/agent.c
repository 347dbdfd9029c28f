// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The agent (accdirect.h): a connection to the server for the producer
 * port and the credit word, a listener for clients, a metadata ring per
 * client, and the enqueue engine (enq.c) between them.  A CPU agent (the
 * dlb-lib baseline) has no server connection: it hands the QEs to its
 * cpu_enqueue function.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

struct agent_client {
	struct accd_conn conn;
	struct ibv_mr *mr;
	struct accd_ring ring;
	bool active;
};

struct accd_agent {
	struct accd_agent_attr attr;
	struct accd_conn srv, l;
	struct ibv_mr *mr;		/* lines and the atomic word */
	void *buf;
	struct accd_enq enq;
	struct accd_queue_map qmap;
	struct agent_client *clients;
	unsigned int nr_clients, rr;
	uint64_t bad_queue;
	unsigned int rounds;		/* accd_agent_poll() calls */
	struct dlb2_hcw *qes;
	unsigned int pending;		/* CPU agent: qes[0..pending) taken
					 * from the rings, not enqueued yet */
	uint64_t cpu_qes;		/* CPU agent: QEs enqueued */
	double lease;			/* the server's, seconds (0: none) */
	uint64_t beat;			/* the grant slot's beat, written when */
	double beat_time;
};

static const char *agent_name(const struct accd_agent *a)
{
	return a->attr.name ? a->attr.name : "accdirect-agent";
}

int accd_agent_create(const struct accd_agent_attr *attr, struct accd_agent **out)
{
	struct accd_hello hello = { .role = ACCD_ROLE_AGENT,
				    .version = ACCD_VERSION };
	struct accd_qp_caps caps = { .inline_data = ACCD_LINE_SIZE };
	struct accd_dlb_offer o;
	struct accd_agent *a;
	size_t size;
	int ret;

	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->attr = *attr;
	attr = &a->attr;
	if (!a->attr.ring_entries)
		a->attr.ring_entries = 256;
	if (!a->attr.max_clients)
		a->attr.max_clients = 16;
	if (!a->attr.quanta)
		a->attr.quanta = 32;
	if (!a->attr.sq_depth)
		a->attr.sq_depth = 128;
	if (!a->attr.signal_every)
		a->attr.signal_every = 16;
	if (!a->attr.max_lines)
		a->attr.max_lines = 8;
	if (a->attr.ring_entries > ACCD_MAX_RING ||
	    a->attr.signal_every > a->attr.sq_depth ||
	    a->attr.max_lines > 64 || a->attr.max_lines > a->attr.sq_depth) {
		free(a);
		return -EINVAL;
	}
	a->clients = calloc(a->attr.max_clients, sizeof(*a->clients));
	a->qes = calloc(a->attr.max_lines * ACCD_QES_PER_LINE, sizeof(*a->qes));
	if (!a->clients || !a->qes) {
		ret = -ENOMEM;
		goto err;
	}
	*out = a;
	if (attr->cpu_enqueue) {
		if (!attr->cpu_queues.nr || attr->cpu_queues.nr > ACCD_MAX_QUEUES) {
			ret = -EINVAL;
			goto err;
		}
		a->qmap = attr->cpu_queues;
		goto listen;
	}

	caps.send_wr = a->attr.sq_depth;
	ret = accd_connect(&a->srv, attr->server,
			   attr->server_port ? attr->server_port : ACCD_SERVER_PORT,
			   &caps, &hello, sizeof(hello), &o, sizeof(o));
	if (ret)
		goto err;
	/* credits shared with the server's CPUs: global atomics only */
	ret = dlb2_rc_check_device_flags(a->srv.id->verbs, attr->rc_flags, NULL);
	if (ret == -EOPNOTSUPP && (attr->rc_flags & DLB2_RC_FORCE))
		ret = 0;
	if (ret)
		goto err;
	if (!o.nr_queues || o.nr_queues > ACCD_MAX_QUEUES) {
		ret = -EPROTO;
		goto err;
	}
	a->qmap.nr = o.nr_queues;
	memcpy(a->qmap.qid, o.qid, sizeof(o.qid));
	memcpy(a->qmap.sched, o.sched, sizeof(o.sched));

	size = (size_t)a->attr.sq_depth * ACCD_LINE_SIZE + 64;
	a->buf = aligned_alloc(64, size);
	if (!a->buf) {
		ret = -ENOMEM;
		goto err;
	}
	memset(a->buf, 0, size);
	a->mr = ibv_reg_mr(a->srv.pd, a->buf, size, IBV_ACCESS_LOCAL_WRITE);
	if (!a->mr) {
		ret = -errno;
		goto err;
	}
	a->enq = (struct accd_enq){
		.qp = a->srv.id->qp, .cq = a->srv.scq, .lkey = a->mr->lkey,
		.lines = a->buf,
		.inline_ok = a->srv.inline_max >= ACCD_LINE_SIZE,
		.pp_addr = o.pp_addr, .pp_rkey = o.pp_rkey,
		.credit_addr = o.credit_addr, .credit_rkey = o.credit_rkey,
		.atomic = (uint64_t *)((uint8_t *)a->buf +
				       (size_t)a->attr.sq_depth * ACCD_LINE_SIZE),
		.credits = { .quanta = a->attr.quanta },
		.max_lines = a->attr.max_lines,
		.grant_addr = o.grant_addr, .grant_rkey = o.grant_rkey,
		.on_demand = a->attr.credits_on_demand,
		.producers = o.producers,
	};
	a->lease = o.lease_ms / 1000.0;
	a->beat_time = accd_now();
	accd_sq_init(&a->enq.sq, a->attr.sq_depth, a->attr.signal_every);
listen:
	ret = accd_listen(&a->l, attr->ip, attr->port ? attr->port : ACCD_AGENT_PORT,
			  true);
	if (ret)
		goto err;
	return 0;
err:
	*out = NULL;
	accd_agent_destroy(a);
	return ret;
}

static void agent_reject(struct rdma_cm_id *id)
{
	rdma_reject(id, NULL, 0);
}

/* A client asks: its ring, registered, offered. */
static void agent_connect_request(struct accd_agent *a, struct rdma_cm_event *ev)
{
	struct accd_qp_caps caps = { .send_wr = 4, .recv_wr = 1 };
	struct accd_hello hello = { 0 };
	struct agent_client *c;
	struct accd_ring_offer ro;
	struct rdma_conn_param cp = {
		.responder_resources = 4, .initiator_depth = 4,
		.private_data = &ro, .private_data_len = sizeof(ro),
	};
	size_t size;

	memcpy(&hello, ev->param.conn.private_data,
	       ev->param.conn.private_data_len < sizeof(hello) ?
	       ev->param.conn.private_data_len : sizeof(hello));
	if (hello.role != ACCD_ROLE_CLIENT || hello.version != ACCD_VERSION) {
		accd_log(a->attr.log, agent_name(a),
			 "refusing a connection: role %u, protocol version %u (want %u)",
			 hello.role, hello.version, ACCD_VERSION);
		agent_reject(ev->id);
		return;
	}
	if (a->nr_clients == a->attr.max_clients) {
		accd_log(a->attr.log, agent_name(a),
			 "refusing a client: %u served already", a->nr_clients);
		agent_reject(ev->id);
		return;
	}
	c = &a->clients[a->nr_clients];
	memset(c, 0, sizeof(*c));
	c->conn.id = ev->id;
	size = ((size_t)a->attr.ring_entries * sizeof(struct accd_meta) + 4095) /
	       4096 * 4096;
	c->ring.nr = a->attr.ring_entries;
	c->ring.m = aligned_alloc(4096, size);
	if (!c->ring.m || accd_setup_qp(&c->conn, &caps))
		goto fail;
	memset(c->ring.m, 0, size);
	c->mr = ibv_reg_mr(c->conn.pd, c->ring.m, size,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!c->mr)
		goto fail;
	ro = (struct accd_ring_offer){
		.ring_addr = (uintptr_t)c->ring.m, .ring_rkey = c->mr->rkey,
		.nr_entries = c->ring.nr,
	};
	ev->id->context = c;
	if (rdma_accept(ev->id, &cp))
		goto fail;
	a->nr_clients++;
	return;
fail:
	/* rare: what was set up stays (the id cannot go before the ack) */
	accd_log(a->attr.log, agent_name(a), "client %u: set-up failed: %s",
		 a->nr_clients, strerror(errno));
	agent_reject(ev->id);
	memset(c, 0, sizeof(*c));
}

/* The listener's events, as many as there are. */
static void agent_cm(struct accd_agent *a)
{
	struct rdma_cm_event *ev;
	struct agent_client *c;

	while (!rdma_get_cm_event(a->l.ch, &ev)) {
		c = ev->id->context;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			agent_connect_request(a, ev);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			if (c) {
				c->active = true;
				accd_log(a->attr.log, agent_name(a),
					 "client %u connected, ring of %u",
					 (unsigned int)(c - a->clients), c->ring.nr);
			}
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			if (c && c->active) {
				c->active = false;
				rdma_disconnect(ev->id);
			}
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
	}
}

/*
 * A CPU agent's round: what is pending first, then what the rings hold, to
 * cpu_enqueue.  QEs it did not take (no credit) stay pending.
 */
static int agent_cpu_poll(struct accd_agent *a, unsigned int max)
{
	unsigned int i, k, want = a->pending;
	int ret;

	for (i = 0; i < a->nr_clients && want < max; i++) {
		struct accd_ring *r = &a->clients[(a->rr + i) % a->nr_clients].ring;

		k = accd_ring_ready(r, max - want);
		a->bad_queue += accd_ring_take(r, &a->qmap, a->qes + want, k);
		want += k;
	}
	if (a->nr_clients)
		a->rr = (a->rr + 1) % a->nr_clients;
	if (!want) {
		if (a->rounds % 16 == 0)
			agent_cm(a);
		return 0;
	}
	ret = a->attr.cpu_enqueue(a->attr.cpu_arg, a->qes, want);
	if (ret <= 0) {
		a->pending = want;
		return ret;
	}
	a->pending = want - ret;
	memmove(a->qes, a->qes + ret, a->pending * sizeof(*a->qes));
	a->cpu_qes += ret;
	return ret;
}

/*
 * The lease: the grant slot written at least every quarter of it (every
 * take, chain and return writes it; an idle agent, or one waiting for
 * credits, writes it here).
 */
static int agent_beat(struct accd_agent *a)
{
	double now;

	if (!a->lease)
		return 0;
	if (a->enq.grant.beat != a->beat) {
		a->beat = a->enq.grant.beat;
		a->beat_time = accd_now();
		return 0;
	}
	now = accd_now();
	if (now - a->beat_time < a->lease / 4)
		return 0;
	a->beat_time = now;
	return accd_enq_beat(&a->enq);
}

int accd_agent_poll(struct accd_agent *a)
{
	unsigned int max = a->attr.max_lines * ACCD_QES_PER_LINE;
	unsigned int i, k, want = 0, got = 0, ci;
	uint32_t room;
	int ret;

	/* new clients: now and then, and whenever there is nothing to do */
	if (++a->rounds % 256 == 0 || !a->nr_clients)
		agent_cm(a);
	if (a->attr.cpu_enqueue)
		return agent_cpu_poll(a, max);
	ret = agent_beat(a);
	if (ret < 0)
		return ret;
	/* what the rings hold, from the next client on */
	for (i = 0; i < a->nr_clients && want < max; i++) {
		ci = (a->rr + i) % a->nr_clients;
		want += accd_ring_ready(&a->clients[ci].ring, max - want);
	}
	ret = accd_enq_reap(&a->enq);
	if (ret >= 0)
		ret = accd_enq_ahead(&a->enq);
	if (!want) {
		if (a->rounds % 16 == 0)
			agent_cm(a);
		return ret < 0 ? ret : 0;
	}
	if (ret >= 0)
		ret = accd_enq_credits(&a->enq, want);
	if (ret < 0)
		return ret;
	room = accd_sq_room(&a->enq.sq);
	if (a->enq.grant_addr)	/* the grant slot's write before the lines */
		room = room ? room - 1 : 0;
	if (want > a->enq.credits.cache)
		want = a->enq.credits.cache;
	if (want > room * ACCD_QES_PER_LINE)
		want = room * ACCD_QES_PER_LINE;
	for (i = 0; i < a->nr_clients && got < want; i++) {
		struct accd_ring *r = &a->clients[(a->rr + i) % a->nr_clients].ring;

		k = accd_ring_ready(r, want - got);
		a->bad_queue += accd_ring_take(r, &a->qmap, a->qes + got, k);
		got += k;
	}
	a->rr = (a->rr + 1) % a->nr_clients;
	if (!got)
		return 0;
	ret = accd_enq_put(&a->enq, a->qes, got);
	if (ret >= 0 && (unsigned int)ret != got)
		ret = -EIO;	/* credits and room were there: cannot be */
	return ret;
}

int accd_agent_run(struct accd_agent *a, uint64_t count, double idle_timeout,
		   const volatile int *stop)
{
	double idle = 0;
	unsigned int empty = 0;
	int ret;

	while ((!count || a->enq.qes + a->cpu_qes < count) && !(stop && *stop)) {
		ret = accd_agent_poll(a);
		if (ret < 0)
			return ret;
		if (ret) {
			empty = 0;
			idle = 0;
			continue;
		}
		if (idle_timeout > 0 && a->nr_clients) {
			if (!idle)
				idle = accd_now();
			else if (accd_now() - idle > idle_timeout)
				return 0;	/* the clients are gone */
		}
		accd_backoff_wait(&a->attr.backoff, &empty);
	}
	return 0;
}

void accd_agent_stats(struct accd_agent *a, struct accd_agent_stats *st)
{
	*st = (struct accd_agent_stats){
		.enqueued = a->enq.qes + a->cpu_qes,
		.lines = a->enq.lines_posted,
		.signalled = a->enq.sq.signalled,
		.credit_takes = a->enq.credits.takes,
		.credits_taken = a->enq.credits.taken,
		.credits_returned = a->enq.credits.returned,
		.cas_lost = a->enq.cas_lost, .credit_reads = a->enq.reads,
		.credits_ahead = a->enq.ahead, .credit_waits = a->enq.waits,
		.bad_queue = a->bad_queue,
		.clients = a->nr_clients,
	};
}

unsigned int accd_agent_qid(struct accd_agent *a)
{
	return a->qmap.qid[0];
}

int accd_agent_destroy(struct accd_agent *a)
{
	unsigned int i;
	int ret = 0;

	if (a->srv.id && a->srv.id->qp && a->mr)
		ret = accd_enq_drain(&a->enq);
	if (a->pending) {
		accd_log(a->attr.log, agent_name(a),
			 "%u requests taken from the rings were never enqueued: no credit",
			 a->pending);
		ret = -EAGAIN;
	}
	for (i = 0; i < a->nr_clients; i++) {
		struct agent_client *c = &a->clients[i];

		if (c->active)
			rdma_disconnect(c->conn.id);
		if (c->mr)
			ibv_dereg_mr(c->mr);
		accd_close(&c->conn);
		free(c->ring.m);
	}
	if (a->srv.id)
		rdma_disconnect(a->srv.id);
	if (a->mr)
		ibv_dereg_mr(a->mr);
	accd_close(&a->srv);
	accd_close(&a->l);
	free(a->buf);
	free(a->clients);
	free(a->qes);
	free(a);
	return ret;
}

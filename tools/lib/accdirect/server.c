// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The server (accdirect.h): the domain's ports, a connection-manager thread
 * that accepts agents (a producer port each) and clients (payload slots
 * each), and worker ports whose QEs go through the application's handler
 * and are answered by RDMA SEND on the client's connection; with a next
 * stage the workers forward them to a queue whose sink port answers them.
 *
 * Every client's slots are a region of one slab, so a QE's address names
 * its client and slot without a lookup.  A client's send queue is shared
 * by the workers under its lock; the responses of a burst to one client go
 * in one SEND (an array of struct accd_resp), mostly unsignalled.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libdlb2.h"
#include "libdlb2_dp.h"
#include "internal.h"

#define MAX_BURST	64
#define RESP_DEPTH	64	/* a client connection's send queue */

enum { PEER_NEW, PEER_ACTIVE, PEER_GONE };

struct srv_agent {
	struct rdma_cm_id *id;
	struct accd_conn conn;
	struct ibv_mr *pp_mr, *credit_mr, *grant_mr;
	int state;
	unsigned int index;
	bool is_agent;
	bool reclaimed;			/* its credits given back, once */
	uint64_t last_beat;		/* the lease: its slot's beat, when */
	double last_seen;
};

struct srv_client {
	struct rdma_cm_id *id;		/* first: as struct srv_agent */
	struct accd_conn conn;
	struct ibv_mr *slots_mr, *resp_mr;
	int state;
	unsigned int index;
	bool is_agent;
	pthread_mutex_t lock;
	struct accd_sq sq;
	struct accd_resp *resp;		/* RESP_DEPTH arrays of ACCD_RESP_MAX,
					 * by work request index */
};

struct srv_worker {
	pthread_t thread;
	struct dlb2_port *port;
	uint64_t processed;
};

struct accd_server {
	struct accd_server_attr attr;
	struct dlb2_port **pp;
	int qid[ACCD_MAX_QUEUES];
	uint8_t sched[ACCD_MAX_QUEUES];	/* each queue's DLB2_SCHED_* */
	int dir_queue;			/* a directed queue's index, or -1 */
	struct srv_worker *w;
	uint8_t *slab;
	size_t region;			/* a client's slots */
	struct srv_agent *agents;
	struct accd_grant *grants;	/* a slot per producer port */
	struct srv_client *clients;
	unsigned int nr_agents, nr_clients;	/* connection requests taken */
	struct accd_conn l;
	pthread_t cm_thread;
	bool cm_running, threads;
	accd_handler_fn fn;
	void *arg;
	volatile int stop, cm_stop;
	uint64_t processed, bad, responses;
	unsigned int agents_gone;
	uint64_t reclaimed, doubt;
	/* the next stage: its queue, the sink (w[nr_workers]) */
	int next_qid;			/* -1: none */
	uint8_t next_sched;
	struct accd_resp *staged;	/* the handler's answer, by slot */
	uint32_t *sink_next;		/* per client: the slot due next */
	uint64_t forwarded, out_of_order;
};

static const char *srv_name(const struct accd_server *s)
{
	return s->attr.name ? s->attr.name : "accdirect-server";
}

/* The next stage: its queue's id and type, the sink's port. */
static int srv_next_stage(struct accd_server *s)
{
	const struct accd_server_attr *attr = &s->attr;
	char err[256];
	int ret;

	ret = dlb2_queue_id(attr->dev, attr->domain, attr->next_queue,
			    &s->next_qid);
	if (ret) {
		accd_log(attr->log, srv_name(s), "next queue %s: %s",
			 attr->next_queue, dlb2_strerror(err, sizeof(err)));
		return ret;
	}
	ret = accd_queue_sched(attr->dev, attr->domain, attr->next_queue, err,
			       sizeof(err));
	if (ret < 0) {
		accd_log(attr->log, srv_name(s), "%s", err);
		return ret;
	}
	if (ret == DLB2_SCHED_DIRECTED) {
		accd_log(attr->log, srv_name(s),
			 "next queue %s: directed; the next stage takes a load-balanced queue",
			 attr->next_queue);
		return -EINVAL;
	}
	s->next_sched = ret;
	ret = dlb2_port_open(attr->dev, attr->domain, attr->sink, NULL,
			     &s->w[attr->nr_workers].port);
	if (ret) {
		accd_log(attr->log, srv_name(s), "sink %s: %s", attr->sink,
			 dlb2_strerror(err, sizeof(err)));
		return ret;
	}
	accd_log(attr->log, srv_name(s),
		 "next stage: queue %s (id %d): %s, answered from port %s",
		 attr->next_queue, s->next_qid, accd_sched_name(s->next_sched),
		 attr->sink);
	return 0;
}

int accd_server_create(const struct accd_server_attr *attr,
		       struct accd_server **out)
{
	struct accd_server *s;
	char err[256];
	unsigned int i;
	int ret;

	*out = NULL;
	if (!attr->nr_queues || attr->nr_queues > ACCD_MAX_QUEUES ||
	    !attr->nr_producers || !attr->nr_workers || attr->nr_workers > 64 ||
	    attr->burst > MAX_BURST)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->attr = *attr;
	if (!s->attr.max_clients)
		s->attr.max_clients = 16;
	if (!s->attr.nr_slots)
		s->attr.nr_slots = 256;
	if (!s->attr.slot_size)
		s->attr.slot_size = 1024;
	if (!s->attr.burst)
		s->attr.burst = 32;
	if (!s->attr.signal_every || s->attr.signal_every > RESP_DEPTH)
		s->attr.signal_every = 16;
	if (!s->attr.lease)
		s->attr.lease = 30;
	if (s->attr.slot_size < 64 || s->attr.slot_size > 65528 ||
	    s->attr.slot_size % 8) {
		free(s);
		return -EINVAL;
	}
	if (!attr->next_queue != !attr->sink) {
		free(s);
		return -EINVAL;
	}
	s->pp = calloc(attr->nr_producers, sizeof(*s->pp));
	/* the sink, with a next stage, is w[nr_workers] */
	s->w = calloc(attr->nr_workers + 1, sizeof(*s->w));
	s->agents = calloc(attr->nr_producers, sizeof(*s->agents));
	s->grants = aligned_alloc(64, attr->nr_producers * sizeof(*s->grants));
	s->clients = calloc(s->attr.max_clients, sizeof(*s->clients));
	s->region = (size_t)s->attr.nr_slots * s->attr.slot_size;
	s->slab = aligned_alloc(4096, (s->region * s->attr.max_clients + 4095) /
				      4096 * 4096);
	if (!s->pp || !s->w || !s->agents || !s->grants || !s->clients ||
	    !s->slab) {
		ret = -ENOMEM;
		goto err;
	}
	s->next_qid = -1;
	if (attr->next_queue) {
		s->staged = calloc((size_t)s->attr.max_clients * s->attr.nr_slots,
				   sizeof(*s->staged));
		s->sink_next = calloc(s->attr.max_clients, sizeof(*s->sink_next));
		if (!s->staged || !s->sink_next) {
			ret = -ENOMEM;
			goto err;
		}
	}
	memset(s->grants, 0, attr->nr_producers * sizeof(*s->grants));
	memset(s->slab, 0, s->region * s->attr.max_clients);
	*out = s;
	for (i = 0; i < s->attr.max_clients; i++)
		pthread_mutex_init(&s->clients[i].lock, NULL);
	s->dir_queue = -1;
	for (i = 0; i < attr->nr_queues; i++) {
		ret = dlb2_queue_id(attr->dev, attr->domain, attr->queues[i],
				    &s->qid[i]);
		if (ret) {
			accd_log(attr->log, srv_name(s), "queue %s: %s",
				 attr->queues[i], dlb2_strerror(err, sizeof(err)));
			goto err;
		}
		/*
		 * The QEs of a request of ACCD_SCHED_QUEUE carry the queue's
		 * own type: the DLB schedules a QE by its sched bits.
		 */
		ret = accd_queue_sched(attr->dev, attr->domain, attr->queues[i],
				       err, sizeof(err));
		if (ret < 0) {
			accd_log(attr->log, srv_name(s), "%s", err);
			goto err;
		}
		s->sched[i] = ret;
		if (ret == DLB2_SCHED_DIRECTED && s->dir_queue < 0)
			s->dir_queue = i;
		accd_log(attr->log, srv_name(s), "queue %s (id %d): %s",
			 attr->queues[i], s->qid[i], accd_sched_name(ret));
	}
	for (i = 0; i < attr->nr_producers; i++) {
		ret = dlb2_port_open(attr->dev, attr->domain, attr->producers[i],
				     NULL, &s->pp[i]);
		if (ret) {
			accd_log(attr->log, srv_name(s), "producer port %s: %s",
				 attr->producers[i], dlb2_strerror(err, sizeof(err)));
			goto err;
		}
	}
	for (i = 0; i < attr->nr_workers; i++) {
		ret = dlb2_port_open(attr->dev, attr->domain, attr->workers[i],
				     NULL, &s->w[i].port);
		if (ret) {
			accd_log(attr->log, srv_name(s), "worker %s: %s",
				 attr->workers[i], dlb2_strerror(err, sizeof(err)));
			goto err;
		}
	}
	if (attr->next_queue) {
		ret = srv_next_stage(s);
		if (ret)
			goto err;
	}
	ret = accd_listen(&s->l, attr->ip, attr->port ? attr->port : ACCD_SERVER_PORT,
			  false);
	if (ret) {
		accd_log(attr->log, srv_name(s), "listen on %s: %s", attr->ip,
			 strerror(-ret));
		goto err;
	}
	return 0;
err:
	*out = NULL;
	accd_server_destroy(s, 0);
	return ret;
}

void accd_server_set_handler(struct accd_server *s, accd_handler_fn fn,
			     void *arg)
{
	s->fn = fn;
	s->arg = arg;
}

/* ---------------------------------------------- the dlb-lib baseline */

/* A CPU agent's enqueue: libdlb2, the credits as the port caches them. */
static int srv_cpu_enqueue(void *arg, const struct dlb2_hcw *qes,
			   unsigned int n)
{
	struct dlb2_port *pp = arg;
	int ret;

	/* as many as there are credits for: a burst is all or nothing */
	if (!dlb2_credits_have(pp, DLB2_CREDIT_POOL_LDB, n))
		n = pp->cache[DLB2_CREDIT_POOL_LDB];
	if (!n)
		return 0;
	ret = dlb2_enqueue_burst(pp, qes, n);
	return ret == -ENOSPC ? 0 : ret;
}

int accd_server_cpu_agent(struct accd_server *s,
			  const struct accd_agent_attr *attr,
			  struct accd_agent **a)
{
	struct accd_agent_attr aa = *attr;
	struct srv_agent *sa;
	unsigned int i;
	int ret;

	*a = NULL;
	if (s->cm_running)
		return -EINVAL;
	if (s->nr_agents == s->attr.nr_producers)
		return -EBUSY;
	sa = &s->agents[s->nr_agents];
	aa.cpu_enqueue = srv_cpu_enqueue;
	aa.cpu_arg = s->pp[s->nr_agents];
	aa.cpu_queues.nr = s->attr.nr_queues;
	for (i = 0; i < s->attr.nr_queues; i++) {
		aa.cpu_queues.qid[i] = s->qid[i];
		aa.cpu_queues.sched[i] = s->sched[i];
	}
	ret = accd_agent_create(&aa, a);
	if (ret)
		return ret;
	/* taken, and never an RDMA peer (state PEER_NEW) */
	sa->index = s->nr_agents;
	sa->is_agent = true;
	accd_log(s->attr.log, srv_name(s),
		 "producer port %s: enqueued by the CPU (dlb-lib), clients at %s",
		 s->attr.producers[sa->index], attr->ip ? attr->ip : "any address");
	s->nr_agents++;
	return 0;
}

/* --------------------------------------------------------- connections */

static int srv_agent_request(struct accd_server *s, struct rdma_cm_event *ev)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct accd_qp_caps caps = { .send_wr = 4, .recv_wr = 1 };
	struct rdma_conn_param cp = {
		.responder_resources = 4, .initiator_depth = 4,
	};
	struct accd_dlb_offer o = { 0 };
	struct srv_agent *a;
	struct dlb2_port *pp;
	enum dlb2_mr_path used;
	char why[1024];
	unsigned int i;
	int ret;

	if (s->nr_agents == s->attr.nr_producers) {
		accd_log(s->attr.log, srv_name(s),
			 "refusing an agent: all %u producer ports taken",
			 s->attr.nr_producers);
		return -EBUSY;
	}
	/*
	 * The agent's atomics on the credit word are executed by this host's
	 * RDMA device, the responder: they must be atomic with the workers'
	 * CPU atomics on the same word.
	 */
	ret = dlb2_rc_check_device(ev->id->verbs);
	if (ret) {
		accd_log(s->attr.log, srv_name(s), "%s", ret == -EOPNOTSUPP ?
			 dlb2_rc_strerror(why, sizeof(why)) : strerror(-ret));
		return ret;
	}
	a = &s->agents[s->nr_agents];
	pp = s->pp[s->nr_agents];
	/*
	 * An agent takes load-balanced credits only: a directed QE takes a
	 * directed one where the DLB keeps them apart (2.0).
	 */
	if (s->dir_queue >= 0 && pp->dir_pool) {
		accd_log(s->attr.log, srv_name(s),
			 "refusing an agent: queue %s is directed, and this DLB's directed credits are not the load-balanced credit word an agent takes",
			 s->attr.queues[s->dir_queue]);
		return -EOPNOTSUPP;
	}
	a->index = s->nr_agents;
	a->is_agent = true;
	a->id = a->conn.id = ev->id;
	ret = accd_setup_qp(&a->conn, &caps);
	if (ret)
		return ret;
	/* the producer port: through its dma-buf or peermem_dlb */
	a->pp_mr = dlb2_rdma_reg_pp(a->conn.pd, pp->fd, pp->pp_map, access,
				    s->attr.mr, &used);
	if (!a->pp_mr) {
		ret = -errno;
		accd_log(s->attr.log, srv_name(s),
			 "registering the producer port (-m %s): %s%s",
			 dlb2_mr_path_name(s->attr.mr), strerror(-ret),
			 s->attr.mr == DLB2_MR_DMABUF ? "" :
			 " (is peermem_dlb loaded?)");
		return ret;
	}
	accd_log(s->attr.log, srv_name(s),
		 "producer port registered through %s (port %s, agent %u)",
		 used == DLB2_MR_DMABUF ? "its dma-buf" : "peer memory",
		 s->attr.producers[a->index], a->index);
	a->credit_mr = ibv_reg_mr(a->conn.pd, pp->pool[DLB2_CREDIT_POOL_LDB], 8,
				  access | IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_ATOMIC);
	if (!a->credit_mr)
		return -errno;
	/* its grant slot: what it holds of the pool, for a crash */
	memset(&s->grants[a->index], 0, sizeof(s->grants[a->index]));
	a->grant_mr = ibv_reg_mr(a->conn.pd, &s->grants[a->index],
				 sizeof(s->grants[a->index]), access);
	if (!a->grant_mr)
		return -errno;
	o.pp_addr = (uintptr_t)pp->pp_map;
	o.pp_rkey = a->pp_mr->rkey;
	o.credit_addr = (uintptr_t)pp->pool[DLB2_CREDIT_POOL_LDB];
	o.credit_rkey = a->credit_mr->rkey;
	o.grant_addr = (uintptr_t)&s->grants[a->index];
	o.grant_rkey = a->grant_mr->rkey;
	o.lease_ms = s->attr.lease > 0 ? (uint32_t)(s->attr.lease * 1000) : 0;
	o.agent = a->index;
	o.nr_queues = s->attr.nr_queues;
	o.producers = s->attr.nr_producers < 255 ? s->attr.nr_producers : 255;
	for (i = 0; i < s->attr.nr_queues; i++) {
		o.qid[i] = s->qid[i];
		o.sched[i] = s->sched[i];
	}
	cp.private_data = &o;
	cp.private_data_len = sizeof(o);
	ev->id->context = a;
	if (rdma_accept(ev->id, &cp))
		return -errno;
	s->nr_agents++;
	return 0;
}

static int srv_client_request(struct accd_server *s, struct rdma_cm_event *ev)
{
	struct accd_qp_caps caps = { .send_wr = RESP_DEPTH, .recv_wr = 1,
				     .inline_data = 4 * sizeof(struct accd_resp) };
	struct rdma_conn_param cp = {
		.responder_resources = 4, .initiator_depth = 4,
		.rnr_retry_count = 7,
	};
	struct accd_payload_offer o = { 0 };
	struct srv_client *c;
	uint8_t *slots;

	if (s->nr_clients == s->attr.max_clients) {
		accd_log(s->attr.log, srv_name(s),
			 "refusing a client: %u served already (-N)",
			 s->attr.max_clients);
		return -EBUSY;
	}
	c = &s->clients[s->nr_clients];
	c->index = s->nr_clients;
	c->id = c->conn.id = ev->id;
	slots = s->slab + c->index * s->region;
	c->resp = calloc(RESP_DEPTH * ACCD_RESP_MAX, sizeof(*c->resp));
	if (!c->resp || accd_setup_qp(&c->conn, &caps))
		return -ENOMEM;
	accd_sq_init(&c->sq, RESP_DEPTH, s->attr.signal_every);
	c->slots_mr = ibv_reg_mr(c->conn.pd, slots, s->region,
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	c->resp_mr = ibv_reg_mr(c->conn.pd, c->resp,
				RESP_DEPTH * ACCD_RESP_MAX * sizeof(*c->resp),
				IBV_ACCESS_LOCAL_WRITE);
	if (!c->slots_mr || !c->resp_mr)
		return -errno;
	o = (struct accd_payload_offer){
		.slots_addr = (uintptr_t)slots, .slots_rkey = c->slots_mr->rkey,
		.nr_slots = s->attr.nr_slots, .slot_size = s->attr.slot_size,
		.client = c->index, .nr_queues = s->attr.nr_queues,
	};
	cp.private_data = &o;
	cp.private_data_len = sizeof(o);
	ev->id->context = c;
	if (rdma_accept(ev->id, &cp))
		return -errno;
	s->nr_clients++;
	return 0;
}

/*
 * Agent @a is gone: fence it (its queue pair in error: none of its
 * operations executes any more), then give back what its grant slot says
 * it holds, once (Documentation/accdirect/credits.rst).  The CM thread's.
 */
static void srv_reclaim(struct accd_server *s, struct srv_agent *a,
			const char *why)
{
	uint64_t *pool = s->pp[a->index]->pool[DLB2_CREDIT_POOL_LDB];
	struct accd_reclaim r;
	struct accd_grant g;

	if (a->reclaimed)
		return;
	a->reclaimed = true;
	rdma_disconnect(a->id);
	/* a packet the device was executing as the QP went to error */
	usleep(10000);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	memcpy(&g, &s->grants[a->index], sizeof(g));
	accd_grant_reclaim(&g, &r);
	if (r.bad) {
		accd_log(s->attr.log, srv_name(s),
			 "agent %u gone (%s): its grant slot says took %lu credits, spent %lu, returned %lu, which cannot be: nothing reclaimed",
			 a->index, why, (unsigned long)g.s.taken,
			 (unsigned long)g.s.spent, (unsigned long)g.s.returned);
		return;
	}
	if (r.held)
		__atomic_fetch_add(pool, r.held, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&s->reclaimed, r.held, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->doubt, r.doubt, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->agents_gone, 1, __ATOMIC_RELAXED);
	accd_log(s->attr.log, srv_name(s),
		 "agent %u gone (%s): took %lu credits, spent %lu on QEs, returned %lu; reclaimed %lu%s",
		 a->index, why,
		 (unsigned long)(r.held + g.s.spent + g.s.returned),
		 (unsigned long)g.s.spent, (unsigned long)g.s.returned,
		 (unsigned long)r.held, r.doubt ?
		 ", and a take in flight without its result: in doubt, not reclaimed" : "");
	if (r.doubt)
		accd_log(s->attr.log, srv_name(s),
			 "agent %u: %lu credits in doubt: its compare-and-swap may have taken them; the pool may be short by as many",
			 a->index, (unsigned long)r.doubt);
}

/* Agents whose grant slot stayed unwritten for the lease: gone. */
static void srv_leases(struct accd_server *s)
{
	double now = accd_now();
	unsigned int i;

	for (i = 0; i < s->nr_agents; i++) {
		struct srv_agent *a = &s->agents[i];
		uint64_t beat;

		if (a->state != PEER_ACTIVE || a->reclaimed)
			continue;
		beat = __atomic_load_n(&s->grants[i].s.beat, __ATOMIC_RELAXED);
		if (!accd_lease_expired(beat, now, s->attr.lease, &a->last_beat,
					&a->last_seen))
			continue;
		a->state = PEER_GONE;
		srv_reclaim(s, a, "lease expired");
	}
}

static void srv_event(struct accd_server *s, struct rdma_cm_event *ev)
{
	struct srv_agent *a = ev->id->context;	/* or a client: same head */
	struct srv_client *c = (struct srv_client *)a;
	struct accd_hello hello = { 0 };
	int ret;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		memcpy(&hello, ev->param.conn.private_data,
		       ev->param.conn.private_data_len < sizeof(hello) ?
		       ev->param.conn.private_data_len : sizeof(hello));
		if (hello.version != ACCD_VERSION)
			ret = -EPROTO;
		else if (hello.role == ACCD_ROLE_AGENT)
			ret = srv_agent_request(s, ev);
		else if (hello.role == ACCD_ROLE_CLIENT)
			ret = srv_client_request(s, ev);
		else
			ret = -EPROTO;
		if (ret) {
			if (ret == -EPROTO)
				accd_log(s->attr.log, srv_name(s),
					 "refusing a connection: role %u, protocol version %u (want %u)",
					 hello.role, hello.version, ACCD_VERSION);
			else if (ret != -EBUSY && ret != -EOPNOTSUPP)
				accd_log(s->attr.log, srv_name(s),
					 "connection set-up: %s", strerror(-ret));
			/* what was set up stays: the id cannot go before the ack */
			ev->id->context = NULL;
			rdma_reject(ev->id, NULL, 0);
		}
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (!a)
			break;
		if (a->is_agent) {
			a->last_seen = accd_now();
			a->state = PEER_ACTIVE;
			accd_log(s->attr.log, srv_name(s), "agent %u connected",
				 a->index);
		} else {
			pthread_mutex_lock(&c->lock);
			c->state = PEER_ACTIVE;
			pthread_mutex_unlock(&c->lock);
			accd_log(s->attr.log, srv_name(s), "client %u connected",
				 c->index);
		}
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (!a)
			break;
		if (a->is_agent) {
			a->state = PEER_GONE;
			srv_reclaim(s, a, "disconnected");
			break;
		}
		pthread_mutex_lock(&c->lock);
		c->state = PEER_GONE;
		pthread_mutex_unlock(&c->lock);
		rdma_disconnect(ev->id);
		break;
	default:
		break;
	}
}

static void *srv_cm(void *arg)
{
	struct accd_server *s = arg;
	struct pollfd pfd = { .fd = s->l.ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	while (!s->cm_stop) {
		srv_leases(s);
		if (poll(&pfd, 1, 50) <= 0)
			continue;
		if (rdma_get_cm_event(s->l.ch, &ev))
			continue;
		srv_event(s, ev);
		rdma_ack_cm_event(ev);
	}
	return NULL;
}

/* -------------------------------------------------------------- workers */

/* Post the responses @r[0..n) (n <= ACCD_RESP_MAX) to client @c: one SEND. */
static void srv_respond(struct accd_server *s, struct srv_client *c,
			const struct accd_resp *r, unsigned int n)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct accd_resp *buf;
	uint64_t idx;
	int k;

	pthread_mutex_lock(&c->lock);
	/* accepted, its QP ready to send; ESTABLISHED may still be on its way */
	if (c->state == PEER_GONE)
		goto out;
	/* room: reap completions, waiting if the queue is full */
	do {
		k = accd_sq_reap(c->conn.scq, &c->sq);
		if (k < 0) {
			c->state = PEER_GONE;	/* the QP is in error */
			goto out;
		}
	} while (k > 0 || !accd_sq_room(&c->sq));
	idx = c->sq.posted;
	buf = &c->resp[idx % RESP_DEPTH * ACCD_RESP_MAX];
	memcpy(buf, r, n * sizeof(*r));
	sge = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = n * sizeof(*r),
				.lkey = c->resp_mr->lkey };
	wr = (struct ibv_send_wr){
		.wr_id = idx, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND,
	};
	if (sge.length <= c->conn.inline_max)
		wr.send_flags |= IBV_SEND_INLINE;
	if (accd_sq_post(&c->sq, false))
		wr.send_flags |= IBV_SEND_SIGNALED;
	if (ibv_post_send(c->id->qp, &wr, &bad))
		c->state = PEER_GONE;
	else
		__atomic_fetch_add(&s->responses, n, __ATOMIC_RELAXED);
out:
	pthread_mutex_unlock(&c->lock);
}

/* A burst's responses, one SEND per client (client UINT32_MAX: none). */
static void srv_respond_burst(struct accd_server *s,
			      const struct accd_resp *resp,
			      const uint32_t *client, int n)
{
	struct accd_resp chain[MAX_BURST];
	bool sent[MAX_BURST] = { false };
	int i, j, m;

	for (i = 0; i < n; i++) {
		if (sent[i] || client[i] == UINT32_MAX)
			continue;
		for (j = i, m = 0; j < n; j++) {
			if (!sent[j] && client[j] == client[i]) {
				chain[m++] = resp[j];
				sent[j] = true;
			}
		}
		srv_respond(s, &s->clients[client[i]], chain, m);
	}
}

/*
 * The next stage: each request's answer staged by its slot, then every QE
 * forwarded to the next queue (FWD completes the QE it was dequeued as:
 * the device restores an ordered queue's order there), as credits allow.
 * A QE that names no slot goes on too (the sink drops it).
 */
static void srv_forward(struct accd_server *s, struct srv_worker *w,
			const struct dlb2_cq_entry *e,
			const struct accd_resp *resp, const uint32_t *client,
			int n)
{
	struct dlb2_hcw h[MAX_BURST];
	unsigned int idle = 0;
	int i, done = 0, k;

	for (i = 0; i < n; i++) {
		if (client[i] != UINT32_MAX) {
			struct accd_resp *st = &s->staged[(size_t)client[i] *
							  s->attr.nr_slots +
							  resp[i].slot];

			/* the sink reads it after the QE's FWD: in order */
			__atomic_store_n(&st->value, resp[i].value,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&st->status, resp[i].status,
					 __ATOMIC_RELEASE);
		}
		dlb2_hcw_fwd(&h[i], (uint8_t)s->next_qid, s->next_sched,
			     (e[i].sched >> 2) & 7, e[i].flow_id, e[i].data,
			     e[i].opaque);
	}
	while (done < n && !s->stop) {
		k = dlb2_forward_burst(w->port, h + done, n - done);
		if (k > 0) {
			done += k;
			idle = 0;
		} else {
			accd_backoff_wait(&s->attr.backoff, &idle);
		}
	}
	dlb2_return_tokens(w->port);
	__atomic_fetch_add(&s->forwarded, done, __ATOMIC_RELAXED);
}

/*
 * The sink: the next queue's QEs, answered in the order they arrive; a
 * client's slots are used in turn, so one that is not the slot after the
 * client's last counts as out of order.
 */
static int srv_sink_poll(struct accd_server *s)
{
	struct srv_worker *w = &s->w[s->attr.nr_workers];
	struct dlb2_cq_entry e[MAX_BURST];
	struct accd_resp resp[MAX_BURST];
	uint32_t client[MAX_BURST], slot;
	unsigned int i;
	uint64_t off;
	int n;

	n = dlb2_dequeue_burst(w->port, e, s->attr.burst);
	if (n <= 0)
		return n;
	for (i = 0; i < (unsigned int)n; i++) {
		const struct accd_resp *st;

		off = e[i].data - (uintptr_t)s->slab;
		client[i] = UINT32_MAX;
		if (e[i].data < (uintptr_t)s->slab ||
		    off >= s->region * s->nr_clients || off % s->attr.slot_size)
			continue;
		client[i] = off / s->region;
		slot = off % s->region / s->attr.slot_size;
		if (slot != s->sink_next[client[i]])
			__atomic_fetch_add(&s->out_of_order, 1,
					   __ATOMIC_RELAXED);
		s->sink_next[client[i]] = (slot + 1) % s->attr.nr_slots;
		st = &s->staged[(size_t)client[i] * s->attr.nr_slots + slot];
		resp[i] = (struct accd_resp){
			.slot = slot,
			.status = __atomic_load_n(&st->status, __ATOMIC_ACQUIRE),
			.value = __atomic_load_n(&st->value, __ATOMIC_RELAXED),
		};
	}
	dlb2_release(w->port, n);
	srv_respond_burst(s, resp, client, n);
	w->processed += n;
	__atomic_fetch_add(&s->processed, n, __ATOMIC_RELAXED);
	return n;
}

int accd_server_worker_poll(struct accd_server *s, unsigned int wi)
{
	struct srv_worker *w = &s->w[wi];
	struct dlb2_cq_entry e[MAX_BURST];
	struct accd_resp resp[MAX_BURST];
	uint32_t client[MAX_BURST];
	unsigned int i, j, bad = 0;
	uint64_t off, value;
	int n, status;

	n = dlb2_dequeue_burst(w->port, e, s->attr.burst);
	if (n <= 0)
		return n;
	for (i = 0; i < (unsigned int)n; i++) {
		struct accd_request req = {
			.size = e[i].opaque, .flow = e[i].flow_id,
			.sched_type = e[i].sched & 3,
			.prio = (e[i].sched >> 2) & 7, .worker = wi,
		};

		off = e[i].data - (uintptr_t)s->slab;
		client[i] = UINT32_MAX;
		for (j = 0; j < s->attr.nr_queues; j++)
			if (e[i].qid == s->qid[j])
				req.queue = j;
		/* a QE whose address is no slot: nobody to answer */
		if (e[i].data < (uintptr_t)s->slab ||
		    off >= s->region * s->nr_clients ||
		    off % s->attr.slot_size ||
		    e[i].opaque > s->attr.slot_size) {
			bad++;
			continue;
		}
		req.client = off / s->region;
		req.slot = off % s->region / s->attr.slot_size;
		req.payload = s->slab + off;
		value = 0;
		status = s->fn ? s->fn(s->arg, &req, &value) : 0;
		bad += status < 0;
		client[i] = req.client;
		resp[i] = (struct accd_resp){ .slot = req.slot, .status = status,
					      .value = value };
	}
	if (s->next_qid >= 0) {
		srv_forward(s, w, e, resp, client, n);
		w->processed += n;
		if (bad)
			__atomic_fetch_add(&s->bad, bad, __ATOMIC_RELAXED);
		return n;
	}
	dlb2_release(w->port, n);
	srv_respond_burst(s, resp, client, n);
	w->processed += n;
	if (bad)
		__atomic_fetch_add(&s->bad, bad, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->processed, n, __ATOMIC_RELAXED);
	return n;
}

struct worker_arg {
	struct accd_server *s;
	unsigned int w;
};

static void *srv_work(void *p)
{
	struct worker_arg *wa = p;
	struct accd_server *s = wa->s;
	unsigned int wi = wa->w, idle = 0;
	int n;

	free(wa);
	while (!s->stop) {
		n = wi < s->attr.nr_workers ? accd_server_worker_poll(s, wi) :
					       srv_sink_poll(s);
		if (n > 0) {
			idle = 0;
			continue;
		}
		accd_backoff_wait(&s->attr.backoff, &idle);
	}
	return NULL;
}

int accd_server_start(struct accd_server *s, unsigned int flags)
{
	unsigned int i;

	/* the sink runs only on a thread of the library */
	if (s->next_qid >= 0 && !(flags & ACCD_SERVER_THREADS))
		return -EINVAL;
	if (pthread_create(&s->cm_thread, NULL, srv_cm, s))
		return -EAGAIN;
	s->cm_running = true;
	if (!(flags & ACCD_SERVER_THREADS))
		return 0;
	for (i = 0; i < s->attr.nr_workers + (s->next_qid >= 0); i++) {
		struct worker_arg *wa = malloc(sizeof(*wa));

		if (!wa)
			return -ENOMEM;
		*wa = (struct worker_arg){ .s = s, .w = i };
		if (pthread_create(&s->w[i].thread, NULL, srv_work, wa)) {
			free(wa);
			return -EAGAIN;
		}
	}
	s->threads = true;
	return 0;
}

int accd_server_wait(struct accd_server *s, uint64_t count,
		     const volatile int *stop)
{
	while (!s->stop && !(stop && *stop) &&
	       (!count || __atomic_load_n(&s->processed, __ATOMIC_RELAXED) < count))
		usleep(1000);
	return 0;
}

void accd_server_stop(struct accd_server *s)
{
	unsigned int i;

	s->stop = 1;
	if (!s->threads)
		return;
	for (i = 0; i <= s->attr.nr_workers; i++)
		if (s->w[i].thread)
			pthread_join(s->w[i].thread, NULL);
	s->threads = false;
}

void accd_server_stats(struct accd_server *s, struct accd_server_stats *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	st->processed = __atomic_load_n(&s->processed, __ATOMIC_RELAXED);
	st->bad = __atomic_load_n(&s->bad, __ATOMIC_RELAXED);
	st->responses = __atomic_load_n(&s->responses, __ATOMIC_RELAXED);
	st->agents = s->nr_agents;
	st->clients = s->nr_clients;
	st->agents_gone = __atomic_load_n(&s->agents_gone, __ATOMIC_RELAXED);
	st->reclaimed = __atomic_load_n(&s->reclaimed, __ATOMIC_RELAXED);
	st->doubt = __atomic_load_n(&s->doubt, __ATOMIC_RELAXED);
	for (i = 0; i < s->attr.nr_workers && i < 64; i++)
		st->worker[i] = s->w[i].processed;
	st->forwarded = __atomic_load_n(&s->forwarded, __ATOMIC_RELAXED);
	st->out_of_order = __atomic_load_n(&s->out_of_order, __ATOMIC_RELAXED);
}

static bool srv_peers_gone(struct accd_server *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_agents; i++)
		if (s->agents[i].state == PEER_ACTIVE)
			return false;
	for (i = 0; i < s->nr_clients; i++)
		if (__atomic_load_n(&s->clients[i].state, __ATOMIC_RELAXED) ==
		    PEER_ACTIVE)
			return false;
	return true;
}

void accd_server_destroy(struct accd_server *s, double linger)
{
	double t0 = accd_now();
	unsigned int i;

	if (!s)
		return;
	accd_server_stop(s);
	/* the last responses and the agents' credits are on their way */
	while (s->cm_running && !srv_peers_gone(s) && accd_now() - t0 < linger)
		usleep(10000);
	if (s->cm_running) {
		s->cm_stop = 1;
		pthread_join(s->cm_thread, NULL);
	}
	for (i = 0; i < s->nr_agents; i++) {
		struct srv_agent *a = &s->agents[i];

		if (a->pp_mr)
			ibv_dereg_mr(a->pp_mr);
		if (a->credit_mr)
			ibv_dereg_mr(a->credit_mr);
		if (a->grant_mr)
			ibv_dereg_mr(a->grant_mr);
		accd_close(&a->conn);
	}
	for (i = 0; i < s->nr_clients; i++) {
		struct srv_client *c = &s->clients[i];

		if (c->slots_mr)
			ibv_dereg_mr(c->slots_mr);
		if (c->resp_mr)
			ibv_dereg_mr(c->resp_mr);
		accd_close(&c->conn);
	}
	for (i = 0; i < s->attr.max_clients && s->clients; i++) {
		free(s->clients[i].resp);
		pthread_mutex_destroy(&s->clients[i].lock);
	}
	accd_close(&s->l);
	for (i = 0; s->w && i <= s->attr.nr_workers; i++)
		dlb2_port_close(s->w[i].port);
	free(s->staged);
	free(s->sink_next);
	for (i = 0; s->pp && i < s->attr.nr_producers; i++)
		dlb2_port_close(s->pp[i]);
	free(s->pp);
	free(s->w);
	free(s->agents);
	free(s->grants);
	free(s->clients);
	free(s->slab);
	free(s);
}

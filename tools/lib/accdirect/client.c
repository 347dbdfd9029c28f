// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The client (accdirect.h).  Request r uses slot r % nr_slots of the server
 * and ring entry r % nr_entries of the agent, and stays in the window
 * (struct accd_window) until its answer arrives.
 *
 * Payload writes are posted in chains, the last of each chain signalled:
 * its completion says every payload before it landed (an RC send queue
 * completes in order).  Only then is their metadata written into the agent's
 * ring, a batch per RDMA WRITE, since the two go over different
 * connections and the agent must not enqueue a QE whose payload is still
 * on its way.  Answers are RDMA SENDs, up to ACCD_RESP_MAX per message, into
 * receive buffers posted ahead.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define SQ_DEPTH	128

struct accd_client {
	struct accd_client_attr attr;
	struct accd_conn srv, agt;
	struct accd_payload_offer po;
	struct accd_ring_offer ro;
	struct accd_window w;
	uint8_t *bufs;			/* nr_slots local payload buffers */
	struct accd_meta *ring;		/* local copy of the agent's ring */
	struct accd_resp *rbufs;	/* receive buffers, ACCD_RESP_MAX each */
	uint32_t nr_recv;
	struct accd_response pend[ACCD_RESP_MAX];	/* answers not given yet */
	unsigned int npend, pend_pos;
	struct ibv_mr *bufs_mr, *ring_mr, *rbufs_mr;
	struct accd_sq psq, msq;	/* payload writes, metadata writes */
	uint64_t cur;			/* the request accd_client_next() gave */
	bool have_cur;
	uint64_t staged;		/* requests with a payload WR not posted */
	uint64_t posted;		/* requests whose payload WR is posted */
	uint64_t landed;		/* requests whose payload WR completed */
	uint64_t meta_sent;		/* requests whose metadata is posted */
	struct ibv_send_wr *wr;		/* staged payload writes */
	struct ibv_sge *sge;
	uint64_t *wr_last;		/* staged: each one's last request */
	unsigned int nwr;		/* staged payload writes */
	uint64_t sq_landed[SQ_DEPTH];	/* landed once that WR completes */
	int err;
	int agent_err;			/* the agent's connection failed */
};

static int post_recvs(struct accd_client *c, uint32_t first, uint32_t n)
{
	struct ibv_recv_wr wr[64], *bad;
	struct ibv_sge sge[64];
	uint32_t i, k;
	int ret;

	while (n) {
		k = n < 64 ? n : 64;
		for (i = 0; i < k; i++) {
			uint32_t b = (first + i) % c->nr_recv;

			sge[i] = (struct ibv_sge){
				.addr = (uintptr_t)&c->rbufs[b * ACCD_RESP_MAX],
				.length = ACCD_RESP_MAX * sizeof(*c->rbufs),
				.lkey = c->rbufs_mr->lkey,
			};
			wr[i] = (struct ibv_recv_wr){
				.wr_id = b, .sg_list = &sge[i], .num_sge = 1,
				.next = i + 1 < k ? &wr[i + 1] : NULL,
			};
		}
		ret = ibv_post_recv(c->srv.id->qp, wr, &bad);
		if (ret)
			return -ret;
		first += k;
		n -= k;
	}
	return 0;
}

int accd_client_connect(const struct accd_client_attr *attr,
			struct accd_client **out)
{
	struct accd_hello hello = { .role = ACCD_ROLE_CLIENT,
				    .version = ACCD_VERSION };
	struct accd_qp_caps scaps = { .send_wr = SQ_DEPTH, .recv_channel = true };
	struct accd_qp_caps acaps = { .send_wr = SQ_DEPTH, .recv_wr = 1,
				      .inline_data = 64 };
	struct accd_client *c;
	double t0 = accd_now(), wait;
	uint32_t window;
	size_t size;
	int ret;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->attr = *attr;
	if (!c->attr.batch)
		c->attr.batch = 32;
	if (c->attr.batch > SQ_DEPTH)
		c->attr.batch = SQ_DEPTH;
	if (!c->attr.signal_every || c->attr.signal_every > SQ_DEPTH)
		c->attr.signal_every = 16;
	wait = c->attr.agent_wait > 0 ? c->attr.agent_wait : 10;
	/* receive buffers for a whole window, posted before connecting */
	c->nr_recv = attr->window ? attr->window : 1024;
	if (c->nr_recv > 4096) {
		free(c);
		return -EINVAL;
	}
	scaps.recv_wr = c->nr_recv;
	ret = accd_connect(&c->srv, attr->server,
			   attr->server_port ? attr->server_port : ACCD_SERVER_PORT,
			   &scaps, &hello, sizeof(hello), &c->po, sizeof(c->po));
	if (ret)
		goto err;
	/* the agent listens once it is connected to the server: retry */
	for (;;) {
		ret = accd_connect(&c->agt, attr->agent,
				   attr->agent_port ? attr->agent_port : ACCD_AGENT_PORT,
				   &acaps, &hello, sizeof(hello), &c->ro,
				   sizeof(c->ro));
		if (ret != -ECONNREFUSED || accd_now() - t0 > wait)
			break;
		accd_close(&c->agt);
		usleep(200000);
	}
	if (ret)
		goto err;
	if (!c->po.nr_slots || c->po.slot_size < 64 || !c->ro.nr_entries ||
	    c->ro.nr_entries > ACCD_MAX_RING) {
		ret = -EPROTO;
		goto err;
	}
	window = c->po.nr_slots < c->ro.nr_entries ? c->po.nr_slots :
						     c->ro.nr_entries;
	if (window > c->nr_recv)
		window = c->nr_recv;
	if (attr->window && attr->window < window)
		window = attr->window;
	ret = accd_window_init(&c->w, window, c->po.nr_slots);
	if (ret)
		goto err;
	accd_sq_init(&c->psq, SQ_DEPTH, c->attr.signal_every);
	accd_sq_init(&c->msq, SQ_DEPTH, c->attr.signal_every);

	size = (size_t)c->po.nr_slots * c->po.slot_size;
	c->bufs = aligned_alloc(64, (size + 63) / 64 * 64);
	c->ring = aligned_alloc(64, c->ro.nr_entries * sizeof(*c->ring));
	c->rbufs = calloc((size_t)c->nr_recv * ACCD_RESP_MAX, sizeof(*c->rbufs));
	c->wr = calloc(c->attr.batch, sizeof(*c->wr));
	c->sge = calloc(c->attr.batch, sizeof(*c->sge));
	c->wr_last = calloc(c->attr.batch, sizeof(*c->wr_last));
	if (!c->bufs || !c->ring || !c->rbufs || !c->wr || !c->sge ||
	    !c->wr_last) {
		ret = -ENOMEM;
		goto err;
	}
	memset(c->ring, 0, c->ro.nr_entries * sizeof(*c->ring));
	c->bufs_mr = ibv_reg_mr(c->srv.pd, c->bufs, size, IBV_ACCESS_LOCAL_WRITE);
	c->rbufs_mr = ibv_reg_mr(c->srv.pd, c->rbufs, (size_t)c->nr_recv *
				 ACCD_RESP_MAX * sizeof(*c->rbufs),
				 IBV_ACCESS_LOCAL_WRITE);
	c->ring_mr = ibv_reg_mr(c->agt.pd, c->ring,
				c->ro.nr_entries * sizeof(*c->ring),
				IBV_ACCESS_LOCAL_WRITE);
	if (!c->bufs_mr || !c->rbufs_mr || !c->ring_mr) {
		ret = -errno;
		goto err;
	}
	/*
	 * The server answers only requests this client sent, and only after
	 * their metadata went out, which is after this.
	 */
	ret = post_recvs(c, 0, c->nr_recv);
	if (ret)
		goto err;
	*out = c;
	return 0;
err:
	accd_client_close(c);
	return ret;
}

uint32_t accd_client_slot_size(const struct accd_client *c)
{
	return c->po.slot_size;
}

uint32_t accd_client_nr_queues(const struct accd_client *c)
{
	return c->po.nr_queues;
}

uint32_t accd_client_window(const struct accd_client *c)
{
	return c->w.size;
}

uint64_t accd_client_in_flight(const struct accd_client *c)
{
	return c->w.next - c->w.oldest;
}


void *accd_client_next(struct accd_client *c, uint64_t *req)
{
	if (!c->have_cur) {
		if (accd_window_open(&c->w, &c->cur))
			return NULL;
		c->have_cur = true;
	}
	*req = c->cur;
	return c->bufs + (size_t)(c->cur % c->po.nr_slots) * c->po.slot_size;
}

/* Payload writes completed: the requests up to the last one's landed. */
static int reap_payloads(struct accd_client *c)
{
	uint64_t before = c->psq.completed;
	int n;

	do {
		n = accd_sq_reap(c->srv.scq, &c->psq);
		if (n < 0)
			return n;
	} while (n == ACCD_REAP);
	c->landed = accd_sq_done_tag(&c->psq, c->sq_landed, before, c->landed);
	return 0;
}

/* Post the staged payload writes: one chain, its last one signalled. */
static int flush_payloads(struct accd_client *c)
{
	struct ibv_send_wr *bad;
	unsigned int n = c->nwr, i;
	int ret;

	if (!n)
		return 0;
	while (accd_sq_room(&c->psq) < n) {
		ret = reap_payloads(c);
		if (ret)
			return ret;
	}
	for (i = 0; i < n; i++) {
		c->wr[i].next = i + 1 < n ? &c->wr[i + 1] : NULL;
		c->wr[i].wr_id = c->psq.posted;
		c->sq_landed[c->psq.posted % SQ_DEPTH] = c->wr_last[i] + 1;
		if (accd_sq_post(&c->psq, i + 1 == n))
			c->wr[i].send_flags |= IBV_SEND_SIGNALED;
	}
	ret = ibv_post_send(c->srv.id->qp, c->wr, &bad);
	if (ret)
		return -ret;
	c->posted = c->staged;
	c->nwr = 0;
	return 0;
}

/*
 * The agent's connection is gone (a write to its ring failed, or it
 * disconnected): no more metadata goes out, and what is in its ring or was
 * taken by it is answered only if it reached the DLB.  The server's
 * answers still arrive.
 */
static void agent_lost(struct accd_client *c, int err)
{
	if (!c->agent_err)
		c->agent_err = err;
}

/* Has the agent disconnected?  Looked at without blocking. */
static void agent_check(struct accd_client *c)
{
	struct pollfd pfd = { .fd = c->agt.ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (c->agent_err || poll(&pfd, 1, 0) <= 0 ||
	    rdma_get_cm_event(c->agt.ch, &ev))
		return;
	if (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
	    ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		agent_lost(c, -ENOTCONN);
	rdma_ack_cm_event(ev);
}

int accd_client_agent_status(const struct accd_client *c)
{
	return c->agent_err;
}

uint64_t accd_client_meta_sent(const struct accd_client *c)
{
	return c->meta_sent;
}

/* The metadata of landed requests to the agent, a batch per write. */
static int send_meta(struct accd_client *c)
{
	uint64_t landed = c->landed;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	uint32_t first, k;
	int n, ret;

	while (!c->agent_err && c->meta_sent < landed) {
		/* room in the send queue to the agent */
		n = accd_sq_reap(c->agt.scq, &c->msq);
		if (n < 0) {
			agent_lost(c, n);
			return 0;
		}
		if (!accd_sq_room(&c->msq))
			continue;
		first = c->meta_sent % c->ro.nr_entries;
		k = landed - c->meta_sent;
		if (k > c->attr.batch)
			k = c->attr.batch;
		if (k > c->ro.nr_entries - first)	/* up to the wrap */
			k = c->ro.nr_entries - first;
		sge = (struct ibv_sge){ .addr = (uintptr_t)&c->ring[first],
					.length = k * sizeof(*c->ring),
					.lkey = c->ring_mr->lkey };
		wr = (struct ibv_send_wr){
			.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
			.wr.rdma = { .remote_addr = c->ro.ring_addr +
						    first * sizeof(*c->ring),
				     .rkey = c->ro.ring_rkey },
		};
		/*
		 * Inline: the entries are copied at once.  Otherwise an entry
		 * is rewritten only for the request nr_entries later, after
		 * this one's answer, so after this write.
		 */
		if (sge.length <= c->agt.inline_max)
			wr.send_flags |= IBV_SEND_INLINE;
		if (accd_sq_post(&c->msq, false))
			wr.send_flags |= IBV_SEND_SIGNALED;
		wr.wr_id = accd_sq_wr_id(&c->msq);
		ret = ibv_post_send(c->agt.id->qp, &wr, &bad);
		if (ret) {
			agent_lost(c, -ret);
			return 0;
		}
		c->meta_sent += k;
	}
	return 0;
}

int accd_client_submit(struct accd_client *c, uint32_t size,
		       const struct accd_qe_attr *a)
{
	uint32_t slot;
	uint64_t addr;
	int ret;

	if (c->err)
		return c->err;
	if (c->agent_err)
		return c->agent_err;
	if (!c->have_cur || !size || size > c->po.slot_size ||
	    (a && a->queue >= c->po.nr_queues))
		return -EINVAL;
	slot = c->cur % c->po.nr_slots;
	addr = c->po.slots_addr + (uint64_t)slot * c->po.slot_size;
	ret = accd_meta_encode(&c->ring[c->cur % c->ro.nr_entries], c->cur,
			       addr, size, a);
	if (ret)
		return ret;
	/*
	 * The slot after the last staged request's: one write for both, the
	 * rest of that slot included (its bytes beyond the payload are not
	 * looked at).
	 */
	if (c->attr.coalesce && c->nwr && c->wr_last[c->nwr - 1] + 1 == c->cur &&
	    slot && addr + size - c->wr[c->nwr - 1].wr.rdma.remote_addr <= 65536) {
		c->sge[c->nwr - 1].length =
			addr + size - c->wr[c->nwr - 1].wr.rdma.remote_addr;
		c->wr_last[c->nwr - 1] = c->cur;
	} else {
		c->sge[c->nwr] = (struct ibv_sge){
			.addr = (uintptr_t)c->bufs + (size_t)slot * c->po.slot_size,
			.length = size, .lkey = c->bufs_mr->lkey,
		};
		c->wr[c->nwr] = (struct ibv_send_wr){
			.sg_list = &c->sge[c->nwr], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.wr.rdma = { .remote_addr = addr,
				     .rkey = c->po.slots_rkey },
		};
		c->wr_last[c->nwr++] = c->cur;
	}
	c->staged++;
	c->have_cur = false;
	/* a full chain, or no room for more: post it */
	if (c->staged - c->posted >= c->attr.batch ||
	    c->nwr >= accd_sq_room(&c->psq)) {
		ret = flush_payloads(c);
		if (ret)
			c->err = ret;
	}
	return ret;
}

/*
 * Sleep until the completion channel has an event (an answer or a payload
 * write's completion), at most 100 ms.  The CQs were armed and polled once
 * more since (accd_client_poll()), so nothing is missed.
 */
static int client_block(struct accd_client *c)
{
	struct pollfd pfd = { .fd = c->srv.comp->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	if (poll(&pfd, 1, 100) > 0 && !ibv_get_cq_event(c->srv.comp, &cq, &ctx))
		ibv_ack_cq_events(cq, 1);
	return 0;
}

/* The answers of one message, into @out (the rest kept for later). */
static int take_answers(struct accd_client *c, const struct ibv_wc *wc,
			struct accd_response *out, unsigned int room)
{
	const struct accd_resp *r = &c->rbufs[wc->wr_id * ACCD_RESP_MAX];
	unsigned int i, m = wc->byte_len / sizeof(*r), got = 0;
	int64_t req;

	if (!m || m > ACCD_RESP_MAX || wc->byte_len % sizeof(*r))
		return -EPROTO;
	for (i = 0; i < m; i++) {
		struct accd_response a;

		req = accd_window_answer(&c->w, r[i].slot);
		if (req < 0)
			return -EPROTO;
		a = (struct accd_response){ .req = (uint64_t)req,
					    .status = r[i].status,
					    .value = r[i].value };
		if (got < room)
			out[got++] = a;
		else
			c->pend[c->npend++] = a;
	}
	return (int)got;
}

int accd_client_poll(struct accd_client *c, struct accd_response *out,
		     unsigned int max, bool wait)
{
	struct ibv_wc wc[16];
	unsigned int got = 0, spins = 0;
	bool armed = false;
	int n, i, ret;

	if (c->err)
		return c->err;
	if (!max)
		return -EINVAL;
	/* answers of a message that did not fit last time */
	while (c->pend_pos < c->npend && got < max)
		out[got++] = c->pend[c->pend_pos++];
	if (c->pend_pos == c->npend)
		c->pend_pos = c->npend = 0;
	ret = flush_payloads(c);
	while (!ret) {
		ret = reap_payloads(c);
		if (!ret)
			ret = send_meta(c);
		if (ret || got == max || c->npend)
			break;
		/* a message at a time once out might not hold a whole one */
		n = ibv_poll_cq(c->srv.rcq, max - got >= 16 * ACCD_RESP_MAX ? 16 : 1,
				wc);
		if (n < 0) {
			ret = -EIO;
			break;
		}
		for (i = 0; i < n && !ret; i++) {
			ret = accd_wc_err(&wc[i]);
			if (!ret) {
				ret = take_answers(c, &wc[i], out + got, max - got);
				if (ret >= 0) {
					got += ret;
					ret = 0;
				}
			}
		}
		/* a receive queue is consumed in order: the buffers read */
		if (!ret && n > 0)
			ret = post_recvs(c, wc[0].wr_id, n);
		if (!ret && !got && !wait)
			agent_check(c);
		if (ret || got || !wait)
			break;
		if (armed) {
			client_block(c);
			armed = false;
			/* no agent: what is answered comes within the wait */
			agent_check(c);
			if (c->agent_err)
				break;
		} else if (++spins > 32) {
			/* arm, then look once more before sleeping */
			if (ibv_req_notify_cq(c->srv.rcq, 0) ||
			    ibv_req_notify_cq(c->srv.scq, 0))
				ret = -EIO;
			armed = true;
		}
	}
	if (ret) {
		c->err = ret;
		return ret;
	}
	return (int)got;
}

void accd_client_close(struct accd_client *c)
{
	if (!c)
		return;
	if (c->srv.id)
		rdma_disconnect(c->srv.id);
	if (c->agt.id)
		rdma_disconnect(c->agt.id);
	if (c->bufs_mr)
		ibv_dereg_mr(c->bufs_mr);
	if (c->rbufs_mr)
		ibv_dereg_mr(c->rbufs_mr);
	if (c->ring_mr)
		ibv_dereg_mr(c->ring_mr);
	accd_close(&c->agt);
	accd_close(&c->srv);
	accd_window_fini(&c->w);
	free(c->bufs);
	free(c->ring);
	free(c->rbufs);
	free(c->wr);
	free(c->sge);
	free(c->wr_last);
	free(c);
}

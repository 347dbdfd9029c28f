// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_cm connection helpers of the AccDirect programs (accdirect.h).
 * Every function returns 0 or a negative errno; every RDMA operation is
 * posted signalled and waited for.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "accdirect.h"

static int get_event(struct rdma_event_channel *ch,
		     enum rdma_cm_event_type want, struct rdma_cm_event **out)
{
	struct rdma_cm_event *ev = NULL;

	if (rdma_get_cm_event(ch, &ev))
		return -errno;
	if (ev->event != want) {
		rdma_ack_cm_event(ev);
		return -ECONNREFUSED;
	}
	if (out)
		*out = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

static int addr_of(struct sockaddr_in *a, const char *ip, int port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	return inet_pton(AF_INET, ip, &a->sin_addr) == 1 ? 0 : -EINVAL;
}

int accd_setup_qp(struct accd_conn *c, struct ibv_pd *pd)
{
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	c->pd = pd ? pd : ibv_alloc_pd(c->id->verbs);
	if (!c->pd)
		return -errno;
	c->cq = ibv_create_cq(c->id->verbs, 32, NULL, NULL, 0);
	if (!c->cq)
		return -errno;
	qpa.send_cq = qpa.recv_cq = c->cq;
	return rdma_create_qp(c->id, c->pd, &qpa) ? -errno : 0;
}

int accd_connect(struct accd_conn *c, const char *ip, int port,
		 const void *hello, size_t hello_len, void *offer,
		 size_t offer_len)
{
	struct rdma_conn_param cp = {
		.responder_resources = 4, .initiator_depth = 4,
		.retry_count = 7, .private_data = hello,
		.private_data_len = hello_len,
	};
	struct rdma_cm_event *ev = NULL;
	struct sockaddr_in a;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = addr_of(&a, ip, port);
	if (ret)
		return ret;
	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&a, 2000))
		return -errno;
	ret = get_event(c->ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL);
	if (!ret && rdma_resolve_route(c->id, 2000))
		ret = -errno;
	if (!ret)
		ret = get_event(c->ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL);
	if (!ret)
		ret = accd_setup_qp(c, NULL);
	if (!ret && rdma_connect(c->id, &cp))
		ret = -errno;
	if (!ret)
		ret = get_event(c->ch, RDMA_CM_EVENT_ESTABLISHED, &ev);
	if (ret)
		return ret;
	if (ev->param.conn.private_data_len < offer_len)
		ret = -EPROTO;
	else
		memcpy(offer, ev->param.conn.private_data, offer_len);
	rdma_ack_cm_event(ev);
	return ret;
}

int accd_listen(struct accd_conn *l, const char *ip, int port)
{
	struct sockaddr_in a;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = addr_of(&a, ip, port);
	if (ret)
		return ret;
	l->ch = rdma_create_event_channel();
	if (!l->ch || rdma_create_id(l->ch, &l->id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(l->id, (struct sockaddr *)&a) ||
	    rdma_listen(l->id, 8))
		return -errno;
	return 0;
}

/* Wait for a connect request on @l; @c gets its id, @hello its data. */
int accd_get_request(struct accd_conn *l, struct accd_conn *c, void *hello,
		     size_t hello_len)
{
	struct rdma_cm_event *ev = NULL;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = get_event(l->ch, RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
	if (ret)
		return ret;
	c->id = ev->id;
	if (ev->param.conn.private_data_len < hello_len) {
		ret = -EPROTO;
		rdma_reject(c->id, NULL, 0);
	} else {
		memcpy(hello, ev->param.conn.private_data, hello_len);
	}
	rdma_ack_cm_event(ev);
	return ret;
}

/* Accept @c (its QP set up); its events go to a channel of its own. */
int accd_accept(struct accd_conn *c, const void *offer, size_t offer_len)
{
	struct rdma_conn_param cp = {
		.responder_resources = 4, .initiator_depth = 4,
		.private_data = offer, .private_data_len = offer_len,
	};

	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_migrate_id(c->id, c->ch) || rdma_accept(c->id, &cp))
		return -errno;
	return get_event(c->ch, RDMA_CM_EVENT_ESTABLISHED, NULL);
}

void accd_close(struct accd_conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	memset(c, 0, sizeof(*c));
}

int accd_post_wait(struct accd_conn *c, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int n;

	wr->send_flags |= IBV_SEND_SIGNALED;
	n = ibv_post_send(c->id->qp, wr, &bad);
	if (n)
		return -n;
	do {
		n = ibv_poll_cq(c->cq, 1, &wc);
	} while (!n);
	if (n < 0)
		return -EIO;
	if (wc.status == IBV_WC_REM_ACCESS_ERR)
		return -EACCES;
	return wc.status == IBV_WC_SUCCESS ? 0 : -EIO;
}

int accd_rdma(struct accd_conn *c, enum ibv_wr_opcode op, void *local,
	      uint32_t len, uint32_t lkey, uint64_t remote, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)local, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.wr.rdma = { .remote_addr = remote, .rkey = rkey },
	};

	return accd_post_wait(c, &wr);
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rdma_cm connections of libaccdirect (internal.h).  The connecting side
 * names its role in the connect request's private data, the accepting side
 * answers with what it offers in the accept's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "internal.h"

void accd_log(FILE *f, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (!f)
		return;
	fprintf(f, "%s: ", name);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fflush(f);
}

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

int accd_addr(struct sockaddr_in *a, const char *ip, int port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	return ip && inet_pton(AF_INET, ip, &a->sin_addr) == 1 ? 0 : -EINVAL;
}

int accd_setup_qp(struct accd_conn *c, const struct accd_qp_caps *caps)
{
	struct ibv_context *ctx = c->id->verbs;
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = caps->send_wr,
			 .max_recv_wr = caps->recv_wr ? caps->recv_wr : 1,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = caps->inline_data },
		.qp_type = IBV_QPT_RC,
	};

	c->pd = ibv_alloc_pd(ctx);
	if (!c->pd)
		return -errno;
	if (caps->recv_channel) {
		c->comp = ibv_create_comp_channel(ctx);
		if (!c->comp)
			return -errno;
	}
	c->scq = ibv_create_cq(ctx, caps->send_wr + 1, NULL, c->comp, 0);
	c->rcq = ibv_create_cq(ctx, qpa.cap.max_recv_wr + 1, NULL, c->comp, 0);
	if (!c->scq || !c->rcq)
		return -errno;
	qpa.send_cq = c->scq;
	qpa.recv_cq = c->rcq;
	if (rdma_create_qp(c->id, c->pd, &qpa)) {
		/* a device with no (or less) inline data */
		qpa.cap.max_inline_data = 0;
		if (!caps->inline_data || rdma_create_qp(c->id, c->pd, &qpa))
			return -errno;
	}
	c->inline_max = qpa.cap.max_inline_data;
	return 0;
}

int accd_connect(struct accd_conn *c, const char *ip, int port,
		 const struct accd_qp_caps *caps, const void *hello,
		 size_t hello_len, void *offer, size_t offer_len)
{
	struct rdma_conn_param cp = {
		.responder_resources = 4, .initiator_depth = 4,
		.retry_count = 7, .rnr_retry_count = 7,
		.private_data = hello, .private_data_len = hello_len,
	};
	struct rdma_cm_event *ev = NULL;
	struct sockaddr_in a;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = accd_addr(&a, ip, port);
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
		ret = accd_setup_qp(c, caps);
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

int accd_listen(struct accd_conn *l, const char *ip, int port, bool nonblock)
{
	struct sockaddr_in a;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = accd_addr(&a, ip, port);
	if (ret)
		return ret;
	l->ch = rdma_create_event_channel();
	if (!l->ch || rdma_create_id(l->ch, &l->id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(l->id, (struct sockaddr *)&a) ||
	    rdma_listen(l->id, 16))
		return -errno;
	if (nonblock &&
	    fcntl(l->ch->fd, F_SETFL, fcntl(l->ch->fd, F_GETFL) | O_NONBLOCK))
		return -errno;
	return 0;
}

void accd_close(struct accd_conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->rcq && c->rcq != c->scq)
		ibv_destroy_cq(c->rcq);
	if (c->comp)
		ibv_destroy_comp_channel(c->comp);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	memset(c, 0, sizeof(*c));
}

int accd_wc_err(const struct ibv_wc *wc)
{
	if (wc->status == IBV_WC_SUCCESS)
		return 0;
	return wc->status == IBV_WC_REM_ACCESS_ERR ? -EACCES : -EIO;
}

int accd_sq_reap(struct ibv_cq *cq, struct accd_sq *sq)
{
	struct ibv_wc wc[ACCD_REAP];
	int n, i, ret;

	n = ibv_poll_cq(cq, ACCD_REAP, wc);
	if (n < 0)
		return -EIO;
	for (i = 0; i < n; i++) {
		ret = accd_wc_err(&wc[i]);
		if (ret)
			return ret;
		accd_sq_complete(sq, wc[i].wr_id);
	}
	return n;
}

int accd_post_wait(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int n;

	wr->send_flags |= IBV_SEND_SIGNALED;
	n = ibv_post_send(qp, wr, &bad);
	if (n)
		return -n;
	do {
		n = ibv_poll_cq(cq, 1, &wc);
	} while (!n);
	return n < 0 ? -EIO : accd_wc_err(&wc);
}

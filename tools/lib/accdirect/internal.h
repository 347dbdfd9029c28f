/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libaccdirect's internals: rdma_cm connections (conn.c) shared by the
 * server, the agent and the client.
 */
#ifndef ACCD_INTERNAL_H
#define ACCD_INTERNAL_H

#include <stdarg.h>
#include <time.h>
#include <rdma/rdma_cma.h>

#include "accdirect.h"

/**
 * struct accd_conn - one RC connection
 * @ch: its rdma_cm event channel (NULL: the listener's, on the server)
 * @id: its rdma_cm id
 * @pd: protection domain (its own)
 * @scq, @rcq: send and receive completion queues (may be the same)
 * @comp: completion channel of @rcq, or NULL
 * @inline_max: inline bytes the QP takes (0: none)
 */
struct accd_conn {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_comp_channel *comp;
	uint32_t inline_max;
};

/**
 * struct accd_qp_caps - what a connection's queue pair is made with
 * @send_wr, @recv_wr: queue depths
 * @inline_data: inline bytes wanted (dropped if the device refuses)
 * @recv_channel: a completion channel on the receive CQ (blocking waits)
 */
struct accd_qp_caps {
	uint32_t send_wr, recv_wr;
	uint32_t inline_data;
	bool recv_channel;
};

static inline double accd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int accd_addr(struct sockaddr_in *a, const char *ip, int port);
int accd_setup_qp(struct accd_conn *c, const struct accd_qp_caps *caps);
int accd_connect(struct accd_conn *c, const char *ip, int port,
		 const struct accd_qp_caps *caps, const void *hello,
		 size_t hello_len, void *offer, size_t offer_len);
int accd_listen(struct accd_conn *l, const char *ip, int port, bool nonblock);
void accd_close(struct accd_conn *c);
/* Post one signalled work request and wait for it (set-up and tests). */
int accd_post_wait(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_send_wr *wr);
/* A completion's status as -errno. */
int accd_wc_err(const struct ibv_wc *wc);
/*
 * Retire up to ACCD_REAP completions of @cq on @sq: how many, or -errno
 * (-EIO when polling failed, a failed completion's accd_wc_err()).
 */
#define ACCD_REAP 16
int accd_sq_reap(struct ibv_cq *cq, struct accd_sq *sq);

void accd_log(FILE *f, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* ACCD_INTERNAL_H */

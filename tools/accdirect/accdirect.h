/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AccDirect wire protocol (tools/accdirect/README.md) and the rdma_cm
 * helpers its three programs share.
 *
 * Connections are rdma_cm RC connections.  The connecting side names its
 * role in the private data of the connect request; the accepting side
 * answers with the memory it offers in the private data of the accept.
 */
#ifndef ACCDIRECT_H
#define ACCDIRECT_H

#include <stdint.h>
#include <time.h>
#include <rdma/rdma_cma.h>

#define ACCD_SERVER_PORT	7480	/* the server, for agents and clients */
#define ACCD_AGENT_PORT		7481	/* the agent, for clients */

enum accd_role { ACCD_ROLE_AGENT = 1, ACCD_ROLE_CLIENT = 2 };

struct accd_hello {
	uint32_t role;			/* enum accd_role */
};

/* Server -> agent: the DLB producer port window and the credit word. */
struct accd_dlb_offer {
	uint64_t pp_addr;
	uint64_t credit_addr;
	uint32_t pp_rkey;
	uint32_t credit_rkey;
	uint8_t qid;			/* the load-balanced queue */
	uint8_t sched;			/* DLB2_SCHED() of its QEs */
	uint8_t pad[6];
};

/*
 * Server -> client: payload slots the client RDMA-WRITEs requests into, and
 * done[] (one 64-bit word per slot) where the server's workers record the
 * sequence number + 1 of the last request of each slot they processed.
 */
struct accd_payload_offer {
	uint64_t slots_addr;
	uint64_t done_addr;
	uint32_t slots_rkey;
	uint32_t done_rkey;
	uint32_t nr_slots;
	uint32_t slot_size;
};

/*
 * Agent -> client: the metadata ring.  Entry i of request i (at
 * i % nr_entries) carries the paper's 10-byte metadata (payload address and
 * size) and seq = i + 1, written last, which the agent polls; consumed is
 * the agent's count of requests taken from the ring, which the client reads
 * before it reuses an entry.
 */
struct accd_meta {
	uint64_t addr;
	uint16_t size;
	uint16_t pad;
	uint32_t seq;
};

struct accd_ring_offer {
	uint64_t ring_addr;
	uint64_t consumed_addr;
	uint32_t ring_rkey;
	uint32_t consumed_rkey;
	uint32_t nr_entries;
	uint32_t pad;
};

/*
 * The payload of request @seq: its size (64..slot_size, a multiple of 8)
 * and the 8-byte words it is made of, so that the server can check every
 * byte.
 */
static inline uint32_t accd_payload_size(uint64_t seq, uint32_t slot_size)
{
	return 64 + (uint32_t)(seq * 72) % (slot_size - 64 + 8) / 8 * 8;
}

static inline uint64_t accd_payload_word(uint64_t seq, uint32_t i)
{
	return (seq << 16) ^ i ^ 0xacd0000000000000ull;
}

/* Seconds on the monotonic clock, for the rates the programs print. */
static inline double accd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One connection: its rdma_cm id, protection domain, CQ and QP. */
struct accd_conn {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

int accd_connect(struct accd_conn *c, const char *ip, int port,
		 const void *hello, size_t hello_len, void *offer,
		 size_t offer_len);
int accd_listen(struct accd_conn *l, const char *ip, int port);
int accd_get_request(struct accd_conn *l, struct accd_conn *c, void *hello,
		     size_t hello_len);
int accd_setup_qp(struct accd_conn *c, struct ibv_pd *pd);
int accd_accept(struct accd_conn *c, const void *offer, size_t offer_len);
void accd_close(struct accd_conn *c);

int accd_post_wait(struct accd_conn *c, struct ibv_send_wr *wr);
int accd_rdma(struct accd_conn *c, enum ibv_wr_opcode op, void *local,
	      uint32_t len, uint32_t lkey, uint64_t remote, uint32_t rkey);

#endif /* ACCDIRECT_H */

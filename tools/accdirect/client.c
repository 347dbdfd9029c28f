// SPDX-License-Identifier: GPL-2.0
/*
 * accdirect-client: RDMA-WRITEs requests (payloads of 64 bytes up to a
 * slot) into the server's payload slots and, once each has landed, its
 * metadata (address and size) into the agent's ring.  Reuses a slot only
 * after the server marked it done, and a ring entry only after the agent
 * consumed it.  See README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accdirect.h"

static void usage(void)
{
	fprintf(stderr, "Usage: accdirect-client -s SERVER_IP -g AGENT_IP -n COUNT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct accd_hello hello = { .role = ACCD_ROLE_CLIENT };
	const char *server = NULL, *agent = NULL;
	struct accd_payload_offer po;
	struct accd_ring_offer ro;
	struct accd_conn srv, agt;
	struct ibv_mr *pay_mr, *done_mr, *meta_mr, *cons_mr;
	uint64_t *payload, *done, *consumed, i, count = 0;
	struct accd_meta *meta;
	uint32_t slot, size, w;
	int c, ret = 0;
	double t0;

	while ((c = getopt(argc, argv, "s:g:n:")) != -1) {
		switch (c) {
		case 's': server = optarg; break;
		case 'g': agent = optarg; break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!server || !agent || !count)
		usage();
	ret = accd_connect(&srv, server, ACCD_SERVER_PORT, &hello, sizeof(hello),
			   &po, sizeof(po));
	/* the agent listens once it is connected to the server: give it 10 s */
	for (i = 0; !ret; i++) {
		ret = accd_connect(&agt, agent, ACCD_AGENT_PORT, &hello,
				   sizeof(hello), &ro, sizeof(ro));
		if (ret != -ECONNREFUSED || i == 20)
			break;
		accd_close(&agt);
		usleep(500000);
		ret = 0;
	}
	if (ret) {
		fprintf(stderr, "accdirect-client: connecting: %s\n", strerror(-ret));
		return 1;
	}
	payload = aligned_alloc(64, po.slot_size);
	done = calloc(po.nr_slots, sizeof(*done));
	meta = aligned_alloc(64, 64);
	consumed = aligned_alloc(64, 64);
	if (!payload || !done || !meta || !consumed)
		return 1;
	*consumed = 0;
	pay_mr = ibv_reg_mr(srv.pd, payload, po.slot_size, IBV_ACCESS_LOCAL_WRITE);
	done_mr = ibv_reg_mr(srv.pd, done, po.nr_slots * sizeof(*done),
			     IBV_ACCESS_LOCAL_WRITE);
	meta_mr = ibv_reg_mr(agt.pd, meta, sizeof(*meta), IBV_ACCESS_LOCAL_WRITE);
	cons_mr = ibv_reg_mr(agt.pd, consumed, 8, IBV_ACCESS_LOCAL_WRITE);
	if (!pay_mr || !done_mr || !meta_mr || !cons_mr)
		return 1;

	t0 = accd_now();
	for (i = 0; i < count && !ret; i++) {
		slot = i % po.nr_slots;
		/* the slot's previous request must have been processed */
		while (!ret && i >= po.nr_slots && done[slot] != i - po.nr_slots + 1)
			ret = accd_rdma(&srv, IBV_WR_RDMA_READ, done,
					po.nr_slots * sizeof(*done), done_mr->lkey,
					po.done_addr, po.done_rkey);
		/* and the ring entry consumed */
		while (!ret && i - *consumed >= ro.nr_entries)
			ret = accd_rdma(&agt, IBV_WR_RDMA_READ, consumed, 8,
					cons_mr->lkey, ro.consumed_addr,
					ro.consumed_rkey);
		if (ret)
			break;
		size = accd_payload_size(i, po.slot_size);
		for (w = 0; w < size / 8; w++)
			payload[w] = accd_payload_word(i, w);
		/* ❶ the payload; its completion means it landed */
		ret = accd_rdma(&srv, IBV_WR_RDMA_WRITE, payload, size,
				pay_mr->lkey,
				po.slots_addr + (uint64_t)slot * po.slot_size,
				po.slots_rkey);
		if (ret)
			break;
		/* ❷ its metadata, sequence number last */
		*meta = (struct accd_meta){
			.addr = po.slots_addr + (uint64_t)slot * po.slot_size,
			.size = size, .seq = (uint32_t)(i + 1),
		};
		ret = accd_rdma(&agt, IBV_WR_RDMA_WRITE, meta, sizeof(*meta),
				meta_mr->lkey,
				ro.ring_addr + (i % ro.nr_entries) * sizeof(*meta),
				ro.ring_rkey);
	}
	printf("accdirect-client: %lu requests sent in %.1f s (%.0f/s)%s%s\n",
	       (unsigned long)i - !!ret, accd_now() - t0, i / (accd_now() - t0),
	       ret ? ": " : "", ret ? strerror(-ret) : "");
	accd_close(&agt);
	accd_close(&srv);
	return ret != 0;
}

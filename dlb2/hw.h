/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel DLB 2.0 / 2.5: register programming sequences (hardware facts,
 * section 6), of queues, ports and domains as struct dlb2_hw_queue,
 * struct dlb2_hw_port and struct dlb2_hw_domain.  Callers hold the device
 * lock (dlb2.h, "Locking"), but for dlb2_hw_pp_valid() from the alarm
 * handler.
 */
#ifndef __DLB2_HW_H
#define __DLB2_HW_H

#include <uapi/linux/dlb2.h>

#include "domain.h"

void dlb2_hw_init(struct dlb2 *dlb2);
void dlb2_hw_sn_modes(struct dlb2 *dlb2);
void dlb2_hw_domain_credits(struct dlb2 *dlb2, unsigned int dom, u32 ldb,
			    u32 dir);
void dlb2_hw_ldb_queue(struct dlb2 *dlb2, unsigned int dom,
		       const struct dlb2_hw_queue *q);
void dlb2_hw_dir_queue(struct dlb2 *dlb2, unsigned int dom,
		       const struct dlb2_hw_queue *q);
void dlb2_hw_ldb_port(struct dlb2 *dlb2, unsigned int dom,
		      const struct dlb2_hw_port *port);
void dlb2_hw_dir_port(struct dlb2 *dlb2, unsigned int dom,
		      const struct dlb2_hw_port *port);
void dlb2_hw_port_intr(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
		       bool on);
void dlb2_hw_pp_valid(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
		      bool on);
void dlb2_hw_cq_enable(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
		       bool on);
void dlb2_hw_map(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
		 unsigned int slot);
int dlb2_hw_map_quiesce(struct dlb2 *dlb2, const struct dlb2_hw_queue *q, u32 *lim);
bool dlb2_hw_queue_inflight(struct dlb2 *dlb2, const struct dlb2_hw_queue *q);
void dlb2_hw_queue_infl_lim(struct dlb2 *dlb2, const struct dlb2_hw_queue *q,
			    u32 lim);
void dlb2_hw_map_has_work(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
			  unsigned int slot);
void dlb2_hw_slot_inflight_ok(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
			      unsigned int slot);
int dlb2_hw_unmap(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
		  unsigned int slot);
void dlb2_hw_start(struct dlb2 *dlb2, unsigned int dom,
		   const struct dlb2_hw_domain *hd);
int dlb2_hw_domain_reset(struct dlb2 *dlb2, unsigned int dom,
			 const struct dlb2_hw_domain *hd);
unsigned int dlb2_hw_port_drain(struct dlb2 *dlb2,
				const struct dlb2_hw_port *port);
void dlb2_hw_port_drain_all(struct dlb2 *dlb2, const struct dlb2_hw_port *port,
			    atomic64_t *drained);
void dlb2_hw_cq_reset(struct dlb2 *dlb2, const struct dlb2_hw_port *port);

/* Counters */
bool dlb2_hw_gone(struct dlb2 *dlb2);
u32 dlb2_hw_cq_tokens(struct dlb2 *dlb2, const struct dlb2_hw_port *port);
u32 dlb2_hw_cq_inflights(struct dlb2 *dlb2, const struct dlb2_hw_port *port);
u64 dlb2_hw_cq_scheduled(struct dlb2 *dlb2, const struct dlb2_hw_port *port);
u32 dlb2_hw_queue_depth(struct dlb2 *dlb2, const struct dlb2_hw_queue *q);
u64 dlb2_hw_queue_enqueued(struct dlb2 *dlb2, const struct dlb2_hw_queue *q);

#endif /* __DLB2_HW_H */

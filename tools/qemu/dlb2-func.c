/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel DLB 2.0 / 2.5 device model: producer-port windows in the FUNC BAR.
 *
 * 0x2000000 DIR PP, 0x2100000 LDB PP (the "maskable" windows) and
 * 0x2200000 DIR PP, 0x2300000 LDB PP (the PF-driver windows) alias the same
 * ports, 4 KiB per port: FACT (facts §1.3), the aliasing INFERRED (facts
 * §1.3: PF and VF drivers use either pair).  Reads return 0: CHOICE.
 *
 * A memory callback never sees more than 8 bytes: a 16-byte store arrives as
 * two 8-byte writes, MOVDIR64B-less 64-byte copies as 8 x 8 bytes or 64 x 1
 * byte.  Each port therefore assembles HCWs in a 16-byte staging buffer,
 * indexed by the address bits 3:0: once all 16 bytes are present the HCW is
 * processed (CHOICE: facts §11, narrower writes are unknown).  Where in the
 * page or in the 64-byte line a HCW lands does not matter, INFERRED (facts
 * §3.2: the MOVNTDQ fallback writes all four HCWs to offset 0).  A write
 * that overlaps bytes already staged starts a new HCW and drops the partial
 * one (CHOICE).
 */
#include "qemu/osdep.h"
#include "dlb2.h"
#include "trace.h"

static uint64_t dlb2_pp_read(void *opaque, hwaddr addr, unsigned size)
{
    DLB2State *s = opaque;

    if (s->off_bus) {
        return MAKE_64BIT_MASK(0, size * 8);
    }
    dlb2_delay_due(s);
    dlb2_csr_flush(s);      /* a read flushes posted writes (dlb2-delay.c) */
    return 0;
}

static void dlb2_hcw_decode(const uint8_t *b, DLB2HCW *hcw)
{
    hcw->data = ldq_le_p(b);
    hcw->opaque = lduw_le_p(b + 8);
    hcw->qid = b[10];
    hcw->sched = b[11];
    hcw->lock_id = lduw_le_p(b + 12);
    hcw->flags = b[14];
    hcw->cmd = b[15];
}

static void dlb2_pp_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size)
{
    DLB2State *s = opaque;
    bool is_ldb = addr & 0x100000;
    unsigned int port = (addr & 0xff000) / DLB2_PP_STRIDE;
    unsigned int off = addr & 0xf, i;
    uint16_t bytes = ((1u << size) - 1) << off;
    DLB2Port *p;
    DLB2HCW hcw;

    if (s->off_bus) {
        return;
    }
    trace_dlb2_pp_write(is_ldb ? "ldb" : "dir", port, addr & 0xfff, size, val);
    dlb2_schedule_overdue(s);
    dlb2_delay_due(s);
    if (port >= (is_ldb ? DLB2_NUM_LDB_PORTS : dlb2_num_dir_ports(s->ver)) ||
        off + size > 16) {
        return;     /* no such port, or across two HCWs: dropped, CHOICE */
    }
    p = dlb2_port(s, is_ldb, port);
    if (p->staged_mask & bytes) {
        p->staged_mask = 0;
    }
    for (i = 0; i < size; i++) {
        p->staged[off + i] = val >> (8 * i);
    }
    p->staged_mask |= bytes;
    if (p->staged_mask != 0xffff) {
        return;
    }
    p->staged_mask = 0;
    dlb2_hcw_decode(p->staged, &hcw);
    if (!dlb2_ingress_post(s, is_ldb, port, &hcw)) {
        dlb2_hcw_process(s, is_ldb, port, &hcw);
    }
}

const MemoryRegionOps dlb2_pp_ops = {
    .read = dlb2_pp_read,
    .write = dlb2_pp_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
};

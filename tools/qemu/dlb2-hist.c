/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel DLB 2.0 / 2.5 device model: the history list.
 *
 * One list of 2048 entries is shared by all LDB CQs; each CQ owns the window
 * [CHP_HIST_LIST_BASE, CHP_HIST_LIST_LIM] of it: FACT (facts §7.5).
 * Scheduling a QE to a CQ pushes an entry at CHP_HIST_LIST_PUSH_PTR, a
 * completion pops the entry at CHP_HIST_LIST_POP_PTR.  Both pointers are
 * the live registers: bits 12:0 index the list, bit 13 is the generation,
 * which flips each time the pointer wraps from LIM back to BASE.  The number
 * of entries between them is the CQ's inflight count (LSP_CQ_LDB_INFL_CNT).
 * INFERRED (facts §7.5: the mechanism consistent with the public facts).
 *
 * A CQ whose window or pointers are invalid, or whose window overlaps that
 * of another CQ in use, is not scheduled (dlb2-map.c checks it): CHOICE.
 */
#include "qemu/osdep.h"
#include "dlb2.h"

#define DLB2_HL_IDX     0x1fffu
#define DLB2_HL_GEN     (1u << 13)

static void dlb2_hl_window(DLB2State *s, unsigned int port,
                           unsigned int *base, unsigned int *lim)
{
    *base = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_BASE, port) & DLB2_HL_IDX;
    *lim = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_LIM, port) & DLB2_HL_IDX;
}

/* The window is inside the list and both pointers are inside the window. */
bool dlb2_hl_window_ok(DLB2State *s, unsigned int port)
{
    uint32_t push = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_PUSH_PTR, port);
    uint32_t pop = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_POP_PTR, port);
    unsigned int base, lim;

    dlb2_hl_window(s, port, &base, &lim);
    return base <= lim && lim < DLB2_HIST_LIST_ENTRIES &&
           (push & DLB2_HL_IDX) >= base && (push & DLB2_HL_IDX) <= lim &&
           (pop & DLB2_HL_IDX) >= base && (pop & DLB2_HL_IDX) <= lim;
}

bool dlb2_hl_windows_overlap(DLB2State *s, unsigned int a, unsigned int b)
{
    unsigned int base_a, lim_a, base_b, lim_b;

    dlb2_hl_window(s, a, &base_a, &lim_a);
    dlb2_hl_window(s, b, &base_b, &lim_b);
    return base_a <= lim_b && base_b <= lim_a;
}

unsigned int dlb2_hl_count(DLB2State *s, unsigned int port)
{
    uint32_t push = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_PUSH_PTR, port);
    uint32_t pop = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_POP_PTR, port);
    unsigned int base, lim, pu = push & DLB2_HL_IDX, po = pop & DLB2_HL_IDX;

    if (!dlb2_hl_window_ok(s, port)) {
        return 0;
    }
    dlb2_hl_window(s, port, &base, &lim);
    if (!((push ^ pop) & DLB2_HL_GEN)) {
        return pu >= po ? pu - po : 0;
    }
    return po >= pu ? lim - base + 1 - (po - pu) : 0;
}

/* The pointer after ptr in the window of port, wrapping with a new gen. */
static uint32_t dlb2_hl_next(DLB2State *s, unsigned int port, uint32_t ptr)
{
    unsigned int base, lim, idx = (ptr & DLB2_HL_IDX) + 1;

    dlb2_hl_window(s, port, &base, &lim);
    if (idx > lim) {
        return base | ((ptr & DLB2_HL_GEN) ^ DLB2_HL_GEN);
    }
    return idx | (ptr & DLB2_HL_GEN);
}

/* Push an entry for a QE scheduled to port; false when the window is full. */
bool dlb2_hl_push(DLB2State *s, unsigned int port, const DLB2HistEntry *e)
{
    uint32_t push = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_PUSH_PTR, port);
    unsigned int base, lim;

    dlb2_hl_window(s, port, &base, &lim);
    if (!dlb2_hl_window_ok(s, port) ||
        dlb2_hl_count(s, port) >= lim - base + 1) {
        return false;
    }
    s->hist[push & DLB2_HL_IDX] = *e;
    dlb2_reg_set(s, DLB2_R_CHP_HIST_LIST_PUSH_PTR, port,
                 dlb2_hl_next(s, port, push));
    return true;
}

const DLB2HistEntry *dlb2_hl_oldest(DLB2State *s, unsigned int port)
{
    uint32_t pop = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_POP_PTR, port);

    return dlb2_hl_count(s, port) ? &s->hist[pop & DLB2_HL_IDX] : NULL;
}

/* Pop the oldest entry of port into e; false when there is none. */
bool dlb2_hl_pop(DLB2State *s, unsigned int port, DLB2HistEntry *e)
{
    uint32_t pop = dlb2_reg(s, DLB2_R_CHP_HIST_LIST_POP_PTR, port);

    if (!dlb2_hl_count(s, port)) {
        return false;
    }
    *e = s->hist[pop & DLB2_HL_IDX];
    dlb2_reg_set(s, DLB2_R_CHP_HIST_LIST_POP_PTR, port,
                 dlb2_hl_next(s, port, pop));
    return true;
}

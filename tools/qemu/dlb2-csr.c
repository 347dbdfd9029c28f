/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel DLB 2.0 / 2.5 device model: the CSR BAR register file.
 *
 * Every CSR is 32 bits wide and accessed with 32-bit loads and stores
 * (facts section 1.2).  Registers known to the model (dlb2-regs.h) read their
 * reset value until written; writes are stored and read back.  Offsets the
 * model does not know are stored too, and logged as unimplemented, so that a
 * driver that programs more than the model understands keeps working while the
 * gap is visible in the log.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "dlb2.h"
#include "trace.h"

typedef struct DLB2RegDesc {
    const char *name;
    uint32_t offset[DLB2_NUM_VERSIONS];
    uint32_t reset;
} DLB2RegDesc;

#define DLB2_REG(n, o20, o25, r) { #n, { o20, o25 }, r },
static const DLB2RegDesc dlb2_regs[] = {
#include "dlb2-regs.h"
};
#undef DLB2_REG

#define DLB2_REG(n, o20, o25, r) DLB2_REG_IDX_##n,
enum {
#include "dlb2-regs.h"
};
#undef DLB2_REG

static uint32_t dlb2_reg_off(DLB2State *s, int idx)
{
    return dlb2_regs[idx].offset[s->ver];
}

static const DLB2RegDesc *dlb2_reg_find(DLB2State *s, hwaddr addr)
{
    size_t i;

    for (i = 0; i < ARRAY_SIZE(dlb2_regs); i++) {
        if (dlb2_regs[i].offset[s->ver] == addr) {
            return &dlb2_regs[i];
        }
    }
    return NULL;
}

static uint64_t dlb2_csr_read(void *opaque, hwaddr addr, unsigned size)
{
    DLB2State *s = opaque;
    const DLB2RegDesc *desc = dlb2_reg_find(s, addr);
    gpointer val;
    uint32_t ret;

    if (addr == dlb2_reg_off(s, DLB2_REG_IDX_CM_CFG_PM_PMCSR_DISABLE)) {
        ret = s->pmcsr_disable;
    } else if (g_hash_table_lookup_extended(s->csr, GUINT_TO_POINTER(addr),
                                            NULL, &val)) {
        ret = GPOINTER_TO_UINT(val);
    } else {
        ret = desc ? desc->reset : 0;
        if (!desc) {
            qemu_log_mask(LOG_UNIMP, "dlb2: read of unknown CSR 0x%" HWADDR_PRIx
                          "\n", addr);
        }
    }
    trace_dlb2_csr_read(addr, desc ? desc->name : "?", ret);
    return ret;
}

static void dlb2_csr_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    DLB2State *s = opaque;
    const DLB2RegDesc *desc = dlb2_reg_find(s, addr);

    trace_dlb2_csr_write(addr, desc ? desc->name : "?", val);
    if (addr == dlb2_reg_off(s, DLB2_REG_IDX_CM_CFG_PM_PMCSR_DISABLE)) {
        s->pmcsr_disable = val & 1;
        return;
    }
    if (!desc) {
        qemu_log_mask(LOG_UNIMP, "dlb2: write of unknown CSR 0x%" HWADDR_PRIx
                      " = 0x%" PRIx64 "\n", addr, val);
    }
    g_hash_table_insert(s->csr, GUINT_TO_POINTER(addr),
                        GUINT_TO_POINTER((uint32_t)val));
}

const MemoryRegionOps dlb2_csr_ops = {
    .read = dlb2_csr_read,
    .write = dlb2_csr_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

void dlb2_csr_init(DLB2State *s)
{
    s->csr = g_hash_table_new(g_direct_hash, g_direct_equal);
    s->pmcsr_disable = 1;
}

void dlb2_csr_reset(DLB2State *s)
{
    g_hash_table_remove_all(s->csr);
}

void dlb2_csr_fini(DLB2State *s)
{
    g_hash_table_destroy(s->csr);
    s->csr = NULL;
}

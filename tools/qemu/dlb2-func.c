/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel DLB 2.0 / 2.5 device model: producer-port windows in the FUNC BAR.
 *
 * 0x2000000 DIR PP, 0x2100000 LDB PP (the "maskable" windows) and
 * 0x2200000 DIR PP, 0x2300000 LDB PP (the PF-driver windows) alias the same
 * ports, 4 KiB per port (facts section 1.3).  Reads return 0.  QE assembly and
 * enqueue are not modelled yet: writes are traced and dropped.
 */
#include "qemu/osdep.h"
#include "dlb2.h"
#include "trace.h"

static uint64_t dlb2_pp_read(void *opaque, hwaddr addr, unsigned size)
{
    return 0;
}

static void dlb2_pp_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size)
{
    bool is_ldb = addr & 0x100000;
    unsigned int port = (addr & 0xff000) / DLB2_PP_STRIDE;

    trace_dlb2_pp_write(is_ldb ? "ldb" : "dir", port, addr & 0xfff, size, val);
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

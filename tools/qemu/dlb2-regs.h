/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DLB 2.0 / 2.5 CSR (BAR2) register offsets and reset values, as listed in
 * dlb2-hardware-facts.md Appendix A.  Offsets that differ between versions
 * carry both; the model selects the column by device version.  This table is
 * the one place where the model's register map lives.
 *
 * DLB2_REG(name, offset 2.0, offset 2.5, reset value)
 * An offset of DLB2_REG_ABSENT means the register does not exist in that
 * version.
 */
#ifndef DLB2_REG
#error "define DLB2_REG before including dlb2-regs.h"
#endif

#ifndef DLB2_REG_ABSENT
#define DLB2_REG_ABSENT 0xffffffffu
#endif

/* Identification, power and reset status (facts section 6.1). */
DLB2_REG(CM_DIAG_RESET_STS,             0xb4000000, 0xa4000000, 0x80000bff)
DLB2_REG(CM_CFG_DIAGNOSTIC_IDLE_STATUS, 0xb4000004, 0xa4000004, 0x9d0fffff)
DLB2_REG(CM_CFG_PM_STATUS,              0xb4000014, 0xa4000014, 0x0100403e)
DLB2_REG(CM_CFG_PM_PMCSR_DISABLE,       0xb4000018, 0xa4000018, 0x00000001)

/* Resource totals (facts section 2). */
DLB2_REG(SYS_TOTAL_VAS,                 0x1000011c, 0x10000114, 0x00000020)
DLB2_REG(SYS_TOTAL_LDB_CRDS,            0x10000104, DLB2_REG_ABSENT, 0x00002000)
DLB2_REG(SYS_TOTAL_DIR_CRDS,            0x10000108, DLB2_REG_ABSENT, 0x00001000)
DLB2_REG(SYS_TOTAL_CREDITS,             DLB2_REG_ABSENT, 0x10000100, 0x00004000)

/* Interrupt mode and alarms (facts section 8). */
DLB2_REG(SYS_MSIX_MODE,                 0x10000408, 0x10000408, 0x00000000)
DLB2_REG(SYS_INGRESS_ALARM_ENBL,        0x10000300, 0x10000300, 0x00000000)
DLB2_REG(SYS_ALARM_PF_SYND0,            0x10000500, 0x10000500, 0x00000000)
DLB2_REG(SYS_ALARM_PF_SYND1,            0x10000504, 0x10000504, 0x00000000)
DLB2_REG(SYS_ALARM_PF_SYND2,            0x10000508, 0x10000508, 0x00000000)
DLB2_REG(SYS_ALARM_HW_SYND,             0x1000050c, 0x1000050c, 0x00000000)

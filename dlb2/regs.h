/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel DLB 2.0 / 2.5 register definitions.
 *
 * CSR offsets are in BAR2 and differ between versions; the macros take the
 * hardware version (enum dlb2_hw_ver).  Source: DPDK's BSD-licensed dlb2 PF
 * base code, as collected in the project's hardware facts.
 */
#ifndef __DLB2_REGS_H
#define __DLB2_REGS_H

#include <linux/bits.h>

#define DLB2_FUNC_BAR				0
#define DLB2_CSR_BAR				2

/* Selects the 2.0 or the 2.5 offset of a CSR. */
#define DLB2_CSR_OFF(ver, v2, v2_5)		((ver) == DLB2_HW_V2 ? (v2) : (v2_5))

#define DLB2_CM_DIAG_RESET_STS(ver)		DLB2_CSR_OFF(ver, 0xb4000000, 0xa4000000)
#define DLB2_CM_CFG_DIAGNOSTIC_IDLE_STATUS(ver)	DLB2_CSR_OFF(ver, 0xb4000004, 0xa4000004)
#define   DLB2_CM_CFG_DIAGNOSTIC_IDLE_STATUS_DLB_FUNC_IDLE	BIT(31)
#define DLB2_CM_CFG_PM_STATUS(ver)		DLB2_CSR_OFF(ver, 0xb4000014, 0xa4000014)
#define   DLB2_CM_CFG_PM_STATUS_PMSM		GENMASK(31, 24)
#define DLB2_CM_CFG_PM_PMCSR_DISABLE(ver)	DLB2_CSR_OFF(ver, 0xb4000018, 0xa4000018)
#define   DLB2_CM_CFG_PM_PMCSR_DISABLE_DISABLE	BIT(0)

#define DLB2_SYS_TOTAL_VAS(ver)			DLB2_CSR_OFF(ver, 0x1000011c, 0x10000114)

#define DLB2_SYS_MSIX_MODE			0x10000408
#define   DLB2_SYS_MSIX_MODE_COMPRESSED		BIT(0)

/* MSI-X: vector 0 = service interrupt, vector 1 = all CQs (compressed mode). */
#define DLB2_PF_NUM_COMPRESSED_MODE_VECTORS	2

#endif /* __DLB2_REGS_H */

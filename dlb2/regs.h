/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Intel DLB 2.0 / 2.5 register definitions.
 *
 * CSR offsets are in BAR2 and differ between versions; the macros take the
 * hardware version (DLB2_HW_V2 or DLB2_HW_V2_5) and, for registers with one instance
 * per object, the object's id.  Source: the register table of the project's
 * hardware facts (Appendix A, from DPDK's BSD-licensed dlb2 base code).
 * "absent" registers do not exist in that version and must not be used.
 */
#ifndef __DLB2_REGS_H
#define __DLB2_REGS_H

#include <linux/bits.h>

#define DLB2_FUNC_BAR				0
#define DLB2_CSR_BAR				2

/* Selects the 2.0 or the 2.5 offset of a CSR. */
#define DLB2_CSR_OFF(ver, v2, v2_5)		((ver) == DLB2_HW_V2 ? (v2) : (v2_5))

#define DLB2_SYS_TOTAL_VAS(ver)	(DLB2_CSR_OFF(ver, 0x1000011c, 0x10000114))
#define DLB2_SYS_TOTAL_DIR_CRDS(ver)	(DLB2_CSR_OFF(ver, 0x10000108, 0 /* absent */))
#define DLB2_SYS_TOTAL_LDB_CRDS(ver)	(DLB2_CSR_OFF(ver, 0x10000104, 0 /* absent */))
#define DLB2_SYS_ALARM_PF_SYND2(ver)	(0x10000508)
#define DLB2_SYS_ALARM_PF_SYND1(ver)	(0x10000504)
#define DLB2_SYS_ALARM_PF_SYND0(ver)	(0x10000500)
#define DLB2_SYS_LDB_VASQID_V(ver, x)	(0x10000f24 + (x) * 0x1000)
#define DLB2_SYS_DIR_VASQID_V(ver, x)	(0x10000f28 + (x) * 0x1000)
#define DLB2_SYS_LDB_QID_CFG_V(ver, x)	(0x10000f58 + (x) * 0x1000)
#define DLB2_SYS_LDB_QID_ITS(ver, x)	(0x10000f54 + (x) * 0x1000)
#define DLB2_SYS_LDB_QID_V(ver, x)	(0x10000f50 + (x) * 0x1000)
#define DLB2_SYS_DIR_QID_ITS(ver, x)	(0x10000f64 + (x) * 0x1000)
#define DLB2_SYS_DIR_QID_V(ver, x)	(0x10000f60 + (x) * 0x1000)
#define DLB2_SYS_LDB_CQ_AI_DATA(ver, x)	(0x10000fa8 + (x) * 0x1000)
#define DLB2_SYS_LDB_CQ_AI_ADDR(ver, x) \
	(DLB2_CSR_OFF(ver, 0x10000fa4, 0 /* absent */) + (x) * 0x1000)
#define DLB2_SYS_LDB_CQ_PASID(ver, x)	(DLB2_CSR_OFF(ver, 0x10000fa0, 0x10000f9c) + (x) * 0x1000)
#define DLB2_SYS_LDB_CQ_AT(ver, x) \
	(DLB2_CSR_OFF(ver, 0x10000f9c, 0 /* absent */) + (x) * 0x1000)
#define DLB2_SYS_LDB_CQ_ISR(ver, x)	(0x10000f98 + (x) * 0x1000)
#define DLB2_SYS_LDB_CQ2VF_PF_RO(ver, x)	(0x10000f94 + (x) * 0x1000)
#define DLB2_SYS_LDB_PP_V(ver, x)	(0x10000f90 + (x) * 0x1000)
#define DLB2_SYS_LDB_PP2VDEV(ver, x)	(0x10000f8c + (x) * 0x1000)
#define DLB2_SYS_LDB_PP2VAS(ver, x)	(0x10000f88 + (x) * 0x1000)
#define DLB2_SYS_LDB_CQ_ADDR_U(ver, x)	(0x10000f84 + (x) * 0x1000)
#define DLB2_SYS_LDB_CQ_ADDR_L(ver, x)	(0x10000f80 + (x) * 0x1000)
#define DLB2_SYS_DIR_CQ_FMT(ver, x)	(0x10000fec + (x) * 0x1000)
#define DLB2_SYS_DIR_CQ_AI_DATA(ver, x)	(0x10000fe8 + (x) * 0x1000)
#define DLB2_SYS_DIR_CQ_AI_ADDR(ver, x) \
	(DLB2_CSR_OFF(ver, 0x10000fe4, 0 /* absent */) + (x) * 0x1000)
#define DLB2_SYS_DIR_CQ_PASID(ver, x)	(DLB2_CSR_OFF(ver, 0x10000fe0, 0x10000fdc) + (x) * 0x1000)
#define DLB2_SYS_DIR_CQ_AT(ver, x) \
	(DLB2_CSR_OFF(ver, 0x10000fdc, 0 /* absent */) + (x) * 0x1000)
#define DLB2_SYS_DIR_CQ_ISR(ver, x)	(0x10000fd8 + (x) * 0x1000)
#define DLB2_SYS_DIR_CQ2VF_PF_RO(ver, x)	(0x10000fd4 + (x) * 0x1000)
#define DLB2_SYS_DIR_PP_V(ver, x)	(0x10000fd0 + (x) * 0x1000)
#define DLB2_SYS_DIR_PP2VDEV(ver, x)	(0x10000fcc + (x) * 0x1000)
#define DLB2_SYS_DIR_PP2VAS(ver, x)	(0x10000fc8 + (x) * 0x1000)
#define DLB2_SYS_DIR_CQ_ADDR_U(ver, x)	(0x10000fc4 + (x) * 0x1000)
#define DLB2_SYS_DIR_CQ_ADDR_L(ver, x)	(0x10000fc0 + (x) * 0x1000)
#define DLB2_SYS_INGRESS_ALARM_ENBL(ver)	(0x10000300)
#define DLB2_SYS_MSIX_ACK(ver)	(0x10000400)
#define DLB2_SYS_MSIX_PASSTHRU(ver)	(0x10000404)
#define DLB2_SYS_MSIX_MODE(ver)	(0x10000408)
#define DLB2_SYS_DIR_CQ_31_0_OCC_INT_STS(ver)	(0x10000440)
#define DLB2_SYS_DIR_CQ_63_32_OCC_INT_STS(ver)	(0x10000444)
#define DLB2_SYS_LDB_CQ_31_0_OCC_INT_STS(ver)	(0x10000460)
#define DLB2_SYS_LDB_CQ_63_32_OCC_INT_STS(ver)	(0x10000464)
#define DLB2_SYS_DIR_CQ_OPT_CLR(ver)	(DLB2_CSR_OFF(ver, 0x100004c0, 0 /* absent */))
#define DLB2_SYS_ALARM_HW_SYND(ver)	(0x1000050c)
#define DLB2_AQED_QID_FID_LIM(ver, x)	(0x20000000 + (x) * 0x1000)
#define DLB2_AQED_QID_HID_WIDTH(ver, x)	(0x20080000 + (x) * 0x1000)
#define DLB2_AQED_CFG_ARB_WEIGHTS_TQPRI_ATM_0(ver)	(0x24000004)
#define DLB2_ATM_QID2CQIDIX(ver, q, k)	(0x30080000 + (q) * 0x1000 + (k) * 0x80000)
#define DLB2_ATM_CFG_ARB_WEIGHTS_RDY_BIN(ver)	(0x34000004)
#define DLB2_ATM_CFG_ARB_WEIGHTS_SCHED_BIN(ver)	(0x34000008)
#define DLB2_CHP_CFG_DIR_VAS_CRD(ver, x) \
	(DLB2_CSR_OFF(ver, 0x40000000, 0 /* absent */) + (x) * 0x1000)
#define DLB2_CHP_CFG_LDB_VAS_CRD(ver, x) \
	(DLB2_CSR_OFF(ver, 0x40080000, 0 /* absent */) + (x) * 0x1000)
#define DLB2_CHP_ORD_QID_SN(ver, x)	(DLB2_CSR_OFF(ver, 0x40100000, 0x40080000) + (x) * 0x1000)
#define DLB2_CHP_ORD_QID_SN_MAP(ver, x)	(DLB2_CSR_OFF(ver, 0x40180000, 0x40100000) + (x) * 0x1000)
#define DLB2_CHP_SN_CHK_ENBL(ver, x)	(DLB2_CSR_OFF(ver, 0x40200000, 0x40180000) + (x) * 0x1000)
#define DLB2_CHP_DIR_CQ_DEPTH(ver, x)	(DLB2_CSR_OFF(ver, 0x40280000, 0x40300000) + (x) * 0x1000)
#define DLB2_CHP_DIR_CQ_INT_DEPTH_THRSH(ver, x) \
	(DLB2_CSR_OFF(ver, 0x40300000, 0x40380000) + (x) * 0x1000)
#define DLB2_CHP_DIR_CQ_INT_ENB(ver, x)	(DLB2_CSR_OFF(ver, 0x40380000, 0x40400000) + (x) * 0x1000)
#define DLB2_CHP_DIR_CQ_TMR_THRSH(ver, x) \
	(DLB2_CSR_OFF(ver, 0x40480000, 0x40500000) + (x) * 0x1000)
#define DLB2_CHP_DIR_CQ_TKN_DEPTH_SEL(ver, x) \
	(DLB2_CSR_OFF(ver, 0x40500000, 0x40580000) + (x) * 0x1000)
#define DLB2_CHP_DIR_CQ_WD_ENB(ver, x)	(DLB2_CSR_OFF(ver, 0x40580000, 0x40600000) + (x) * 0x1000)
#define DLB2_CHP_DIR_CQ_WPTR(ver, x)	(DLB2_CSR_OFF(ver, 0x40600000, 0x40680000) + (x) * 0x1000)
#define DLB2_CHP_DIR_CQ2VAS(ver, x)	(DLB2_CSR_OFF(ver, 0x40680000, 0x40700000) + (x) * 0x1000)
#define DLB2_CHP_HIST_LIST_BASE(ver, x)	(DLB2_CSR_OFF(ver, 0x40700000, 0x40780000) + (x) * 0x1000)
#define DLB2_CHP_HIST_LIST_LIM(ver, x)	(DLB2_CSR_OFF(ver, 0x40780000, 0x40800000) + (x) * 0x1000)
#define DLB2_CHP_HIST_LIST_POP_PTR(ver, x) \
	(DLB2_CSR_OFF(ver, 0x40800000, 0x40880000) + (x) * 0x1000)
#define DLB2_CHP_HIST_LIST_PUSH_PTR(ver, x) \
	(DLB2_CSR_OFF(ver, 0x40880000, 0x40900000) + (x) * 0x1000)
#define DLB2_CHP_LDB_CQ_DEPTH(ver, x)	(DLB2_CSR_OFF(ver, 0x40900000, 0x40a80000) + (x) * 0x1000)
#define DLB2_CHP_LDB_CQ_INT_DEPTH_THRSH(ver, x) \
	(DLB2_CSR_OFF(ver, 0x40980000, 0x40b00000) + (x) * 0x1000)
#define DLB2_CHP_LDB_CQ_INT_ENB(ver, x)	(DLB2_CSR_OFF(ver, 0x40a00000, 0x40b80000) + (x) * 0x1000)
#define DLB2_CHP_LDB_CQ_TMR_THRSH(ver, x) \
	(DLB2_CSR_OFF(ver, 0x40b00000, 0x40c80000) + (x) * 0x1000)
#define DLB2_CHP_LDB_CQ_TKN_DEPTH_SEL(ver, x) \
	(DLB2_CSR_OFF(ver, 0x40b80000, 0x40d00000) + (x) * 0x1000)
#define DLB2_CHP_LDB_CQ_WD_ENB(ver, x)	(DLB2_CSR_OFF(ver, 0x40c00000, 0x40d80000) + (x) * 0x1000)
#define DLB2_CHP_LDB_CQ_WPTR(ver, x)	(DLB2_CSR_OFF(ver, 0x40c80000, 0x40e00000) + (x) * 0x1000)
#define DLB2_CHP_LDB_CQ2VAS(ver, x)	(DLB2_CSR_OFF(ver, 0x40d00000, 0x40e80000) + (x) * 0x1000)
#define DLB2_CHP_CFG_CHP_CSR_CTRL(ver)	(0x44000008)
#define DLB2_CHP_DIR_CQ_INTR_ARMED0(ver)	(DLB2_CSR_OFF(ver, 0x4400005c, 0x4400004c))
#define DLB2_CHP_DIR_CQ_INTR_ARMED1(ver)	(DLB2_CSR_OFF(ver, 0x44000060, 0x44000050))
#define DLB2_CHP_CFG_DIR_CQ_TIMER_CTL(ver)	(DLB2_CSR_OFF(ver, 0x44000084, 0x44000088))
#define DLB2_CHP_CFG_DIR_WDTO_0(ver)	(DLB2_CSR_OFF(ver, 0x44000088, 0x4400008c))
#define DLB2_CHP_CFG_DIR_WDTO_1(ver)	(DLB2_CSR_OFF(ver, 0x4400008c, 0x44000090))
#define DLB2_CHP_CFG_DIR_WD_DISABLE0(ver)	(DLB2_CSR_OFF(ver, 0x44000098, 0x440000a4))
#define DLB2_CHP_CFG_DIR_WD_DISABLE1(ver)	(DLB2_CSR_OFF(ver, 0x4400009c, 0x440000a8))
#define DLB2_CHP_CFG_DIR_WD_ENB_INTERVAL(ver)	(DLB2_CSR_OFF(ver, 0x440000a0, 0x440000b0))
#define DLB2_CHP_CFG_DIR_WD_THRESHOLD(ver)	(DLB2_CSR_OFF(ver, 0x440000ac, 0x440000c0))
#define DLB2_CHP_LDB_CQ_INTR_ARMED0(ver)	(DLB2_CSR_OFF(ver, 0x440000b0, 0x440000c4))
#define DLB2_CHP_LDB_CQ_INTR_ARMED1(ver)	(DLB2_CSR_OFF(ver, 0x440000b4, 0x440000c8))
#define DLB2_CHP_CFG_LDB_CQ_TIMER_CTL(ver)	(DLB2_CSR_OFF(ver, 0x440000d8, 0x440000ec))
#define DLB2_CHP_CFG_LDB_WDTO_0(ver)	(DLB2_CSR_OFF(ver, 0x440000dc, 0x440000f0))
#define DLB2_CHP_CFG_LDB_WDTO_1(ver)	(DLB2_CSR_OFF(ver, 0x440000e0, 0x440000f4))
#define DLB2_CHP_CFG_LDB_WD_DISABLE0(ver)	(DLB2_CSR_OFF(ver, 0x440000ec, 0x44000100))
#define DLB2_CHP_CFG_LDB_WD_DISABLE1(ver)	(DLB2_CSR_OFF(ver, 0x440000f0, 0x44000104))
#define DLB2_CHP_CFG_LDB_WD_ENB_INTERVAL(ver)	(DLB2_CSR_OFF(ver, 0x440000f4, 0x44000108))
#define DLB2_CHP_CFG_LDB_WD_THRESHOLD(ver)	(DLB2_CSR_OFF(ver, 0x44000100, 0x44000114))
#define DLB2_CHP_CTRL_DIAG_02(ver)	(0x4c000028)
#define DLB2_DP_CFG_ARB_WEIGHTS_TQPRI_DIR_0(ver)	(0x54000000)
#define DLB2_DP_CFG_ARB_WEIGHTS_TQPRI_DIR_1(ver)	(0x54000004)
#define DLB2_DP_CFG_ARB_WEIGHTS_TQPRI_REPLAY_0(ver)	(0x54000008)
#define DLB2_DP_CFG_ARB_WEIGHTS_TQPRI_REPLAY_1(ver)	(0x5400000c)
#define DLB2_DP_DIR_CSR_CTRL(ver)	(0x54000010)
#define DLB2_NALB_CFG_ARB_WEIGHTS_TQPRI_ATQ_0(ver)	(DLB2_CSR_OFF(ver, 0x84000000, 0x74000000))
#define DLB2_NALB_CFG_ARB_WEIGHTS_TQPRI_ATQ_1(ver)	(DLB2_CSR_OFF(ver, 0x84000004, 0x74000004))
#define DLB2_NALB_CFG_ARB_WEIGHTS_TQPRI_NALB_0(ver)	(DLB2_CSR_OFF(ver, 0x84000008, 0x74000008))
#define DLB2_NALB_CFG_ARB_WEIGHTS_TQPRI_NALB_1(ver)	(DLB2_CSR_OFF(ver, 0x8400000c, 0x7400000c))
#define DLB2_NALB_CFG_ARB_WEIGHTS_TQPRI_REPLAY_0(ver)	(DLB2_CSR_OFF(ver, 0x84000010, 0x74000010))
#define DLB2_NALB_CFG_ARB_WEIGHTS_TQPRI_REPLAY_1(ver)	(DLB2_CSR_OFF(ver, 0x84000014, 0x74000014))
#define DLB2_RO_GRP_0_SLT_SHFT(ver, x)	(DLB2_CSR_OFF(ver, 0x96000000, 0x86000000) + (x) * 0x4)
#define DLB2_RO_GRP_1_SLT_SHFT(ver, x)	(DLB2_CSR_OFF(ver, 0x96010000, 0x86010000) + (x) * 0x4)
#define DLB2_RO_GRP_SN_MODE(ver)	(DLB2_CSR_OFF(ver, 0x94000000, 0x84000000))
#define DLB2_RO_CFG_CTRL_GENERAL_0(ver)	(DLB2_CSR_OFF(ver, 0x9c000000, 0x8c000000))
#define DLB2_LSP_CQ2PRIOV(ver, x)	(DLB2_CSR_OFF(ver, 0xa0000000, 0x90000000) + (x) * 0x1000)
#define DLB2_LSP_CQ2QID0(ver, x)	(DLB2_CSR_OFF(ver, 0xa0080000, 0x90080000) + (x) * 0x1000)
#define DLB2_LSP_CQ2QID1(ver, x)	(DLB2_CSR_OFF(ver, 0xa0100000, 0x90100000) + (x) * 0x1000)
#define DLB2_LSP_CQ_DIR_DSBL(ver, x)	(DLB2_CSR_OFF(ver, 0xa0180000, 0x90180000) + (x) * 0x1000)
#define DLB2_LSP_CQ_DIR_TKN_CNT(ver, x)	(DLB2_CSR_OFF(ver, 0xa0200000, 0x90200000) + (x) * 0x1000)
#define DLB2_LSP_CQ_DIR_TKN_DEPTH_SEL_DSI(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0280000, 0x90280000) + (x) * 0x1000)
#define DLB2_LSP_CQ_DIR_TOT_SCH_CNTL(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0300000, 0x90300000) + (x) * 0x1000)
#define DLB2_LSP_CQ_DIR_TOT_SCH_CNTH(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0380000, 0x90380000) + (x) * 0x1000)
#define DLB2_LSP_CQ_LDB_DSBL(ver, x)	(DLB2_CSR_OFF(ver, 0xa0400000, 0x90400000) + (x) * 0x1000)
#define DLB2_LSP_CQ_LDB_INFL_CNT(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0480000, 0x90480000) + (x) * 0x1000)
#define DLB2_LSP_CQ_LDB_INFL_LIM(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0500000, 0x90500000) + (x) * 0x1000)
#define DLB2_LSP_CQ_LDB_INFL_THRESH(ver, x) \
	(DLB2_CSR_OFF(ver, 0 /* absent */, 0x90580000) + (x) * 0x1000)
#define DLB2_LSP_CQ_LDB_TKN_CNT(ver, x)	(DLB2_CSR_OFF(ver, 0xa0580000, 0x90600000) + (x) * 0x1000)
/* Widths of the live counters the driver reads (facts 4.3, 6.8). */
#define DLB2_LDB_TKN_CNT_MASK			GENMASK(10, 0)
#define DLB2_DIR_TKN_CNT_MASK			GENMASK(12, 0)
#define DLB2_INFL_CNT_MASK			GENMASK(11, 0)
#define DLB2_LSP_CQ_LDB_TKN_DEPTH_SEL(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0600000, 0x90680000) + (x) * 0x1000)
#define DLB2_LSP_CQ_LDB_TOT_SCH_CNTL(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0680000, 0x90700000) + (x) * 0x1000)
#define DLB2_LSP_CQ_LDB_TOT_SCH_CNTH(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0700000, 0x90780000) + (x) * 0x1000)
#define DLB2_LSP_QID_DIR_MAX_DEPTH(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0780000, 0x90800000) + (x) * 0x1000)
#define DLB2_LSP_QID_DIR_TOT_ENQ_CNTL(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0800000, 0x90880000) + (x) * 0x1000)
#define DLB2_LSP_QID_DIR_TOT_ENQ_CNTH(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0880000, 0x90900000) + (x) * 0x1000)
#define DLB2_LSP_QID_DIR_ENQUEUE_CNT(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0900000, 0x90980000) + (x) * 0x1000)
#define DLB2_LSP_QID_DIR_DEPTH_THRSH(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0980000, 0x90a00000) + (x) * 0x1000)
#define DLB2_LSP_QID_AQED_ACTIVE_CNT(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0a00000, 0x90b80000) + (x) * 0x1000)
#define DLB2_LSP_QID_AQED_ACTIVE_LIM(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0a80000, 0x90c00000) + (x) * 0x1000)
#define DLB2_LSP_QID_ATM_TOT_ENQ_CNTL(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0b00000, 0x90c80000) + (x) * 0x1000)
#define DLB2_LSP_QID_ATM_TOT_ENQ_CNTH(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0b80000, 0x90d00000) + (x) * 0x1000)
#define DLB2_LSP_QID_LDB_ENQUEUE_CNT(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0c80000, 0x90e00000) + (x) * 0x1000)
#define DLB2_LSP_QID_LDB_INFL_CNT(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0d00000, 0x90e80000) + (x) * 0x1000)
#define DLB2_LSP_QID_LDB_INFL_LIM(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa0d80000, 0x90f00000) + (x) * 0x1000)
#define DLB2_LSP_QID2CQIDIX(ver, q, k) \
	(DLB2_CSR_OFF(ver, 0xa0e00000, 0x90f80000) + (q) * 0x1000 + (k) * 0x80000)
#define DLB2_LSP_QID2CQIDIX2(ver, q, k) \
	(DLB2_CSR_OFF(ver, 0xa1600000, 0x91780000) + (q) * 0x1000 + (k) * 0x80000)
#define DLB2_LSP_QID_NALDB_MAX_DEPTH(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa1f00000, 0x92080000) + (x) * 0x1000)
#define DLB2_LSP_QID_NALDB_TOT_ENQ_CNTL(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa1f80000, 0x92100000) + (x) * 0x1000)
#define DLB2_LSP_QID_NALDB_TOT_ENQ_CNTH(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa2000000, 0x92180000) + (x) * 0x1000)
#define DLB2_LSP_QID_ATM_DEPTH_THRSH(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa2080000, 0x92200000) + (x) * 0x1000)
#define DLB2_LSP_QID_NALDB_DEPTH_THRSH(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa2100000, 0x92280000) + (x) * 0x1000)
#define DLB2_LSP_QID_ATM_ACTIVE(ver, x)	(DLB2_CSR_OFF(ver, 0xa2180000, 0x92300000) + (x) * 0x1000)
#define DLB2_LSP_CFG_ARB_WEIGHT_ATM_NALB_QID_0(ver)	(DLB2_CSR_OFF(ver, 0xa4000008, 0x94000008))
#define DLB2_LSP_CFG_ARB_WEIGHT_ATM_NALB_QID_1(ver)	(DLB2_CSR_OFF(ver, 0xa400000c, 0x9400000c))
#define DLB2_LSP_CFG_ARB_WEIGHT_LDB_QID_0(ver)	(DLB2_CSR_OFF(ver, 0xa4000014, 0x94000014))
#define DLB2_LSP_CFG_ARB_WEIGHT_LDB_QID_1(ver)	(DLB2_CSR_OFF(ver, 0xa4000018, 0x94000018))
#define DLB2_LSP_LDB_SCHED_CTRL(ver)	(DLB2_CSR_OFF(ver, 0xa400002c, 0x9400002c))
#define DLB2_LSP_DIR_SCH_CNT_L(ver)	(DLB2_CSR_OFF(ver, 0xa4000034, 0x94000034))
#define DLB2_LSP_DIR_SCH_CNT_H(ver)	(DLB2_CSR_OFF(ver, 0xa4000038, 0x94000038))
#define DLB2_LSP_LDB_SCH_CNT_L(ver)	(DLB2_CSR_OFF(ver, 0xa400003c, 0x9400003c))
#define DLB2_LSP_LDB_SCH_CNT_H(ver)	(DLB2_CSR_OFF(ver, 0xa4000040, 0x94000040))
#define DLB2_LSP_CFG_SHDW_CTRL(ver)	(DLB2_CSR_OFF(ver, 0xa4000070, 0x94000070))
#define DLB2_LSP_CFG_SHDW_RANGE_COS(ver, x) \
	(DLB2_CSR_OFF(ver, 0xa4000074, 0x94000074) + (x) * 0x4)
#define DLB2_LSP_CFG_CTRL_GENERAL_0(ver)	(DLB2_CSR_OFF(ver, 0xac000000, 0x9c000000))
#define DLB2_CM_DIAG_RESET_STS(ver)	(DLB2_CSR_OFF(ver, 0xb4000000, 0xa4000000))
#define DLB2_CM_CFG_DIAGNOSTIC_IDLE_STATUS(ver)	(DLB2_CSR_OFF(ver, 0xb4000004, 0xa4000004))
#define DLB2_CM_CFG_PM_STATUS(ver)	(DLB2_CSR_OFF(ver, 0xb4000014, 0xa4000014))
#define DLB2_CM_CFG_PM_PMCSR_DISABLE(ver)	(DLB2_CSR_OFF(ver, 0xb4000018, 0xa4000018))
#define DLB2_SYS_TOTAL_CREDITS(ver)	(DLB2_CSR_OFF(ver, 0 /* absent */, 0x10000100))
#define DLB2_SYS_LDB_CQ_AI_ADDR_U(ver, x) \
	(DLB2_CSR_OFF(ver, 0 /* absent */, 0x10000fa4) + (x) * 0x1000)
#define DLB2_SYS_LDB_CQ_AI_ADDR_L(ver, x) \
	(DLB2_CSR_OFF(ver, 0 /* absent */, 0x10000fa0) + (x) * 0x1000)
#define DLB2_SYS_DIR_CQ_AI_ADDR_U(ver, x) \
	(DLB2_CSR_OFF(ver, 0 /* absent */, 0x10000fe4) + (x) * 0x1000)
#define DLB2_SYS_DIR_CQ_AI_ADDR_L(ver, x) \
	(DLB2_CSR_OFF(ver, 0 /* absent */, 0x10000fe0) + (x) * 0x1000)
#define DLB2_SYS_WB_DIR_CQ_STATE(ver, x) \
	(DLB2_CSR_OFF(ver, 0 /* absent */, 0x11c00000) + (x) * 0x1000)
#define  DLB2_WB_DIR_CQ_STATE_CQ_OPT_CLR	BIT(4)
#define DLB2_SYS_WB_LDB_CQ_STATE(ver, x) \
	(DLB2_CSR_OFF(ver, 0 /* absent */, 0x11d00000) + (x) * 0x1000)
#define DLB2_CHP_CFG_VAS_CRD(ver, x) \
	(DLB2_CSR_OFF(ver, 0 /* absent */, 0x40000000) + (x) * 0x1000)
#define DLB2_LSP_CFG_CQ_LDB_WU_LIMIT(ver, x) \
	(DLB2_CSR_OFF(ver, 0 /* absent */, 0x90b00000) + (x) * 0x1000)

/* Fields */
#define DLB2_CM_CFG_DIAGNOSTIC_IDLE_STATUS_DLB_FUNC_IDLE	BIT(31)
#define DLB2_CM_CFG_PM_STATUS_PMSM		GENMASK(31, 24)
#define DLB2_CM_CFG_PM_PMCSR_DISABLE_DISABLE	BIT(0)
#define DLB2_SYS_MSIX_MODE_COMPRESSED		BIT(0)
#define DLB2_SYS_INGRESS_ALARM_ENBL_ALL		GENMASK(5, 0)
#define DLB2_SYS_INGRESS_ALARM_ENBL_ILLEGAL_PP	BIT(1)
#define DLB2_CHP_CFG_CHP_CSR_CTRL_SPARSE_LDB	BIT(17)
#define DLB2_CHP_CFG_CHP_CSR_CTRL_SPARSE_DIR	BIT(18)
#define DLB2_CQ_ISR_VECTOR			GENMASK(5, 0)
#define DLB2_CQ_ISR_EN_CODE			GENMASK(11, 10)
#define   DLB2_CQ_ISR_EN_MSIX			2
#define DLB2_CQ_INT_ENB_EN_DEPTH		BIT(1)
#define DLB2_CQ2VF_PF_RO_IS_PF			BIT(4)
#define DLB2_CQ2VF_PF_RO_RO			BIT(5)
#define DLB2_LDB_QID_CFG_V_SN_CFG_V		BIT(0)
#define DLB2_LDB_QID_CFG_V_FID_CFG_V		BIT(1)
#define DLB2_ORD_QID_SN_MAP_MODE		GENMASK(2, 0)
#define DLB2_ORD_QID_SN_MAP_SLOT		GENMASK(6, 3)
#define DLB2_ORD_QID_SN_MAP_GRP			BIT(8)
#define DLB2_RO_GRP_SN_MODE_0			GENMASK(2, 0)
#define DLB2_RO_GRP_SN_MODE_1			GENMASK(10, 8)
#define DLB2_CQ2PRIOV_PRIO(slot)		(0x7u << (3 * (slot)))
#define DLB2_CQ2PRIOV_V(slot)			BIT(24 + (slot))
#define DLB2_CQ2QID_QID(slot)			(0x7fu << (8 * ((slot) % 4)))
#define DLB2_LDB_SCHED_CTRL_CQ			GENMASK(7, 0)
#define DLB2_LDB_SCHED_CTRL_QIDIX		GENMASK(10, 8)
#define DLB2_LDB_SCHED_CTRL_VALUE		BIT(11)
#define DLB2_LDB_SCHED_CTRL_NALB_HASWORK_V	BIT(12)
#define DLB2_LDB_SCHED_CTRL_RLIST_HASWORK_V	BIT(13)
#define DLB2_LDB_SCHED_CTRL_INFLIGHT_OK_V	BIT(15)
#define DLB2_ALARM_SYND0_SYNDROME		GENMASK(7, 0)
#define DLB2_ALARM_SYND0_IS_LDB			BIT(13)
#define DLB2_ALARM_SYND0_AID			GENMASK(21, 16)
#define DLB2_ALARM_SYND0_UNIT			GENMASK(25, 22)
#define DLB2_ALARM_SYND0_SOURCE			GENMASK(29, 26)
#define DLB2_ALARM_SYND0_MORE			BIT(30)
#define DLB2_ALARM_SYND0_VALID			BIT(31)
#define DLB2_ALARM_HW_SYND_ALARM		BIT(10)

/* FUNC BAR: producer ports (the window DPDK and user space use) */
#define DLB2_DIR_PP_OFFS(id)			(0x2000000 + (id) * 0x1000)
#define DLB2_LDB_PP_OFFS(id)			(0x2100000 + (id) * 0x1000)
#define DLB2_PP_SIZE_BYTES			0x1000

/* FUNC BAR: the MSI-X table's vector control words (facts §1.3, Appendix B) */
#define DLB2_MSIX_VECTOR_CTRL(x)		(0x100000c + (x) * 0x10)
#define DLB2_MSIX_VECTOR_CTRL_MASK		BIT(0)

/* MSI-X: vector 0 = service interrupt, vector 1 = all CQs (compressed mode). */
#define DLB2_PF_NUM_COMPRESSED_MODE_VECTORS	2
#define DLB2_INT_ALARM				0
#define DLB2_INT_CQ				1

#endif /* __DLB2_REGS_H */

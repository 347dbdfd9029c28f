/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel Dynamic Load Balancer (DLB 2.0 / 2.5) PCIe device model: shared state.
 *
 * The device has two memory BARs (dlb2-hardware-facts.md section 1.2):
 *   BAR0 "FUNC" (64 MiB): producer-port windows and the MSI-X table/PBA;
 *   BAR2 "CSR"  (4 GiB):  configuration and status registers.
 * dlb2.c owns the PCI function, dlb2-csr.c the register file and
 * dlb2-func.c the producer-port windows.
 */
#ifndef HW_MISC_DLB2_H
#define HW_MISC_DLB2_H

#include "hw/pci/pci.h"
#include "qom/object.h"

#define TYPE_DLB2 "dlb2"
OBJECT_DECLARE_SIMPLE_TYPE(DLB2State, DLB2)

/* Hardware generations, numbered as in DPDK (DLB2_HW_V2 / DLB2_HW_V2_5). */
typedef enum DLB2Version {
    DLB2_V2_0 = 0,
    DLB2_V2_5 = 1,
    DLB2_NUM_VERSIONS
} DLB2Version;

#define DLB2_PCI_DEVICE_ID_V2_0     0x2710
#define DLB2_PCI_DEVICE_ID_V2_5     0x2714
#define DLB2_PCI_CLASS              0x0b40  /* processor / co-processor */

#define DLB2_FUNC_BAR               0
#define DLB2_FUNC_BAR_SIZE          (64 * MiB)
#define DLB2_CSR_BAR                2
#define DLB2_CSR_BAR_SIZE           (4 * GiB)

/* MSI-X: vector 0 = service (alarms), 1..64 = CQ vectors (packed mode). */
#define DLB2_MSIX_VECTORS           65
#define DLB2_MSIX_TABLE_OFFSET      0x1000000
#define DLB2_MSIX_PBA_OFFSET        0x1001000

/* Producer-port windows in the FUNC BAR: two aliases of DIR and LDB ports. */
#define DLB2_PP_BASE                0x2000000
#define DLB2_PP_SIZE                0x0400000
#define DLB2_PP_STRIDE              0x1000

#define DLB2_PCIE_CAP_OFFSET        0x60

struct DLB2State {
    PCIDevice parent_obj;

    /* Properties */
    char *version_str;

    DLB2Version ver;

    MemoryRegion func_bar;      /* container: PP windows + MSI-X */
    MemoryRegion pp_mmio;
    MemoryRegion csr_bar;

    /*
     * Register file: offsets written since the last reset map to their
     * value; every other offset reads its reset value (dlb2-csr.c).
     */
    GHashTable *csr;
    /* CM_CFG_PM_PMCSR_DISABLE survives device reset (facts section 6.1). */
    uint32_t pmcsr_disable;
};

/* dlb2-csr.c */
void dlb2_csr_init(DLB2State *s);
void dlb2_csr_reset(DLB2State *s);
void dlb2_csr_fini(DLB2State *s);
extern const MemoryRegionOps dlb2_csr_ops;

/* dlb2-func.c */
extern const MemoryRegionOps dlb2_pp_ops;

#endif /* HW_MISC_DLB2_H */

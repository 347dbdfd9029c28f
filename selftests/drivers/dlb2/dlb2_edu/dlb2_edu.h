/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * dlb2_edu: a test driver for QEMU's "edu" device that makes its DMA engine
 * write into a DLB producer port through dlb2's peer-to-peer interface
 * (include/linux/dlb2_p2p.h), standing in for a NIC.  Interface of
 * /dev/dlb2_edu, shared by the module and the kselftest dlb2_p2p.
 */
#ifndef DLB2_EDU_H
#define DLB2_EDU_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* struct dlb2_edu_dma.flags */
/* DMA to the BAR's bus address, no IOMMU mapping (faults if translated) */
#define DLB2_EDU_RAW_BUS_ADDR	0x1

/**
 * struct dlb2_edu_dma - one DMA of @len bytes into a producer port
 * @va: user address in the caller's producer-port mapping
 * @len: bytes, 16..64, a multiple of 16 (one to four HCWs)
 * @domain_id: domain the port must belong to, or -1
 * @flags: DLB2_EDU_*
 * @dma_addr: out: the address the edu device wrote to
 * @data: the HCWs
 */
struct dlb2_edu_dma {
	__u64 va;
	__u32 len;
	__s32 domain_id;
	__u32 flags;
	__u32 reserved;
	__u64 dma_addr;
	__u8 data[64];
};

/**
 * struct dlb2_edu_pin - keep a pin on a producer port
 * @va: user address in the caller's producer-port mapping
 * @len: bytes
 * @revoked: out (DLB2_EDU_PIN_STATE): revoke callbacks seen for the pin
 * @mapped: out (DLB2_EDU_PIN_STATE): the mapping DLB2_EDU_PIN_MAP kept is
 *	    still live in dlb2 (dlb2_p2p_mapping() finds it)
 * @reserved: 0
 * @dma_addr: out (DLB2_EDU_PIN_MAP): the address it maps the range at
 */
struct dlb2_edu_pin {
	__u64 va;
	__u32 len;
	__u32 revoked;
	__u32 mapped;
	__u32 reserved;
	__u64 dma_addr;
};

/**
 * struct dlb2_edu_dmabuf - a DMA into a dma-buf exported by a dlb2 port
 * @fd: the dma-buf (DLB2_IOC_EXPORT_DMABUF)
 * @len: bytes, 16..64, a multiple of 16
 * @moves: out (DLB2_EDU_DMABUF_STATE): move notifications seen
 * @reserved: 0
 * @dma_addr: out: the address the edu device wrote to
 * @data: the HCWs
 */
struct dlb2_edu_dmabuf {
	__s32 fd;
	__u32 len;
	__u32 moves;
	__u32 reserved;
	__u64 dma_addr;
	__u8 data[64];
};

/* struct dlb2_edu_map.type: enum dlb2_p2p_map_type */
#define DLB2_EDU_MAP_BUS_ADDR		1	/* the BAR's PCI bus address */
#define DLB2_EDU_MAP_THRU_HOST_BRIDGE	2	/* the DMA API (an IOVA if translated) */

/**
 * struct dlb2_edu_map - how dlb2 maps a producer-port range for the edu
 * device (mapped, reported and unmapped; no DMA)
 * @va: user address in the caller's producer-port mapping
 * @len: bytes
 * @type: out: DLB2_EDU_MAP_*
 * @forced: out: 1 when p2p_override made a mapping the kernel's policy
 *	    refuses
 * @reserved: 0
 * @dma_addr: out: the address of @va for the edu device
 * @start: out: DMA address of the first byte mapped
 * @map_len: out: bytes mapped from @start
 * @phys: out: CPU physical address of @va
 */
struct dlb2_edu_map {
	__u64 va;
	__u32 len;
	__u32 type;
	__u32 forced;
	__u32 reserved;
	__u64 dma_addr;
	__u64 start;
	__u64 map_len;
	__u64 phys;
};

/* struct dlb2_edu_aer.step */
#define DLB2_EDU_AER_FROZEN	0	/* error_detected(pci_channel_io_frozen) */
#define DLB2_EDU_AER_SLOT_RESET	1	/* function reset, slot_reset(), resume() */
#define DLB2_EDU_AER_NORMAL	2	/* error_state back to io_normal only */

/* struct dlb2_edu_aer.step for DLB2_EDU_PM */
#define DLB2_EDU_PM_SUSPEND	0	/* pm->suspend(); if 0, the power lost */
#define DLB2_EDU_PM_RESUME	1	/* config space restored, pm->resume() */

/**
 * struct dlb2_edu_aer - one step of an AER recovery of another PCI function
 * (DLB2_EDU_AER) or of its system sleep (DLB2_EDU_PM)
 * @domain: its PCI segment
 * @bus: its bus
 * @devfn: its device and function
 * @step: DLB2_EDU_AER_*
 * @result: out: the pci_ers_result_t its driver answered: 3 NEED_RESET,
 *	    4 DISCONNECT, 5 RECOVERED (1, NONE, for NORMAL); for DLB2_EDU_PM,
 *	    what its suspend or resume callback returned
 */
struct dlb2_edu_aer {
	__u32 domain;
	__u32 bus;
	__u32 devfn;
	__u32 step;
	__s32 result;
};

#define DLB2_EDU_MAGIC		0xd3
/* Pin, map, DMA, unmap, unpin. */
#define DLB2_EDU_DMA		_IOWR(DLB2_EDU_MAGIC, 0, struct dlb2_edu_dma)
/* Pin and keep the pin (one per open file). */
#define DLB2_EDU_PIN		_IOW(DLB2_EDU_MAGIC, 1, struct dlb2_edu_pin)
/* The kept pin: revoke callbacks seen; -ENODEV once revoked when mapped. */
#define DLB2_EDU_PIN_STATE	_IOR(DLB2_EDU_MAGIC, 2, struct dlb2_edu_pin)
/* DMA len bytes of data through the kept pin. */
#define DLB2_EDU_PIN_DMA	_IOWR(DLB2_EDU_MAGIC, 3, struct dlb2_edu_dma)

/*
 * Attach to the dma-buf @fd as a dynamic peer-to-peer importer and keep it
 * attached (one per open file), then DMA through it as long as it lives.
 */
#define DLB2_EDU_DMABUF_ATTACH	_IOW(DLB2_EDU_MAGIC, 4, struct dlb2_edu_dmabuf)
#define DLB2_EDU_DMABUF_DMA	_IOWR(DLB2_EDU_MAGIC, 5, struct dlb2_edu_dmabuf)
#define DLB2_EDU_DMABUF_STATE	_IOR(DLB2_EDU_MAGIC, 6, struct dlb2_edu_dmabuf)
/* Try to pin the attachment (unpinned again at once when it works). */
#define DLB2_EDU_DMABUF_PIN	_IO(DLB2_EDU_MAGIC, 7)
/*
 * Add an unsignalled fence of ours to the dma-buf's reservation object (as
 * an importer with DMA queued on the buffer would); signal it later.
 */
#define DLB2_EDU_DMABUF_FENCE	_IO(DLB2_EDU_MAGIC, 8)
#define DLB2_EDU_DMABUF_SIGNAL	_IO(DLB2_EDU_MAGIC, 9)
/* Map a range for the edu device and say how; unmap again. */
#define DLB2_EDU_MAP		_IOWR(DLB2_EDU_MAGIC, 10, struct dlb2_edu_map)
/*
 * Map the kept pin for the device and keep the mapping, as a holder that
 * unmaps only when it closes (its revoke callback does not unmap).
 */
#define DLB2_EDU_PIN_MAP	_IOR(DLB2_EDU_MAGIC, 11, struct dlb2_edu_pin)
/*
 * Write len bytes of data through the CPU address dlb2 gives for the kept
 * pin (dlb2_p2p_cpu_addr()), as a device whose "DMA" the CPU does (rxe):
 * 8-byte stores; flags 0.  ENODEV when dlb2 gives no address.  Unlike
 * DLB2_EDU_PIN_DMA, the holder does not check its own revoke count first:
 * dlb2's answer alone decides, as DLB2_EDU_PIN_MAP's does.
 */
#define DLB2_EDU_PIN_CPU_WRITE	_IOW(DLB2_EDU_MAGIC, 12, struct dlb2_edu_dma)

/*
 * The PCI core's AER recovery (pcie_do_recovery()), one step at a time, for
 * the driver bound to a PCI function (the DLB): the error state and the
 * callback that the core sets and calls, with the device lock held.  A
 * recovery that fails is FROZEN alone: the core of 6.1 and 6.12 calls no
 * driver again; NORMAL then stands in for what ends the frozen state
 * (e.g. a removal), so that the test can bind the driver again.
 */
#define DLB2_EDU_AER		_IOWR(DLB2_EDU_MAGIC, 13, struct dlb2_edu_aer)
/*
 * Write len bytes of data (0 to 64, a multiple of 16; 0: none) through the
 * attached dma-buf's kernel mapping (dma_buf_vmap(), then vunmap), as rxe
 * does; -ENODEV once told of a revocation (moves), without asking.
 */
#define DLB2_EDU_DMABUF_VMAP	_IOWR(DLB2_EDU_MAGIC, 14, struct dlb2_edu_dmabuf)
/*
 * One half of a system sleep (S3) of the function @a names, as the PCI
 * core takes it for a driver with dev_pm_ops, under the device lock.
 * SUSPEND: pm->suspend() (pci_pm_suspend()); when it returns 0, the config
 * space saved (pci_pm_suspend_noirq()) and the device's loss of power
 * stood in for by a function reset.  RESUME: the config space restored
 * (pci_pm_resume_noirq()), then pm->resume() (pci_pm_resume()).  Nothing
 * else of the system sleeps.
 */
#define DLB2_EDU_PM		_IOWR(DLB2_EDU_MAGIC, 15, struct dlb2_edu_aer)

#endif /* DLB2_EDU_H */

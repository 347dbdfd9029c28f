/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libdlb2_rdma: can an RDMA device's atomics share a word with the CPUs?
 *
 * A device that reports IBV_ATOMIC_GLOB says so itself.  A PCIe NIC that
 * reports IBV_ATOMIC_HCA (mlx5) is atomic with the CPUs only when it
 * executes a remote atomic as a PCIe AtomicOp that the root complex
 * completes: its function has AtomicOp Requester Enable set, every switch
 * port on the way up routes AtomicOps (and the upstream ports do not block
 * them on egress), and the root port completes 64-bit AtomicOps.  These
 * are the checks of Linux's pci_enable_atomic_ops_to_root(), read here
 * from the PCIe capability in sysfs config space (PCIe r6.0, 7.5.3:
 * Device Capabilities 2 and Device Control 2).
 *
 * No libibverbs here: the checks take a sysfs root prefix ("" for the real
 * one) so that the tests run against a stand-in tree.
 */
#ifndef DLB2_PCIE_ATOMICS_H
#define DLB2_PCIE_ATOMICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PCIe capability (ID 0x10): register offsets and bits used */
#define DLB2_PCI_CAP_ID_EXP		0x10
#define DLB2_PCI_EXP_FLAGS		0x02	/* bits 7:4 Device/Port Type */
#define DLB2_PCI_EXP_DEVCAP2		0x24
#define  DLB2_DEVCAP2_ATOMIC_ROUTE	0x0040	/* bit 6 */
#define  DLB2_DEVCAP2_ATOMIC_COMP32	0x0080	/* bit 7 */
#define  DLB2_DEVCAP2_ATOMIC_COMP64	0x0100	/* bit 8 */
#define  DLB2_DEVCAP2_ATOMIC_COMP128	0x0200	/* bit 9 */
#define DLB2_PCI_EXP_DEVCTL2		0x28
#define  DLB2_DEVCTL2_ATOMIC_REQ	0x0040	/* bit 6 */
#define  DLB2_DEVCTL2_ATOMIC_EGRESS_BLOCK 0x0080 /* bit 7 */

/* Device/Port Type */
enum {
	DLB2_PCIE_ENDPOINT = 0, DLB2_PCIE_LEG_END = 1, DLB2_PCIE_ROOT_PORT = 4,
	DLB2_PCIE_UPSTREAM = 5, DLB2_PCIE_DOWNSTREAM = 6,
	DLB2_PCIE_PCIE_PCI_BRIDGE = 7, DLB2_PCIE_PCI_PCIE_BRIDGE = 8,
	DLB2_PCIE_RC_END = 9, DLB2_PCIE_RC_EC = 10,
};

enum dlb2_atomics_verdict {
	DLB2_ATOMICS_PASS,	/* every check passed */
	DLB2_ATOMICS_FAIL,	/* a check failed: see check, detail, fix */
	DLB2_ATOMICS_UNKNOWN,	/* a check could not be made */
};

#define DLB2_PCIE_MAX_HOPS	16

/**
 * struct dlb2_pcie_hop - one function on the path, the NIC first
 * @bdf: domain:bus:device.function
 * @type: Device/Port Type, -1 when not read
 * @devcap2, @devctl2: the registers (valid when @read)
 * @read: the PCIe capability was read
 */
struct dlb2_pcie_hop {
	char bdf[32];
	int type;
	uint32_t devcap2;
	uint16_t devctl2;
	bool read;
};

/**
 * struct dlb2_pcie_atomics - the result of a check
 * @verdict: pass, fail or unknown
 * @check: the check that failed or could not be made (NULL on a pass):
 *	"pci-function"		no PCI function (software device: rxe, siw)
 *	"config-read"		config space not readable (not root)
 *	"pcie-capability"	a function on the path has no PCIe capability
 *	"device-type"		the RDMA function is not an endpoint
 *	"requester-enable"	AtomicOp Requester Enable off on the NIC
 *	"switch-routing"	a switch port (or bridge) does not route AtomicOps
 *	"egress-blocking"	AtomicOp Egress Blocking on a switch upstream port
 *	"root-completer"	the root port does not complete 64-bit AtomicOps
 *	"root-port"		no root port above the NIC (RCiEP, or the
 *				walk ended): the completer is unknown
 *	"atomic-cap"		the device reports no atomics (IBV_ATOMIC_NONE)
 * @detail: what was found, one sentence
 * @fix: what to do, one sentence
 * @bdf: the RDMA device's PCI function ("" when it has none)
 * @nhops, @hop: the path, the function first, the root port last
 */
struct dlb2_pcie_atomics {
	enum dlb2_atomics_verdict verdict;
	const char *check;
	char detail[256];
	char fix[512];
	char bdf[32];
	int nhops;
	struct dlb2_pcie_hop hop[DLB2_PCIE_MAX_HOPS];
};

/*
 * Check the path of PCI function @bdf, under @sysroot ("" or NULL: "/"),
 * reading <sysroot>/sys/bus/pci/devices/<bdf>/config and walking up the
 * directories of its realpath.  A virtual function's requester enable is
 * its physical function's (physfn).  Returns the verdict, also in @res.
 */
enum dlb2_atomics_verdict
dlb2_pcie_atomics_check(const char *sysroot, const char *bdf,
			struct dlb2_pcie_atomics *res);

/*
 * The same for RDMA device @ibdev (ibv_get_device_name()), found through
 * <sysroot>/sys/class/infiniband/<ibdev>/device.  A device without a PCI
 * function, or a software one (it has a "parent" attribute: rxe), is
 * DLB2_ATOMICS_UNKNOWN with check "pci-function".
 */
enum dlb2_atomics_verdict
dlb2_pcie_atomics_check_ibdev(const char *sysroot, const char *ibdev,
			      struct dlb2_pcie_atomics *res);

/* The device's atomic_cap, as enum ibv_atomic_cap */
enum { DLB2_ATOMIC_NONE = 0, DLB2_ATOMIC_HCA = 1, DLB2_ATOMIC_GLOB = 2 };

/*
 * Accept RDMA device @ibdev, which reports @atomic_cap, for a credit word
 * shared with the CPUs?  GLOB: yes.  HCA: if the PCIe path check passes,
 * or if @override names an administrator override (then a line on
 * stderr says so, every time, naming the device, the override and the
 * check that failed).  NONE: no, whatever @override.  Returns 0 or
 * -EOPNOTSUPP; @res says why (check "atomic-cap" for NONE).
 */
int dlb2_rdma_atomics_accept(const char *sysroot, const char *ibdev,
			     int atomic_cap, const char *override,
			     struct dlb2_pcie_atomics *res);

/* One line for a refusal: "<ibdev>: <check>: <detail>. Fix: <fix>". */
const char *dlb2_pcie_atomics_msg(const char *ibdev,
				  const struct dlb2_pcie_atomics *res,
				  char *buf, size_t len);

const char *dlb2_atomics_verdict_name(enum dlb2_atomics_verdict v);
const char *dlb2_pcie_type_name(int type);

#endif /* DLB2_PCIE_ATOMICS_H */

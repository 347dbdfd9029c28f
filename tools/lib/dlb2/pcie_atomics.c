// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libdlb2_rdma: the PCIe AtomicOp path of an RDMA device (pcie_atomics.h),
 * read from sysfs config space as Linux's pci_enable_atomic_ops_to_root()
 * reads it, and the acceptance of a device for a credit word shared with
 * the CPUs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcie_atomics.h"

#define CFG_SIZE	256	/* the standard capabilities live here */

/* The last component of @path (which has no trailing slash). */
static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static const char *root_of(const char *sysroot)
{
	return sysroot ? sysroot : "";
}

const char *dlb2_atomics_verdict_name(enum dlb2_atomics_verdict v)
{
	switch (v) {
	case DLB2_ATOMICS_PASS: return "pass";
	case DLB2_ATOMICS_FAIL: return "fail";
	default: return "unknown";
	}
}

const char *dlb2_pcie_type_name(int type)
{
	switch (type) {
	case DLB2_PCIE_ENDPOINT: return "endpoint";
	case DLB2_PCIE_LEG_END: return "legacy endpoint";
	case DLB2_PCIE_ROOT_PORT: return "root port";
	case DLB2_PCIE_UPSTREAM: return "switch upstream port";
	case DLB2_PCIE_DOWNSTREAM: return "switch downstream port";
	case DLB2_PCIE_PCIE_PCI_BRIDGE: return "PCIe-to-PCI bridge";
	case DLB2_PCIE_PCI_PCIE_BRIDGE: return "PCI-to-PCIe bridge";
	case DLB2_PCIE_RC_END: return "root-complex integrated endpoint";
	case DLB2_PCIE_RC_EC: return "root-complex event collector";
	case -1: return "not read";
	default: return "other";
	}
}

static enum dlb2_atomics_verdict
verdict(struct dlb2_pcie_atomics *res, enum dlb2_atomics_verdict v,
	const char *check)
{
	res->verdict = v;
	res->check = check;
	return v;
}

/* 0000:00:1c.0 */
static bool is_bdf(const char *s)
{
	unsigned int d, b, dev, fn;
	char end;

	return sscanf(s, "%x:%x:%x.%x%c", &d, &b, &dev, &fn, &end) == 4;
}

static uint16_t le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

/*
 * Read the PCIe capability of the function in directory @dir into @hop.
 * 0; -EACCES: the config space could not be read far enough (not root:
 * sysfs gives the first 64 bytes only); -ENODEV: no PCIe capability.
 */
static int read_hop(const char *dir, struct dlb2_pcie_hop *hop)
{
	char path[PATH_MAX + 16];
	uint8_t cfg[CFG_SIZE];
	unsigned int pos, n = 0, loops;
	ssize_t r;
	int fd;

	snprintf(hop->bdf, sizeof(hop->bdf), "%s", base(dir));
	hop->type = -1;
	hop->read = false;
	snprintf(path, sizeof(path), "%s/config", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -EACCES;
	while (n < sizeof(cfg)) {
		r = pread(fd, cfg + n, sizeof(cfg) - n, n);
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (n < 0x40)
		return -EACCES;
	if (!(le16(cfg + 0x06) & 0x10))		/* Status: Capabilities List */
		return -ENODEV;
	pos = cfg[0x34] & ~3u;
	for (loops = 0; pos >= 0x40 && loops < 48; loops++) {
		if (pos + 2 > n)
			return -EACCES;
		if (cfg[pos] == DLB2_PCI_CAP_ID_EXP)
			break;
		pos = cfg[pos + 1] & ~3u;
	}
	if (pos < 0x40 || loops == 48)
		return -ENODEV;
	if (pos + DLB2_PCI_EXP_DEVCTL2 + 2 > n)
		return -EACCES;
	hop->type = (le16(cfg + pos + DLB2_PCI_EXP_FLAGS) >> 4) & 0xf;
	hop->devcap2 = le32(cfg + pos + DLB2_PCI_EXP_DEVCAP2);
	hop->devctl2 = le16(cfg + pos + DLB2_PCI_EXP_DEVCTL2);
	hop->read = true;
	return 0;
}

static enum dlb2_atomics_verdict
hop_error(struct dlb2_pcie_atomics *res, const struct dlb2_pcie_hop *hop,
	  int err)
{
	if (err == -ENODEV) {
		snprintf(res->detail, sizeof(res->detail),
			 "%s has no PCIe capability: a conventional PCI function does not carry AtomicOps",
			 hop->bdf);
		snprintf(res->fix, sizeof(res->fix),
			 "put the NIC in a slot whose path to the root port is PCIe throughout");
		return verdict(res, DLB2_ATOMICS_FAIL, "pcie-capability");
	}
	snprintf(res->detail, sizeof(res->detail),
		 "the PCIe capability of %s cannot be read (sysfs gives the first 64 bytes of config space to non-root users only)",
		 hop->bdf);
	snprintf(res->fix, sizeof(res->fix),
		 "run as root (CAP_SYS_ADMIN), or check as root with `lspci -vvv` (DevCtl2 of %s: AtomicOpsCtl: ReqEn+; the root port's DevCap2: AtomicOpsCap: 64bit+) and set DLB2_RDMA_ATOMICS_OVERRIDE=1 once accdirect-qualify reports no lost updates",
		 res->bdf);
	return verdict(res, DLB2_ATOMICS_UNKNOWN, "config-read");
}

enum dlb2_atomics_verdict
dlb2_pcie_atomics_check(const char *sysroot, const char *bdf,
			struct dlb2_pcie_atomics *res)
{
	char link[PATH_MAX + 16], dev[PATH_MAX], up[PATH_MAX], pf[PATH_MAX];
	char top[PATH_MAX + 16];
	struct dlb2_pcie_hop *h, pfhop;
	size_t toplen;
	int err, i;

	memset(res, 0, sizeof(*res));
	snprintf(res->bdf, sizeof(res->bdf), "%s", bdf);
	snprintf(link, sizeof(link), "%s/sys/bus/pci/devices/%s",
		 root_of(sysroot), bdf);
	snprintf(top, sizeof(top), "%s/sys/devices", root_of(sysroot));
	if (!realpath(top, up))
		up[0] = '\0';
	snprintf(top, sizeof(top), "%s", up);
	toplen = strlen(top);
	if (!realpath(link, dev)) {
		snprintf(res->detail, sizeof(res->detail),
			 "no PCI function %s in sysfs", bdf);
		snprintf(res->fix, sizeof(res->fix),
			 "name an RDMA device that is a PCI function");
		return verdict(res, DLB2_ATOMICS_UNKNOWN, "pci-function");
	}

	/* The function, then every PCI function above it up to a root port. */
	snprintf(up, sizeof(up), "%s", dev);
	while (res->nhops < DLB2_PCIE_MAX_HOPS) {
		h = &res->hop[res->nhops];
		if (is_bdf(base(up))) {
			err = read_hop(up, h);
			res->nhops++;
			if (err)
				return hop_error(res, h, err);
			if (res->nhops > 1 && h->type == DLB2_PCIE_ROOT_PORT)
				break;
		}
		*strrchr(up, '/') = '\0';
		if (strlen(up) <= toplen || strncmp(up, top, toplen))
			break;
	}

	h = &res->hop[0];
	switch (h->type) {
	case DLB2_PCIE_ENDPOINT:
	case DLB2_PCIE_LEG_END:
	case DLB2_PCIE_RC_END:
		break;
	default:
		snprintf(res->detail, sizeof(res->detail),
			 "%s is a %s, not an endpoint", h->bdf,
			 dlb2_pcie_type_name(h->type));
		snprintf(res->fix, sizeof(res->fix),
			 "name the RDMA device of the NIC's endpoint function");
		return verdict(res, DLB2_ATOMICS_FAIL, "device-type");
	}

	/* The switch ports route, the root port completes. */
	for (i = 1; i < res->nhops; i++) {
		h = &res->hop[i];
		switch (h->type) {
		case DLB2_PCIE_UPSTREAM:
		case DLB2_PCIE_DOWNSTREAM:
			if (!(h->devcap2 & DLB2_DEVCAP2_ATOMIC_ROUTE)) {
				snprintf(res->detail, sizeof(res->detail),
					 "switch port %s (%s) does not route AtomicOps (Device Capabilities 2 = 0x%08x, AtomicOp Routing Supported clear)",
					 h->bdf, dlb2_pcie_type_name(h->type),
					 h->devcap2);
				snprintf(res->fix, sizeof(res->fix),
					 "move the NIC to a slot below switches that route AtomicOps, or directly below a root port that completes them");
				return verdict(res, DLB2_ATOMICS_FAIL,
					       "switch-routing");
			}
			if (h->type == DLB2_PCIE_UPSTREAM &&
			    (h->devctl2 & DLB2_DEVCTL2_ATOMIC_EGRESS_BLOCK)) {
				snprintf(res->detail, sizeof(res->detail),
					 "AtomicOp Egress Blocking is set on switch upstream port %s (Device Control 2 = 0x%04x)",
					 h->bdf, h->devctl2);
				snprintf(res->fix, sizeof(res->fix),
					 "clear it (as root: setpci -s %s CAP_EXP+0x28.w=0x0000:0x0080) or the platform firmware setting that sets it",
					 h->bdf);
				return verdict(res, DLB2_ATOMICS_FAIL,
					       "egress-blocking");
			}
			break;
		case DLB2_PCIE_PCIE_PCI_BRIDGE:
		case DLB2_PCIE_PCI_PCIE_BRIDGE:
			snprintf(res->detail, sizeof(res->detail),
				 "%s is a %s: AtomicOps do not cross it",
				 h->bdf, dlb2_pcie_type_name(h->type));
			snprintf(res->fix, sizeof(res->fix),
				 "put the NIC in a slot whose path to the root port is PCIe switches that route AtomicOps");
			return verdict(res, DLB2_ATOMICS_FAIL, "switch-routing");
		case DLB2_PCIE_ROOT_PORT:
			if (!(h->devcap2 & DLB2_DEVCAP2_ATOMIC_COMP64)) {
				snprintf(res->detail, sizeof(res->detail),
					 "the root port %s does not complete 64-bit AtomicOps (Device Capabilities 2 = 0x%08x): no global atomics on this platform",
					 h->bdf, h->devcap2);
				snprintf(res->fix, sizeof(res->fix),
					 "use a slot below a root port that completes 64-bit AtomicOps (lspci -vvv: DevCap2: AtomicOpsCap: 64bit+), or another platform");
				return verdict(res, DLB2_ATOMICS_FAIL,
					       "root-completer");
			}
			break;
		default:
			break;	/* as Linux: other functions are not checked */
		}
	}
	h = &res->hop[res->nhops - 1];
	if (res->nhops < 2 || h->type != DLB2_PCIE_ROOT_PORT) {
		snprintf(res->detail, sizeof(res->detail),
			 "no root port above %s (%s): whether the root complex completes AtomicOps cannot be read",
			 res->bdf, dlb2_pcie_type_name(res->hop[0].type));
		snprintf(res->fix, sizeof(res->fix),
			 "qualify the device with accdirect-qualify, then set DLB2_RDMA_ATOMICS_OVERRIDE=1");
		return verdict(res, DLB2_ATOMICS_UNKNOWN, "root-port");
	}

	/* A VF's AtomicOp Requester Enable is its PF's (PCIe r6.0, 9.3.5.10). */
	h = &res->hop[0];
	snprintf(link, sizeof(link), "%s/physfn", dev);
	if (realpath(link, pf)) {
		err = read_hop(pf, &pfhop);
		if (err)
			return hop_error(res, &pfhop, err);
		h = &pfhop;
	}
	if (!(h->devctl2 & DLB2_DEVCTL2_ATOMIC_REQ)) {
		snprintf(res->detail, sizeof(res->detail),
			 "AtomicOp Requester Enable is off on %s (Device Control 2 = 0x%04x): the NIC does not issue PCIe AtomicOps",
			 h->bdf, h->devctl2);
		snprintf(res->fix, sizeof(res->fix),
			 "enable PCIe atomics on the NIC: mlxconfig -d %s set PCI_ATOMIC_MODE=4 (`mlxconfig -d %s query PCI_ATOMIC_MODE` shows the modes of its firmware: see NVIDIA's mlxconfig documentation), reset the NIC (mlxfwreset or a cold reboot) and reload mlx5_core, which sets the bit when the path allows it",
			 h->bdf, h->bdf);
		return verdict(res, DLB2_ATOMICS_FAIL, "requester-enable");
	}
	snprintf(res->detail, sizeof(res->detail),
		 "%s requests AtomicOps and %d function(s) above it route or complete them",
		 res->bdf, res->nhops - 1);
	return verdict(res, DLB2_ATOMICS_PASS, NULL);
}

enum dlb2_atomics_verdict
dlb2_pcie_atomics_check_ibdev(const char *sysroot, const char *ibdev,
			      struct dlb2_pcie_atomics *res)
{
	char path[PATH_MAX], dev[PATH_MAX];
	struct stat st;

	memset(res, 0, sizeof(*res));
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/parent",
		 root_of(sysroot), ibdev);
	if (!stat(path, &st)) {
		snprintf(res->detail, sizeof(res->detail),
			 "%s is a software RDMA device on a network interface: its atomics are the kernel's, not a PCIe function's",
			 ibdev);
		snprintf(res->fix, sizeof(res->fix),
			 "use a kernel whose rdma_rxe atomics are global (patch 3 of patches/linux: the device then reports IBV_ATOMIC_GLOB)");
		return verdict(res, DLB2_ATOMICS_UNKNOWN, "pci-function");
	}
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/device",
		 root_of(sysroot), ibdev);
	if (!realpath(path, dev) || !is_bdf(base(dev))) {
		snprintf(res->detail, sizeof(res->detail),
			 "%s has no PCI function", ibdev);
		snprintf(res->fix, sizeof(res->fix),
			 "use a PCIe RDMA device, or one that reports IBV_ATOMIC_GLOB");
		return verdict(res, DLB2_ATOMICS_UNKNOWN, "pci-function");
	}
	return dlb2_pcie_atomics_check(sysroot, base(dev), res);
}

int dlb2_rdma_atomics_accept(const char *sysroot, const char *ibdev,
			     int atomic_cap, const char *override,
			     struct dlb2_pcie_atomics *res)
{
	char msg[1024];

	if (atomic_cap == DLB2_ATOMIC_GLOB) {
		memset(res, 0, sizeof(*res));
		snprintf(res->detail, sizeof(res->detail),
			 "%s reports IBV_ATOMIC_GLOB", ibdev);
		verdict(res, DLB2_ATOMICS_PASS, NULL);
		return 0;
	}
	if (atomic_cap != DLB2_ATOMIC_HCA) {
		memset(res, 0, sizeof(*res));
		snprintf(res->detail, sizeof(res->detail),
			 "%s reports no remote atomics (IBV_ATOMIC_NONE)", ibdev);
		snprintf(res->fix, sizeof(res->fix),
			 "use a device with 8-byte remote atomics (mlx5: firmware with atomic support; `ibv_devinfo -v` shows atomic_cap)");
		verdict(res, DLB2_ATOMICS_FAIL, "atomic-cap");
		return -EOPNOTSUPP;
	}
	if (dlb2_pcie_atomics_check_ibdev(sysroot, ibdev, res) ==
	    DLB2_ATOMICS_PASS)
		return 0;
	if (!override)
		return -EOPNOTSUPP;
	fprintf(stderr, "libdlb2_rdma: %s: administrator override (%s): accepting IBV_ATOMIC_HCA atomics whose global atomicity is not verified (%s); credits shared with the CPUs are lost unless the atomics are global: accdirect-qualify must pass on this host\n",
		ibdev, override, dlb2_pcie_atomics_msg(ibdev, res, msg, sizeof(msg)));
	return 0;
}

const char *dlb2_pcie_atomics_msg(const char *ibdev,
				  const struct dlb2_pcie_atomics *res,
				  char *buf, size_t len)
{
	if (!res->check)
		snprintf(buf, len, "%s: %s: %s", ibdev,
			 dlb2_atomics_verdict_name(res->verdict), res->detail);
	else
		snprintf(buf, len, "%s: %s check %s: %s. Fix: %s", ibdev,
			 res->check, res->verdict == DLB2_ATOMICS_FAIL ?
			 "failed" : "not possible", res->detail, res->fix);
	return buf;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The PCIe AtomicOp path check (pcie_atomics.c) against stand-in sysfs
 * trees: a temporary directory with sys/devices/pci0000:00/... holding
 * config files of 256 bytes (64 for "not root"), sys/bus/pci/devices links
 * and sys/class/infiniband devices.  Exact verdicts and named checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../pcie_atomics.h"
#include "tap.h"

/* @s starts with the string literal @prefix */
#define STARTS(s, prefix) (!strncmp((s), prefix, strlen(prefix)))

#define RP	"0000:00:01.0"
#define USP	"0000:01:00.0"
#define DSP	"0000:02:00.0"
#define EP	"0000:03:00.0"
#define EPD	"0000:01:00.0"		/* an endpoint directly below RP */
#define VF	"0000:01:00.2"

static char root[PATH_MAX];

static void sh(const char *fmt, const char *arg)
{
	char cmd[PATH_MAX * 2];

	snprintf(cmd, sizeof(cmd), fmt, arg);
	if (system(cmd))
		diag("failed: %s", cmd);
}

static void fresh(void)
{
	if (root[0])
		sh("rm -rf '%s'", root);
	snprintf(root, sizeof(root), "/tmp/test-pcie-atomics.XXXXXX");
	if (!mkdtemp(root))
		abort();
	sh("cd '%s' && mkdir -p sys/devices/pci0000:00 sys/bus/pci/devices "
	   "sys/class/infiniband", root);
}

/*
 * A function at <root>/sys/devices/pci0000:00/<rel>: Device/Port Type
 * @type, Device Capabilities 2 @cap2, Device Control 2 @ctl2; a power
 * management capability first, so that the list is walked.  @size: bytes
 * of config space readable (64: as sysfs gives them to non-root users).
 * @pcie: with a PCIe capability.
 */
static void func_ex(const char *rel, int type, uint32_t cap2, uint16_t ctl2,
		    size_t size, bool pcie)
{
	char dir[PATH_MAX * 2], path[PATH_MAX * 3], link[PATH_MAX * 2];
	uint8_t cfg[256] = { 0 };
	const char *bdf = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	int fd;

	snprintf(dir, sizeof(dir), "%s/sys/devices/pci0000:00/%s", root, rel);
	if (mkdir(dir, 0755))
		diag("mkdir %s: %s", dir, strerror(errno));
	cfg[0x06] = 0x10;			/* capabilities list */
	cfg[0x34] = 0x40;
	cfg[0x40] = 0x01;			/* PM */
	cfg[0x41] = pcie ? 0x60 : 0x00;
	if (pcie) {
		cfg[0x60] = 0x10;		/* PCIe */
		cfg[0x62] = 0x02 | type << 4;
		memcpy(cfg + 0x60 + 0x24, &cap2, 4);	/* little-endian host */
		memcpy(cfg + 0x60 + 0x28, &ctl2, 2);
	}
	snprintf(path, sizeof(path), "%s/config", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, cfg, size) != (ssize_t)size)
		diag("writing %s", path);
	close(fd);
	snprintf(link, sizeof(link), "%s/sys/bus/pci/devices/%s", root, bdf);
	if (symlink(dir, link))
		diag("symlink %s: %s", link, strerror(errno));
}

static void func(const char *rel, int type, uint32_t cap2, uint16_t ctl2)
{
	func_ex(rel, type, cap2, ctl2, 256, true);
}

/* RDMA device @name on function @bdf (NULL: none); @parent: rxe's attribute */
static void ibdev(const char *name, const char *bdf, bool parent)
{
	char dir[PATH_MAX * 2], path[PATH_MAX * 3], target[PATH_MAX * 2];

	snprintf(dir, sizeof(dir), "%s/sys/class/infiniband/%s", root, name);
	mkdir(dir, 0755);
	if (bdf) {
		snprintf(target, sizeof(target), "%s/sys/bus/pci/devices/%s",
			 root, bdf);
		snprintf(path, sizeof(path), "%s/device", dir);
		if (symlink(target, path))
			diag("symlink %s", path);
	}
	if (parent) {
		snprintf(path, sizeof(path), "%s/parent", dir);
		close(open(path, O_WRONLY | O_CREAT, 0644));
	}
}

#define COMP	(DLB2_DEVCAP2_ATOMIC_COMP32 | DLB2_DEVCAP2_ATOMIC_COMP64 | \
		 DLB2_DEVCAP2_ATOMIC_COMP128)
#define ROUTE	DLB2_DEVCAP2_ATOMIC_ROUTE
#define REQ	DLB2_DEVCTL2_ATOMIC_REQ
#define EGRESS	DLB2_DEVCTL2_ATOMIC_EGRESS_BLOCK

static void direct(uint32_t rpcap, uint16_t epctl)
{
	fresh();
	func(RP, DLB2_PCIE_ROOT_PORT, rpcap, 0);
	func(RP "/" EPD, DLB2_PCIE_ENDPOINT, COMP, epctl);
}

static void below_switch(uint32_t uspcap, uint16_t uspctl, uint32_t dspcap)
{
	fresh();
	func(RP, DLB2_PCIE_ROOT_PORT, COMP, 0);
	func(RP "/" USP, DLB2_PCIE_UPSTREAM, uspcap, uspctl);
	func(RP "/" USP "/" DSP, DLB2_PCIE_DOWNSTREAM, dspcap, 0);
	func(RP "/" USP "/" DSP "/" EP, DLB2_PCIE_ENDPOINT, 0, REQ);
}

static struct dlb2_pcie_atomics res;

static void endpoint_below_completing_root_port_passes(void)
{
	direct(DLB2_DEVCAP2_ATOMIC_COMP64, REQ);
	CHECK_EQ(dlb2_pcie_atomics_check(root, EPD, &res), DLB2_ATOMICS_PASS);
	CHECK(res.check == NULL);
	CHECK_EQ(res.nhops, 2);
	CHECK_STR(res.hop[0].bdf, EPD);
	CHECK_EQ(res.hop[0].type, DLB2_PCIE_ENDPOINT);
	CHECK_EQ(res.hop[0].devctl2, REQ);
	CHECK_STR(res.hop[1].bdf, RP);
	CHECK_EQ(res.hop[1].type, DLB2_PCIE_ROOT_PORT);
	CHECK_EQ(res.hop[1].devcap2, DLB2_DEVCAP2_ATOMIC_COMP64);
	/* the same through the RDMA device */
	ibdev("mlx5_0", EPD, false);
	CHECK_EQ(dlb2_pcie_atomics_check_ibdev(root, "mlx5_0", &res),
		 DLB2_ATOMICS_PASS);
	CHECK_STR(res.bdf, EPD);
}

static void requester_disabled_fails_naming_mlxconfig(void)
{
	char msg[1024];

	direct(COMP, 0);
	ibdev("mlx5_0", EPD, false);
	CHECK_EQ(dlb2_pcie_atomics_check_ibdev(root, "mlx5_0", &res),
		 DLB2_ATOMICS_FAIL);
	CHECK_STR(res.check, "requester-enable");
	CHECK(strstr(res.fix, "mlxconfig -d " EPD " set PCI_ATOMIC_MODE"));
	dlb2_pcie_atomics_msg("mlx5_0", &res, msg, sizeof(msg));
	CHECK(STARTS(msg, "mlx5_0: requester-enable check failed: AtomicOp Requester Enable is off on " EPD " (Device Control 2 = 0x0000): the NIC does not issue PCIe AtomicOps. Fix: enable PCIe atomics on the NIC: mlxconfig -d " EPD " set PCI_ATOMIC_MODE=4"));
	diag("%s", msg);
}

static void root_port_without_64bit_completer_fails(void)
{
	direct(DLB2_DEVCAP2_ATOMIC_COMP32, REQ);
	CHECK_EQ(dlb2_pcie_atomics_check(root, EPD, &res), DLB2_ATOMICS_FAIL);
	CHECK_STR(res.check, "root-completer");
	CHECK(strstr(res.detail, "the root port " RP " does not complete 64-bit AtomicOps"));
	/* checked before the requester: the path is why the driver left it off */
	direct(0, 0);
	CHECK_EQ(dlb2_pcie_atomics_check(root, EPD, &res), DLB2_ATOMICS_FAIL);
	CHECK_STR(res.check, "root-completer");
}

static void switch_that_routes_passes(void)
{
	below_switch(ROUTE, 0, ROUTE);
	CHECK_EQ(dlb2_pcie_atomics_check(root, EP, &res), DLB2_ATOMICS_PASS);
	CHECK(res.check == NULL);
	CHECK_EQ(res.nhops, 4);
	CHECK_STR(res.hop[1].bdf, DSP);
	CHECK_EQ(res.hop[1].type, DLB2_PCIE_DOWNSTREAM);
	CHECK_STR(res.hop[2].bdf, USP);
	CHECK_EQ(res.hop[2].type, DLB2_PCIE_UPSTREAM);
	CHECK_STR(res.hop[3].bdf, RP);
}

static void switch_without_routing_fails(void)
{
	below_switch(ROUTE, 0, 0);
	CHECK_EQ(dlb2_pcie_atomics_check(root, EP, &res), DLB2_ATOMICS_FAIL);
	CHECK_STR(res.check, "switch-routing");
	CHECK(strstr(res.detail, "switch port " DSP " (switch downstream port) does not route AtomicOps"));
	below_switch(0, 0, ROUTE);
	CHECK_EQ(dlb2_pcie_atomics_check(root, EP, &res), DLB2_ATOMICS_FAIL);
	CHECK_STR(res.check, "switch-routing");
	CHECK(strstr(res.detail, "switch port " USP " "));
}

static void egress_blocking_fails(void)
{
	below_switch(ROUTE, EGRESS, ROUTE);
	CHECK_EQ(dlb2_pcie_atomics_check(root, EP, &res), DLB2_ATOMICS_FAIL);
	CHECK_STR(res.check, "egress-blocking");
	CHECK(strstr(res.detail, "Egress Blocking is set on switch upstream port " USP));
}

static void conventional_pci_bridge_fails(void)
{
	fresh();
	func(RP, DLB2_PCIE_ROOT_PORT, COMP, 0);
	func(RP "/" USP, DLB2_PCIE_PCIE_PCI_BRIDGE, 0, 0);
	func_ex(RP "/" USP "/" EP, 0, 0, 0, 256, false);
	CHECK_EQ(dlb2_pcie_atomics_check(root, EP, &res), DLB2_ATOMICS_FAIL);
	CHECK_STR(res.check, "pcie-capability");
	fresh();
	func(RP, DLB2_PCIE_ROOT_PORT, COMP, 0);
	func(RP "/" USP, DLB2_PCIE_PCIE_PCI_BRIDGE, ROUTE, 0);
	func(RP "/" USP "/" EP, DLB2_PCIE_LEG_END, 0, REQ);
	CHECK_EQ(dlb2_pcie_atomics_check(root, EP, &res), DLB2_ATOMICS_FAIL);
	CHECK_STR(res.check, "switch-routing");
}

static void config_unreadable_is_unknown(void)
{
	fresh();
	func(RP, DLB2_PCIE_ROOT_PORT, COMP, 0);
	func_ex(RP "/" EPD, DLB2_PCIE_ENDPOINT, 0, REQ, 64, true);
	CHECK_EQ(dlb2_pcie_atomics_check(root, EPD, &res), DLB2_ATOMICS_UNKNOWN);
	CHECK_STR(res.check, "config-read");
	CHECK(strstr(res.detail, "the PCIe capability of " EPD " cannot be read"));
	CHECK(strstr(res.fix, "run as root"));
	/* the root port's alone */
	fresh();
	func_ex(RP, DLB2_PCIE_ROOT_PORT, COMP, 0, 64, true);
	func(RP "/" EPD, DLB2_PCIE_ENDPOINT, 0, REQ);
	CHECK_EQ(dlb2_pcie_atomics_check(root, EPD, &res), DLB2_ATOMICS_UNKNOWN);
	CHECK_STR(res.check, "config-read");
	CHECK(strstr(res.detail, RP));
}

static void software_device_has_no_pci_function(void)
{
	fresh();
	ibdev("rxe0", NULL, true);		/* rxe: "parent", no device */
	CHECK_EQ(dlb2_pcie_atomics_check_ibdev(root, "rxe0", &res),
		 DLB2_ATOMICS_UNKNOWN);
	CHECK_STR(res.check, "pci-function");
	CHECK(strstr(res.fix, "patch 3 of patches/linux"));
	/* rxe on a PCIe NIC's netdev: still the kernel's atomics */
	direct(COMP, REQ);
	ibdev("rxe1", EPD, true);
	CHECK_EQ(dlb2_pcie_atomics_check_ibdev(root, "rxe1", &res),
		 DLB2_ATOMICS_UNKNOWN);
	CHECK_STR(res.check, "pci-function");
	ibdev("siw0", NULL, false);
	CHECK_EQ(dlb2_pcie_atomics_check_ibdev(root, "siw0", &res),
		 DLB2_ATOMICS_UNKNOWN);
	CHECK_STR(res.check, "pci-function");
	CHECK_EQ(dlb2_pcie_atomics_check(root, "0000:09:00.0", &res),
		 DLB2_ATOMICS_UNKNOWN);
	CHECK_STR(res.check, "pci-function");
}

static void virtual_function_uses_physfn_requester(void)
{
	char path[PATH_MAX * 2], target[PATH_MAX * 2];

	direct(COMP, REQ);
	func(RP "/" VF, DLB2_PCIE_ENDPOINT, 0, 0);	/* reserved in a VF */
	snprintf(path, sizeof(path), "%s/sys/devices/pci0000:00/" RP "/" VF "/physfn", root);
	snprintf(target, sizeof(target), "%s/sys/devices/pci0000:00/" RP "/" EPD, root);
	CHECK_EQ(symlink(target, path), 0);
	CHECK_EQ(dlb2_pcie_atomics_check(root, VF, &res), DLB2_ATOMICS_PASS);
	direct(COMP, 0);
	func(RP "/" VF, DLB2_PCIE_ENDPOINT, 0, REQ);
	snprintf(path, sizeof(path), "%s/sys/devices/pci0000:00/" RP "/" VF "/physfn", root);
	snprintf(target, sizeof(target), "%s/sys/devices/pci0000:00/" RP "/" EPD, root);
	CHECK_EQ(symlink(target, path), 0);
	CHECK_EQ(dlb2_pcie_atomics_check(root, VF, &res), DLB2_ATOMICS_FAIL);
	CHECK_STR(res.check, "requester-enable");
	CHECK(strstr(res.detail, "off on " EPD));
}

static void no_root_port_is_unknown(void)
{
	fresh();
	func(EPD, DLB2_PCIE_RC_END, 0, REQ);		/* an RCiEP */
	CHECK_EQ(dlb2_pcie_atomics_check(root, EPD, &res), DLB2_ATOMICS_UNKNOWN);
	CHECK_STR(res.check, "root-port");
	fresh();
	func(RP, DLB2_PCIE_ROOT_PORT, COMP, 0);		/* not an endpoint */
	CHECK_EQ(dlb2_pcie_atomics_check(root, RP, &res), DLB2_ATOMICS_FAIL);
	CHECK_STR(res.check, "device-type");
}

/* Run accept with stderr in a file; its text in @err. */
static int accept_logged(const char *dev, int cap, const char *override,
			 char *err, size_t len)
{
	char path[PATH_MAX + 16];
	int fd, saved, ret;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/stderr", root);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	ret = dlb2_rdma_atomics_accept(root, dev, cap, override, &res);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, err, len - 1, 0);
	err[n > 0 ? n : 0] = '\0';
	close(fd);
	return ret;
}

static void acceptance(void)
{
	char err[2048];

	direct(DLB2_DEVCAP2_ATOMIC_COMP32, REQ);	/* no 64-bit completer */
	ibdev("mlx5_0", EPD, false);
	ibdev("rxe0", NULL, true);
	/* GLOB: as before, whatever the path */
	CHECK_EQ(accept_logged("rxe0", DLB2_ATOMIC_GLOB, NULL, err, sizeof(err)), 0);
	CHECK_EQ(res.verdict, DLB2_ATOMICS_PASS);
	CHECK_STR(err, "");
	/* HCA, path failing: refused, then the override, logged */
	CHECK_EQ(accept_logged("mlx5_0", DLB2_ATOMIC_HCA, NULL, err, sizeof(err)),
		 -EOPNOTSUPP);
	CHECK_STR(res.check, "root-completer");
	CHECK_STR(err, "");
	CHECK_EQ(accept_logged("mlx5_0", DLB2_ATOMIC_HCA,
			       "DLB2_RDMA_ATOMICS_OVERRIDE=1", err, sizeof(err)), 0);
	CHECK(STARTS(err, "libdlb2_rdma: mlx5_0: administrator override (DLB2_RDMA_ATOMICS_OVERRIDE=1): accepting IBV_ATOMIC_HCA atomics whose global atomicity is not verified (mlx5_0: root-completer check failed: "));
	diag("stderr: %.*s", (int)strcspn(err, "\n"), err);
	/* every time */
	CHECK_EQ(accept_logged("mlx5_0", DLB2_ATOMIC_HCA, "DLB2_RC_ATOMICS_OVERRIDE",
			       err, sizeof(err)), 0);
	CHECK(strstr(err, "administrator override (DLB2_RC_ATOMICS_OVERRIDE)"));
	/* rxe without global atomics: refused, as before */
	CHECK_EQ(accept_logged("rxe0", DLB2_ATOMIC_HCA, NULL, err, sizeof(err)),
		 -EOPNOTSUPP);
	CHECK_STR(res.check, "pci-function");
	/* NONE: refused, even overridden */
	CHECK_EQ(accept_logged("mlx5_0", DLB2_ATOMIC_NONE,
			       "DLB2_RDMA_ATOMICS_OVERRIDE=1", err, sizeof(err)),
		 -EOPNOTSUPP);
	CHECK_STR(res.check, "atomic-cap");
	CHECK_STR(err, "");
	/* HCA, path verified: accepted, nothing logged */
	direct(COMP, REQ);
	ibdev("mlx5_0", EPD, false);
	CHECK_EQ(accept_logged("mlx5_0", DLB2_ATOMIC_HCA, NULL, err, sizeof(err)), 0);
	CHECK_EQ(res.verdict, DLB2_ATOMICS_PASS);
	CHECK_STR(err, "");
}

int main(void)
{
	RUN(endpoint_below_completing_root_port_passes);
	RUN(requester_disabled_fails_naming_mlxconfig);
	RUN(root_port_without_64bit_completer_fails);
	RUN(switch_that_routes_passes);
	RUN(switch_without_routing_fails);
	RUN(egress_blocking_fails);
	RUN(conventional_pci_bridge_fails);
	RUN(config_unreadable_is_unknown);
	RUN(software_device_has_no_pci_function);
	RUN(virtual_function_uses_physfn_requester);
	RUN(no_root_port_is_unknown);
	RUN(acceptance);
	sh("rm -rf '%s'", root);
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2ctl doctor: will an RDMA NIC (or another PCI peer) enqueue into a
 * DLB's producer ports peer-to-peer on this host, and will its remote
 * credits work (RDMA atomics on a credit word that the CPUs share)?  The
 * checks of the host's set-up before them are doctor-host.c's.
 *
 * Everything is read from sysfs (under --sysfs), /proc (--proc),
 * /lib/modules (--modules) and the root (--root: /etc, /dev, ...), so that
 * the tests run on stand-in trees; the RDMA device's atomic_cap comes from
 * libibverbs through dlopen(), when it is installed (DLB2CTL_LIBIBVERBS
 * names another library), or from --atomic-cap.  The PCIe AtomicOp path
 * is libdlb2_rdma's check (pcie_atomics.c); the P2P path is judged as
 * Linux's pci_p2pdma_distance() judges it, which dlb2 asks before it maps
 * a producer port for a peer.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor.h"
#include "doctor-int.h"
#include "libdlb2.h"
#include "pcie_atomics.h"
#include "tree.h"

/* every check, in the order added: the host's first (doctor-host.c) */
static struct check **checks;
static int nchecks;

static const char *sysfs, *procfs = "/proc", *moddir = "/lib/modules";
static const char *root = "/";
static char sysroot[PATH_MAX];		/* sysfs without its /sys */
static char dlb[64], dlbdir[PATH_MAX];	/* the DLB, its sysfs directory */
static char peer[64], peerdir[PATH_MAX]; /* the peer's PCI function */
static char ibdev[64];			/* the RDMA device */
static bool has_peer, software;
static int atomic_cap = -1;		/* DLB2_ATOMIC_*, -1 unknown */

struct check *add(const char *name, unsigned int affects, int result,
		  const char *fmt, ...)
{
	struct check **more = realloc(checks, (nchecks + 1) * sizeof(*checks));
	struct check *c = calloc(1, sizeof(*c));
	va_list ap;

	if (!more || !c) {
		fputs("dlb2ctl: doctor: out of memory\n", stderr);
		exit(DOCTOR_USAGE);
	}
	checks = more;
	checks[nchecks++] = c;
	c->name = name;
	c->affects = affects;
	c->result = result;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
	c->fix[0] = '\0';
	return c;
}

void fix(struct check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->fix, sizeof(c->fix), fmt, ap);
	va_end(ap);
}

const char *P(const char *fmt, ...)
{
	static char buf[4][PATH_MAX * 2];
	static unsigned int i;
	va_list ap;

	i = (i + 1) % 4;
	va_start(ap, fmt);
	vsnprintf(buf[i], sizeof(buf[i]), fmt, ap);
	va_end(ap);
	return buf[i];
}

int rd(char *buf, size_t len, const char *path)
{
	int ret = dlb2_read_attr(path, buf, len);

	buf[ret ? 0 : strcspn(buf, "\n")] = '\0';
	return ret;
}

/* The last component of what @path resolves to ("": nothing). */
static const char *target(char *buf, size_t len, const char *path)
{
	char real[PATH_MAX];

	buf[0] = '\0';
	if (realpath(path, real))
		snprintf(buf, len, "%s", strrchr(real, '/') + 1);
	return buf;
}

static bool is_bdf(const char *s)
{
	unsigned int d, b, dev, fn;
	char end;

	return sscanf(s, "%x:%x:%x.%x%c", &d, &b, &dev, &fn, &end) == 4;
}

/* The sysfs directory of PCI function @bdf into @dir; false: none. */
static bool pci_dir(const char *bdf, char *dir)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", sysfs, bdf);
	return is_bdf(bdf) && realpath(path, dir);
}

static bool is_dlb(const char *bdf)
{
	char v[16], d[16];

	rd(v, sizeof(v), P("%s/bus/pci/devices/%s/vendor", sysfs, bdf));
	rd(d, sizeof(d), P("%s/bus/pci/devices/%s/device", sysfs, bdf));
	return !strcmp(v, "0x8086") && (!strcmp(d, "0x2710") || !strcmp(d, "0x2714"));
}

/* -d N (@num >= 0), or the first DLB bound to dlb2, or the first DLB. */
static void find_dlb(int num)
{
	const char *dirs[] = { "bus/pci/drivers/dlb2", "bus/pci/devices" };
	char path[PATH_MAX], id[16];
	struct dirent **ents;
	unsigned int k;
	int i, n;

	for (k = num >= 0; k < 2 && !dlb[0]; k++) {
		snprintf(path, sizeof(path), "%s/%s", sysfs, dirs[k]);
		n = scandir(path, &ents, NULL, alphasort);
		for (i = 0; i < n; i++) {
			if (!dlb[0] && is_bdf(ents[i]->d_name) &&
			    is_dlb(ents[i]->d_name) &&
			    (num < 0 || (!rd(id, sizeof(id), P("%s/%s/dev_id", path,
					     ents[i]->d_name)) && atoi(id) == num)))
				snprintf(dlb, sizeof(dlb), "%.63s", ents[i]->d_name);
			free(ents[i]);
		}
		if (n >= 0)
			free(ents);
	}
}

static int check_driver(int num)
{
	char drv[64], state[32], ver[16], id[16], v[16], d[16];
	struct check *c;

	if (!dlb[0]) {
		if (num >= 0)
			c = add("driver", ENQ | CRED, FAIL, "no DLB has dev_id %d (dlb2_%d)", num, num);
		else
			c = add("driver", ENQ | CRED, FAIL, "no DLB (PCI 8086:2710 or 8086:2714) in %s/bus/pci/devices", sysfs);
		fix(c, "enable the DLB in the BIOS (Intel DLB, under the uncore or accelerator settings) and load dlb2; lspci -d 8086:2714 and -d 8086:2710 list the DLBs");
		return FAIL;
	}
	if (!pci_dir(dlb, dlbdir)) {
		c = add("driver", ENQ | CRED, FAIL, "no PCI function %s", dlb);
		fix(c, "name a DLB (lspci -d 8086:2714; -d 8086:2710)");
		return FAIL;
	}
	if (!is_dlb(dlb)) {
		rd(v, sizeof(v), P("%s/vendor", dlbdir));
		rd(d, sizeof(d), P("%s/device", dlbdir));
		c = add("driver", ENQ | CRED, FAIL, "%s is %s:%s, not a DLB 2.0 or 2.5 physical function", dlb, v + 2, d + 2);
		dlbdir[0] = '\0';	/* no path to check */
		fix(c, "name a DLB (lspci -d 8086:2714; -d 8086:2710)");
		return FAIL;
	}
	target(drv, sizeof(drv), P("%s/driver", dlbdir));
	if (!drv[0] || strcmp(drv, "dlb2")) {
		c = add("driver", ENQ | CRED, FAIL, "%s is bound to %s", dlb, drv[0] ? drv : "no driver");
		if (drv[0])
			fix(c, "give it to dlb2: echo %s > /sys/bus/pci/devices/%s/driver/unbind; echo dlb2 > /sys/bus/pci/devices/%s/driver_override; echo %s > /sys/bus/pci/drivers_probe",
			    dlb, dlb, dlb, dlb);
		else
			fix(c, "modprobe dlb2 (or insmod dlb2.ko), then echo %s > /sys/bus/pci/drivers_probe; dmesg tells why a probe failed", dlb);
		return FAIL;
	}
	if (!rd(state, sizeof(state), P("%s/state", dlbdir)) && strcmp(state, "ready")) {
		c = add("driver", ENQ | CRED, FAIL, "%s is bound to dlb2 but its state is %s", dlb, state);
		fix(c, "resetting: wait for the reset to end; failed: unbind the device and bind it again (dmesg tells what failed)");
		return FAIL;
	}
	if (rd(ver, sizeof(ver), P("%s/hw_version", dlbdir)))
		strcpy(ver, "?");
	if (rd(id, sizeof(id), P("%s/dev_id", dlbdir)))
		strcpy(id, "?");
	add("driver", ENQ | CRED, PASS, "%s is bound to dlb2 (DLB %s, dlb2_%s)", dlb, ver, id);
	return PASS;
}

/* "group N (type)" of the function in @dir, into @buf; @type its type */
static const char *group(const char *dir, char *buf, size_t len, char *type)
{
	char g[32];

	type[0] = '\0';
	if (!target(g, sizeof(g), P("%s/iommu_group", dir))[0]) {
		snprintf(buf, len, "no IOMMU group");
		return buf;
	}
	rd(type, 32, P("%s/kernel/iommu_groups/%s/type", sysfs, g));
	snprintf(buf, len, "IOMMU group %s (%s)", g, type[0] ? type : "type unknown");
	return buf;
}

static void check_iommu(void)
{
	char mode[32], dg[64], pg[64], dtype[32], ptype[32];
	struct check *c;

	group(dlbdir, dg, sizeof(dg), dtype);
	if (rd(mode, sizeof(mode), P("%s/iommu_mode", dlbdir))) {
		c = add("iommu", ENQ, UNKNOWN, "%s has no iommu_mode attribute (%s)", dlb, dg);
		fix(c, "bind the DLB to AccDirect's dlb2 (the driver check)");
		return;
	}
	if (!strcmp(mode, "unmanaged")) {
		c = add("iommu", ENQ, FAIL, "the DLB's iommu_mode is unmanaged: another owner (VFIO) holds its IOMMU domain (%s)", dg);
		fix(c, "give the DLB back to dlb2 (unbind it from vfio-pci)");
		return;
	}
	if (!has_peer || software) {
		add("iommu", ENQ, PASS, "DLB iommu_mode %s, %s%s%s", mode, dg,
		    software ? "; " : "", software ? "the peer is a software RDMA device: the CPU writes, no IOMMU mapping" : "");
		return;
	}
	group(peerdir, pg, sizeof(pg), ptype);
	if (!strcmp(ptype, "unmanaged") || !strcmp(ptype, "blocked")) {
		c = add("iommu", ENQ, FAIL, "DLB iommu_mode %s, %s; the peer %s is in %s: the kernel cannot map the producer port for it",
			mode, dg, peer, pg);
		fix(c, "bind %s to its kernel driver, not vfio-pci", peer);
		return;
	}
	add("iommu", ENQ, PASS, "DLB iommu_mode %s, %s; peer %s: %s%s", mode, dg, peer, pg,
	    !strcmp(dg, pg) && strcmp(dg, "no IOMMU group") ? ", the same group" : "");
}

static void check_numa(void)
{
	char dn[16], pn[16];
	struct check *c;

	if (software) {
		add("numa", ADVICE, PASS, "%s is a software RDMA device: no NUMA node of its own", ibdev);
		return;
	}
	if (rd(dn, sizeof(dn), P("%s/numa_node", dlbdir)) || rd(pn, sizeof(pn), P("%s/numa_node", peerdir))) {
		c = add("numa", ADVICE, UNKNOWN, "no numa_node attribute for %s", dn[0] ? peer : dlb);
		fix(c, "compare the NUMA nodes by hand: lspci -vv shows them");
		return;
	}
	if (!strcmp(dn, pn)) {
		add("numa", ADVICE, PASS, "the DLB and %s are on NUMA node %s%s", peer, dn,
		    strcmp(dn, "-1") ? "" : " (no locality reported: one node)");
		return;
	}
	if (!strcmp(dn, "-1") || !strcmp(pn, "-1")) {
		c = add("numa", ADVICE, UNKNOWN, "the DLB is on NUMA node %s, %s on node %s", dn, peer, pn);
		fix(c, "check that both are on the same socket (lspci -vv, the board's manual)");
		return;
	}
	c = add("numa", ADVICE, FAIL, "the DLB is on NUMA node %s, %s on node %s: the writes cross the socket interconnect",
		dn, peer, pn);
	fix(c, "put the NIC in a slot of node %s, or use a DLB of node %s", dn, pn);
}

/* ---- the PCIe path between the DLB and the peer ----------------------- */

struct path {
	char host[64];				/* pciDDDD:BB */
	char bdf[DLB2_PCIE_MAX_HOPS][32];	/* root bus first, the function last */
	int n;
};

static void pci_path(const char *dir, struct path *p)
{
	char top[PATH_MAX + 16], real[PATH_MAX], *s, *save = NULL;
	size_t len;

	memset(p, 0, sizeof(*p));
	snprintf(top, sizeof(top), "%s/devices", sysfs);
	if (!realpath(top, real))
		return;
	len = strlen(real);
	snprintf(top, sizeof(top), "%s", dir + (strncmp(dir, real, len) ? 0 : len));
	for (s = strtok_r(top, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
		if (!p->host[0])
			snprintf(p->host, sizeof(p->host), "%s", s);
		else if (is_bdf(s) && p->n < DLB2_PCIE_MAX_HOPS)
			snprintf(p->bdf[p->n++], sizeof(p->bdf[0]), "%s", s);
	}
}

static uint16_t le16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/* ACS capability and control of @bdf: 1; 0: no ACS; -1: not readable */
static int acs_regs(const char *bdf, uint16_t *cap, uint16_t *ctl)
{
	char path[PATH_MAX + 64];
	uint8_t cfg[4096];
	unsigned int pos = 0x100, loops;
	uint32_t hdr;
	ssize_t r;
	size_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/config", sysfs, bdf);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (n < sizeof(cfg) && (r = pread(fd, cfg + n, sizeof(cfg) - n, n)) > 0)
		n += r;
	close(fd);
	if (n <= 64)
		return -1;	/* not root: sysfs gives 64 bytes */
	for (loops = 0; pos >= 0x100 && pos + 8 <= n && loops < 64; loops++) {
		hdr = le16(cfg + pos) | (uint32_t)le16(cfg + pos + 2) << 16;
		if (!hdr || hdr == 0xffffffff)
			break;
		if ((hdr & 0xffff) == 0x000d) {		/* PCI_EXT_CAP_ID_ACS */
			*cap = le16(cfg + pos + 4);
			*ctl = le16(cfg + pos + 6);
			return 1;
		}
		pos = (hdr >> 20) & ~3u;
	}
	return 0;
}

#define ACS_SV	0x01	/* Source Validation */
#define ACS_RR	0x04	/* P2P Request Redirect */
#define ACS_CR	0x08	/* P2P Completion Redirect */
#define ACS_UF	0x10	/* Upstream Forwarding */
#define ACS_EC	0x20	/* P2P Egress Control */
#define ACS_REDIRECT (ACS_RR | ACS_CR | ACS_EC)	/* pci_bridge_has_acs_redir() */

/* Linux 6.1's pci_p2pdma_whitelist[]: host bridges (function 00.0) */
static const struct {
	unsigned int device;
	bool same_host;		/* REQ_SAME_HOST_BRIDGE */
} allow[] = {
	{ 0x3c00, true }, { 0x3c01, true }, { 0x2f00, true }, { 0x2f01, true },
	{ 0x2030, false }, { 0x2031, false }, { 0x2032, false }, { 0x2033, false },
	{ 0x2020, false }, { 0x09a2, false },
};

/* The host bridge of @host on the allow list: 1; only to itself: 2; no: 0 */
static int host_listed(const char *host, char *id, size_t len)
{
	char v[16], d[16];
	unsigned int dom, bus, i;

	if (sscanf(host, "pci%x:%x", &dom, &bus) != 2)
		return 0;
	rd(v, sizeof(v), P("%s/devices/%s/%04x:%02x:00.0/vendor", sysfs, host, dom, bus));
	rd(d, sizeof(d), P("%s/devices/%s/%04x:%02x:00.0/device", sysfs, host, dom, bus));
	snprintf(id, len, "%04x:%02x:00.0 (%s:%s)", dom, bus, v[0] ? v + 2 : "?", d[0] ? d + 2 : "?");
	for (i = 0; i < sizeof(allow) / sizeof(allow[0]); i++)
		if (!strcmp(v, "0x8086") && strtoul(d, NULL, 16) == allow[i].device)
			return allow[i].same_host ? 2 : 1;
	return 0;
}

/* May the writes go through the root complex (Linux's rules)?  @why: how */
static bool host_route(const struct path *a, const struct path *b, char *why, size_t len)
{
	char line[256], vendor[64] = "", ida[64], idb[64];
	int family = -1, la, lb;
	FILE *f;

	snprintf(line, sizeof(line), "%s/cpuinfo", procfs);
	f = fopen(line, "r");
	while (f && fgets(line, sizeof(line), f) && (!vendor[0] || family < 0)) {
		if (!strncmp(line, "vendor_id", 9) && strchr(line, ':'))
			sscanf(strchr(line, ':') + 1, "%63s", vendor);
		else if (!strncmp(line, "cpu family", 10) && strchr(line, ':'))
			family = atoi(strchr(line, ':') + 1);
	}
	if (f)
		fclose(f);
	if (!strcmp(vendor, "AuthenticAMD") && family >= 0x17) {
		snprintf(why, len, "an AMD Zen CPU (family 0x%x), whose root complex Linux trusts with peer-to-peer", family);
		return true;
	}
	la = host_listed(a->host, ida, sizeof(ida));
	if (!strcmp(a->host, b->host)) {
		snprintf(why, len, "host bridge %s %s Linux's P2PDMA allow list", ida, la ? "on" : "not on");
		return la;
	}
	lb = host_listed(b->host, idb, sizeof(idb));
	snprintf(why, len, "host bridges %s and %s, %s", ida, idb,
		 la == 1 && lb == 1 ? "both on Linux's P2PDMA allow list" :
		 la && lb ? "on Linux's P2PDMA allow list for peers below the same host bridge only" :
		 "not both on Linux's P2PDMA allow list");
	return la == 1 && lb == 1;
}

static void check_path(void)
{
	char acs[768] = "", redir[256] = "", why[256], route[320], ovr[8] = "";
	char hosts[160] = "";
	const char *unreadable = NULL, *bdf;
	struct path a, b;
	uint16_t cap, ctl;
	int i, k = 0, r;
	bool allowed, forced;
	struct check *c;

	if (software) {
		add("acs", ENQ, PASS, "%s is a software RDMA device: no PCIe path to the DLB", ibdev);
		add("p2p-path", ENQ, PASS, "%s writes the producer port with the CPU (a kernel mapping of it): no peer-to-peer DMA", ibdev);
		return;
	}
	pci_path(dlbdir, &a);
	pci_path(peerdir, &b);
	/* the deepest bridge above both, as pci_p2pdma_distance() finds it */
	if (!strcmp(a.host, b.host))
		while (k < a.n - 1 && k < b.n - 1 && !strcmp(a.bdf[k], b.bdf[k]))
			k++;
	/* ACS: the DLB's side up to that bridge, the peer's side below it */
	for (i = 0; k && i < a.n + b.n - 2 * k + 1; i++) {
		bdf = i <= a.n - k ? a.bdf[a.n - 1 - i] : b.bdf[k + i - (a.n - k) - 1];
		r = acs_regs(bdf, &cap, &ctl);
		if (r < 0 && !unreadable)
			unreadable = bdf;
		if (r <= 0)
			continue;
		snprintf(acs + strlen(acs), sizeof(acs) - strlen(acs),
			 "%s%s ACS cap 0x%04x ctl 0x%04x (SV%c RR%c CR%c UF%c EC%c)",
			 acs[0] ? "; " : "", bdf, cap, ctl, ctl & ACS_SV ? '+' : '-',
			 ctl & ACS_RR ? '+' : '-', ctl & ACS_CR ? '+' : '-',
			 ctl & ACS_UF ? '+' : '-', ctl & ACS_EC ? '+' : '-');
		if (ctl & ACS_REDIRECT)
			snprintf(redir + strlen(redir), sizeof(redir) - strlen(redir),
				 "%s%s", redir[0] ? ";" : "", bdf);
	}
	allowed = host_route(&a, &b, why, sizeof(why));
	forced = !rd(ovr, sizeof(ovr), P("%s/p2p_override", dlbdir)) && !strcmp(ovr, "1");
	if (strcmp(a.host, b.host))
		snprintf(hosts, sizeof(hosts), " (host bridges %s, %s)", a.host, b.host);
	if (!k)
		snprintf(route, sizeof(route), "the DLB and %s share no bridge below the root complex%s",
			 peer, hosts);
	else
		snprintf(route, sizeof(route), "the DLB and %s meet at bridge %s, distance %d",
			 peer, a.bdf[k - 1], a.n + b.n - 2 * k);

	if (!k) {
		add("acs", ENQ, PASS, "%s: ACS does not decide, the root complex does", route);
	} else if (unreadable) {
		c = add("acs", ENQ, allowed ? PASS : UNKNOWN, "the ACS capability of %s cannot be read (sysfs gives 64 bytes of config space to non-root users)%s",
			unreadable, allowed ? "; the root complex forwards redirected writes" : "");
		fix(c, "run as root");
	} else if (!redir[0]) {
		add("acs", ENQ, PASS, "no ACS redirect on the path: %s", acs[0] ? acs : "no ACS capability");
	} else {
		c = add("acs", ENQ, allowed ? PASS : forced ? UNKNOWN : FAIL,
			"P2P redirected up to the root complex (%s): %s", allowed ? "which forwards it" : "not on the allow list", acs);
		if (!allowed)
			fix(c, "pci=disable_acs_redir=%s on the kernel command line lets the bridges route the writes directly (they no longer isolate the functions below them)", redir);
	}

	if (k && !redir[0] && !unreadable) {
		add("p2p-path", ENQ, PASS, "%s, without ACS redirect: the writes turn there (PCI_P2PDMA_MAP_BUS_ADDR)", route);
	} else if (allowed) {
		add("p2p-path", ENQ, PASS, "%s; through the root complex: %s", route, why);
	} else if (unreadable) {
		c = add("p2p-path", ENQ, UNKNOWN, "%s; ACS not readable, and through the root complex: %s", route, why);
		fix(c, "run as root");
	} else if (forced) {
		c = add("p2p-path", ENQ, UNKNOWN, "%s; through the root complex: %s; p2p_override is set: dlb2 maps anyway, whether the platform forwards the writes is not known",
			route, why);
		fix(c, "verify that the platform forwards peer-to-peer writes between its root ports (vendor documentation, or a write test to a producer port), or place both below one PCIe switch without ACS redirect");
	} else {
		c = add("p2p-path", ENQ, FAIL, "%s; through the root complex: %s: dlb2 refuses to map a producer port for %s (EXDEV, 'p2p refused' in the kernel log)",
			route, why, peer);
		fix(c, "place both below one PCIe switch without ACS redirect; or, once the platform is known to forward peer-to-peer writes between its root ports (vendor documentation, or a write test), echo 1 > /sys/bus/pci/devices/%s/p2p_override",
		    dlb);
	}
}

/* ---- registrations: peer memory, dma-buf ------------------------------ */

/* Is @sym in <proc>/kallsyms?  -1: not readable */
static int kallsyms(const char *sym)
{
	char line[512], name[256];
	int found = 0;
	FILE *f;

	snprintf(line, sizeof(line), "%s/kallsyms", procfs);
	f = fopen(line, "r");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %255s", name) == 1 && !strcmp(name, sym);
	fclose(f);
	return found;
}

bool installed(const char *mod)
{
	char rel[128], line[1024], *colon, *b;
	bool found = false;
	FILE *f;

	if (rd(rel, sizeof(rel), P("%s/sys/kernel/osrelease", procfs)))
		return false;
	snprintf(line, sizeof(line), "%s/%s/modules.dep", moddir, rel);
	f = fopen(line, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		b = strrchr(line, '/') ? strrchr(line, '/') + 1 : line;
		found = !strncmp(b, mod, strlen(mod)) && !strncmp(b + strlen(mod), ".ko", 3);
	}
	if (f)
		fclose(f);
	return found;
}

static void check_mr(void)
{
	int sym = kallsyms("ib_register_peer_memory_client");
	const char *who = ibdev[0] ? ibdev : "the NIC";
	struct check *c;

	if (!access(P("%s/module/peermem_dlb", sysfs), F_OK)) {
		add("peer-mr", ENQ, PASS, "peer memory: peermem_dlb is loaded: ibv_reg_mr() on a mapped producer port works");
		return;
	}
	if (sym > 0 && installed("peermem_dlb")) {
		add("peer-mr", ENQ, PASS, "peer memory: the kernel has ib_register_peer_memory_client and peermem_dlb is installed (modprobe peermem_dlb, before ibv_reg_mr() on a producer port)");
		return;
	}
	c = add("peer-mr", ENQ, UNKNOWN, "%s; dma-buf: dlb2 exports producer ports, whether %s's driver takes dma-buf MRs (ibv_reg_dmabuf_mr) is not visible in sysfs",
		sym > 0 ? "the kernel has ib_register_peer_memory_client but peermem_dlb is neither loaded nor installed" :
		sym < 0 ? "no peer memory (kallsyms not readable)" :
		"no peer memory (ib_register_peer_memory_client not in kallsyms)", who);
	if (sym > 0)
		fix(c, "install peermem_dlb (make install-modules, or the dlb2-dkms package) and modprobe peermem_dlb; or register with ibv_reg_dmabuf_mr() through a NIC driver with dma-buf MRs (mlx5, efa)");
	else
		fix(c, "a kernel with the peer-memory interface (MLNX_OFED/DOCA-OFED, Ubuntu's, or patches/linux) and peermem_dlb; or ibv_reg_dmabuf_mr() through a NIC driver with dma-buf MRs (mlx5, efa)");
}

/* ---- atomics ---------------------------------------------------------- */

static int check_atomics(void)
{
	struct dlb2_pcie_atomics r;
	struct check *c;

	if (ibdev[0])
		dlb2_pcie_atomics_check_ibdev(sysroot, ibdev, &r);
	else
		dlb2_pcie_atomics_check(sysroot, peer, &r);
	c = add("atomics", CRED, r.verdict, "%s%s%s", r.check ? r.check : "",
		r.check ? ": " : "", r.detail);
	if (r.check)
		fix(c, "%s", r.fix);
	return r.verdict;
}

/*
 * struct ibv_device_attr of libibverbs (IBVERBS_1.1), up to atomic_cap and
 * with room to spare: no libibverbs header is needed to build dlb2ctl.
 */
struct doctor_ibv_attr {
	char fw_ver[64];
	uint64_t guid_size[4];
	uint32_t ids[3];
	int counts[14];
	int atomic_cap;
	int more[16];
	char spare[256];
};
#if defined(__has_include)
#if __has_include(<infiniband/verbs.h>)
#include <infiniband/verbs.h>
_Static_assert(offsetof(struct ibv_device_attr, atomic_cap) ==
	       offsetof(struct doctor_ibv_attr, atomic_cap), "ibv_device_attr");
_Static_assert(sizeof(struct ibv_device_attr) < sizeof(struct doctor_ibv_attr),
	       "ibv_device_attr");
#endif
#endif

/* What to do when libibverbs did not tell the atomic_cap */
enum { CAP_NO_LIB, CAP_NO_DEV, CAP_NO_OPEN };

/* @name's atomic_cap through libibverbs, or -1 with @why and CAP_* @how */
static int query_cap(const char *name, char *why, size_t len, int *how)
{
	const char *lib = getenv("DLB2CTL_LIBIBVERBS") ? : "libibverbs.so.1";
	void **(*list)(int *);
	void (*list_free)(void **);
	const char *(*dev_name)(void *);
	void *(*open_dev)(void *);
	int (*close_dev)(void *);
	int (*query)(void *, struct doctor_ibv_attr *);
	struct doctor_ibv_attr attr;
	void *h, **devs, *ctx = NULL;
	int i, cap = -1;

	*how = CAP_NO_LIB;
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, len, "libibverbs cannot be loaded: %s", dlerror());
		return -1;
	}
	list = (void **(*)(int *))dlsym(h, "ibv_get_device_list");
	list_free = (void (*)(void **))dlsym(h, "ibv_free_device_list");
	dev_name = (const char *(*)(void *))dlsym(h, "ibv_get_device_name");
	open_dev = (void *(*)(void *))dlsym(h, "ibv_open_device");
	close_dev = (int (*)(void *))dlsym(h, "ibv_close_device");
	query = (int (*)(void *, struct doctor_ibv_attr *))dlsym(h, "ibv_query_device");
	if (!list || !list_free || !dev_name || !open_dev || !close_dev || !query) {
		snprintf(why, len, "%s lacks the verbs dlb2ctl needs", lib);
		dlclose(h);
		return -1;
	}
	devs = list(NULL);
	*how = CAP_NO_DEV;
	snprintf(why, len, "%s is not among libibverbs' devices", name);
	for (i = 0; devs && devs[i]; i++) {
		if (strcmp(dev_name(devs[i]), name))
			continue;
		*how = CAP_NO_OPEN;
		ctx = open_dev(devs[i]);
		memset(&attr, 0, sizeof(attr));
		if (!ctx)
			snprintf(why, len, "ibv_open_device(%s): %s", name, strerror(errno));
		else if ((errno = query(ctx, &attr)))
			snprintf(why, len, "ibv_query_device(%s): %s", name, strerror(errno));
		else if (attr.atomic_cap < 0 || attr.atomic_cap > DLB2_ATOMIC_GLOB)
			snprintf(why, len, "%s reports atomic_cap %d, which dlb2ctl does not know",
				 name, attr.atomic_cap);
		else
			cap = attr.atomic_cap;
		if (ctx)
			close_dev(ctx);
		break;
	}
	if (devs)
		list_free(devs);
	dlclose(h);
	return cap;
}

/* An RDMA device's atomic_cap: --atomic-cap, or libibverbs' */
static void check_cap(void)
{
	static const char *const names[] = { "IBV_ATOMIC_NONE", "IBV_ATOMIC_HCA", "IBV_ATOMIC_GLOB" };
	char why[512] = "";
	const char *from = "--atomic-cap";
	struct check *c;
	int how;

	if (atomic_cap < 0) {
		atomic_cap = query_cap(ibdev, why, sizeof(why), &how);
		from = "libibverbs";
	}
	if (atomic_cap < 0) {
		c = add("atomic-cap", CRED, UNKNOWN, "%s", why);
		if (how == CAP_NO_LIB)
			fix(c, "install libibverbs1, or give what `ibv_devinfo -v | grep atomic_cap` says: --atomic-cap none|hca|glob");
		else if (how == CAP_NO_DEV)
			fix(c, "install the device's provider (ibverbs-providers: libmlx5 for mlx5, librxe for rxe) until ibv_devices lists %s, or give what `ibv_devinfo -v -d %s | grep atomic_cap` says: --atomic-cap none|hca|glob",
			    ibdev, ibdev);
		else
			fix(c, "ibv_devinfo -v -d %s shows whether this user may open it (/dev/infiniband/uverbs*), or give what it says of atomic_cap: --atomic-cap none|hca|glob",
			    ibdev);
		return;
	}
	if (atomic_cap == DLB2_ATOMIC_NONE) {
		c = add("atomic-cap", CRED, FAIL, "%s reports IBV_ATOMIC_NONE (%s): no remote atomics", ibdev[0] ? ibdev : peer, from);
		fix(c, "use a device with 8-byte remote atomics (mlx5: firmware with atomic support)");
		return;
	}
	add("atomic-cap", CRED, PASS, "%s reports %s (%s): %s", ibdev[0] ? ibdev : peer,
	    names[atomic_cap], from, atomic_cap == DLB2_ATOMIC_GLOB ?
	    "atomic with the CPUs' atomics" :
	    "atomic with the CPUs' only over a verified PCIe AtomicOp path (the atomics check)");
}

/* ---- output ----------------------------------------------------------- */

static const char *yes_no(int v)
{
	return v == PASS ? "yes" : v == FAIL ? "no" : v == NA ? "n/a" : "unknown";
}

static const char *result_name(int v)
{
	return v == NA ? "n/a" : dlb2_atomics_verdict_name(v);
}

/* The checks of one kind as a JSON array (@host: the host's) */
static void print_json_checks(const char *key, bool host)
{
	bool first = true;
	int i;

	printf(",\n  \"%s\": [", key);
	for (i = 0; i < nchecks; i++) {
		const struct check *c = checks[i];

		if (!(c->affects & HOST) != !host)
			continue;
		printf("%s\n    {\"name\": ", first ? "" : ",");
		first = false;
		json_str(c->name);
		printf(", \"result\": \"%s\", \"detail\": ", result_name(c->result));
		json_str(c->detail);
		fputs(", \"fix\": ", stdout);
		json_str(c->result == PASS || c->result == NA ? NULL : c->fix);
		putchar('}');
	}
	printf("%s]", first ? "" : "\n  ");
}

static void print(bool json, int host, int enq, int cred, int status)
{
	char who[160] = "";
	int i;

	if (!json) {
		if (has_peer)
			snprintf(who, sizeof(who), ", peer %s%s%s%s%s", ibdev[0] ? ibdev : peer,
				 ibdev[0] && peer[0] ? " (" : "", ibdev[0] && peer[0] ? peer : "",
				 ibdev[0] && peer[0] ? ")" : "", software ? " (software)" : "");
		printf("DLB %s%s\n", dlb[0] ? dlb : "none", who);
		for (i = 0; i < nchecks; i++) {
			printf("%s: %s: %s\n", checks[i]->name, result_name(checks[i]->result),
			       checks[i]->detail);
			if (checks[i]->result != PASS && checks[i]->result != NA)
				printf("  fix: %s\n", checks[i]->fix);
		}
		printf("host ready: %s\n", yes_no(host));
		printf("p2p enqueue: %s%s\n", yes_no(enq), has_peer ? "" : " (the DLB side: no peer given)");
		if (!has_peer)
			printf("remote credits: %s (no RDMA device given)\n", yes_no(cred));
		else if (cred == NA)
			printf("remote credits: n/a (%s has no RDMA device)\n", peer);
		else
			printf("remote credits: %s\n", yes_no(cred));
		return;
	}
	fputs("{\n  \"dlb\": ", stdout);
	json_str(dlb[0] ? dlb : NULL);
	fputs(",\n  \"peer\": ", stdout);
	json_str(!has_peer ? NULL : ibdev[0] ? ibdev : peer);
	fputs(",\n  \"peer_pci\": ", stdout);
	json_str(peer[0] ? peer : NULL);
	print_json_checks("host_checks", true);
	print_json_checks("checks", false);
	printf(",\n  \"host_ready\": \"%s\",\n  \"p2p_enqueue\": \"%s\",\n  \"remote_credits\": \"%s\",\n  \"exit_status\": %d\n}\n",
	       yes_no(host), yes_no(enq), yes_no(cred), status);
}

/* ---- the command ------------------------------------------------------ */

static int usage_error(const char *usage, const char *msg, const char *arg)
{
	if (msg)
		fprintf(stderr, "dlb2ctl: doctor: %s%s\n", msg, arg ? arg : "");
	else
		fputs(usage, stderr);
	return DOCTOR_USAGE;
}

/* The peer: --rdma @rdma or --peer @bdf; false if there is none such. */
static bool find_peer(const char *rdma, const char *bdf)
{
	char path[PATH_MAX + 128], dev[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (bdf) {
		snprintf(peer, sizeof(peer), "%s", bdf);
		if (!pci_dir(peer, peerdir))
			return false;
		snprintf(path, sizeof(path), "%s/infiniband", peerdir);
		d = opendir(path);
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.' && !ibdev[0])
				snprintf(ibdev, sizeof(ibdev), "%.63s", de->d_name);
		if (d)
			closedir(d);
		return true;
	}
	snprintf(ibdev, sizeof(ibdev), "%s", rdma);
	if (access(P("%s/class/infiniband/%s", sysfs, rdma), F_OK))
		return false;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device", sysfs, rdma);
	if (!access(P("%s/class/infiniband/%s/parent", sysfs, rdma), F_OK) ||
	    !realpath(path, dev) || !is_bdf(strrchr(dev, '/') + 1)) {
		software = true;	/* rxe, siw: the CPU does the "DMA" */
		return true;
	}
	snprintf(peer, sizeof(peer), "%s", strrchr(dev, '/') + 1);
	return pci_dir(peer, peerdir);
}

int doctor_main(int argc, char **argv, const char *sysfs_dir, const char *usage)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "dlb", required_argument, NULL, 'D' },
		{ "rdma", required_argument, NULL, 'R' },
		{ "peer", required_argument, NULL, 'P' },
		{ "atomic-cap", required_argument, NULL, 'A' },
		{ "proc", required_argument, NULL, 'p' },
		{ "modules", required_argument, NULL, 'm' },
		{ "root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *rdma = NULL, *pbdf = NULL, *want = NULL;
	int c, num = -1, drv, atom = UNKNOWN, host = PASS, enq = PASS, cred, status, i;
	bool json = false, rdma_peer;
	size_t len;
	char *end;

	sysfs = sysfs_dir;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+jd:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'd':
			num = (int)strtol(optarg, &end, 10);
			if (*end || num < 0 || !*optarg)
				return usage_error(usage, "-d: not a device number: ", optarg);
			break;
		case 'D': want = optarg; break;
		case 'R': rdma = optarg; break;
		case 'P': pbdf = optarg; break;
		case 'A':
			for (i = 0; i < 3 && strcmp(optarg, (const char *[]){ "none", "hca", "glob" }[i]); i++)
				;
			if (i == 3)
				return usage_error(usage, "--atomic-cap: none, hca or glob, not ", optarg);
			atomic_cap = i;
			break;
		case 'p': procfs = optarg; break;
		case 'm': moddir = optarg; break;
		case 'r': root = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: return usage_error(usage, NULL, NULL);
		}
	}
	if (optind < argc || (rdma && pbdf) || (want && num >= 0))
		return usage_error(usage, NULL, NULL);
	/* libdlb2_rdma's check takes the root above sys/ */
	len = strlen(sysfs);
	while (len > 1 && sysfs[len - 1] == '/')
		len--;
	if (len >= 3 && !strncmp(sysfs + len - 3, "sys", 3) && (len == 3 || sysfs[len - 4] == '/'))
		snprintf(sysroot, sizeof(sysroot), "%.*s", (int)(len == 3 ? 1 : len - 4),
			 len == 3 ? "." : sysfs);
	else
		return usage_error(usage, "--sysfs must name a directory called sys, not ", sysfs);
	has_peer = rdma || pbdf;
	if (has_peer && !find_peer(rdma, pbdf))
		return usage_error(usage, rdma ? "no RDMA device " : "no PCI function ", rdma ? rdma : pbdf);
	if (want)
		snprintf(dlb, sizeof(dlb), "%s", want);
	else
		find_dlb(num);

	host_checks(sysfs, procfs, moddir, root);
	drv = check_driver(num);
	if (drv == PASS)
		check_iommu();
	if (has_peer && dlbdir[0]) {	/* a DLB, bound or not */
		check_numa();
		check_path();
	}
	if (!has_peer || ibdev[0])
		check_mr();
	/* remote credits are RDMA atomics: a peer without an RDMA device has none */
	rdma_peer = ibdev[0] || atomic_cap >= 0;
	if (has_peer && rdma_peer) {
		atom = check_atomics();
		check_cap();
	} else if (has_peer) {
		add("atomics", CRED, NA, "%s has no RDMA device: remote credits, RDMA atomics on the credit word, do not concern it", peer);
		add("atomic-cap", CRED, NA, "%s has no RDMA device: no atomic_cap to ask libibverbs for (--atomic-cap gives one)", peer);
	}
	for (i = 0; i < nchecks; i++) {
		const struct check *ck = checks[i];
		int *sum = ck->affects & HOST ? &host : ck->affects & ENQ ? &enq : NULL;

		if (sum && ck->result != PASS && ck->result != NA && *sum != FAIL)
			*sum = ck->result;
	}
	if (!has_peer)
		cred = UNKNOWN;
	else if (!rdma_peer)
		cred = NA;
	else if (drv == FAIL || atomic_cap == DLB2_ATOMIC_NONE || atom == FAIL)
		cred = FAIL;
	else if (atomic_cap == DLB2_ATOMIC_GLOB || (atomic_cap == DLB2_ATOMIC_HCA && atom == PASS))
		cred = PASS;
	else
		cred = UNKNOWN;
	if (enq == FAIL)
		status = DOCTOR_NO_P2P;
	else if (cred == FAIL)
		status = DOCTOR_NO_CREDITS;
	else if (host == FAIL)
		status = DOCTOR_HOST;
	else if (enq == UNKNOWN || (has_peer && cred == UNKNOWN) || host == UNKNOWN)
		status = DOCTOR_UNKNOWN;
	else
		status = DOCTOR_OK;
	print(json, host, enq, cred, status);
	return status;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2 peer-to-peer tests: QEMU's edu device, driven by the test module
 * dlb2_edu.ko, DMA-writes HCWs into a producer port through the mapping
 * dlb2's P2P interface gives it (none, pass-through or translated IOMMU),
 * and a consumer dequeues them.  Also: the IOMMU mode in sysfs, a raw
 * (unmapped) DMA faulting in translated mode, the refusals (not a dlb2
 * mapping, wider than one window, another domain's port, a disabled
 * domain's port, a path the PCI topology check rejects unless overridden),
 * revocation of a held pin on domain disable, on unbind and on the last
 * munmap() racing the pin, dlb2's own refusals of a revoked pin (map, CPU
 * address, dma-buf attach), and revoke callbacks that hold no dlb2 lock (the
 * device configurable while one waits) and keep the domain's resources
 * until they return.
 *
 * Needs a DLB device, dlb2.ko, an edu device and dlb2_edu.ko; skips
 * otherwise.  DLB2_IOMMU (off|pt|dma), when set by the VM harness, is the
 * IOMMU mode the VM was booted with.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <linux/dlb2.h>

#include "kselftest_harness.h"
#include "dlb2_lib.h"
#include "dlb2_edu/dlb2_edu.h"

#define FENCE_WAIT_MS "/sys/module/dlb2/parameters/fence_wait_ms"

FIXTURE(p2p) {
	char bdf[NAME_MAX + 1];
	const char *version;
	char pci[PATH_MAX];
	char dom[PATH_MAX];
	char dom2[PATH_MAX];
	long dev_id;
	int edu;
	int pfd, cfd;			/* producer port p, consumer port c */
	void *pp;
	volatile uint8_t *cq;
	struct dlb2_port_info cinfo;
	unsigned int cq_idx;
};

static int make_domain(const char *dom)
{
	char path[PATH_MAX];
	int ret = mkdir_e(dom);

	ret = ret ?: cfs_add_queue(dom, "dq", "dir");
	ret = ret ?: cfs_add_port(dom, "c", "dir");
	ret = ret ?: write_attr(pathf(path, "%s/ports/c", dom), "cq_depth", "64");
	ret = ret ?: cfs_link(dom, "c", "dq");
	ret = ret ?: cfs_add_port(dom, "p", "dir");
	ret = ret ?: write_attr(dom, "dir_credits", "256");
	return ret ?: write_attr(dom, "enable", "1");
}

static int open_ports(struct _test_data_p2p *self)
{
	char node[PATH_MAX];

	self->pfd = open(pathf(node, "/dev/dlb2/%ld/kp2p/p", self->dev_id), O_RDWR);
	self->cfd = open(pathf(node, "/dev/dlb2/%ld/kp2p/c", self->dev_id), O_RDWR);
	if (self->pfd < 0 || self->cfd < 0 ||
	    ioctl(self->cfd, DLB2_IOC_PORT_INFO, &self->cinfo))
		return -errno;
	self->pp = mmap(NULL, DLB2_PP_SIZE, PROT_WRITE, MAP_SHARED, self->pfd,
			DLB2_MMAP_PP_OFFSET);
	self->cq = mmap(NULL, self->cinfo.cq_size, PROT_READ, MAP_SHARED,
			self->cfd, DLB2_MMAP_CQ_OFFSET);
	self->cq_idx = 0;
	return self->pp == MAP_FAILED || self->cq == MAP_FAILED ? -errno : 0;
}

static void close_ports(struct _test_data_p2p *self)
{
	if (self->pp && self->pp != MAP_FAILED)
		munmap(self->pp, DLB2_PP_SIZE);
	if (self->cq && self->cq != MAP_FAILED)
		munmap((void *)self->cq, self->cinfo.cq_size);
	if (self->pfd >= 0)
		close(self->pfd);
	if (self->cfd >= 0)
		close(self->cfd);
	self->pp = NULL;
	self->cq = NULL;
	self->pfd = self->cfd = -1;
}

FIXTURE_SETUP(p2p)
{
	self->pfd = self->cfd = self->edu = -1;
	self->version = dlb2_find_device(self->bdf, sizeof(self->bdf));
	if (!self->version)
		SKIP(return, "no DLB 2.0/2.5 PF present");
	self->edu = open("/dev/dlb2_edu", O_RDWR);
	if (self->edu < 0) {
		self->version = NULL;
		SKIP(return, "no /dev/dlb2_edu (edu device and dlb2_edu.ko needed)");
	}
	pathf(self->pci, PCI_DEVICES "/%s", self->bdf);
	self->dev_id = read_num(self->pci, "dev_id");
	pathf(self->dom, CONFIGFS_DLB2 "/dlb2_%ld/kp2p", self->dev_id);
	pathf(self->dom2, CONFIGFS_DLB2 "/dlb2_%ld/kp2p2", self->dev_id);
	cfs_domain_destroy(self->dom);
	cfs_domain_destroy(self->dom2);
	ASSERT_EQ(0, make_domain(self->dom));
	ASSERT_EQ(0, open_ports(self));
	ASSERT_EQ(0, write_attr(self->pci, "p2p_override", "1"));
}

FIXTURE_TEARDOWN(p2p)
{
	if (!self->version)
		return;
	sysfs_write(FENCE_WAIT_MS, "30000");
	close_ports(self);
	close(self->edu);
	dlb2_rebind(self->bdf);
	write_attr(self->pci, "p2p_override", "0");
	cfs_domain_destroy(self->dom);
	cfs_domain_destroy(self->dom2);
}

/* Four NEW HCWs for queue @qid with payloads base..base+3. */
static void hcws(struct dlb2_edu_dma *d, unsigned int qid, uint64_t base)
{
	struct dlb2_hcw h[4];
	unsigned int i;

	memset(h, 0, sizeof(h));
	for (i = 0; i < 4; i++) {
		h[i].data = base + i;
		h[i].qid = qid;
		h[i].sched = DLB2_SCHED(DLB2_SCHED_DIRECTED, 0);
		h[i].cmd = DLB2_CMD_NEW;
	}
	d->len = sizeof(h);
	memcpy(d->data, h, sizeof(h));
}

/* The consumer's next QE within @ms, returning its token; 0 if none. */
static int next_qe(struct _test_data_p2p *self, uint64_t *data, int ms)
{
	struct dlb2_hcw pop = { .cmd = DLB2_CMD_BAT_T };
	unsigned int n = self->cinfo.cq_entries;
	volatile uint8_t *e;
	void *cpp;
	int i;

	for (i = 0; i < ms; i++) {
		e = self->cq + (self->cq_idx % n) * self->cinfo.cq_stride;
		if ((e[15] & DLB2_CQ_GEN) == !((self->cq_idx / n) & 1))
			break;
		usleep(1000);
	}
	if (i == ms)
		return 0;
	__sync_synchronize();
	*data = *(volatile uint64_t *)e;
	self->cq_idx++;
	/* Return the token through c's own producer port. */
	cpp = mmap(NULL, DLB2_PP_SIZE, PROT_WRITE, MAP_SHARED, self->cfd,
		   DLB2_MMAP_PP_OFFSET);
	if (cpp != MAP_FAILED) {
		_mm_store_si128(cpp, _mm_loadu_si128((__m128i *)&pop));
		_mm_sfence();
		munmap(cpp, DLB2_PP_SIZE);
	}
	return 1;
}

static const char *iommu_mode_expected(void)
{
	const char *m = getenv("DLB2_IOMMU");

	if (!m)
		return NULL;
	if (!strcmp(m, "pt"))
		return "identity";
	if (!strcmp(m, "dma"))
		return "dma";
	return "none";
}

TEST_F(p2p, iommu_mode_in_sysfs)
{
	const char *want = iommu_mode_expected();
	char mode[32], type[32];

	if (!self->version)
		return;
	ASSERT_EQ(0, read_attr(self->pci, "iommu_mode", mode, sizeof(mode)));
	/* Consistent with the IOMMU core's view of the device's group. */
	if (read_attr(self->pci, "iommu_group/type", type, sizeof(type))) {
		EXPECT_STREQ("none", mode);
	} else if (!strcmp(type, "identity")) {
		EXPECT_STREQ("identity", mode);
	} else {
		EXPECT_STREQ("dma", mode) {
			TH_LOG("group type %s", type);
		}
	}
	if (!want)
		SKIP(return, "DLB2_IOMMU not set (not run by the VM harness)");
	EXPECT_STREQ(want, mode);
}

/*
 * The map type the p2pdma core's rule gives for the edu device writing to
 * the DLB, worked out here from sysfs on its own: a bus address when the
 * two share an upstream bridge and no port from either device up to and
 * including that bridge has an ACS redirect enabled (RR, CR or EC), else
 * through the host bridge.
 */

/* The sysfs path of a PCI function: its ancestors, the root bus first. */
static int pci_chain(const char *bdf, char chain[][16], int max)
{
	char path[PATH_MAX], real[PATH_MAX], *tok, *save;
	int n = 0;

	pathf(path, PCI_DEVICES "/%s", bdf);
	if (!realpath(path, real))
		return -1;
	for (tok = strtok_r(real, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		unsigned int d, b, s, f;
		char end;

		/* dddd:bb:ss.f components are PCI functions */
		if (sscanf(tok, "%x:%x:%x.%x%c", &d, &b, &s, &f, &end) != 4 ||
		    strlen(tok) != 12 || n == max)
			continue;
		snprintf(chain[n++], 16, "%s", tok);
	}
	return n;
}

/* Does the function's ACS capability redirect peer requests upstream? */
static bool acs_redirects(const char *bdf)
{
	uint8_t cfg[4096];
	char path[PATH_MAX];
	unsigned int pos = 0x100, guard = 0;
	uint32_t hdr;
	uint16_t ctrl;
	ssize_t n;
	int fd;

	fd = open(pathf(path, PCI_DEVICES "/%s/config", bdf), O_RDONLY);
	if (fd < 0)
		return false;
	n = pread(fd, cfg, sizeof(cfg), 0);
	close(fd);
	if (n < (ssize_t)sizeof(cfg))
		return false;	/* no extended configuration space */
	while (pos >= 0x100 && pos + 8 <= sizeof(cfg) && guard++ < 512) {
		memcpy(&hdr, cfg + pos, 4);
		if (!hdr || hdr == 0xffffffff)
			return false;
		if ((hdr & 0xffff) == 0x000d) {		/* PCI_EXT_CAP_ID_ACS */
			memcpy(&ctrl, cfg + pos + 6, 2);	/* PCI_ACS_CTRL */
			return ctrl & (0x04 | 0x08 | 0x20);	/* RR | CR | EC */
		}
		pos = hdr >> 20;
	}
	return false;
}

/* The edu function's BDF, from its driver. */
static int edu_bdf(char *bdf, size_t size)
{
	DIR *dir = opendir("/sys/bus/pci/drivers/dlb2_edu");
	struct dirent *de;
	int ret = -1;

	if (!dir)
		return -1;
	while ((de = readdir(dir)))
		if (strchr(de->d_name, ':') && strlen(de->d_name) < size) {
			snprintf(bdf, size, "%s", de->d_name);
			ret = 0;
			break;
		}
	closedir(dir);
	return ret;
}

static int expected_map_type(struct __test_metadata *_metadata,
			     const char *dlb, const char *edu)
{
	char a[16][16], b[16][16];
	int na = pci_chain(dlb, a, 16), nb = pci_chain(edu, b, 16);
	int common = -1, i;
	bool redirect = false;

	if (na <= 0 || nb <= 0)
		return -1;
	for (i = 0; i < na && i < nb && !strcmp(a[i], b[i]); i++)
		common = i;
	TH_LOG("DLB %s, edu %s: %s", dlb, edu,
	       common < 0 ? "no common upstream bridge" : "common upstream bridge");
	if (common < 0)
		return DLB2_EDU_MAP_THRU_HOST_BRIDGE;
	TH_LOG("  common upstream bridge %s", a[common]);
	for (i = common; i < na; i++)
		redirect |= acs_redirects(a[i]);
	for (i = common + 1; i < nb; i++)
		redirect |= acs_redirects(b[i]);
	if (redirect)
		TH_LOG("  an ACS redirect on the path");
	return redirect ? DLB2_EDU_MAP_THRU_HOST_BRIDGE : DLB2_EDU_MAP_BUS_ADDR;
}

/* The IOMMU domain type of a function: none, identity or dma. */
static const char *iommu_domain_of(const char *bdf)
{
	char path[PATH_MAX], type[32];

	pathf(path, PCI_DEVICES "/%s", bdf);
	if (read_attr(path, "iommu_group/type", type, sizeof(type)))
		return "none";
	return strcmp(type, "identity") ? "dma" : "identity";
}

/*
 * dlb2_p2p_map() follows the p2pdma core's rule, not the IOMMU domain:
 * within a PCIe switch without ACS redirect the edu device gets the BAR's
 * bus address even when its IOMMU translates; through the host bridge a
 * DMA API mapping (the physical address untranslated, an IOVA when
 * translated).  With p2p_override off, only a path the kernel's policy
 * refuses is refused; with it on, that mapping is marked forced.
 */
TEST_F(p2p, map_type_matches_topology)
{
	struct dlb2_edu_map m = { .len = 64 };
	const char *domain;
	char edu[NAME_MAX + 1];
	int want, ret;

	if (!self->version)
		return;
	ASSERT_EQ(0, edu_bdf(edu, sizeof(edu)));
	want = expected_map_type(_metadata, self->bdf, edu);
	ASSERT_LT(0, want);
	domain = iommu_domain_of(edu);
	ASSERT_EQ(0, write_attr(self->pci, "p2p_override", "0"));
	m.va = (uintptr_t)self->pp;
	ret = ioctl(self->edu, DLB2_EDU_MAP, &m);
	if (ret) {
		/* Only a path through the host bridge may be refused. */
		EXPECT_EQ(EXDEV, errno);
		EXPECT_EQ(DLB2_EDU_MAP_THRU_HOST_BRIDGE, want);
		ASSERT_EQ(0, write_attr(self->pci, "p2p_override", "1"));
		ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_MAP, &m));
		EXPECT_EQ(1, m.forced);
	} else {
		EXPECT_EQ(0, m.forced);
	}
	TH_LOG("edu IOMMU domain %s: map type %u%s, %#llx for %#llx (mapped %#llx+%#llx)",
	       domain, m.type, m.forced ? " (forced)" : "",
	       (unsigned long long)m.dma_addr, (unsigned long long)m.phys,
	       (unsigned long long)m.start, (unsigned long long)m.map_len);
	EXPECT_EQ(want, m.type);
	/* Whole pages around the range, the range inside them. */
	EXPECT_EQ(4096, m.map_len);
	EXPECT_EQ(0, m.start & 4095);
	EXPECT_EQ(m.start + (m.phys & 4095), m.dma_addr);
	/* x86, QEMU's q35: a BAR's bus address is its physical address. */
	if (want == DLB2_EDU_MAP_BUS_ADDR || strcmp(domain, "dma")) {
		EXPECT_EQ(m.phys, m.dma_addr);
	} else {
		EXPECT_NE(m.phys, m.dma_addr);	/* an IOVA */
	}
}

TEST_F(p2p, edu_dma_enqueues)
{
	struct dlb2_edu_dma d = { .domain_id = -1 };
	unsigned int k, i;
	uint64_t data;

	if (!self->version)
		return;
	for (k = 0; k < 10; k++) {
		d.va = (uintptr_t)self->pp;
		hcws(&d, self->cinfo.dir_queue_id, 1000 + 4 * k);
		if (ioctl(self->edu, DLB2_EDU_DMA, &d))
			TH_LOG("DMA %u: %s", k, strerror(errno));
		ASSERT_EQ(0, d.dma_addr ? 0 : -1);
		for (i = 0; i < 4; i++) {
			ASSERT_EQ(1, next_qe(self, &data, 2000));
			EXPECT_EQ(1000 + 4 * k + i, data);
		}
	}
	EXPECT_EQ(0, next_qe(self, &data, 200));
}

TEST_F(p2p, topology_refusal_names_the_reason)
{
	struct dlb2_edu_dma d = { .domain_id = -1 };
	uint64_t data;
	FILE *log;
	char line[512], marker[64];
	bool named = false, after = false;
	int ret;

	if (!self->version)
		return;
	ASSERT_EQ(0, write_attr(self->pci, "p2p_override", "0"));
	/* Only what follows the marker counts; the log is not cleared. */
	snprintf(marker, sizeof(marker), "dlb2_p2p: topology test %d", getpid());
	log = fopen("/dev/kmsg", "w");
	ASSERT_NE(NULL, log);
	fprintf(log, "%s\n", marker);
	fclose(log);
	d.va = (uintptr_t)self->pp;
	hcws(&d, self->cinfo.dir_queue_id, 1);
	ret = ioctl(self->edu, DLB2_EDU_DMA, &d);
	if (!ret) {
		ASSERT_EQ(1, next_qe(self, &data, 2000));
		SKIP(return, "the PCI topology allows peer-to-peer here");
	}
	EXPECT_EQ(EXDEV, errno);
	EXPECT_EQ(0, next_qe(self, &data, 300));
	log = popen("dmesg", "r");
	ASSERT_NE(NULL, log);
	while (fgets(line, sizeof(line), log)) {
		after |= !!strstr(line, marker);
		named |= after && strstr(line, "p2p refused") &&
			 strstr(line, "P2PDMA allow list") && strstr(line, "p2p_override");
	}
	pclose(log);
	EXPECT_TRUE(named);
	/* The administrator's override makes it work, and taints (U). */
	ASSERT_EQ(0, write_attr(self->pci, "p2p_override", "1"));
	EXPECT_EQ(0, ioctl(self->edu, DLB2_EDU_DMA, &d));
	ASSERT_EQ(1, next_qe(self, &data, 2000));
	EXPECT_EQ(1, data);
	EXPECT_TRUE(read_num("/proc/sys/kernel", "tainted") & (1 << 6));
}

TEST_F(p2p, unmapped_dma_faults_when_translated)
{
	struct dlb2_edu_dma d = { .domain_id = -1, .flags = DLB2_EDU_RAW_BUS_ADDR };
	char mode[32];
	uint64_t data;
	unsigned int i;

	if (!self->version)
		return;
	ASSERT_EQ(0, read_attr(self->pci, "iommu_mode", mode, sizeof(mode)));
	d.va = (uintptr_t)self->pp;
	hcws(&d, self->cinfo.dir_queue_id, 500);
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMA, &d));
	if (!strcmp(mode, "dma")) {
		/* No IOMMU mapping for the BAR: the write faults, nothing lands. */
		EXPECT_EQ(0, next_qe(self, &data, 500));
	} else {
		/* Untranslated: the bus address is the BAR. */
		for (i = 0; i < 4; i++) {
			ASSERT_EQ(1, next_qe(self, &data, 2000));
			EXPECT_EQ(500 + i, data);
		}
	}
}

TEST_F(p2p, refusals)
{
	struct dlb2_edu_dma d = { .domain_id = -1 };
	struct dlb2_edu_pin pin = { 0 };
	char node[PATH_MAX];
	void *heap = aligned_alloc(4096, 4096);
	uint64_t data;
	long other;
	int fd2;
	void *pp2;

	if (!self->version)
		return;
	hcws(&d, self->cinfo.dir_queue_id, 9);
	/* Not a dlb2 producer-port mapping. */
	d.va = (uintptr_t)heap;
	EXPECT_EQ(-1, ioctl(self->edu, DLB2_EDU_DMA, &d));
	EXPECT_EQ(EINVAL, errno);
	d.va = (uintptr_t)self->cq;
	EXPECT_EQ(-1, ioctl(self->edu, DLB2_EDU_DMA, &d));
	EXPECT_EQ(EINVAL, errno);
	/* Wider than one producer port. */
	pin.va = (uintptr_t)self->pp;
	pin.len = 2 * DLB2_PP_SIZE;
	EXPECT_EQ(-1, ioctl(self->edu, DLB2_EDU_PIN, &pin));
	EXPECT_EQ(EINVAL, errno);
	/* Another domain's port. */
	ASSERT_EQ(0, make_domain(self->dom2));
	other = read_num(self->dom2, "id");
	d.va = (uintptr_t)self->pp;
	d.domain_id = other;
	EXPECT_EQ(-1, ioctl(self->edu, DLB2_EDU_DMA, &d));
	EXPECT_EQ(EACCES, errno);
	d.domain_id = read_num(self->dom, "id");
	EXPECT_EQ(0, ioctl(self->edu, DLB2_EDU_DMA, &d));
	EXPECT_EQ(1, next_qe(self, &data, 2000));
	/* A port of a disabled domain. */
	fd2 = open(pathf(node, "/dev/dlb2/%ld/kp2p2/p", self->dev_id), O_RDWR);
	ASSERT_LE(0, fd2);
	pp2 = mmap(NULL, DLB2_PP_SIZE, PROT_WRITE, MAP_SHARED, fd2, 0);
	ASSERT_NE(MAP_FAILED, pp2);
	ASSERT_EQ(0, write_attr(self->dom2, "enable", "0"));
	d.va = (uintptr_t)pp2;
	d.domain_id = -1;
	EXPECT_EQ(-1, ioctl(self->edu, DLB2_EDU_DMA, &d));
	EXPECT_EQ(ENODEV, errno);
	munmap(pp2, DLB2_PP_SIZE);
	close(fd2);
	free(heap);
}

/* A held pin is revoked on disable: the holder hears of it, DMA stops. */
static void check_pin_revoked(struct __test_metadata *_metadata,
			      struct _test_data_p2p *self, bool unbind)
{
	struct dlb2_edu_dma d = { .domain_id = -1 };
	struct dlb2_edu_pin pin = { .len = 64 };
	uint64_t data;
	unsigned int i;

	pin.va = (uintptr_t)self->pp;
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN, &pin));
	hcws(&d, self->cinfo.dir_queue_id, 70);
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN_DMA, &d));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(1, next_qe(self, &data, 2000));
		EXPECT_EQ(70 + i, data);
	}
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN_STATE, &pin));
	EXPECT_EQ(0, pin.revoked);
	if (unbind) {
		ASSERT_EQ(0, sysfs_write(DLB2_DRIVER "/unbind", self->bdf));
	} else {
		ASSERT_EQ(0, write_attr(self->dom, "enable", "0"));
	}
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN_STATE, &pin));
	EXPECT_EQ(1, pin.revoked);
	EXPECT_EQ(-1, ioctl(self->edu, DLB2_EDU_PIN_DMA, &d));
	EXPECT_EQ(ENODEV, errno);
}

TEST_F(p2p, disable_revokes_pins)
{
	if (!self->version)
		return;
	check_pin_revoked(_metadata, self, false);
}

TEST_F(p2p, unbind_revokes_pins)
{
	if (!self->version)
		return;
	check_pin_revoked(_metadata, self, true);
}

/*
 * A holder that keeps its DMA mapping after its revoke callback returned
 * (it unmaps only when it closes) keeps no mapping of the port: dlb2 undid
 * it before the port was reset and freed, and the holder's own unmap at
 * close does nothing (no warning: the kernel log check counts one).
 */
TEST_F(p2p, revocation_unmaps_what_holders_keep)
{
	struct dlb2_edu_pin pin = { .len = 64 };

	if (!self->version)
		return;
	pin.va = (uintptr_t)self->pp;
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN, &pin));
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN_MAP, &pin));
	ASSERT_NE(0, pin.dma_addr);
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN_STATE, &pin));
	EXPECT_EQ(0, pin.revoked);
	EXPECT_EQ(1, pin.mapped);
	ASSERT_EQ(0, write_attr(self->dom, "enable", "0"));
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN_STATE, &pin));
	EXPECT_EQ(1, pin.revoked);
	EXPECT_EQ(0, pin.mapped) {
		TH_LOG("the old holder's mapping at %#llx outlived the revocation",
		       (unsigned long long)pin.dma_addr);
	}
	/* The holder's unmap and put at close. */
	close(self->edu);
	self->edu = open("/dev/dlb2_edu", O_RDWR);
	ASSERT_LE(0, self->edu);
}

/*
 * Closing a port (its last descriptor and mapping) revokes the pins and
 * dma-bufs taken through it: the next opener of the port receives nothing
 * the old holders' devices write, and pins the port for itself.
 */
TEST_F(p2p, close_revokes_holders)
{
	struct dlb2_edu_dma d = { .domain_id = -1 };
	struct dlb2_edu_pin pin = { .len = 64 };
	struct dlb2_edu_dmabuf b = { 0 };
	char node[PATH_MAX];
	uint64_t data;
	unsigned int i;
	int buf, edu2;

	if (!self->version)
		return;
	pin.va = (uintptr_t)self->pp;
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN, &pin));
	buf = ioctl(self->pfd, DLB2_IOC_EXPORT_DMABUF, O_CLOEXEC);
	ASSERT_LE(0, buf);
	edu2 = open("/dev/dlb2_edu", O_RDWR);
	ASSERT_LE(0, edu2);
	b.fd = buf;
	ASSERT_EQ(0, ioctl(edu2, DLB2_EDU_DMABUF_ATTACH, &b));

	munmap(self->pp, DLB2_PP_SIZE);
	self->pp = NULL;
	close(self->pfd);
	self->pfd = -1;
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN_STATE, &pin));
	EXPECT_EQ(1, pin.revoked);
	hcws(&d, self->cinfo.dir_queue_id, 80);
	EXPECT_EQ(-1, ioctl(self->edu, DLB2_EDU_PIN_DMA, &d));
	EXPECT_EQ(ENODEV, errno);
	ASSERT_EQ(0, ioctl(edu2, DLB2_EDU_DMABUF_STATE, &b));
	EXPECT_EQ(1, b.moves);
	b.len = d.len;
	memcpy(b.data, d.data, sizeof(b.data));
	EXPECT_EQ(-1, ioctl(edu2, DLB2_EDU_DMABUF_DMA, &b));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(0, next_qe(self, &data, 300));
	close(edu2);
	close(buf);

	/* The port itself lives on: a new opener pins and DMAs. */
	self->pfd = open(pathf(node, "/dev/dlb2/%ld/kp2p/p", self->dev_id), O_RDWR);
	ASSERT_LE(0, self->pfd);
	self->pp = mmap(NULL, DLB2_PP_SIZE, PROT_WRITE, MAP_SHARED, self->pfd,
			DLB2_MMAP_PP_OFFSET);
	ASSERT_NE(MAP_FAILED, self->pp);
	d.va = (uintptr_t)self->pp;
	hcws(&d, self->cinfo.dir_queue_id, 90);
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMA, &d));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(1, next_qe(self, &data, 2000));
		EXPECT_EQ(90 + i, data);
	}
}

/*
 * A pin revoked by the close of its port's file while the port lives on
 * (its domain enabled): dlb2 itself refuses what a holder asks of it
 * afterwards, whether or not the holder looked at its own revoke callback
 * first: a DMA mapping of the pin (dlb2_p2p_map(): ENODEV), its CPU address
 * (dlb2_p2p_cpu_addr(): none, ENODEV), a new attachment to a dma-buf
 * exported through the file (ENODEV).  Nothing reaches the queue.
 */
TEST_F(p2p, revoked_pin_maps_nothing)
{
	struct dlb2_edu_dma d = { .domain_id = -1 };
	struct dlb2_edu_pin pin = { .len = 64 };
	struct dlb2_edu_dmabuf b = { 0 };
	uint64_t data;
	unsigned int i;
	int buf, edu2;

	if (!self->version)
		return;
	pin.va = (uintptr_t)self->pp;
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN, &pin));
	buf = ioctl(self->pfd, DLB2_IOC_EXPORT_DMABUF, O_CLOEXEC);
	ASSERT_LE(0, buf);
	/* Live: what the CPU writes through the pin arrives. */
	hcws(&d, self->cinfo.dir_queue_id, 500);
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN_CPU_WRITE, &d));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(1, next_qe(self, &data, 2000));
		EXPECT_EQ(500 + i, data);
	}

	munmap(self->pp, DLB2_PP_SIZE);
	self->pp = NULL;
	close(self->pfd);
	self->pfd = -1;
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_PIN_STATE, &pin));
	ASSERT_EQ(1, pin.revoked);
	EXPECT_EQ(-1, ioctl(self->edu, DLB2_EDU_PIN_MAP, &pin)) {
		TH_LOG("a revoked pin was mapped at %#llx",
		       (unsigned long long)pin.dma_addr);
	}
	EXPECT_EQ(ENODEV, errno);
	hcws(&d, self->cinfo.dir_queue_id, 510);
	EXPECT_EQ(-1, ioctl(self->edu, DLB2_EDU_PIN_CPU_WRITE, &d)) {
		TH_LOG("a revoked pin gave its CPU address");
	}
	EXPECT_EQ(ENODEV, errno);
	edu2 = open("/dev/dlb2_edu", O_RDWR);
	ASSERT_LE(0, edu2);
	b.fd = buf;
	EXPECT_EQ(-1, ioctl(edu2, DLB2_EDU_DMABUF_ATTACH, &b));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(0, next_qe(self, &data, 300));
	close(edu2);
	close(buf);
}

/*
 * The unmapper of pin_races_last_munmap: a real-time thread on the
 * pinner's CPU.  Each round it sleeps until @wake, then unmaps @pp, the
 * port's last reference; the kernel switches to it at once if the pinner
 * runs in user space, else at the pinner's next preemption point.
 */
struct pin_race {
	sem_t go, done;
	void *pp;		/* NULL: stop */
	struct timespec wake;
	int err;		/* setting up the thread */
};

static void *pin_race_unmapper(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	struct pin_race *r = arg;

	r->err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	sem_post(&r->done);
	for (;;) {
		while (sem_wait(&r->go) && errno == EINTR)
			;
		if (!r->pp)
			return NULL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &r->wake,
				       NULL) == EINTR)
			;
		munmap(r->pp, DLB2_PP_SIZE);
		sem_post(&r->done);
	}
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/*
 * A pin taken while the last reference of the port's file goes (its last
 * mapping, unmapped by another thread): either the pin is refused (the
 * mapping was gone), or the file's release sees it and revokes it.  What
 * must not happen is the release running between dlb2_p2p_get() finding
 * the mapping and the pin being listed: the pin would outlive the file and
 * write into the producer port of the port's next opener.  The unmapper
 * is a real-time thread on the pinner's CPU, woken by a timer 100 us after
 * the round starts; the pinner spins in user space for a while before it
 * pins, a while that dithers around the boundary between "refused" (the
 * timer fired while it spun) and "pinned" (a step less after a refusal,
 * more after a pin), where that window is.  After each round the port
 * opens again, and a pin that was taken must be revoked and its DMA
 * refused.  DLB2_PIN_RACE_SECONDS: how long (4 s).
 */
TEST_F(p2p, pin_races_last_munmap)
{
	const char *env = getenv("DLB2_PIN_RACE_SECONDS");
	int64_t end = now_ns() + (env ? atof(env) : 4) * 1e9;
	int64_t base, spin = 100000, step = 1000;
	unsigned long rounds = 0, pinned = 0, refused = 0, other = 0;
	unsigned long alive = 0, delivered = 0;
	struct dlb2_edu_dma d = { .domain_id = -1 };
	struct dlb2_edu_pin pin;
	struct pin_race r = { 0 };
	char node[PATH_MAX];
	uint64_t data;
	pthread_t t;
	cpu_set_t cpus;
	int fd, edu, ret, err;

	if (!self->version)
		return;
	pathf(node, "/dev/dlb2/%ld/kp2p/p", self->dev_id);
	munmap(self->pp, DLB2_PP_SIZE);
	self->pp = NULL;
	close(self->pfd);
	self->pfd = -1;
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	ASSERT_EQ(0, sem_init(&r.go, 0, 0));
	ASSERT_EQ(0, sem_init(&r.done, 0, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, pin_race_unmapper, &r));
	while (sem_wait(&r.done) && errno == EINTR)
		;
	if (r.err) {
		r.pp = NULL;
		sem_post(&r.go);
		pthread_join(t, NULL);
		SKIP(return, "no SCHED_FIFO thread: %s", strerror(r.err));
	}
	while (now_ns() < end) {
		fd = open(node, O_RDWR);
		ASSERT_LE(0, fd);
		r.pp = mmap(NULL, DLB2_PP_SIZE, PROT_WRITE, MAP_SHARED, fd,
			    DLB2_MMAP_PP_OFFSET);
		ASSERT_NE(MAP_FAILED, r.pp);
		close(fd);		/* the mapping is the last reference */
		edu = open("/dev/dlb2_edu", O_RDWR);
		ASSERT_LE(0, edu);
		pin = (struct dlb2_edu_pin){ .va = (uintptr_t)r.pp, .len = 64 };
		base = now_ns();
		r.wake.tv_sec = (base + 100000) / 1000000000;
		r.wake.tv_nsec = (base + 100000) % 1000000000;
		sem_post(&r.go);
		while (now_ns() < base + spin)
			;
		ret = ioctl(edu, DLB2_EDU_PIN, &pin);
		err = errno;
		while (sem_wait(&r.done) && errno == EINTR)
			;
		rounds++;
		if (!ret) {
			pinned++;
			ASSERT_EQ(0, ioctl(edu, DLB2_EDU_PIN_STATE, &pin));
			hcws(&d, self->cinfo.dir_queue_id, 4 * rounds);
			if (pin.revoked != 1 && !alive++)
				TH_LOG("round %lu: the pin outlived the file (%u revocations)",
				       rounds, pin.revoked);
			if (!ioctl(edu, DLB2_EDU_PIN_DMA, &d))
				delivered += next_qe(self, &data, 1000);
		} else if (err == EINVAL) {
			refused++;
		} else if (!other++) {
			TH_LOG("round %lu: pin failed: %s", rounds, strerror(err));
		}
		/* The port's next opener gets it, and nothing of the pin. */
		fd = open(node, O_RDWR);
		EXPECT_LE(0, fd);
		if (fd >= 0)
			close(fd);
		close(edu);
		/* Dither around the boundary between refused and pinned. */
		spin += (ret ? -step : step) + rand() % 1001 - 500;
		if (spin < 0)
			spin = 0;
	}
	r.pp = NULL;
	sem_post(&r.go);
	pthread_join(t, NULL);
	TH_LOG("%lu rounds: %lu pinned, %lu refused, %lu other", rounds,
	       pinned, refused, other);
	TH_LOG("%lu pins outlived the file, %lu of their DMAs reached the port",
	       alive, delivered);
	EXPECT_EQ(0, alive);
	EXPECT_EQ(0, delivered);
	EXPECT_EQ(0, other);
	/* Both sides of the boundary were reached: the window was in range. */
	EXPECT_LT(0, pinned);
	EXPECT_LT(0, refused);
}

/*
 * Minors are not reused at once: a device node made for a port of a domain
 * that was re-created since does not open the new domain's port.
 */
TEST_F(p2p, stale_node_reaches_nothing)
{
	char node[PATH_MAX], dir[] = "/tmp/dlb2_p2p_XXXXXX", stale[PATH_MAX];
	struct stat st, now;
	int fd;

	if (!self->version)
		return;
	pathf(node, "/dev/dlb2/%ld/kp2p/p", self->dev_id);
	ASSERT_EQ(0, stat(node, &st));
	close_ports(self);
	ASSERT_EQ(0, write_attr(self->dom, "enable", "0"));
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	ASSERT_EQ(0, stat(node, &now));
	EXPECT_NE(st.st_rdev, now.st_rdev);
	ASSERT_NE(NULL, mkdtemp(dir));
	pathf(stale, "%s/p", dir);
	ASSERT_EQ(0, mknod(stale, S_IFCHR | 0600, st.st_rdev));
	fd = open(stale, O_RDWR);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ENODEV, errno);
	if (fd >= 0)
		close(fd);
	unlink(stale);
	rmdir(dir);
	ASSERT_EQ(0, open_ports(self));
}

/* The producer port as a dma-buf, imported by the edu device. */
struct disabler {
	const char *dom;
	atomic_int done;
	int ret;
};

static void *disable_domain(void *arg)
{
	struct disabler *d = arg;

	d->ret = write_attr(d->dom, "enable", "0");
	d->done = 1;
	return NULL;
}

TEST_F(p2p, dmabuf_export_import_revoke)
{
	struct disabler dis = { .dom = self->dom };
	struct dlb2_edu_dmabuf d = { 0 };
	struct dlb2_edu_dma tmp;
	uint64_t data;
	unsigned int i;
	pthread_t t;
	int buf, edu2;

	if (!self->version)
		return;
	EXPECT_EQ(-1, ioctl(self->pfd, DLB2_IOC_EXPORT_DMABUF, 0x4));
	EXPECT_EQ(EINVAL, errno);
	buf = ioctl(self->pfd, DLB2_IOC_EXPORT_DMABUF, O_CLOEXEC);
	ASSERT_LE(0, buf);
	/* Only a dma-buf, not its memory, reaches user space. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, buf, 0));
	d.fd = buf;
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_ATTACH, &d));
	/* A pin could not be revoked: refused. */
	EXPECT_EQ(-1, ioctl(self->edu, DLB2_EDU_DMABUF_PIN));
	EXPECT_EQ(EOPNOTSUPP, errno);
	hcws(&tmp, self->cinfo.dir_queue_id, 300);
	d.len = tmp.len;
	memcpy(d.data, tmp.data, sizeof(d.data));
	if (ioctl(self->edu, DLB2_EDU_DMABUF_DMA, &d))
		TH_LOG("dma-buf DMA: %s", strerror(errno));
	ASSERT_NE(0, d.dma_addr);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(1, next_qe(self, &data, 2000));
		EXPECT_EQ(300 + i, data);
	}
	EXPECT_EQ(0, d.moves);
	/*
	 * Disabling the domain revokes it: the importer is told, and the
	 * disable waits for what the importer still has queued on the buffer
	 * (its fence) before the port can be reused.
	 */
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_FENCE));
	ASSERT_EQ(0, pthread_create(&t, NULL, disable_domain, &dis));
	/* The importer is told (moves), then the disable waits. */
	EXPECT_TRUE(dlb2_poll_until(!ioctl(self->edu, DLB2_EDU_DMABUF_STATE, &d) &&
				    d.moves, 5000)) {
		TH_LOG("the importer was not told of the revocation within 5 s (moves %u, disable %s)",
		       (unsigned int)d.moves, dis.done ? "returned" : "waits");
	}
	EXPECT_EQ(1, d.moves);
	/*
	 * It must not return while the fence is unsignalled: watched for
	 * 500 ms, a window (the absence of an event), not a wait.
	 */
	EXPECT_FALSE(dlb2_poll_until(dis.done, 500)) {
		TH_LOG("the disable returned before the importer's fence signalled");
	}
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_SIGNAL));
	pthread_join(t, NULL);
	EXPECT_EQ(1, dis.done);
	EXPECT_EQ(0, dis.ret);
	/* Maps fail now ... */
	EXPECT_EQ(-1, ioctl(self->edu, DLB2_EDU_DMABUF_DMA, &d));
	EXPECT_EQ(ENODEV, errno);
	/* ... and so does a new importer's attach. */
	edu2 = open("/dev/dlb2_edu", O_RDWR);
	ASSERT_LE(0, edu2);
	EXPECT_EQ(-1, ioctl(edu2, DLB2_EDU_DMABUF_ATTACH, &d));
	EXPECT_EQ(ENODEV, errno);
	close(edu2);
	/* And the dead port exports nothing more. */
	EXPECT_EQ(-1, ioctl(self->pfd, DLB2_IOC_EXPORT_DMABUF, 0));
	EXPECT_EQ(ENODEV, errno);
	close(buf);
}

/*
 * A fence that never signals (anyone who can open the dma-buf can add one)
 * holds a revocation for fence_wait_ms at most: the disable returns after
 * that bound and the domain's resources come back.  The parameter refuses
 * values outside 1-600000 ms.
 */
TEST_F(p2p, revoke_fence_wait_is_bounded)
{
	struct disabler dis = { .dom = self->dom };
	struct dlb2_edu_dmabuf d = { 0 };
	struct timespec t0, t1;
	char old[32], avail[PATH_MAX];
	long domains, ms;
	pthread_t t;
	bool have;
	int buf;

	if (!self->version)
		return;
	/* Without the parameter, the wait below shows what the bound is for. */
	have = !sysfs_read(FENCE_WAIT_MS, old, sizeof(old));
	EXPECT_TRUE(have) {
		TH_LOG("no %s", FENCE_WAIT_MS);
	}
	if (have) {
		EXPECT_STREQ("30000", old);
		EXPECT_EQ(-ERANGE, sysfs_write(FENCE_WAIT_MS, "0"));
		EXPECT_EQ(-ERANGE, sysfs_write(FENCE_WAIT_MS, "600001"));
		EXPECT_EQ(-EINVAL, sysfs_write(FENCE_WAIT_MS, "1s"));
		ASSERT_EQ(0, sysfs_write(FENCE_WAIT_MS, "1000"));
	}
	pathf(avail, "%s/avail_resources", self->pci);
	domains = read_num(avail, "domains");
	buf = ioctl(self->pfd, DLB2_IOC_EXPORT_DMABUF, O_CLOEXEC);
	ASSERT_LE(0, buf);
	d.fd = buf;
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_ATTACH, &d));
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_FENCE));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, pthread_create(&t, NULL, disable_domain, &dis));
	for (ms = 0; ms < 20000 && !dis.done; ms += 10)
		usleep(10000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	EXPECT_EQ(1, dis.done) {
		TH_LOG("the revocation still waits for the fence after %ld ms", ms);
	}
	EXPECT_LE(1000, ms);
	/* Let a revocation that still waits go, whatever happened. */
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_SIGNAL));
	pthread_join(t, NULL);
	EXPECT_EQ(0, dis.ret);
	EXPECT_EQ(domains + 1, read_num(avail, "domains"));
	if (have)
		EXPECT_EQ(0, sysfs_write(FENCE_WAIT_MS, old));
	close(buf);
}

/*
 * An importer that writes with the CPU (rxe) takes the dma-buf's kernel
 * mapping (vmap).  When the port dies its pins are all marked revoked
 * first, then their callbacks run one at a time; while the first waits
 * for its importer's fence, the second buffer's importer has not been
 * told yet and may still vmap: that must work (the dma-buf core warns
 * when an exporter's vmap fails), and the callback, when it comes, tells
 * that importer too.  Before, the HCWs through the mapping come out.
 */
TEST_F(p2p, dmabuf_vmap_while_a_revocation_runs)
{
	struct disabler dis = { .dom = self->dom };
	struct dlb2_edu_dmabuf d1 = { 0 }, d2 = { 0 };
	struct dlb2_edu_dma tmp;
	int buf1, buf2, edu2;
	uint64_t data;
	unsigned int i;
	pthread_t t;

	if (!self->version)
		return;
	buf1 = ioctl(self->pfd, DLB2_IOC_EXPORT_DMABUF, O_CLOEXEC);
	buf2 = ioctl(self->pfd, DLB2_IOC_EXPORT_DMABUF, O_CLOEXEC);
	ASSERT_LE(0, buf1);
	ASSERT_LE(0, buf2);
	edu2 = open("/dev/dlb2_edu", O_RDWR);
	ASSERT_LE(0, edu2);
	d1.fd = buf1;
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_ATTACH, &d1));
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_FENCE));
	d2.fd = buf2;
	ASSERT_EQ(0, ioctl(edu2, DLB2_EDU_DMABUF_ATTACH, &d2));
	hcws(&tmp, self->cinfo.dir_queue_id, 500);
	d2.len = tmp.len;
	memcpy(d2.data, tmp.data, sizeof(d2.data));
	ASSERT_EQ(0, ioctl(edu2, DLB2_EDU_DMABUF_VMAP, &d2)) {
		TH_LOG("write through the kernel mapping: %s", strerror(errno));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(1, next_qe(self, &data, 2000));
		EXPECT_EQ(500 + i, data);
	}
	ASSERT_EQ(0, pthread_create(&t, NULL, disable_domain, &dis));
	/* buf1's callback told its importer, and now waits for the fence. */
	EXPECT_TRUE(dlb2_poll_until(!ioctl(self->edu, DLB2_EDU_DMABUF_STATE, &d1) &&
				    d1.moves, 5000)) {
		TH_LOG("the first importer was not told within 5 s");
	}
	d2.len = 0;
	EXPECT_EQ(0, ioctl(edu2, DLB2_EDU_DMABUF_VMAP, &d2)) {
		TH_LOG("vmap of a buffer whose pin is revoked, its importer not told yet: %s",
		       strerror(errno));
	}
	EXPECT_EQ(0, d2.moves);		/* it was in that window */
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_SIGNAL));
	pthread_join(t, NULL);
	EXPECT_EQ(0, dis.ret);
	ASSERT_EQ(0, ioctl(edu2, DLB2_EDU_DMABUF_STATE, &d2));
	EXPECT_EQ(1, d2.moves);
	EXPECT_EQ(-1, ioctl(edu2, DLB2_EDU_DMABUF_VMAP, &d2));
	EXPECT_EQ(ENODEV, errno);
	close(edu2);
	close(buf1);
	close(buf2);
}

/* What configure_meanwhile() saw and did, and whether it finished. */
struct meanwhile {
	const char *pci;
	const char *dom2;
	long avail_domains, avail_dir_ports;
	atomic_int done;
	int ret;
};

/*
 * Configure the device while another domain's revocation waits for a
 * holder: sysfs (the free resources), then a second domain created,
 * enabled, disabled and removed through configfs.  Each takes the device
 * lock.
 */
static void *configure_meanwhile(void *arg)
{
	struct meanwhile *m = arg;
	char avail[PATH_MAX];

	pathf(avail, "%s/avail_resources", m->pci);
	m->avail_domains = read_num(avail, "domains");
	m->avail_dir_ports = read_num(avail, "dir_ports");
	m->ret = make_domain(m->dom2);
	m->ret = m->ret ?: write_attr(m->dom2, "enable", "0");
	cfs_domain_destroy(m->dom2);
	m->done = 1;
	return NULL;
}

/*
 * A holder's revoke callback runs with no dlb2 lock held: while the
 * dma-buf's callback waits for the importer's fence (as a peer-memory
 * invalidation waits for another process), the device can still be
 * configured; and the revoked domain keeps its resources, its ports
 * included, until the callback has returned.
 */
TEST_F(p2p, revoke_callbacks_hold_no_lock)
{
	struct meanwhile m = { .pci = self->pci, .dom2 = self->dom2 };
	struct disabler dis = { .dom = self->dom };
	struct dlb2_edu_dmabuf d = { 0 };
	long domains, dir_ports;
	char avail[PATH_MAX];
	pthread_t t, t2;
	unsigned int ms;
	int buf;

	if (!self->version)
		return;
	pathf(avail, "%s/avail_resources", self->pci);
	domains = read_num(avail, "domains");
	dir_ports = read_num(avail, "dir_ports");
	buf = ioctl(self->pfd, DLB2_IOC_EXPORT_DMABUF, O_CLOEXEC);
	ASSERT_LE(0, buf);
	d.fd = buf;
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_ATTACH, &d));
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_FENCE));
	ASSERT_EQ(0, pthread_create(&t, NULL, disable_domain, &dis));
	/* The callback has told the importer and now waits for its fence. */
	for (ms = 0; ms < 5000; ms += 10) {
		ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_STATE, &d));
		if (d.moves)
			break;
		usleep(10000);
	}
	EXPECT_EQ(1, d.moves);
	ASSERT_EQ(0, pthread_create(&t2, NULL, configure_meanwhile, &m));
	for (ms = 0; ms < 10000 && !m.done; ms += 10)
		usleep(10000);
	EXPECT_EQ(1, m.done) {
		TH_LOG("configuring the device waited for a revoke callback");
	}
	EXPECT_EQ(0, dis.done);
	/* Let the callback return, whatever happened. */
	ASSERT_EQ(0, ioctl(self->edu, DLB2_EDU_DMABUF_SIGNAL));
	pthread_join(t, NULL);
	pthread_join(t2, NULL);
	EXPECT_EQ(0, dis.ret);
	EXPECT_EQ(0, m.ret);
	/* Until then the revoked domain held its domain and its ports ... */
	EXPECT_EQ(domains, m.avail_domains);
	EXPECT_EQ(dir_ports, m.avail_dir_ports);
	/* ... which are free now. */
	EXPECT_EQ(domains + 1, read_num(avail, "domains"));
	EXPECT_EQ(dir_ports + 2, read_num(avail, "dir_ports"));
	close(buf);
}

TEST_HARNESS_MAIN

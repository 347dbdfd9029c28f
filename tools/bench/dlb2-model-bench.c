// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2-model-bench: throughput of a DLB device as seen from user space, for
 * measuring the QEMU model under TCG (tools/qemu).  Runs as root in the VM
 * on a DLB bound to no driver: maps its BARs through sysfs, resets it (FLR),
 * places CQ rings in a hugepage (bus address = physical address: run without
 * an IOMMU), and measures
 *   - plain 8-byte MMIO writes to a producer port (the emulation's limit),
 *   - a directed pipeline: NEW bursts into one directed queue, dequeue,
 *     token return,
 *   - a load-balanced pipeline: NEW bursts into an unordered LDB queue,
 *     dequeue, completion and token return,
 * checking every payload that comes out.
 *
 * Usage: dlb2-model-bench BDF [QES]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../qemu/tests/dlb2-prog.h"

#define BURST		16
#define CQ_DEPTH	64
#define HUGE_SIZE	(2u << 20)

struct bench {
	DLB2Dev d;		/* first: the accessors get this */
	volatile uint8_t *csr, *func;
	uint8_t *mem;		/* hugepage holding the CQ rings */
	uint64_t mem_pa;
};

#define B(t) ((struct bench *)(t))

static uint32_t b_rd(DLB2Dev *t, uint32_t off)
{
	return *(volatile uint32_t *)(B(t)->csr + off);
}

static void b_wr(DLB2Dev *t, uint32_t off, uint32_t val)
{
	*(volatile uint32_t *)(B(t)->csr + off) = val;
}

static void b_func_wq(DLB2Dev *t, uint64_t off, uint64_t val)
{
	*(volatile uint64_t *)(B(t)->func + off) = val;
}

static void b_mem_rd(DLB2Dev *t, uint64_t addr, void *buf, size_t len)
{
	memcpy(buf, B(t)->mem + (addr - B(t)->mem_pa), len);
}

static void die(const char *what)
{
	fprintf(stderr, "dlb2-model-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static volatile uint8_t *map_bar(const char *bdf, int bar, size_t len)
{
	char path[128];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource%d", bdf, bar);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0)
		die(path);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap BAR");
	close(fd);
	return p;
}

static void sysfs_write(const char *bdf, const char *file, const char *val)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, file);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		die(path);
	close(fd);
}

/* Memory decoding and bus mastering, so that the CQ writes land. */
static void enable_dma(const char *bdf)
{
	char path[128];
	uint16_t cmd;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", bdf);
	fd = open(path, O_RDWR);
	if (fd < 0 || pread(fd, &cmd, 2, 4) != 2)
		die(path);
	cmd |= 0x6;	/* PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER */
	if (pwrite(fd, &cmd, 2, 4) != 2)
		die(path);
	close(fd);
}

static uint64_t virt_to_phys(void *va)
{
	uint64_t entry;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0 || pread(fd, &entry, 8, (uintptr_t)va / 4096 * 8) != 8)
		die("pagemap");
	close(fd);
	if (!(entry & (1ull << 63)) || !(entry & ((1ull << 55) - 1)))
		die("page not present or no PFN (not root?)");
	return (entry & ((1ull << 55) - 1)) * 4096;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Enqueue n QEs in bursts, dequeue and release them; QEs per second. */
static double pipeline(DLB2Dev *t, bool ldb, unsigned int port, unsigned int qid,
		       uint64_t cq_pa, unsigned int n)
{
	uint64_t pp = ldb ? PP_LDB(port) : PP_DIR(port);
	CQ cq = cq_of(cq_pa, CQ_DEPTH, false);
	unsigned int sent = 0, got = 0, i, k;
	double t0 = now();
	QE qe;

	while (got < n) {
		for (i = 0; i < BURST; i++, sent++)
			hcw(t, pp, NEW, qid, ldb ? UNORDERED : DIRECTED, 0, 0, sent);
		for (k = 0; k < BURST; got++, k++) {
			for (i = 0; !cq_pop(t, &cq, &qe); i++) {
				if (i == 10000000) {
					fprintf(stderr, "QE %u never came\n", got);
					exit(1);
				}
			}
			if (qe.data != got) {
				fprintf(stderr, "QE %u came out as %llu\n", got,
					(unsigned long long)qe.data);
				exit(1);
			}
			if (ldb && k < BURST - 1)
				hcw(t, pp, COMP, 0, 0, 0, 0, 0);
		}
		/* the burst's tokens (and the last completion) at once */
		hcw(t, pp, ldb ? COMP_T : BAT_T, 0, 0, 0, BURST - 1, 0);
	}
	return n / (now() - t0);
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	DLB2Dev *t = &b.d;
	unsigned int n = argc > 2 ? strtoul(argv[2], NULL, 0) : 100000, i;
	char path[128], id[16] = "";
	double t0, mmio;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: %s BDF [QES]\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", argv[1]);
	f = fopen(path, "r");
	if (!f || !fgets(id, sizeof(id), f))
		die(path);
	fclose(f);
	t->v25 = strtoul(id, NULL, 16) == 0x2714;
	t->ndir = t->v25 ? 96 : 64;
	t->rd = b_rd;
	t->wr = b_wr;
	t->func_wq = b_func_wq;
	t->mem_rd = b_mem_rd;

	sysfs_write(argv[1], "reset", "1");	/* FLR: a clean device */
	enable_dma(argv[1]);
	b.func = map_bar(argv[1], 0, 64u << 20);
	b.csr = map_bar(argv[1], 2, 4ull << 30);
	b.mem = mmap(NULL, HUGE_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_LOCKED, -1, 0);
	if (b.mem == MAP_FAILED)
		die("hugepage (set vm.nr_hugepages)");
	memset(b.mem, 0, HUGE_SIZE);
	b.mem_pa = virt_to_phys(b.mem);
	wr(t, CM_PM_PMCSR_DISABLE, 0);

	/* 1. The emulation's limit: 8-byte writes, dropped by an idle port. */
	t0 = now();
	for (i = 0; i < 8 * n; i++)
		t->func_wq(t, PP_LDB(63) + (i & 7) * 8, 0);
	mmio = 8 * n / (now() - t0);

	/* 2. Directed: pair 0.  3. Load-balanced: LDB queue 0 to LDB port 0. */
	dir_pair(t, 0, 0, CQ_DEPTH, b.mem_pa);
	ldb_queue(t, 0, 0, 0, 0);
	ldb_port(t, 0, 0, CQ_DEPTH, 0, CQ_DEPTH, b.mem_pa + 0x10000);
	map(t, 0, 0, 0, 0);
	set_credits(t, 0, 256, 256);
	start(t, 0, 1, 1);

	printf("DLB %s model, %u QEs per pipeline, bursts of %u\n",
	       t->v25 ? "2.5" : "2.0", n, BURST);
	printf("  8-byte MMIO writes to a producer port: %10.0f /s\n", mmio);
	printf("  directed pipeline (NEW, dequeue, BAT_T): %8.0f QEs/s\n",
	       pipeline(t, false, 0, 0, b.mem_pa, n));
	printf("  load-balanced unordered (NEW, dequeue, COMP): %.0f QEs/s\n",
	       pipeline(t, true, 0, 0, b.mem_pa + 0x10000, n));
	if (rd(t, SYS_ALARM_PF_SYND0) >> 31) {
		fprintf(stderr, "alarm raised: SYND0 %#x\n", rd(t, SYS_ALARM_PF_SYND0));
		return 1;
	}
	return 0;
}

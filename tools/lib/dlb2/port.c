// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libdlb2: port devices (/dev/dlb2/<N>/<domain>/<port>): open, port info,
 * the three mappings (PP, CQ, credit page), blocking wait, close.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "internal.h"

#define DEFAULT_QUANTA		32
#define DEFAULT_IDLE_FLUSH	1024

bool dlb2_cpu_has_movdir64b(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 28));
#else
	return false;
#endif
}

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* Check p->info and derive the data-path fields from it. */
int dlb2_port_setup(struct dlb2_port *p, const struct dlb2_port_opts *opts,
		    void *credit_page)
{
	const struct dlb2_port_info *i = &p->info;
	uint32_t units;
	unsigned int k;

	if ((i->cq_stride != 16 && i->cq_stride != 64) || !pow2(i->cq_entries) ||
	    i->cq_entries < i->cq_depth || !i->cq_depth ||
	    i->cq_size != i->cq_entries * i->cq_stride ||
	    i->cq_size > DLB2_CQ_MAX_SIZE || i->num_pools < 1 || i->num_pools > 2)
		return -EPROTO;
	p->cq_step = i->cq_stride / 16;
	units = i->cq_entries * p->cq_step;
	p->cq_mask = units - 1;
	for (p->cq_shift = 0; (1u << p->cq_shift) < units; p->cq_shift++)
		;
	p->cq_idx = 0;
	p->tokens = 0;
	p->comps = 0;
	p->ldb = i->flags & DLB2_PORT_LDB;
	p->deny = p->ldb ? 0 : DLB2_C_LDB;
	p->dir_pool = i->num_pools == 2 ? DLB2_CREDIT_POOL_DIR : 0;
	p->deq_pool = p->ldb ? 0 : p->dir_pool;
	p->flags = opts ? opts->flags : 0;
	p->quanta = opts && opts->quanta ? opts->quanta : DEFAULT_QUANTA;
	p->idle = 0;
	p->idle_flush = opts && opts->idle_flush ? opts->idle_flush :
			DEFAULT_IDLE_FLUSH;
	for (k = 0; k < 2; k++) {
		p->cache[k] = 0;
		p->pool[k] = (uint64_t *)((char *)credit_page +
			     DLB2_CREDIT_POOL_OFFSET(k < i->num_pools ? k : 0));
	}
	p->pp_mode = !(p->flags & DLB2_OPEN_FORCE_SSE) && dlb2_cpu_has_movdir64b() ?
		     DLB2_PP_MOVDIR64B : DLB2_PP_SSE;
	return 0;
}

int dlb2_port_set_pp_mode(struct dlb2_port *p, enum dlb2_pp_mode mode)
{
	if (mode == DLB2_PP_MOVDIR64B && !dlb2_cpu_has_movdir64b())
		return -EOPNOTSUPP;
	if (mode == DLB2_PP_CAPTURE && !p->mem)
		return -EINVAL;
	if (mode > DLB2_PP_CAPTURE)
		return -EINVAL;
	p->pp_mode = mode;
	return 0;
}

static void *map(int fd, size_t len, int prot, off_t off)
{
	void *m = mmap(NULL, len, prot, MAP_SHARED, fd, off);

	return m == MAP_FAILED ? NULL : m;
}

int dlb2_port_open_path(const char *path, const struct dlb2_port_opts *opts,
			struct dlb2_port **pp)
{
	struct dlb2_port *p;
	int err;

	dlb2_clear_error();
	*pp = NULL;
	p = aligned_alloc(64, (sizeof(*p) + 63) & ~(size_t)63);
	if (!p)
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	/* O_NONBLOCK: read() of the interrupt count never sleeps */
	p->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (p->fd < 0) {
		err = dlb2_fail(-errno, "open", path, "");
		free(p);
		return err;
	}
	if (ioctl(p->fd, DLB2_IOC_PORT_INFO, &p->info)) {
		err = dlb2_fail(-errno, "ioctl", path, "DLB2_IOC_PORT_INFO");
		goto fail;
	}
	p->pp_map = map(p->fd, DLB2_PP_SIZE, PROT_WRITE, DLB2_MMAP_PP_OFFSET);
	if (!p->pp_map) {
		err = dlb2_fail(-errno, "mmap", path, "PP");
		goto fail;
	}
	p->credit_map = map(p->fd, DLB2_CREDIT_PAGE_SIZE, PROT_READ | PROT_WRITE,
			    DLB2_MMAP_CREDIT_OFFSET);
	if (!p->credit_map) {
		err = dlb2_fail(-errno, "mmap", path, "credit page");
		goto fail;
	}
	err = dlb2_port_setup(p, opts, p->credit_map);
	if (err) {
		dlb2_fail(err, "ioctl", path, "DLB2_IOC_PORT_INFO: bad values");
		goto fail;
	}
	p->cq_map = map(p->fd, p->info.cq_size, PROT_READ, DLB2_MMAP_CQ_OFFSET);
	if (!p->cq_map) {
		err = dlb2_fail(-errno, "mmap", path, "CQ");
		goto fail;
	}
	p->pp = p->pp_map;
	p->cq = p->cq_map;
	*pp = p;
	return 0;
fail:
	if (p->pp_map)
		munmap(p->pp_map, DLB2_PP_SIZE);
	if (p->credit_map)
		munmap(p->credit_map, DLB2_CREDIT_PAGE_SIZE);
	close(p->fd);
	free(p);
	return err;
}

int dlb2_port_open(int dev, const char *domain, const char *port,
		   const struct dlb2_port_opts *opts, struct dlb2_port **p)
{
	char path[PATH_MAX];

	*p = NULL;
	if (dev < 0 || !dlb2_name_valid(domain) || !dlb2_name_valid(port))
		return dlb2_fail(-EINVAL, "open", domain ? domain : "", port);
	snprintf(path, sizeof(path), "%s/%d/%s/%s", dlb2_dev_root(), dev,
		 domain, port);
	return dlb2_port_open_path(path, opts, p);
}

void dlb2_mem_free(struct dlb2_port *p);

/*
 * Whether the driver revoked the port's mappings (domain disabled, reset,
 * unbind): it reports POLLHUP/POLLERR then, and touching them would SIGBUS.
 */
static bool revoked(struct dlb2_port *p)
{
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

	return !p->mem && poll(&pfd, 1, 0) > 0 &&
	       (pfd.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/*
 * Leave the port clean for its next user: return the tokens, complete what
 * a load-balanced port still holds (its QEs are dropped), give the cached
 * credits back.
 */
void dlb2_port_close(struct dlb2_port *p)
{
	if (!p)
		return;
	if (!revoked(p)) {
		if (p->ldb && p->comps)
			dlb2_release(p, p->comps);
		dlb2_return_tokens(p);
		dlb2_credits_flush(p);
	}
	if (p->mem) {
		dlb2_mem_free(p);
		return;
	}
	munmap(p->pp_map, DLB2_PP_SIZE);
	munmap(p->cq_map, p->info.cq_size);
	munmap(p->credit_map, DLB2_CREDIT_PAGE_SIZE);
	close(p->fd);
	free(p);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* In-memory port: nothing raises an interrupt, so sleep and look. */
static int mem_wait(struct dlb2_port *p, int timeout_ms)
{
	const struct timespec nap = { 0, 100 * 1000 };
	int64_t end = now_ms() + timeout_ms;

	while (!dlb2_cq_ready(p)) {
		if (timeout_ms >= 0 && now_ms() >= end)
			return 0;
		nanosleep(&nap, NULL);
	}
	return 1;
}

int dlb2_wait(struct dlb2_port *p, int timeout_ms)
{
	int64_t end = now_ms() + timeout_ms;
	struct pollfd pfd;
	struct dlb2_hcw arm;
	uint64_t count;
	int left, r;

	dlb2_return_tokens(p);		/* outstanding tokens fire the interrupt */
	if (dlb2_cq_ready(p))
		return 1;
	if (p->mem)
		return mem_wait(p, timeout_ms);
	if (!(p->info.flags & DLB2_PORT_INTERRUPT))
		return -EOPNOTSUPP;
	dlb2_hcw_arm(&arm);
	for (;;) {
		dlb2_pp_write(p, &arm, 1);
		/* a QE that came before the arm raises no interrupt */
		if (dlb2_cq_ready(p))
			return 1;
		left = timeout_ms < 0 ? -1 : (int)(end - now_ms());
		if (timeout_ms >= 0 && left < 0)
			left = 0;
		pfd.fd = p->fd;
		pfd.events = POLLIN;
		r = poll(&pfd, 1, left);
		if (r < 0)
			return -errno;
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))
			return pfd.revents & POLLNVAL ? -EBADF : -ENODEV;
		if (r > 0 && read(p->fd, &count, sizeof(count)) < 0 &&
		    errno != EAGAIN)
			return -errno;
		if (dlb2_cq_ready(p))
			return 1;
		if (!r || (timeout_ms >= 0 && now_ms() >= end))
			return 0;
		/* an interrupt of an earlier arm: arm again and sleep */
	}
}

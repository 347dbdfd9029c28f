// SPDX-License-Identifier: GPL-2.0
/*
 * AccDirect over Soft-RoCE: a server process registers a DLB producer port
 * (ibv_reg_mr through peermem_dlb, or ibv_reg_dmabuf_mr on the port's
 * dma-buf) and the domain's credit word; a client
 * process connects with rdma_cm, takes credits with RDMA READ +
 * compare-and-swap and RDMA-WRITEs QEs (four per 64-byte write) into the
 * port; the server's consumer dequeues them.
 *
 * The server is in the initial network namespace, the client in another
 * one, each with an rxe device on its end of a veth pair.  Checked
 * exactly: every payload and size, in order, none lost; the credit pool
 * conserved with CPU threads and the remote side taking and giving
 * concurrently; MR refusals;
 * revocation (domain disable, unbind, or a hot-unplug with the harness's
 * hot-plug control, while the client writes: its writes fail with a remote
 * access error and nothing lands); without global
 * atomics, libdlb2's refusal and the lost updates it prevents.
 *
 * Needs: a DLB, dlb2.ko, rdma_rxe receiving in any namespace (patch 4 of
 * patches/linux), peermem_dlb.ko (a kernel with the peer-memory interface
 * and rxe peer-memory support, patches 1 and 2) for the peer-memory tests,
 * rxe dma-buf MRs (patch 5) for the dma-buf tests, and rxe atomics that are
 * global (patch 3) for the credit tests; skips with the reason otherwise.
 * DLB2_RDMA_QES sets the QE count (default 100000),
 * DLB2_RDMA_CREDIT_OPS the credit take/give pairs of each side (default
 * 200000), DLB2_RDMA_LOSS_SECONDS the time the loss demonstration may
 * take.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/udmabuf.h>
#include <rdma/rdma_cma.h>

#include "libdlb2.h"
#include "libdlb2_rdma.h"

#include "kselftest_harness.h"
#include "dlb2_lib.h"

#define DOM		"krdma"
#define SRV_IP		"10.77.0.1"
#define CLIENT_IP	"10.77.0.2"
#define CLIENT_NS	"dlb2rc"
#define TCP_PORT	7471

/* What the server tells the client when it accepts (private data). */
struct wire {
	uint64_t pp_addr;
	uint64_t credit_addr;
	uint32_t pp_rkey;
	uint32_t credit_rkey;
	uint32_t qid;
	uint32_t count;
	uint32_t mode;
	uint32_t pad;
};

enum { MODE_ENQUEUE, MODE_CREDITS, MODE_CREDIT_ROUNDS, MODE_UNTIL_REVOKED };

/*
 * MODE_CREDIT_ROUNDS: after each round of take/give pairs the client writes
 * a byte to round_done and reads the server's decision from round_go: 'n'
 * for another round, anything else to stop.
 */
static int round_done[2], round_go[2];

/* Client exit codes. */
enum { C_OK, C_SETUP, C_CONNECT, C_NOGLOB, C_RDMA, C_REVOKED, C_NOT_REFUSED };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

/*
 * The server's end, dlb2v0 with rxe device dlb2rxe0, stays in the initial
 * network namespace; the client's end, dlb2v1 with dlb2rxe1, is in
 * namespace CLIENT_NS, so that their packets cross the veth pair as
 * between two hosts.  (rxe receives in other namespaces than the initial
 * one with patch 4 of patches/linux.)
 */
static void net_down(void)
{
	sh("rdma link del dlb2rxe1 2>/dev/null; rdma link del dlb2rxe0 2>/dev/null;"
	   " ip netns del " CLIENT_NS " 2>/dev/null; ip link del dlb2v0 2>/dev/null");
}

static int net_up(void)
{
	net_down();
	return sh("set -e; ip netns add " CLIENT_NS ";"
		  " ip link add dlb2v0 type veth peer name dlb2v1 netns " CLIENT_NS ";"
		  " ip addr add " SRV_IP "/24 dev dlb2v0; ip link set dlb2v0 up;"
		  " ip -n " CLIENT_NS " addr add " CLIENT_IP "/24 dev dlb2v1;"
		  " ip -n " CLIENT_NS " link set dlb2v1 up;"
		  " rdma link add dlb2rxe0 type rxe netdev dlb2v0;"
		  " ip netns exec " CLIENT_NS " rdma link add dlb2rxe1 type rxe netdev dlb2v1");
}

/*
 * Set up once by the harness process, which never opens a verbs device, and
 * removed after the last test: removing an rxe device waits until every
 * process that uses it has closed it (rxe cannot disassociate), and
 * librdmacm keeps the devices of a process open until it exits, so a test
 * process could not remove it itself.
 */
static bool net_ready;

FIXTURE(rdma) {
	char bdf[NAME_MAX + 1];
	const char *version;
	char pci[PATH_MAX];
	char dom[PATH_MAX];
	int dev;
	unsigned int count;		/* QEs to write */
	unsigned int ops;		/* credit take/give pairs per side */
	struct dlb2_port *c;		/* consumer (libdlb2) */
	int pfd;			/* producer port, for its window */
	void *pp;
	bool glob;			/* rxe reports IBV_ATOMIC_GLOB */
	enum dlb2_mr_path mr_path;	/* how serve() registers the window */
};

/* Does the rxe device report atomics that are atomic for the CPUs too? */
static bool atomics_global(void)
{
	struct ibv_device **devs = ibv_get_device_list(NULL);
	struct ibv_context *ctx;
	bool glob = false;
	int i;

	for (i = 0; devs && devs[i]; i++) {
		if (strcmp(ibv_get_device_name(devs[i]), "dlb2rxe0"))
			continue;
		ctx = ibv_open_device(devs[i]);
		if (ctx) {
			glob = !dlb2_rc_check_device(ctx);
			ibv_close_device(ctx);
		}
	}
	ibv_free_device_list(devs);
	return glob;
}

FIXTURE_SETUP(rdma)
{
	const char *qes = getenv("DLB2_RDMA_QES");
	const char *ops = getenv("DLB2_RDMA_CREDIT_OPS");
	char path[PATH_MAX];

	self->pfd = -1;
	self->mr_path = DLB2_MR_PEERMEM;
	self->count = qes ? strtoul(qes, NULL, 0) : 100000;
	self->ops = ops ? strtoul(ops, NULL, 0) : 200000;
	self->version = dlb2_find_device(self->bdf, sizeof(self->bdf));
	if (!self->version)
		SKIP(return, "no DLB 2.0/2.5 PF present");
	if (!net_ready) {
		self->version = NULL;
		SKIP(return, "cannot set up rxe on a veth interface");
	}
	/* Before serve() forks: the context is closed again. */
	self->glob = atomics_global();
	pathf(self->pci, PCI_DEVICES "/%s", self->bdf);
	self->dev = read_num(self->pci, "dev_id");
	pathf(self->dom, CONFIGFS_DLB2 "/dlb2_%d/" DOM, self->dev);
	cfs_domain_destroy(self->dom);
	ASSERT_EQ(0, mkdir_e(self->dom));
	ASSERT_EQ(0, cfs_add_queue(self->dom, "dq", "dir"));
	ASSERT_EQ(0, cfs_add_port(self->dom, "c", "dir"));
	ASSERT_EQ(0, write_attr(pathf(path, "%s/ports/c", self->dom), "cq_depth", "1024"));
	ASSERT_EQ(0, cfs_link(self->dom, "c", "dq"));
	ASSERT_EQ(0, cfs_add_port(self->dom, "p", "dir"));
	ASSERT_EQ(0, write_attr(self->dom, "dir_credits", "256"));
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	ASSERT_EQ(0, dlb2_port_open(self->dev, DOM, "c", NULL, &self->c));
	self->pfd = open(pathf(path, "/dev/dlb2/%d/" DOM "/p", self->dev), O_RDWR);
	ASSERT_LE(0, self->pfd);
	self->pp = mmap(NULL, DLB2_PP_SIZE, PROT_WRITE, MAP_SHARED, self->pfd,
			DLB2_MMAP_PP_OFFSET);
	ASSERT_NE(MAP_FAILED, self->pp);
}

FIXTURE_TEARDOWN(rdma)
{
	if (!self->version)
		return;
	dlb2_rebind(self->bdf);
	if (self->pp && self->pp != MAP_FAILED)
		munmap(self->pp, DLB2_PP_SIZE);
	if (self->pfd >= 0)
		close(self->pfd);
	dlb2_port_close(self->c);
	cfs_domain_destroy(self->dom);
}

/* ---- the client, another process ---------------------------------------- */

static int wait_event(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
		      struct wire *w)
{
	struct rdma_cm_event *ev;
	int ok;

	if (rdma_get_cm_event(ch, &ev))
		return -1;
	ok = ev->event == want;
	if (ok && w && ev->param.conn.private_data_len >= sizeof(*w))
		memcpy(w, ev->param.conn.private_data, sizeof(*w));
	rdma_ack_cm_event(ev);
	return ok ? 0 : -1;
}

static int client(unsigned int force_atomics)
{
	struct rdma_event_channel *ch;
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param cp = { .responder_resources = 4,
				      .initiator_depth = 4, .retry_count = 3 };
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(TCP_PORT) };
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct dlb2_rc rc = { 0 };
	struct dlb2_hcw h[4];
	struct wire w;
	uint64_t seq = 0;
	int ret, k, ns;

	/* Into the client's namespace before librdmacm looks at anything. */
	ns = open("/var/run/netns/" CLIENT_NS, O_RDONLY | O_CLOEXEC);
	if (ns < 0 || setns(ns, CLONE_NEWNET))
		return C_SETUP;
	close(ns);
	inet_pton(AF_INET, SRV_IP, &dst.sin_addr);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) ||
	    wait_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL) ||
	    rdma_resolve_route(id, 2000) ||
	    wait_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL))
		return C_CONNECT;
	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, 32, NULL, NULL, 0) : NULL;
	qpa.send_cq = qpa.recv_cq = cq;
	if (!cq || rdma_create_qp(id, pd, &qpa) || rdma_connect(id, &cp) ||
	    wait_event(ch, RDMA_CM_EVENT_ESTABLISHED, &w))
		return C_CONNECT;
	/* Forcing is for devices that libdlb2 refuses: check it does. */
	if (force_atomics && dlb2_rc_init(&rc, pd, id->qp, cq, 0) != -EOPNOTSUPP)
		return C_NOT_REFUSED;
	ret = dlb2_rc_init(&rc, pd, id->qp, cq, force_atomics ? DLB2_RC_FORCE : 0);
	if (ret == -EOPNOTSUPP)
		return C_NOGLOB;
	if (ret)
		return C_SETUP;
	rc.pp_addr = w.pp_addr;
	rc.pp_rkey = w.pp_rkey;
	rc.credit_addr = w.credit_addr;
	rc.credit_rkey = w.credit_rkey;

	if (w.mode == MODE_CREDITS || w.mode == MODE_CREDIT_ROUNDS) {
		char next = 'n';

		/* take and give back, concurrently with the server's CPUs */
		while (next == 'n') {
			if (dlb2_rc_churn(&rc, w.count, NULL, NULL) < 0)
				return C_RDMA;
			if (w.mode == MODE_CREDITS)
				break;
			if (write(round_done[1], "r", 1) != 1 ||
			    read(round_go[0], &next, 1) != 1)
				return C_SETUP;
		}
		return C_OK;
	}
	while (w.mode == MODE_UNTIL_REVOKED || seq < w.count) {
		ret = dlb2_rc_take(&rc, 4);
		if (ret == -EACCES)
			return C_REVOKED;
		if (ret < 0)
			return C_RDMA;
		if (!ret && w.mode == MODE_UNTIL_REVOKED) {
			/*
			 * No credit (nobody consumes any more): a line of
			 * NOOPs, which need none, still finds out whether
			 * the window was revoked.
			 */
			memset(h, 0, sizeof(h));
			ret = dlb2_rc_enqueue(&rc, h, 4);
			if (ret == -EACCES)
				return C_REVOKED;
			if (ret)
				return C_RDMA;
			ret = 0;
		}
		if (!ret) {
			sched_yield();
			continue;
		}
		memset(h, 0, sizeof(h));
		for (k = 0; k < 4; k++, seq++) {
			h[k].data = 0x10000000ull + seq * 64;	/* "payload pointer" */
			h[k].opaque = 64 + seq % 1400;		/* "payload size" */
			h[k].qid = w.qid;
			h[k].sched = DLB2_SCHED(DLB2_SCHED_DIRECTED, 0);
			h[k].cmd = DLB2_CMD_NEW;
		}
		ret = dlb2_rc_enqueue(&rc, h, 4);
		if (ret == -EACCES)
			return C_REVOKED;
		if (ret)
			return C_RDMA;
	}
	rdma_disconnect(id);
	return C_OK;
}

/* ---- the server ------------------------------------------------------- */

struct server {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen, *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *pp_mr, *credit_mr;
	int reg_errno;
	pid_t client;
};

/* Listen, start the client, register the MRs, accept. */
static int serve(struct server *s, FIXTURE_DATA(rdma) *self, uint32_t mode,
		 uint32_t count, unsigned int force)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(TCP_PORT) };
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param cp = { .responder_resources = 4,
				      .initiator_depth = 4 };
	unsigned int pool = self->c->info.num_pools == 2 ? DLB2_CREDIT_POOL_DIR : 0;
	struct rdma_cm_event *ev;
	struct wire w = { 0 };

	int go[2];
	char c;

	memset(s, 0, sizeof(*s));
	/*
	 * Fork before either side opens a verbs device: a device context
	 * cannot be used across fork() (writes to it answer EACCES).
	 */
	if (pipe(go))
		return -1;
	if (mode == MODE_CREDIT_ROUNDS && (pipe(round_done) || pipe(round_go)))
		return -1;
	s->client = fork();
	if (!s->client) {
		close(go[1]);
		if (mode == MODE_CREDIT_ROUNDS) {
			close(round_done[0]);
			close(round_go[1]);
		}
		_exit(read(go[0], &c, 1) == 1 ? client(force) : C_SETUP);
	}
	close(go[0]);
	if (mode == MODE_CREDIT_ROUNDS) {
		/* so that either side sees the other's end */
		close(round_done[1]);
		close(round_go[0]);
	}
	inet_pton(AF_INET, SRV_IP, &a.sin_addr);
	s->ch = rdma_create_event_channel();
	if (!s->ch || rdma_create_id(s->ch, &s->listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(s->listen, (struct sockaddr *)&a) ||
	    rdma_listen(s->listen, 1)) {
		close(go[1]);
		return -1;
	}
	/* Listening: the client may connect. */
	if (write(go[1], "g", 1) != 1)
		return -1;
	close(go[1]);
	if (rdma_get_cm_event(s->ch, &ev) || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return -1;
	s->id = ev->id;
	rdma_ack_cm_event(ev);
	s->pd = ibv_alloc_pd(s->id->verbs);
	s->cq = ibv_create_cq(s->id->verbs, 4, NULL, NULL, 0);
	if (!s->pd || !s->cq)
		return -1;
	if (mode == MODE_ENQUEUE || mode == MODE_UNTIL_REVOKED) {
		s->pp_mr = dlb2_rdma_reg_pp(s->pd, self->pfd, self->pp,
					    IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_WRITE,
					    self->mr_path, NULL);
		s->reg_errno = s->pp_mr ? 0 : errno ?: EIO;
	}
	s->credit_mr = ibv_reg_mr(s->pd, self->c->pool[pool], 8,
				  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (s->reg_errno || !s->credit_mr) {
		rdma_reject(s->id, NULL, 0);
		waitpid(s->client, NULL, 0);
		return -1;
	}
	qpa.send_cq = qpa.recv_cq = s->cq;
	if (rdma_create_qp(s->id, s->pd, &qpa))
		return -1;
	w = (struct wire){
		.pp_addr = (uintptr_t)self->pp,
		.pp_rkey = s->pp_mr ? s->pp_mr->rkey : 0,
		.credit_addr = (uintptr_t)self->c->pool[pool],
		.credit_rkey = s->credit_mr->rkey,
		.qid = self->c->info.dir_queue_id, .count = count, .mode = mode,
	};
	cp.private_data = &w;
	cp.private_data_len = sizeof(w);
	if (rdma_accept(s->id, &cp))
		return -1;
	if (rdma_get_cm_event(s->ch, &ev))
		return -1;
	rdma_ack_cm_event(ev);
	return 0;
}

/*
 * The tests that register the producer port need peermem_dlb; the remote
 * side takes credits before it writes, which libdlb2 refuses to do with
 * atomics that are not global.
 */
#define NEED_PEERMEM()							\
	do {								\
		if (access("/sys/kernel/peermem_dlb", F_OK))		\
			SKIP(return, "peermem_dlb not loaded (needs a kernel with the peer-memory interface: patches/linux)"); \
	} while (0)
/* A protection domain on the first RDMA device (the test's rxe), or NULL. */
static struct ibv_pd *first_device_pd(void)
{
	struct ibv_device **devs = ibv_get_device_list(NULL);
	struct ibv_context *ctx = devs && devs[0] ? ibv_open_device(devs[0]) : NULL;
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;

	if (ctx && !pd)
		ibv_close_device(ctx);
	if (devs)
		ibv_free_device_list(devs);	/* the opened device stays open */
	return pd;
}

/* Undo first_device_pd(). */
static void pd_close(struct ibv_pd *pd)
{
	struct ibv_context *ctx = pd->context;

	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

/* -1 if unknown yet, else the errno of a dma-buf registration (0: works) */
static int dmabuf_mr_errno = -1;

/* Can the rxe device register the port's dma-buf?  (Not after fork().) */
static int dmabuf_mr_probe(FIXTURE_DATA(rdma) *self)
{
	struct ibv_device **devs = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_mr *mr;
	int err = ENODEV, i;

	for (i = 0; devs && devs[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(devs[i]), "dlb2rxe0"))
			ctx = ibv_open_device(devs[i]);
	if (ctx)
		pd = ibv_alloc_pd(ctx);
	if (pd) {
		mr = dlb2_rdma_reg_pp(pd, self->pfd, self->pp,
				      IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_WRITE,
				      DLB2_MR_DMABUF, NULL);
		err = mr ? 0 : errno;
		if (mr)
			ibv_dereg_mr(mr);
		ibv_dealloc_pd(pd);
	}
	if (ctx)
		ibv_close_device(ctx);
	ibv_free_device_list(devs);
	return err;
}

#define NEED_DMABUF_MR()						\
	do {								\
		if (dmabuf_mr_errno < 0)				\
			dmabuf_mr_errno = dmabuf_mr_probe(self);	\
		if (dmabuf_mr_errno == EOPNOTSUPP)			\
			SKIP(return, "rxe has no dma-buf MRs in this kernel (needs patch 5 of patches/linux)"); \
		ASSERT_EQ(0, dmabuf_mr_errno) {				\
			TH_LOG("ibv_reg_dmabuf_mr: %s", strerror(dmabuf_mr_errno)); \
		}							\
		self->mr_path = DLB2_MR_DMABUF;				\
	} while (0)
#define NEED_GLOBAL_ATOMICS()						\
	do {								\
		if (!self->glob)					\
			SKIP(return, "rxe atomics are not global (no IBV_ATOMIC_GLOB): libdlb2 refuses to share a credit pool with it; patch 3 of patches/linux makes them global"); \
	} while (0)

static int client_status(struct server *s)
{
	int st;

	if (waitpid(s->client, &st, 0) != s->client || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void unserve(struct server *s)
{
	if (s->id && s->id->qp)
		rdma_destroy_qp(s->id);
	if (s->pp_mr)
		ibv_dereg_mr(s->pp_mr);
	if (s->credit_mr)
		ibv_dereg_mr(s->credit_mr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->id)
		rdma_destroy_id(s->id);
	if (s->listen)
		rdma_destroy_id(s->listen);
	if (s->ch)
		rdma_destroy_event_channel(s->ch);
}

/* The client writes self->count QEs; each is dequeued intact, in order. */
static void enqueue_by_rdma_write(struct __test_metadata *_metadata,
				  FIXTURE_DATA(rdma) *self)
{
	struct dlb2_cq_entry e[64];
	struct server s;
	uint64_t got = 0, bad = 0;
	long alarms_before;
	char dir[PATH_MAX];
	bool exited = false;
	double t0, last = 0;
	int n, i, st;

	pathf(dir, "%s/alarms", self->pci);
	alarms_before = read_num(dir, "illegal_enqueue");
	ASSERT_EQ(0, serve(&s, self, MODE_ENQUEUE, self->count, 0)) {
		TH_LOG("server setup failed; ibv_reg_mr on the PP: %s",
		       strerror(s.reg_errno));
	}
	t0 = now();
	while (got < self->count) {
		n = dlb2_dequeue_burst(self->c, e, 64);
		for (i = 0; i < n; i++, got++) {
			bad += e[i].data != 0x10000000ull + got * 64;
			bad += e[i].opaque != 64 + got % 1400;
		}
		if (n)
			last = now();
		/*
		 * The client is done once its last write completed; the device
		 * may schedule the QEs it wrote a little later: 2 s of silence
		 * after the client's exit ends the wait.
		 */
		if (!n && !exited && waitpid(s.client, &st, WNOHANG) == s.client) {
			exited = true;
			last = now();
		}
		if (!n && exited && now() - last > 2) {
			TH_LOG("client exited with %d, %lu QEs missing",
			       WEXITSTATUS(st),
			       (unsigned long)(self->count - got));
			break;
		}
	}
	TH_LOG("%lu QEs in %.1f s (%.0f QE/s)", (unsigned long)got, now() - t0,
	       got / (now() - t0));
	EXPECT_EQ(self->count, got);
	EXPECT_EQ(0, bad);
	if (got == self->count)
		EXPECT_EQ(C_OK, !exited ? client_status(&s) :
				WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	EXPECT_EQ(alarms_before, read_num(dir, "illegal_enqueue"));
	unserve(&s);
}

TEST_F_TIMEOUT(rdma, p2p_enqueue_by_rdma_write, 900)
{
	if (!self->version)
		return;
	NEED_PEERMEM();
	NEED_GLOBAL_ATOMICS();
	enqueue_by_rdma_write(_metadata, self);
}

/* The same through the port's dma-buf, as on upstream kernels. */
TEST_F_TIMEOUT(rdma, dmabuf_enqueue_by_rdma_write, 900)
{
	if (!self->version)
		return;
	NEED_DMABUF_MR();
	NEED_GLOBAL_ATOMICS();
	enqueue_by_rdma_write(_metadata, self);
}

/*
 * A dma-buf MR holds the port only while its domain is enabled: disabling
 * the domain revokes the buffer, and registering it again is refused by the
 * exporter (ENODEV), as is exporting the port again.
 */
TEST_F(rdma, dmabuf_mr_after_disable)
{
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	int fd, err;

	if (!self->version)
		return;
	NEED_DMABUF_MR();
	fd = ioctl(self->pfd, DLB2_IOC_EXPORT_DMABUF, O_CLOEXEC);
	ASSERT_LE(0, fd);
	pd = first_device_pd();
	ASSERT_NE(NULL, pd);
	mr = ibv_reg_dmabuf_mr(pd, 0, DLB2_PP_SIZE, 0, fd,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	EXPECT_NE(NULL, mr);
	if (mr)
		EXPECT_EQ(0, ibv_dereg_mr(mr));
	ASSERT_EQ(0, write_attr(self->dom, "enable", "0"));
	mr = ibv_reg_dmabuf_mr(pd, 0, DLB2_PP_SIZE, 0, fd,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	err = errno;
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(ENODEV, err);
	if (mr)
		ibv_dereg_mr(mr);
	EXPECT_EQ(-1, ioctl(self->pfd, DLB2_IOC_EXPORT_DMABUF, O_CLOEXEC));
	EXPECT_EQ(ENODEV, errno);
	pd_close(pd);
	close(fd);
}

/* A udmabuf of one page of a sealed memfd: a static exporter; -errno. */
static int make_udmabuf(void)
{
	struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC, .size = 4096 };
	int dev, mfd, buf, err;

	dev = open("/dev/udmabuf", O_RDWR);
	if (dev < 0)
		return -errno;
	mfd = memfd_create("dlb2_rdma", MFD_ALLOW_SEALING);
	if (mfd < 0 || ftruncate(mfd, 4096) ||
	    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		err = -errno;
		close(dev);
		return err;
	}
	c.memfd = mfd;
	buf = ioctl(dev, UDMABUF_CREATE, &c);
	err = buf < 0 ? -errno : buf;
	close(mfd);
	close(dev);
	return err;
}

/*
 * What rxe's dma-buf MRs refuse at registration (patch 5 of patches/linux):
 * a static exporter's buffer (udmabuf: system memory, which the core would
 * map at attach time for rxe's device, which has no DMA mask: a warning
 * any user could cause, counted by the kernel log check), refused with
 * EOPNOTSUPP before attaching; and remote atomics on device memory.
 */
TEST_F(rdma, dmabuf_mr_refusals)
{
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	int fd, ubuf, err;

	if (!self->version)
		return;
	NEED_DMABUF_MR();
	pd = first_device_pd();
	ASSERT_NE(NULL, pd);
	fd = ioctl(self->pfd, DLB2_IOC_EXPORT_DMABUF, O_CLOEXEC);
	ASSERT_LE(0, fd);
	mr = ibv_reg_dmabuf_mr(pd, 0, DLB2_PP_SIZE, 0, fd,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_ATOMIC);
	err = errno;
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(EOPNOTSUPP, err);
	if (mr)
		ibv_dereg_mr(mr);
	ubuf = make_udmabuf();
	if (ubuf == -ENOENT) {
		TH_LOG("no /dev/udmabuf (CONFIG_UDMABUF): static exporter not tried");
	} else {
		ASSERT_LE(0, ubuf) {
			TH_LOG("udmabuf: %s", strerror(-ubuf));
		}
		mr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, ubuf,
				       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE);
		err = errno;
		EXPECT_EQ(NULL, mr);
		EXPECT_EQ(EOPNOTSUPP, err);
		if (mr)
			ibv_dereg_mr(mr);
		close(ubuf);
	}
	close(fd);
	pd_close(pd);
}

TEST_F(rdma, mr_refusals)
{
	struct ibv_pd *pd;
	char path[PATH_MAX];
	long refused;
	void *bar, *two;
	int fd;

	if (!self->version)
		return;
	NEED_PEERMEM();
	pd = first_device_pd();
	ASSERT_NE(NULL, pd);
	refused = read_num("/sys/kernel/peermem_dlb", "refused");
	/* A device mapping that is not a dlb2 producer port: the DLB's CSRs. */
	fd = open(pathf(path, "%s/resource2", self->pci), O_RDWR);
	bar = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, bar);
	EXPECT_EQ(NULL, ibv_reg_mr(pd, bar, 4096, IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE));
	munmap(bar, 4096);
	close(fd);
	/* Wider than one window: two producer-port mappings side by side. */
	two = mmap(NULL, 2 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, two);
	ASSERT_NE(MAP_FAILED, mmap(two, 4096, PROT_WRITE, MAP_SHARED | MAP_FIXED,
				   self->pfd, 0));
	EXPECT_EQ(NULL, ibv_reg_mr(pd, two, 2 * 4096, IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE));
	munmap(two, 2 * 4096);
	/* A port of a disabled domain. */
	ASSERT_EQ(0, write_attr(self->dom, "enable", "0"));
	EXPECT_EQ(NULL, ibv_reg_mr(pd, self->pp, 4096, IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE));
	EXPECT_LT(refused, read_num("/sys/kernel/peermem_dlb", "refused"));
	pd_close(pd);
}

/*
 * Revocation: the client writes until a write fails while the server takes
 * the port away (@revoke).  The client's writes then fail with a remote
 * access error, the MR is invalidated once, and nothing written through it
 * lands in the domain that takes the old one's place.
 */
static void revoke_while_writing(struct __test_metadata *_metadata,
				 FIXTURE_DATA(rdma) *self,
				 int (*revoke)(FIXTURE_DATA(rdma) *self))
{
	const char *pm = "/sys/kernel/peermem_dlb";
	bool peermem = self->mr_path == DLB2_MR_PEERMEM;
	struct dlb2_cq_entry e[64];
	long invalidated = 0, released = 0;
	struct server s;
	uint64_t got = 0;

	if (peermem) {
		invalidated = read_num(pm, "invalidated");
		released = read_num(pm, "released");
	}
	ASSERT_EQ(0, serve(&s, self, MODE_UNTIL_REVOKED, 0, 0));
	while (got < 400) {
		got += dlb2_dequeue_burst(self->c, e, 64);
		ASSERT_NE(s.client, waitpid(s.client, NULL, WNOHANG)) {
			unserve(&s);
		}
	}
	ASSERT_EQ(0, revoke(self));
	EXPECT_EQ(C_REVOKED, client_status(&s));
	if (peermem)
		EXPECT_EQ(invalidated + 1, read_num(pm, "invalidated"));
	unserve(&s);
	if (peermem)
		EXPECT_EQ(released + 1, read_num(pm, "released"));
	ASSERT_EQ(0, write_attr(self->dom, "enable", "1"));
	dlb2_port_close(self->c);
	ASSERT_EQ(0, dlb2_port_open(self->dev, DOM, "c", NULL, &self->c));
	/*
	 * Nothing of the revoked client arrives: an absence, watched for
	 * 300 ms (a window, not a wait).
	 */
	EXPECT_FALSE(dlb2_poll_until(dlb2_cq_ready(self->c), 300)) {
		TH_LOG("a QE reached the re-enabled domain after the revocation");
	}
	EXPECT_EQ(0, dlb2_dequeue_burst(self->c, e, 64));
}

static int disable_domain(FIXTURE_DATA(rdma) *self)
{
	return write_attr(self->dom, "enable", "0");
}

static int unbind_and_rebind(FIXTURE_DATA(rdma) *self)
{
	return sysfs_write(DLB2_DRIVER "/unbind", self->bdf) ?:
	       sysfs_write(DLB2_DRIVER "/bind", self->bdf);
}

TEST_F_TIMEOUT(rdma, disable_revokes_the_mr, 300)
{
	if (!self->version)
		return;
	NEED_PEERMEM();
	NEED_GLOBAL_ATOMICS();
	revoke_while_writing(_metadata, self, disable_domain);
}

TEST_F_TIMEOUT(rdma, unbind_revokes_the_mr, 300)
{
	if (!self->version)
		return;
	NEED_PEERMEM();
	NEED_GLOBAL_ATOMICS();
	revoke_while_writing(_metadata, self, unbind_and_rebind);
}

TEST_F_TIMEOUT(rdma, disable_revokes_the_dmabuf_mr, 300)
{
	if (!self->version)
		return;
	NEED_DMABUF_MR();
	NEED_GLOBAL_ATOMICS();
	revoke_while_writing(_metadata, self, disable_domain);
}

TEST_F_TIMEOUT(rdma, unbind_revokes_the_dmabuf_mr, 300)
{
	if (!self->version)
		return;
	NEED_DMABUF_MR();
	NEED_GLOBAL_ATOMICS();
	revoke_while_writing(_metadata, self, unbind_and_rebind);
}

/*
 * The DLB hot-unplugged (QEMU's device_del, through pciehp) while the MR
 * is written, then plugged in again and bound (the harness's hot-plug
 * control; dlb2_hotplug.c).
 */
static int unplug_and_replug(FIXTURE_DATA(rdma) *self)
{
	const char *ctl = getenv("VM_HOTPLUG_CTL");

	return dlb2_hotplug(ctl, "unplug") ?:
	       (dlb2_wait_device(self->bdf, false, 60) ? 0 : -ETIMEDOUT) ?:
	       dlb2_hotplug(ctl, "plug") ?:
	       (dlb2_wait_device(self->bdf, true, 30) ? 0 : -ETIMEDOUT);
}

#define NEED_HOTPLUG()							\
	do {								\
		if (!getenv("VM_HOTPLUG_CTL"))				\
			SKIP(return, "needs the harness's hot-plug control (%s)", \
			     "tools/vm/run --hotplug");			\
	} while (0)

TEST_F_TIMEOUT(rdma, unplug_revokes_the_mr, 300)
{
	if (!self->version)
		return;
	NEED_HOTPLUG();
	NEED_PEERMEM();
	NEED_GLOBAL_ATOMICS();
	revoke_while_writing(_metadata, self, unplug_and_replug);
}

TEST_F_TIMEOUT(rdma, unplug_revokes_the_dmabuf_mr, 300)
{
	if (!self->version)
		return;
	NEED_HOTPLUG();
	NEED_DMABUF_MR();
	NEED_GLOBAL_ATOMICS();
	revoke_while_writing(_metadata, self, unplug_and_replug);
}

/* CPU threads and the remote side share the credit word. */
struct cpu_arg {
	uint64_t *word;
	unsigned long ops;
};

static void *cpu_credits(void *p)
{
	struct cpu_arg *a = p;

	/* libdlb2_rdma's race, as accdirect-qualify runs it */
	dlb2_credit_cpu_churn(a->word, a->ops, NULL, NULL);
	return NULL;
}

TEST_F_TIMEOUT(rdma, credit_pool_conserved, 900)
{
	unsigned int pool = self->c->info.num_pools == 2 ? DLB2_CREDIT_POOL_DIR : 0;
	uint64_t *word = self->c->pool[pool];
	struct cpu_arg a = { word, self->ops };
	pthread_t t[2];
	struct server s;
	uint64_t before;
	double t0;
	int st;

	if (!self->version)
		return;
	NEED_GLOBAL_ATOMICS();
	dlb2_credits_flush(self->c);
	before = __atomic_load_n(word, __ATOMIC_ACQUIRE);
	t0 = now();
	ASSERT_EQ(0, serve(&s, self, MODE_CREDITS, self->ops, 0));
	pthread_create(&t[0], NULL, cpu_credits, &a);
	pthread_create(&t[1], NULL, cpu_credits, &a);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	st = client_status(&s);
	TH_LOG("%u remote and 2 x %u CPU take/give pairs in %.1f s",
	       self->ops, self->ops, now() - t0);
	unserve(&s);
	EXPECT_EQ(C_OK, st);
	EXPECT_EQ(before, __atomic_load_n(word, __ATOMIC_ACQUIRE));
}

/*
 * Without global atomics (rxe before patch 3: a load and a store under a
 * lock of its own) libdlb2 refuses the device, and forcing it loses
 * updates of the credit word.  A lost update needs a CPU's atomic to land
 * between rxe's load and its store, a window of a few instructions: rounds
 * of 100,000 take/give pairs on each side (fewer with DLB2_RDMA_CREDIT_OPS)
 * run until one shows, for at most
 * DLB2_RDMA_LOSS_SECONDS (default 300); none in that time is a skip, not a
 * pass.
 */
TEST_F_TIMEOUT(rdma, non_global_atomics_refused_and_lossy, 900)
{
	unsigned int pool = self->c->info.num_pools == 2 ? DLB2_CREDIT_POOL_DIR : 0;
	const char *env = getenv("DLB2_RDMA_LOSS_SECONDS");
	uint64_t *word = self->c->pool[pool];
	struct cpu_arg a = { word, self->ops < 100000 ? self->ops : 100000 };
	double t0, budget = env ? atof(env) : 300;
	uint64_t before, after;
	struct server s;
	int round, st;
	pthread_t t[2];
	char c;

	if (!self->version)
		return;
	if (self->glob)
		SKIP(return, "rxe atomics are global here (patch 3 applied); tools/vm/guest/run-selftests runs this against rdma_rxe without it");
	dlb2_credits_flush(self->c);
	before = __atomic_load_n(word, __ATOMIC_ACQUIRE);
	after = before;
	/*
	 * The client checks that libdlb2 refuses the device, then forces it.
	 * (One serve() per test process: librdmacm's device contexts do not
	 * survive the fork of a second client.)
	 */
	t0 = now();
	ASSERT_EQ(0, serve(&s, self, MODE_CREDIT_ROUNDS, a.ops, 1));
	for (round = 1; ; round++) {
		pthread_create(&t[0], NULL, cpu_credits, &a);
		pthread_create(&t[1], NULL, cpu_credits, &a);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		if (read(round_done[0], &c, 1) != 1)
			break;		/* the client failed: its status tells */
		after = __atomic_load_n(word, __ATOMIC_ACQUIRE);
		c = after != before || now() - t0 > budget ? 'e' : 'n';
		if (write(round_go[1], &c, 1) != 1 || c == 'e')
			break;
	}
	close(round_go[1]);
	st = client_status(&s);
	unserve(&s);
	ASSERT_EQ(C_OK, st);
	TH_LOG("credit word %lu before, %lu after %d rounds of %lu remote and 2 x %lu CPU take/give pairs (%.0f s): %ld credits made up or lost",
	       (unsigned long)before, (unsigned long)after, round, a.ops,
	       a.ops, now() - t0, (long)(after - before));
	if (after == before)
		SKIP(return, "no lost update within %.0f s (libdlb2's refusal was checked)",
		     budget);
}

int main(int argc, char **argv)
{
	char bdf[NAME_MAX + 1];

	net_ready = dlb2_find_device(bdf, sizeof(bdf)) &&
		    !sh("modprobe rdma_rxe 2>/dev/null") && !net_up();
	/* The harness exits; test processes end with _exit() and skip this. */
	atexit(net_down);
	return test_harness_run(argc, argv);
}

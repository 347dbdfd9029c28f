// SPDX-License-Identifier: GPL-2.0-only
/*
 * peermem_dlb: a peer-memory client (include/rdma/peer_mem.h, the
 * MLNX_OFED / Ubuntu interface, or patches/linux/ on plain kernels) so that
 * ibv_reg_mr() on an mmap()ed DLB producer port gives an RDMA NIC a memory
 * region it can RDMA-WRITE hardware control words into.
 *
 * Built on dlb2's P2P interface (include/linux/dlb2_p2p.h): only mappings
 * of dlb2 producer ports are accepted, one MR covers at most one 4 KiB
 * window, DMA addresses and lengths are what dlb2_p2p_map() mapped for the
 * NIC (the p2pdma core's rule: a bus address within a switch, else the DMA
 * API), and when the port goes away (domain disable, reset, unbind) dlb2
 * calls back and the client invalidates the MR through the core before the
 * hardware is reset.  Counters in /sys/kernel/peermem_dlb/.
 */
#include <linux/dlb2_p2p.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <rdma/peer_mem.h>

#define DRV_NAME	"dlb2"
#define DRV_VERSION	"1.0"

/**
 * struct pm_ctx - one registration (acquire() to release())
 * @p2p: dlb2's pin on the producer port
 * @lock: protects the fields below against the revoke callback
 * @core_context: the core's id of the registration, for invalidation
 * @have_core_context: get_pages() ran
 * @dma_dev: the device dma_map() mapped for, or NULL
 * @dma_addr: its address
 * @revoked: dlb2 took the port away
 */
struct pm_ctx {
	struct dlb2_p2p *p2p;
	struct mutex lock;	/* see the kernel-doc above */
	u64 core_context;
	bool have_core_context;
	struct device *dma_dev;
	dma_addr_t dma_addr;
	bool revoked;
};

static void *reg_handle;
static invalidate_peer_memory invalidate;

static atomic64_t stat_acquired, stat_refused, stat_mapped, stat_released,
		  stat_invalidated;

/* dlb2 takes the port away: make the core stop the RDMA device. */
static void pm_revoke(void *priv)
{
	struct pm_ctx *ctx = priv;
	bool notify;
	u64 core_context;

	mutex_lock(&ctx->lock);
	ctx->revoked = true;
	notify = ctx->have_core_context;
	core_context = ctx->core_context;
	mutex_unlock(&ctx->lock);
	if (notify && invalidate) {
		invalidate(reg_handle, core_context);
		atomic64_inc(&stat_invalidated);
	}
}

static int pm_acquire(unsigned long addr, size_t size, void *peer_mem_private,
		      char *peer_mem_name, void **client_context)
{
	struct dlb2_p2p *p2p;
	struct pm_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	mutex_init(&ctx->lock);
	p2p = dlb2_p2p_get(current->mm, addr, size, -1, pm_revoke, ctx);
	if (IS_ERR(p2p)) {
		kfree(ctx);
		atomic64_inc(&stat_refused);
		/* Not ours at all: let another client (or nobody) have it. */
		return PTR_ERR(p2p) == -EINVAL ? 0 : PTR_ERR(p2p);
	}
	ctx->p2p = p2p;
	*client_context = ctx;
	atomic64_inc(&stat_acquired);
	return 1;
}

static int pm_get_pages(unsigned long addr, size_t size, int write, int force,
			struct sg_table *sg_head, void *client_context,
			u64 core_context)
{
	struct pm_ctx *ctx = client_context;
	int ret = 0;

	mutex_lock(&ctx->lock);
	if (ctx->revoked || dlb2_p2p_revoked(ctx->p2p)) {
		ret = -ENODEV;
	} else {
		ctx->core_context = core_context;
		ctx->have_core_context = true;
	}
	mutex_unlock(&ctx->lock);
	return ret;
}

static int pm_dma_map(struct sg_table *sg_head, void *client_context,
		      struct device *dma_device, int dmasync, int *nmap)
{
	struct pm_ctx *ctx = client_context;
	struct dlb2_p2p_mapping m;
	struct dlb2_p2p_info info;
	dma_addr_t addr;
	int ret;

	dlb2_p2p_info(ctx->p2p, &info);
	ret = sg_alloc_table(sg_head, 1, GFP_KERNEL);
	if (ret)
		return ret;
	if (dma_device) {
		/*
		 * What dlb2 mapped for this device, as the core reads an
		 * umem: from the start of the page that holds the MR.
		 */
		ret = dlb2_p2p_map(ctx->p2p, dma_device, &addr);
		if (!ret) {
			ret = dlb2_p2p_mapping(ctx->p2p, dma_device, addr, &m);
			if (ret)
				dlb2_p2p_unmap(ctx->p2p, dma_device, addr);
		}
		if (ret) {
			sg_free_table(sg_head);
			return ret;
		}
	} else {
		/*
		 * A device without DMA (rxe): no DMA address at all; it
		 * reaches the window through get_cpu_addr().  The entry says
		 * where the page is for the CPU.
		 */
		addr = info.phys;
		m.start = info.phys - offset_in_page(info.phys);
		m.len = PAGE_SIZE;
	}
	mutex_lock(&ctx->lock);
	ctx->dma_dev = dma_device;
	ctx->dma_addr = addr;
	mutex_unlock(&ctx->lock);
	sg_dma_address(sg_head->sgl) = m.start;
	sg_dma_len(sg_head->sgl) = m.len;
	*nmap = 1;
	atomic64_inc(&stat_mapped);
	return 0;
}

static int pm_dma_unmap(struct sg_table *sg_head, void *client_context,
			struct device *dma_device)
{
	struct pm_ctx *ctx = client_context;

	mutex_lock(&ctx->lock);
	if (ctx->dma_dev)
		dlb2_p2p_unmap(ctx->p2p, ctx->dma_dev, ctx->dma_addr);
	ctx->dma_dev = NULL;
	mutex_unlock(&ctx->lock);
	return 0;
}

static void pm_put_pages(struct sg_table *sg_head, void *client_context)
{
	sg_free_table(sg_head);
}

#ifdef PEER_MEM_CPU_OPS
/*
 * For RDMA devices that access memory with the CPU (rxe): a kernel mapping
 * of the window's page, valid until dma_unmap().
 */
static void __iomem *pm_get_cpu_addr(void *client_context, unsigned long addr)
{
	struct pm_ctx *ctx = client_context;
	struct dlb2_p2p_info info;
	void __iomem *va = dlb2_p2p_cpu_addr(ctx->p2p);

	if (!va)
		return NULL;
	dlb2_p2p_info(ctx->p2p, &info);
	return va - info.offset;
}

/* Producer ports cannot be read: RDMA READs of the MR fail. */
static const struct peer_memory_cpu_ops pm_cpu_ops = {
	.get_cpu_addr = pm_get_cpu_addr,
	.flags = PEER_MEM_CPU_NO_READ,
};
#endif

static unsigned long pm_get_page_size(void *client_context)
{
	return PAGE_SIZE;
}

static void pm_release(void *client_context)
{
	struct pm_ctx *ctx = client_context;

	dlb2_p2p_put(ctx->p2p);
	kfree(ctx);
	atomic64_inc(&stat_released);
}

static struct peer_memory_client_ex pm_client = {
	.client = {
		.name = DRV_NAME,
		.version = DRV_VERSION,	/* last byte set in init: _ex form */
		.acquire = pm_acquire,
		.get_pages = pm_get_pages,
		.dma_map = pm_dma_map,
		.dma_unmap = pm_dma_unmap,
		.put_pages = pm_put_pages,
		.get_page_size = pm_get_page_size,
		.release = pm_release,
	},
	.ex_size = sizeof(struct peer_memory_client_ex),
};

#define STAT_ATTR(name)							\
static ssize_t name##_show(struct kobject *kobj,			\
			   struct kobj_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%lld\n", atomic64_read(&stat_##name));	\
}									\
static struct kobj_attribute name##_attr = __ATTR_RO(name)

STAT_ATTR(acquired);
STAT_ATTR(refused);
STAT_ATTR(mapped);
STAT_ATTR(released);
STAT_ATTR(invalidated);

static struct attribute *pm_attrs[] = {
	&acquired_attr.attr,
	&refused_attr.attr,
	&mapped_attr.attr,
	&released_attr.attr,
	&invalidated_attr.attr,
	NULL,
};

static const struct attribute_group pm_group = {
	.attrs = pm_attrs,
};

static struct kobject *pm_kobj;

static int __init peermem_dlb_init(void)
{
	int ret;

	/* A non-zero last version byte says: this is a peer_memory_client_ex. */
	pm_client.client.version[IB_PEER_MEMORY_VER_MAX - 1] = 1;
	pm_kobj = kobject_create_and_add("peermem_dlb", kernel_kobj);
	if (!pm_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(pm_kobj, &pm_group);
	if (ret)
		goto err_kobj;
#ifdef PEER_MEM_CPU_OPS
	reg_handle = ib_register_peer_memory_client_cpu(&pm_client.client,
							&pm_cpu_ops, &invalidate);
#else
	reg_handle = ib_register_peer_memory_client(&pm_client.client,
						    &invalidate);
#endif
	if (!reg_handle) {
		ret = -EINVAL;
		goto err_kobj;
	}
	return 0;

err_kobj:
	kobject_put(pm_kobj);
	return ret;
}

static void __exit peermem_dlb_exit(void)
{
	ib_unregister_peer_memory_client(reg_handle);
	kobject_put(pm_kobj);
}

module_init(peermem_dlb_init);
module_exit(peermem_dlb_exit);

MODULE_DESCRIPTION("Peer-memory client for Intel DLB producer ports (ibv_reg_mr on a DLB port)");
MODULE_LICENSE("GPL");
MODULE_VERSION(DLB2_VERSION);
MODULE_SOFTDEP("pre: dlb2");

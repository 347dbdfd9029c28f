// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: a port's producer-port window as a dma-buf, for
 * importers that write to device memory (RDMA NICs through
 * ibv_reg_dmabuf_mr() on upstream kernels).
 *
 * The buffer has no struct pages: only importers that allow peer-to-peer
 * may attach, and what they map is a DMA address from dlb2_p2p_map(), or,
 * for importers that write with the CPU, a kernel mapping (vmap).  It
 * is dynamic (pin/unpin, move_notify), so that it can be revoked: when the
 * port goes away, every importer is told with dma_buf_move_notify(), the
 * fences in its reservation object are waited for (at most fence_wait_ms),
 * and later attaches and maps fail.  Importers that pin are refused: a pin
 * could not be revoked.
 * Locking: the dma-buf's reservation lock protects @revoked and the list of
 * attachments and is held around attach, detach, map, unmap and the
 * notification; the revoke callback, which takes it and waits for the
 * fences, runs with no dlb2 lock held (dlb2.h, "Locking"); attach and map
 * take port->lock under it (dlb2_p2p_revoked(), dlb2_p2p_map()).
 */
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/fs.h>
#include <linux/iosys-map.h>
#include <linux/moduleparam.h>
#include <linux/dlb2_p2p.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "compat.h"
#include "domain.h"
#include "trace.h"

DLB2_IMPORT_NS("DMA_BUF");

/*
 * How long a revocation waits for the fences in a dma-buf's reservation
 * object (module parameter fence_wait_ms, 1 ms to 10 min).  Anyone who can
 * open the buffer can add a fence that never signals
 * (DMA_BUF_IOCTL_IMPORT_SYNC_FILE), so the wait is bounded; when it times
 * out the revocation goes on, logs it, and dlb2 unmaps the importers' DMA
 * mappings (p2p.c), so that behind a translating IOMMU their DMA reaches
 * nothing.
 */
#define DLB2_FENCE_WAIT_MAX_MS	(10 * 60 * MSEC_PER_SEC)
static unsigned int fence_wait_ms = 30 * MSEC_PER_SEC;

static int fence_wait_ms_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint(val, 0, &ms);
	if (ret)
		return ret;
	if (ms < 1 || ms > DLB2_FENCE_WAIT_MAX_MS)
		return -ERANGE;
	WRITE_ONCE(fence_wait_ms, ms);
	return 0;
}

static const struct kernel_param_ops fence_wait_ms_ops = {
	.set = fence_wait_ms_set,
	.get = param_get_uint,
};
module_param_cb(fence_wait_ms, &fence_wait_ms_ops, &fence_wait_ms, 0644);
MODULE_PARM_DESC(fence_wait_ms,
		 "how long revoking a port's dma-buf waits for its importers' fences, in ms (1-600000, default 30000)");

/**
 * struct dlb2_dmabuf - the exporter's side of one dma-buf
 * @dmabuf: the dma-buf
 * @p2p: its pin on the port; set once, before the descriptor exists
 * @va: the window's kernel mapping, taken with the pin; valid until the
 *	pin's revoke callback returns (dlb2_p2p_cpu_addr())
 * @revoked: the port went away (under the reservation lock)
 * @attaches: the attachments that passed dlb2_dmabuf_attach() and are
 *	      not detached (struct dlb2_dmabuf_attach, under the
 *	      reservation lock)
 * @vmaps: kernel mappings handed out (vmap) and not given back (vunmap)
 */
struct dlb2_dmabuf {
	struct dma_buf *dmabuf;
	struct dlb2_p2p *p2p;
	void __iomem *va;
	bool revoked;
	struct list_head attaches;
	atomic_t vmaps;
};

/**
 * struct dlb2_dmabuf_attach - an attachment as the exporter knows it
 * @node: on dlb2_dmabuf.attaches
 * @attach: the attachment (its priv points here)
 */
struct dlb2_dmabuf_attach {
	struct list_head node;
	struct dma_buf_attachment *attach;
};

static int dlb2_dmabuf_attach(struct dma_buf *dmabuf,
			      struct dma_buf_attachment *attach)
{
	struct dlb2_dmabuf *d = dmabuf->priv;
	struct dlb2_dmabuf_attach *a;
	int ret = 0;

	/* Device memory: importers must be able to do peer-to-peer. */
	if (!attach->peer2peer)
		return -EOPNOTSUPP;
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	a->attach = attach;
	/*
	 * Revocation is final, and starts when the port dies (before the
	 * revoke callback runs); map checks again (dlb2_p2p_map()).  Once on
	 * the list the attachment hears of a revocation even before the core
	 * lists it (dlb2_dmabuf_revoke()).
	 */
	dma_resv_lock(dmabuf->resv, NULL);
	if (d->revoked || dlb2_p2p_revoked(d->p2p)) {
		ret = -ENODEV;
	} else {
		list_add_tail(&a->node, &d->attaches);
		attach->priv = a;
	}
	dma_resv_unlock(dmabuf->resv);
	if (ret)
		kfree(a);
	return ret;
}

static void dlb2_dmabuf_detach(struct dma_buf *dmabuf,
			       struct dma_buf_attachment *attach)
{
	struct dlb2_dmabuf_attach *a = attach->priv;

	dma_resv_lock(dmabuf->resv, NULL);
	list_del(&a->node);
	dma_resv_unlock(dmabuf->resv);
	kfree(a);
}

/*
 * A pinned mapping could not be taken back when the port goes away: only
 * importers that handle move_notify (and so never pin) may use the window.
 */
static int dlb2_dmabuf_pin(struct dma_buf_attachment *attach)
{
	return -EOPNOTSUPP;
}

static void dlb2_dmabuf_unpin(struct dma_buf_attachment *attach)
{
}

static struct sg_table *dlb2_dmabuf_map(struct dma_buf_attachment *attach,
					enum dma_data_direction dir)
{
	struct dlb2_dmabuf *d = attach->dmabuf->priv;
	struct dlb2_p2p_info info;
	struct sg_table *sgt;
	dma_addr_t addr;
	int ret;

	dma_resv_assert_held(attach->dmabuf->resv);
	/*
	 * No check of d->revoked: dlb2_p2p_map() refuses a revoked pin under
	 * the port's lock, and the pin is marked revoked before the callback
	 * that sets d->revoked runs (dlb2_p2p_revoke_all()).
	 */
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table(sgt, 1, GFP_KERNEL);
	if (ret)
		goto err_free;
	ret = dlb2_p2p_map(d->p2p, attach->dev, &addr);
	if (ret)
		goto err_table;
	dlb2_p2p_info(d->p2p, &info);
	/* No page behind it: only the DMA side of the entry is set. */
	sg_dma_address(sgt->sgl) = addr;
	sg_dma_len(sgt->sgl) = info.len;
	return sgt;

err_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void dlb2_dmabuf_unmap(struct dma_buf_attachment *attach,
			      struct sg_table *sgt,
			      enum dma_data_direction dir)
{
	struct dlb2_dmabuf *d = attach->dmabuf->priv;

	dlb2_p2p_unmap(d->p2p, attach->dev, sg_dma_address(sgt->sgl));
	sg_free_table(sgt);
	kfree(sgt);
}

static void dlb2_dmabuf_release(struct dma_buf *dmabuf)
{
	struct dlb2_dmabuf *d = dmabuf->priv;

	if (d->p2p)		/* NULL: the export failed to pin */
		dlb2_p2p_put(d->p2p);
	kfree(d);
}

static int dlb2_dmabuf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	return -EINVAL;		/* map the port device instead */
}

/*
 * A kernel mapping of the window, for importers whose DMA is done by the
 * CPU (software RDMA such as rxe).  It is device memory: 8-byte or wider
 * stores only.  vmap has no attachment argument, so the mapping is tied to
 * the attachments as a whole: it is handed out only while the buffer has
 * one (a dynamic importer, which hears of the revocation), and each
 * importer gives its mappings back in move_notify, as it stops its DMA
 * there; the revocation checks that none is left (dlb2_dmabuf_revoke()).
 *
 * It never fails for an importer that was not told of a revocation: the
 * pin may be revoked already (the port died) while its callback has not
 * reached this buffer yet; the window stays mapped until that callback
 * returns, and the callback tells every attachment, under the lock held
 * here.  A failed vmap is a WARN in the dma-buf core.  Called with the
 * dma-buf's lock (6.1) or its reservation lock (6.2 and later) held.
 */
static int dlb2_dmabuf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct dlb2_dmabuf *d = dmabuf->priv;

	/* Told already: an importer that maps after move_notify is buggy. */
	if (READ_ONCE(d->revoked))
		return -ENODEV;
	/* No attachment to revoke the mapping through. */
	if (list_empty(&d->attaches))
		return -EINVAL;
	atomic_inc(&d->vmaps);
	iosys_map_set_vaddr_iomem(map, d->va);
	return 0;
}

static void dlb2_dmabuf_vunmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct dlb2_dmabuf *d = dmabuf->priv;

	/* The mapping is the device's BAR mapping: only counted. */
	atomic_dec(&d->vmaps);
}

static const struct dma_buf_ops dlb2_dmabuf_ops = {
	.attach = dlb2_dmabuf_attach,
	.detach = dlb2_dmabuf_detach,
	.pin = dlb2_dmabuf_pin,
	.unpin = dlb2_dmabuf_unpin,
	.map_dma_buf = dlb2_dmabuf_map,
	.unmap_dma_buf = dlb2_dmabuf_unmap,
	.release = dlb2_dmabuf_release,
	.mmap = dlb2_dmabuf_mmap,
	.vmap = dlb2_dmabuf_vmap,
	.vunmap = dlb2_dmabuf_vunmap,
};

/*
 * The core lists an attachment only after the exporter's attach callback
 * returned, so a revocation in between does not reach it through the
 * core: its importer would go on to map or vmap a revoked buffer (and the
 * core warns when vmap fails).  Tell such attachments directly, as the
 * core would have.  Reservation lock held.
 */
static void notify_unlisted(struct dlb2_dmabuf *d)
{
	struct dma_buf_attachment *listed;
	struct dlb2_dmabuf_attach *a;

	dma_resv_assert_held(d->dmabuf->resv);
	list_for_each_entry(a, &d->attaches, node) {
		bool found = false;

		list_for_each_entry(listed, &d->dmabuf->attachments, node)
			found |= listed == a->attach;
		if (!found && a->attach->importer_ops)
			a->attach->importer_ops->DLB2_INVALIDATE_MAPPINGS(a->attach);
	}
}

/*
 * The port went away: importers must stop using the window.  They are told
 * (move_notify), and the DMA they already queued on it, which their fences
 * in the reservation object track, completes before the port is reused.
 * Called with no dlb2 lock held, possibly before dlb2_dmabuf_export() has
 * stored the pin, never before the dma-buf exists.
 */
static void dlb2_dmabuf_revoke(void *priv)
{
	unsigned int ms = READ_ONCE(fence_wait_ms);
	struct dlb2_dmabuf *d = priv;
	bool timed_out;
	int vmaps;

	dma_resv_lock(d->dmabuf->resv, NULL);
	WRITE_ONCE(d->revoked, true);
	dlb2_dma_buf_invalidate_mappings(d->dmabuf);
	notify_unlisted(d);
	vmaps = atomic_read(&d->vmaps);
	dma_resv_unlock(d->dmabuf->resv);
	/* Nothing more can be done: the importer writes on after this. */
	if (vmaps)
		pr_err("dlb2: dma-buf (inode %llu): %d kernel mappings not given back at move_notify\n",
		       (unsigned long long)file_inode(d->dmabuf->file)->i_ino,
		       vmaps);
	timed_out = dma_resv_wait_timeout(d->dmabuf->resv,
					  DMA_RESV_USAGE_BOOKKEEP, false,
					  msecs_to_jiffies(ms)) <= 0;
	trace_dlb2_dmabuf_revoke(file_inode(d->dmabuf->file)->i_ino, ms,
				 timed_out);
	if (!timed_out)
		return;
	/* d->p2p may not be stored yet: name the buffer by its inode. */
	pr_warn_ratelimited("dlb2: dma-buf (inode %llu): importers' fences not signalled after %u ms; revoked without them\n",
			    (unsigned long long)file_inode(d->dmabuf->file)->i_ino,
			    ms);
}

/**
 * dlb2_dmabuf_export() - a dma-buf of a port's producer-port window
 * @port: the port of an open file (the file holds a reference)
 * @flags: file flags of the new descriptor (O_CLOEXEC)
 *
 * Takes no dlb2 lock besides the pin's: the dma-buf exists before the pin
 * whose callback names it, so a revocation right after the pin finds it.
 *
 * Return: a new file descriptor, or a negative errno (-ENODEV when the
 * port is no longer live).
 */
int dlb2_dmabuf_export(struct dlb2_port *port, int flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp);
	struct dlb2_p2p *p2p;
	struct dlb2_dmabuf *d;
	int fd;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	INIT_LIST_HEAD(&d->attaches);
	exp.ops = &dlb2_dmabuf_ops;
	exp.size = DLB2_PP_SIZE;
	exp.flags = O_RDWR | flags;
	exp.priv = d;
	d->dmabuf = dma_buf_export(&exp);
	if (IS_ERR(d->dmabuf)) {
		fd = PTR_ERR(d->dmabuf);
		kfree(d);
		return fd;
	}
	/* From here on the dma-buf's release puts the pin and frees d. */
	p2p = dlb2_p2p_pin(port, 0, DLB2_PP_SIZE, -1, dlb2_dmabuf_revoke, d);
	if (IS_ERR(p2p)) {
		dma_buf_put(d->dmabuf);
		return PTR_ERR(p2p);
	}
	d->p2p = p2p;
	/* NULL if revoked already: then nothing can attach, nor vmap. */
	d->va = dlb2_p2p_cpu_addr(p2p);
	fd = dma_buf_fd(d->dmabuf, flags);
	if (fd < 0)
		dma_buf_put(d->dmabuf);
	return fd;
}

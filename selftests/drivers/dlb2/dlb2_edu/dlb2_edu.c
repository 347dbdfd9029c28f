// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2_edu: QEMU's "edu" device (1234:11e8) as a stand-in NIC for testing
 * dlb2's peer-to-peer interface.  Its DMA engine copies HCWs from memory
 * into its 4 KiB buffer and from there to the address dlb2_p2p_map() gives
 * for a producer port, through the (v)IOMMU like any device DMA; or the
 * CPU writes them through dlb2_p2p_cpu_addr(), as rxe does.  Also, for
 * dlb2_device, the steps of an AER recovery of the DLB (DLB2_EDU_AER),
 * which the harness cannot inject.  Test only; see dlb2_edu.h for the
 * ioctls and selftests/drivers/dlb2/dlb2_p2p.c.
 */
#include <linux/dlb2_p2p.h>
#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iopoll.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "../../../../dlb2/compat.h"
#include "dlb2_edu.h"

#define EDU_DMA_SRC		0x80
#define EDU_DMA_DST		0x88
#define EDU_DMA_CNT		0x90
#define EDU_DMA_CMD		0x98
#define   EDU_DMA_RUN		0x1
#define   EDU_DMA_TO_PCI	0x2
#define EDU_BUFFER		0x40000	/* the device's buffer, DMA side */
#define EDU_DMA_TIMEOUT_US	(5 * USEC_PER_SEC)

/**
 * struct dlb2_edu - the one edu device
 * @pdev: it
 * @regs: BAR0
 * @lock: serialises DMAs; revoke callbacks take it, so that no DMA runs
 *	  once a callback returned
 * @buf: coherent staging buffer for the HCWs
 * @buf_dma: its DMA address
 */
struct dlb2_edu {
	struct pci_dev *pdev;
	void __iomem *regs;
	struct mutex lock;	/* see the kernel-doc above */
	void *buf;
	dma_addr_t buf_dma;
};

/*
 * Per open file: an optional kept pin, an optional dma-buf attachment and a
 * fence of it.
 */
struct dlb2_edu_file {
	struct dlb2_p2p *pin;
	unsigned int revoked;	/* under edu->lock */
	bool mapped;		/* DLB2_EDU_PIN_MAP kept pin_addr */
	dma_addr_t pin_addr;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	unsigned int moves;	/* under the dma-buf's reservation lock */
	struct dma_fence *fence;
	spinlock_t fence_lock;	/* the fence's */
};

static struct dlb2_edu *edu;	/* under dlb2_edu_mutex for probe/remove */
static DEFINE_MUTEX(dlb2_edu_mutex);

static int edu_run(u64 src, u64 dst, u32 len, u32 cmd)
{
	u64 v;

	writeq(src, edu->regs + EDU_DMA_SRC);
	writeq(dst, edu->regs + EDU_DMA_DST);
	writeq(len, edu->regs + EDU_DMA_CNT);
	writeq(cmd | EDU_DMA_RUN, edu->regs + EDU_DMA_CMD);
	return readq_poll_timeout(edu->regs + EDU_DMA_CMD, v,
				  !(v & EDU_DMA_RUN), 1000, EDU_DMA_TIMEOUT_US);
}

/* Copy @len bytes of @data to bus address @dst by the device's DMA. */
static int edu_dma(dma_addr_t dst, const void *data, u32 len)
{
	int ret;

	memcpy(edu->buf, data, len);
	ret = edu_run(edu->buf_dma, EDU_BUFFER, len, 0);
	if (!ret)
		ret = edu_run(EDU_BUFFER, dst, len, EDU_DMA_TO_PCI);
	return ret;
}

static void revoke(void *priv)
{
	struct dlb2_edu_file *f = priv;

	mutex_lock(&edu->lock);	/* waits for a DMA in flight */
	f->revoked++;
	mutex_unlock(&edu->lock);
}

static int check_dma_args(struct dlb2_edu_dma *d)
{
	if (d->len < 16 || d->len > sizeof(d->data) || d->len % 16 ||
	    d->reserved || d->flags & ~DLB2_EDU_RAW_BUS_ADDR)
		return -EINVAL;
	return 0;
}

/* Map @pin for the device and DMA the data; -ENODEV once revoked. */
static int dma_through(struct dlb2_p2p *pin, struct dlb2_edu_file *f,
		       struct dlb2_edu_dma *d)
{
	struct dlb2_p2p_info info;
	dma_addr_t addr;
	int ret;

	if (d->flags & DLB2_EDU_RAW_BUS_ADDR) {
		dlb2_p2p_info(pin, &info);
		addr = info.phys;
	} else {
		ret = dlb2_p2p_map(pin, &edu->pdev->dev, &addr);
		if (ret)
			return ret;
	}
	mutex_lock(&edu->lock);
	if (f && f->revoked)
		ret = -ENODEV;
	else
		ret = edu_dma(addr, d->data, d->len);
	mutex_unlock(&edu->lock);
	if (!(d->flags & DLB2_EDU_RAW_BUS_ADDR))
		dlb2_p2p_unmap(pin, &edu->pdev->dev, addr);
	d->dma_addr = addr;
	return ret;
}

/*
 * Write @d's data through the CPU address of @f's kept pin.  Under
 * edu->lock, which the revoke callback takes: the address dlb2 gave stays
 * valid until that callback returns, so until the write is done.
 */
static int cpu_write(struct dlb2_edu_file *f, const struct dlb2_edu_dma *d)
{
	struct dlb2_p2p_info info;
	void __iomem *va;
	int ret = 0;

	if (d->flags)
		return -EINVAL;
	dlb2_p2p_info(f->pin, &info);
	if (d->len > info.len)
		return -EINVAL;
	mutex_lock(&edu->lock);
	va = dlb2_p2p_cpu_addr(f->pin);
	if (va)
		__iowrite64_copy(va, d->data, d->len / sizeof(u64));
	else
		ret = -ENODEV;
	mutex_unlock(&edu->lock);
	return ret;
}

static long do_dma(struct dlb2_edu_dma __user *arg)
{
	struct dlb2_edu_dma d;
	struct dlb2_p2p *pin;
	int ret;

	if (copy_from_user(&d, arg, sizeof(d)))
		return -EFAULT;
	ret = check_dma_args(&d);
	if (ret)
		return ret;
	pin = dlb2_p2p_get(current->mm, d.va, d.len, d.domain_id, NULL, NULL);
	if (IS_ERR(pin))
		return PTR_ERR(pin);
	ret = dma_through(pin, NULL, &d);
	dlb2_p2p_put(pin);
	if (!ret && copy_to_user(arg, &d, sizeof(d)))
		ret = -EFAULT;
	return ret;
}

/* Map a range for the device, report how, unmap: the map decision only. */
static long do_map(struct dlb2_edu_map __user *arg)
{
	struct dlb2_p2p_mapping m;
	struct dlb2_p2p_info info;
	struct dlb2_edu_map d;
	struct dlb2_p2p *pin;
	dma_addr_t addr;
	long ret;

	if (copy_from_user(&d, arg, sizeof(d)))
		return -EFAULT;
	if (d.reserved)
		return -EINVAL;
	pin = dlb2_p2p_get(current->mm, d.va, d.len, -1, NULL, NULL);
	if (IS_ERR(pin))
		return PTR_ERR(pin);
	ret = dlb2_p2p_map(pin, &edu->pdev->dev, &addr);
	if (!ret) {
		ret = dlb2_p2p_mapping(pin, &edu->pdev->dev, addr, &m);
		dlb2_p2p_unmap(pin, &edu->pdev->dev, addr);
	}
	if (!ret) {
		dlb2_p2p_info(pin, &info);
		d.type = m.type == DLB2_P2P_MAP_BUS_ADDR ?
			 DLB2_EDU_MAP_BUS_ADDR : DLB2_EDU_MAP_THRU_HOST_BRIDGE;
		d.forced = m.forced;
		d.dma_addr = addr;
		d.start = m.start;
		d.map_len = m.len;
		d.phys = info.phys;
	}
	dlb2_p2p_put(pin);
	if (!ret && copy_to_user(arg, &d, sizeof(d)))
		ret = -EFAULT;
	return ret;
}

static void dlb2_edu_move_notify(struct dma_buf_attachment *attach)
{
	struct dlb2_edu_file *f = attach->importer_priv;

	/* The exporter holds the reservation lock; no DMA of ours runs. */
	f->moves++;
}

static const struct dma_buf_attach_ops dlb2_edu_importer = {
	.allow_peer2peer = true,
	.DLB2_INVALIDATE_MAPPINGS = dlb2_edu_move_notify,
};

static long dmabuf_attach(struct dlb2_edu_file *f, int fd)
{
	struct dma_buf *dmabuf;

	if (f->attach)
		return -EBUSY;
	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	f->attach = dma_buf_dynamic_attach(dmabuf, &edu->pdev->dev,
					   &dlb2_edu_importer, f);
	if (IS_ERR(f->attach)) {
		long ret = PTR_ERR(f->attach);

		f->attach = NULL;
		dma_buf_put(dmabuf);
		return ret;
	}
	f->dmabuf = dmabuf;
	return 0;
}

/* Map the attachment, DMA, unmap; all under the reservation lock. */
static long dmabuf_dma(struct dlb2_edu_file *f, struct dlb2_edu_dmabuf *d)
{
	struct sg_table *sgt;
	long ret;

	if (!f->attach)
		return -ENOENT;
	if (d->len < 16 || d->len > sizeof(d->data) || d->len % 16)
		return -EINVAL;
	dma_resv_lock(f->dmabuf->resv, NULL);
	sgt = dma_buf_map_attachment(f->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
	} else {
		d->dma_addr = sg_dma_address(sgt->sgl);
		mutex_lock(&edu->lock);
		ret = edu_dma(d->dma_addr, d->data, d->len);
		mutex_unlock(&edu->lock);
		dma_buf_unmap_attachment(f->attach, sgt, DMA_BIDIRECTIONAL);
	}
	d->moves = f->moves;
	dma_resv_unlock(f->dmabuf->resv);
	return ret;
}

/*
 * Write through the exporter's kernel mapping, as rxe does: vmap, len
 * bytes (0: the mapping only), vunmap; under the reservation lock, as
 * move_notify is.  Once told of a revocation the importer maps nothing
 * more (dma_buf_vmap() warns when the exporter refuses).
 */
static long dmabuf_vmap_write(struct dlb2_edu_file *f, struct dlb2_edu_dmabuf *d)
{
	struct iosys_map map;
	long ret;

	if (!f->attach)
		return -ENOENT;
	if (d->len > sizeof(d->data) || d->len % 16)
		return -EINVAL;
	dma_resv_lock(f->dmabuf->resv, NULL);
	if (f->moves) {
		ret = -ENODEV;
		goto out;
	}
	ret = dma_buf_vmap(f->dmabuf, &map);
	if (ret)
		goto out;
	if (map.is_iomem)
		__iowrite64_copy(map.vaddr_iomem, d->data, d->len / sizeof(u64));
	else
		ret = -EOPNOTSUPP;
	dma_buf_vunmap(f->dmabuf, &map);
out:
	d->moves = f->moves;
	dma_resv_unlock(f->dmabuf->resv);
	return ret;
}

static const char *edu_fence_name(struct dma_fence *fence)
{
	return "dlb2_edu";
}

static const struct dma_fence_ops edu_fence_ops = {
	.get_driver_name = edu_fence_name,
	.get_timeline_name = edu_fence_name,
};

/* Try a pin of the attachment; unpinned again at once when it works. */
static long dmabuf_try_pin(struct dlb2_edu_file *f)
{
	long ret;

	dma_resv_lock(f->dmabuf->resv, NULL);
	ret = dma_buf_pin(f->attach);
	if (!ret)
		dma_buf_unpin(f->attach);
	dma_resv_unlock(f->dmabuf->resv);
	return ret;
}

/* Add an unsignalled fence of ours to the reservation object. */
static long dmabuf_add_fence(struct dlb2_edu_file *f)
{
	struct dma_fence *fence;
	long ret;

	if (f->fence)
		return -EBUSY;
	fence = kzalloc(sizeof(*fence), GFP_KERNEL);
	if (!fence)
		return -ENOMEM;
	dma_fence_init(fence, &edu_fence_ops, &f->fence_lock,
		       dma_fence_context_alloc(1), 1);
	dma_resv_lock(f->dmabuf->resv, NULL);
	ret = dma_resv_reserve_fences(f->dmabuf->resv, 1);
	if (!ret)
		dma_resv_add_fence(f->dmabuf->resv, fence,
				   DMA_RESV_USAGE_BOOKKEEP);
	dma_resv_unlock(f->dmabuf->resv);
	if (ret) {
		dma_fence_signal(fence);
		dma_fence_put(fence);
		return ret;
	}
	f->fence = fence;	/* our reference; the object holds its own */
	return 0;
}

static long dmabuf_signal_fence(struct dlb2_edu_file *f)
{
	if (!f->fence)
		return -ENOENT;
	dma_fence_signal(f->fence);
	dma_fence_put(f->fence);
	f->fence = NULL;
	return 0;
}

static long dmabuf_ioctl(struct dlb2_edu_file *f, unsigned int cmd,
			 void __user *uarg)
{
	struct dlb2_edu_dmabuf d;
	long ret;

	if (copy_from_user(&d, uarg, sizeof(d)))
		return -EFAULT;
	switch (cmd) {
	case DLB2_EDU_DMABUF_ATTACH:
		return dmabuf_attach(f, d.fd);
	case DLB2_EDU_DMABUF_DMA:
		ret = dmabuf_dma(f, &d);
		break;
	case DLB2_EDU_DMABUF_VMAP:
		ret = dmabuf_vmap_write(f, &d);
		break;
	default:	/* DLB2_EDU_DMABUF_STATE */
		if (!f->attach)
			return -ENOENT;
		dma_resv_lock(f->dmabuf->resv, NULL);
		d.moves = f->moves;
		dma_resv_unlock(f->dmabuf->resv);
		ret = 0;
	}
	if (!ret && copy_to_user(uarg, &d, sizeof(d)))
		ret = -EFAULT;
	return ret;
}

/*
 * The function a DLB2_EDU_AER or DLB2_EDU_PM step names (@a, copied from
 * @uarg), its device lock taken; an ERR_PTR when there is none.
 */
static struct pci_dev *step_begin(struct dlb2_edu_aer __user *uarg,
				  struct dlb2_edu_aer *a)
{
	struct pci_dev *pdev;

	if (copy_from_user(a, uarg, sizeof(*a)))
		return ERR_PTR(-EFAULT);
	pdev = pci_get_domain_bus_and_slot(a->domain, a->bus, a->devfn);
	if (!pdev)
		return ERR_PTR(-ENODEV);
	device_lock(&pdev->dev);
	return pdev;
}

/* Undo step_begin(); @a back to user space when the step ran (@ret 0). */
static long step_end(struct pci_dev *pdev, struct dlb2_edu_aer __user *uarg,
		     const struct dlb2_edu_aer *a, long ret)
{
	device_unlock(&pdev->dev);
	pci_dev_put(pdev);
	if (!ret && copy_to_user(uarg, a, sizeof(*a)))
		ret = -EFAULT;
	return ret;
}

/*
 * One step of an AER recovery of the function @a names, as pcie_do_recovery()
 * and its report_*() helpers take it: under the function's device lock, the
 * error state set, then the callback of the driver bound to it.  The link
 * reset the core does before slot_reset() is a reset of the function here
 * (its config space is lost until the driver restores it, as after the
 * link reset).
 */
static long do_aer(struct dlb2_edu_aer __user *uarg)
{
	const struct pci_error_handlers *eh;
	pci_ers_result_t r = PCI_ERS_RESULT_NONE;
	struct dlb2_edu_aer a;
	struct pci_dev *pdev;
	long ret = 0;

	pdev = step_begin(uarg, &a);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	eh = pdev->driver ? pdev->driver->err_handler : NULL;
	switch (a.step) {
	case DLB2_EDU_AER_FROZEN:
		if (!eh || !eh->error_detected) {
			ret = -EOPNOTSUPP;
			break;
		}
		pdev->error_state = pci_channel_io_frozen;
		r = eh->error_detected(pdev, pci_channel_io_frozen);
		break;
	case DLB2_EDU_AER_SLOT_RESET:
		if (!eh || !eh->slot_reset) {
			ret = -EOPNOTSUPP;
			break;
		}
		ret = __pci_reset_function_locked(pdev);
		if (ret)
			break;
		r = eh->slot_reset(pdev);
		if (r != PCI_ERS_RESULT_RECOVERED)
			break;
		pdev->error_state = pci_channel_io_normal;
		if (eh->resume)
			eh->resume(pdev);
		break;
	case DLB2_EDU_AER_NORMAL:
		pdev->error_state = pci_channel_io_normal;
		break;
	default:
		ret = -EINVAL;
	}
	a.result = (__force s32)r;
	return step_end(pdev, uarg, &a, ret);
}

/* DLB2_EDU_PM: half of a system sleep of another function (dlb2_edu.h). */
static long do_pm(struct dlb2_edu_aer __user *uarg)
{
	const struct dev_pm_ops *pm;
	struct dlb2_edu_aer a;
	struct pci_dev *pdev;
	long ret = 0;

	pdev = step_begin(uarg, &a);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	pm = pdev->driver ? pdev->driver->driver.pm : NULL;
	switch (a.step) {
	case DLB2_EDU_PM_SUSPEND:
		if (!pm || !pm->suspend) {
			ret = -EOPNOTSUPP;
			break;
		}
		a.result = pm->suspend(&pdev->dev);
		if (a.result)
			break;
		pci_save_state(pdev);
		ret = __pci_reset_function_locked(pdev);
		break;
	case DLB2_EDU_PM_RESUME:
		if (!pm || !pm->resume) {
			ret = -EOPNOTSUPP;
			break;
		}
		pci_restore_state(pdev);
		a.result = pm->resume(&pdev->dev);
		break;
	default:
		ret = -EINVAL;
	}
	return step_end(pdev, uarg, &a, ret);
}

static long dlb2_edu_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct dlb2_edu_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct dlb2_edu_pin p;
	struct dlb2_edu_dma d;
	int ret;

	switch (cmd) {
	case DLB2_EDU_DMA:
		return do_dma(uarg);
	case DLB2_EDU_MAP:
		return do_map(uarg);
	case DLB2_EDU_AER:
		return do_aer(uarg);
	case DLB2_EDU_PM:
		return do_pm(uarg);
	case DLB2_EDU_PIN:
		if (f->pin)
			return -EBUSY;
		if (copy_from_user(&p, uarg, sizeof(p)))
			return -EFAULT;
		f->pin = dlb2_p2p_get(current->mm, p.va, p.len, -1, revoke, f);
		if (IS_ERR(f->pin)) {
			ret = PTR_ERR(f->pin);
			f->pin = NULL;
			return ret;
		}
		return 0;
	case DLB2_EDU_PIN_STATE:
		if (!f->pin)
			return -ENOENT;
		memset(&p, 0, sizeof(p));
		mutex_lock(&edu->lock);
		p.revoked = f->revoked;
		mutex_unlock(&edu->lock);
		if (f->mapped) {
			struct dlb2_p2p_mapping m;

			p.mapped = !dlb2_p2p_mapping(f->pin, &edu->pdev->dev,
						     f->pin_addr, &m);
			p.dma_addr = f->pin_addr;
		}
		return copy_to_user(uarg, &p, sizeof(p)) ? -EFAULT : 0;
	case DLB2_EDU_PIN_MAP:
		if (!f->pin)
			return -ENOENT;
		if (f->mapped)
			return -EBUSY;
		ret = dlb2_p2p_map(f->pin, &edu->pdev->dev, &f->pin_addr);
		if (ret)
			return ret;
		f->mapped = true;
		memset(&p, 0, sizeof(p));
		p.mapped = 1;
		p.dma_addr = f->pin_addr;
		return copy_to_user(uarg, &p, sizeof(p)) ? -EFAULT : 0;
	case DLB2_EDU_PIN_DMA:
		if (!f->pin)
			return -ENOENT;
		if (copy_from_user(&d, uarg, sizeof(d)))
			return -EFAULT;
		ret = check_dma_args(&d);
		if (!ret)
			ret = dma_through(f->pin, f, &d);
		if (!ret && copy_to_user(uarg, &d, sizeof(d)))
			ret = -EFAULT;
		return ret;
	case DLB2_EDU_PIN_CPU_WRITE:
		if (!f->pin)
			return -ENOENT;
		if (copy_from_user(&d, uarg, sizeof(d)))
			return -EFAULT;
		ret = check_dma_args(&d);
		return ret ?: cpu_write(f, &d);
	case DLB2_EDU_DMABUF_ATTACH:
	case DLB2_EDU_DMABUF_DMA:
	case DLB2_EDU_DMABUF_STATE:
	case DLB2_EDU_DMABUF_VMAP:
		return dmabuf_ioctl(f, cmd, uarg);
	case DLB2_EDU_DMABUF_PIN:
		return f->attach ? dmabuf_try_pin(f) : -ENOENT;
	case DLB2_EDU_DMABUF_FENCE:
		return f->attach ? dmabuf_add_fence(f) : -ENOENT;
	case DLB2_EDU_DMABUF_SIGNAL:
		return dmabuf_signal_fence(f);
	default:
		return -ENOTTY;
	}
}

static int dlb2_edu_open(struct inode *inode, struct file *file)
{
	struct dlb2_edu_file *f;

	mutex_lock(&dlb2_edu_mutex);
	if (!edu) {
		mutex_unlock(&dlb2_edu_mutex);
		return -ENODEV;
	}
	mutex_unlock(&dlb2_edu_mutex);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	spin_lock_init(&f->fence_lock);
	file->private_data = f;
	return 0;
}

static int dlb2_edu_release(struct inode *inode, struct file *file)
{
	struct dlb2_edu_file *f = file->private_data;

	if (f->mapped)
		dlb2_p2p_unmap(f->pin, &edu->pdev->dev, f->pin_addr);
	if (f->pin)
		dlb2_p2p_put(f->pin);
	if (f->fence) {
		dma_fence_signal(f->fence);
		dma_fence_put(f->fence);
	}
	if (f->attach) {
		dma_buf_detach(f->dmabuf, f->attach);
		dma_buf_put(f->dmabuf);
	}
	kfree(f);
	return 0;
}

static const struct file_operations dlb2_edu_fops = {
	.owner = THIS_MODULE,
	.open = dlb2_edu_open,
	.release = dlb2_edu_release,
	.unlocked_ioctl = dlb2_edu_ioctl,
};

static struct miscdevice dlb2_edu_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "dlb2_edu",
	.fops = &dlb2_edu_fops,
	.mode = 0600,
};

static int dlb2_edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct dlb2_edu *e;
	int ret;

	e = devm_kzalloc(&pdev->dev, sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), "dlb2_edu");
	if (ret)
		return ret;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	pci_set_master(pdev);
	e->pdev = pdev;
	e->regs = pcim_iomap_table(pdev)[0];
	mutex_init(&e->lock);
	e->buf = dmam_alloc_coherent(&pdev->dev, PAGE_SIZE, &e->buf_dma,
				     GFP_KERNEL);
	if (!e->buf)
		return -ENOMEM;
	mutex_lock(&dlb2_edu_mutex);
	if (edu) {
		mutex_unlock(&dlb2_edu_mutex);
		return -EBUSY;	/* one is enough */
	}
	edu = e;
	mutex_unlock(&dlb2_edu_mutex);
	ret = misc_register(&dlb2_edu_misc);
	if (ret) {
		mutex_lock(&dlb2_edu_mutex);
		edu = NULL;
		mutex_unlock(&dlb2_edu_mutex);
	}
	return ret;
}

static void dlb2_edu_remove(struct pci_dev *pdev)
{
	misc_deregister(&dlb2_edu_misc);
	mutex_lock(&dlb2_edu_mutex);
	edu = NULL;
	mutex_unlock(&dlb2_edu_mutex);
}

static const struct pci_device_id dlb2_edu_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },
	{ }
};
MODULE_DEVICE_TABLE(pci, dlb2_edu_ids);

static struct pci_driver dlb2_edu_driver = {
	.name = "dlb2_edu",
	.id_table = dlb2_edu_ids,
	.probe = dlb2_edu_probe,
	.remove = dlb2_edu_remove,
};
module_pci_driver(dlb2_edu_driver);

DLB2_IMPORT_NS("DMA_BUF");
MODULE_DESCRIPTION("QEMU edu as a DMA peer of dlb2 producer ports (test)");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: port character devices, the user-space data path.
 *
 * /dev/dlb2/<N>/<domain>/<port> exists while the domain is enabled.  One
 * opener at a time.  mmap gives the producer port (write-only, write
 * combining), the CQ ring (read-only) and the domain credit page
 * (read-write); see include/uapi/linux/dlb2.h.  Pages are inserted by the
 * fault handler, never at mmap time, so that revocation (domain disable,
 * unbind) cannot miss a mapping: it marks the port dead under port->lock
 * and zaps the file's mappings, after which every access faults (SIGBUS).
 *
 * A file holds a reference on its port; the port object outlives the
 * domain, but its dlb2/dom pointers are cleared on revocation and only
 * used under port->lock while set.  Locks: dlb2.h, "Locking".
 */
#include <linux/cdev.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "domain.h"
#include "hw.h"
#include "regs.h"

#define DLB2_MAX_PORT_MINORS	4096

static dev_t dlb2_devt;
static struct cdev dlb2_cdev;
static struct class *dlb2_class;
/*
 * minor -> port of every port device; NULL while a domain's devices are
 * being created (dlb2_port_cdev_add() until dlb2_port_cdev_enable()).
 */
static DEFINE_IDR(dlb2_minors);
static DEFINE_MUTEX(dlb2_minors_lock);	/* protects dlb2_minors */

/* Bytes of the ring (sparse mode: 64 per entry), and of its mapping. */
static u32 cq_size(const struct dlb2_port *port)
{
	return port->cq_entries * 64;
}

static u32 cq_map_size(const struct dlb2_port *port)
{
	return PAGE_ALIGN(cq_size(port));
}

/*
 * CQ memory.  The device writes the ring and the consumer reads it through
 * its mapping, so the pages must outlive every mapping, including one that
 * revocation might not reach: they are ordinary pages, each with its own
 * reference count (split_page()), inserted by the fault handler with a
 * reference of their own, and the port's references are dropped when the
 * port object goes (its last file closed).  The device's mapping
 * (dma_map_page()) ends earlier, at domain teardown, while the device is
 * still there.  The DLB is part of x86 server processors, whose DMA is
 * cache-coherent: the consumer polls the ring without syncs, and the
 * driver's own writes (resets) are followed by a sync for the device.
 */

/**
 * dlb2_port_cq_alloc() - allocate and map the CQ ring of a new port
 * @port: the port; @port->cq_entries set
 * @dev: the device that writes the ring
 *
 * Return: 0 or -ENOMEM.  The pages go with the port (dlb2_port_put()).
 */
int dlb2_port_cq_alloc(struct dlb2_port *port, struct device *dev)
{
	unsigned int order = get_order(cq_map_size(port));
	struct page *pages;

	pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
	if (!pages)
		return -ENOMEM;
	split_page(pages, order);
	port->cq_pages = pages;
	port->cq_va = page_address(pages);
	port->cq_dma = dma_map_page(dev, pages, 0, cq_map_size(port),
				    DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, port->cq_dma)) {
		port->cq_dma = 0;
		return -ENOMEM;
	}
	return 0;
}

/**
 * dlb2_port_cq_unmap() - end the device's access to the CQ ring
 * @port: a port whose CQ the device no longer writes (torn down)
 * @dev: the device
 */
void dlb2_port_cq_unmap(struct dlb2_port *port, struct device *dev)
{
	if (!port->cq_dma)
		return;
	dma_unmap_page(dev, port->cq_dma, cq_map_size(port), DMA_BIDIRECTIONAL);
	port->cq_dma = 0;
}

static void port_free(struct kref *ref)
{
	struct dlb2_port *port = container_of(ref, struct dlb2_port, ref);
	unsigned int i;

	/* Pages still mapped somewhere keep the mappings' references. */
	for (i = 0; port->cq_pages && i < cq_map_size(port) >> PAGE_SHIFT; i++)
		__free_page(port->cq_pages + i);
	kfree(port);
}

/**
 * dlb2_port_put() - drop a reference on a port
 * @port: the port
 */
void dlb2_port_put(struct dlb2_port *port)
{
	kref_put(&port->ref, port_free);
}

/**
 * dlb2_port_release_cq() - recover a port whose consumer went away
 * @port: a live port; the device lock and port->lock held
 *
 * QEs in the CQ, and QEs the consumer dequeued without completing them, are
 * returned to the device (tokens popped, completions issued) and counted in
 * the port's "released" statistic; the ring starts again at entry 0 with
 * generation 1, so the next opener needs no state from the last one.
 */
void dlb2_port_release_cq(struct dlb2_port *port)
{
	struct dlb2 *dlb2 = port->dlb2;
	unsigned int n;

	lockdep_assert_held(dlb2->lock);
	lockdep_assert_held(&port->lock);
	dlb2_hw_cq_enable(dlb2, port, false);
	while ((n = dlb2_hw_port_drain(dlb2, port)))
		atomic64_add(n, &port->released);
	memset(port->cq_va, 0, cq_map_size(port));
	dma_sync_single_for_device(&dlb2->pdev->dev, port->cq_dma,
				   cq_map_size(port), DMA_BIDIRECTIONAL);
	dlb2_hw_cq_reset(dlb2, port);
	atomic_set(&port->irqs, 0);
	dlb2_port_cq_resume(port);
}

static int port_open(struct inode *inode, struct file *file)
{
	struct dlb2_port *port;
	int ret = 0;

	mutex_lock(&dlb2_minors_lock);
	port = idr_find(&dlb2_minors, iminor(inode));
	/*
	 * A port in the IDR still has its domain's reference: the domain
	 * drops it only after dlb2_port_revoke() took the port out.
	 */
	if (port)
		kref_get(&port->ref);
	mutex_unlock(&dlb2_minors_lock);
	if (!port)
		return -ENODEV;
	mutex_lock(&port->lock);
	if (!port->dlb2) {
		ret = -ENODEV;
	} else if (port->file) {
		ret = -EBUSY;
	} else {
		port->file = file;
		file->private_data = port;	/* the file keeps the reference */
	}
	mutex_unlock(&port->lock);
	if (ret) {
		dlb2_port_put(port);
		return ret;
	}
	return nonseekable_open(inode, file);
}

/* Called once the last mapping and descriptor of the file are gone. */
static int port_release(struct inode *inode, struct file *file)
{
	struct dlb2_port *port = file->private_data;

	/*
	 * The pins and dma-bufs taken through this file go with it, before
	 * the CQ is recovered: a later opener of the port (another process,
	 * perhaps) receives nothing their devices write.  Their callbacks
	 * run with no dlb2 lock held; no new one can be taken meanwhile
	 * (that needs the file or one of its mappings).
	 */
	dlb2_p2p_revoke_all(port);
	mutex_lock(port->dev_lock);
	mutex_lock(&port->lock);
	if (port->dlb2)
		dlb2_port_release_cq(port);
	port->file = NULL;
	mutex_unlock(&port->lock);
	mutex_unlock(port->dev_lock);
	dlb2_port_put(port);
	return 0;
}

static vm_fault_t port_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct dlb2_port *port = vma->vm_private_data;
	unsigned long region = vma->vm_pgoff << PAGE_SHIFT;
	unsigned long off = vmf->address - vma->vm_start;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	struct page *page = NULL;

	mutex_lock(&port->lock);
	if (!port->dlb2)
		goto out;
	switch (region) {
	case DLB2_MMAP_PP_OFFSET:
		ret = vmf_insert_pfn_prot(vma, vmf->address,
					  PHYS_PFN(port->dlb2->func_phys +
						   (port->ldb ?
						    DLB2_LDB_PP_OFFS(port->id) :
						    DLB2_DIR_PP_OFFS(port->id))),
					  pgprot_writecombine(vma->vm_page_prot));
		break;
	case DLB2_MMAP_CQ_OFFSET:
		page = port->cq_pages + (off >> PAGE_SHIFT);
		break;
	case DLB2_MMAP_CREDIT_OFFSET:
		page = port->dom->credit_page;
		break;
	}
	if (page) {
		get_page(page);
		vmf->page = page;
		ret = 0;
	}
out:
	mutex_unlock(&port->lock);
	return ret;
}

static const struct vm_operations_struct port_vm_ops = {
	.fault = port_fault,
};

/**
 * dlb2_port_of_pp_vma() - the port whose producer port a mapping shows
 * @vma: a mapping; the caller holds the mmap lock
 *
 * Return: the port, or NULL when @vma is not a producer-port mapping made
 * by dlb2 (whatever else it maps).  The port is valid while the mmap lock is
 * held; take a reference to keep it.
 */
struct dlb2_port *dlb2_port_of_pp_vma(struct vm_area_struct *vma)
{
	if (vma->vm_ops != &port_vm_ops ||
	    (vma->vm_pgoff << PAGE_SHIFT) != DLB2_MMAP_PP_OFFSET)
		return NULL;
	return vma->vm_private_data;
}

static int port_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct dlb2_port *port = file->private_data;
	unsigned long off = vma->vm_pgoff << PAGE_SHIFT;
	unsigned long size = vma->vm_end - vma->vm_start;
	vm_flags_t deny = VM_EXEC, clear = VM_MAYEXEC;
	int ret = 0;

	mutex_lock(&port->lock);
	if (!port->dlb2) {
		ret = -ENODEV;
		goto out;
	}
	switch (off) {
	case DLB2_MMAP_PP_OFFSET:
		if (size != DLB2_PP_SIZE)
			ret = -EINVAL;
		deny |= VM_READ;
		clear |= VM_MAYREAD;
		dlb2_vm_flags_set(vma, VM_IO | VM_PFNMAP);
		break;
	case DLB2_MMAP_CQ_OFFSET:
		if (size != cq_map_size(port))
			ret = -EINVAL;
		deny |= VM_WRITE;
		clear |= VM_MAYWRITE;
		break;
	case DLB2_MMAP_CREDIT_OFFSET:
		if (size != DLB2_CREDIT_PAGE_SIZE)
			ret = -EINVAL;
		break;
	default:
		ret = -EINVAL;
	}
	if (!ret && (vma->vm_flags & deny))
		ret = -EACCES;
	if (!ret && !(vma->vm_flags & VM_SHARED))
		ret = -EINVAL;
	if (ret)
		goto out;
	dlb2_vm_flags_clear(vma, clear);
	dlb2_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	vma->vm_ops = &port_vm_ops;
	vma->vm_private_data = port;
out:
	mutex_unlock(&port->lock);
	return ret;
}

static __poll_t port_poll(struct file *file, poll_table *wait)
{
	struct dlb2_port *port = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &port->wq, wait);
	if (!READ_ONCE(port->dlb2))
		mask |= EPOLLERR | EPOLLHUP;
	if (atomic_read(&port->irqs))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

/* read(): the number of CQ interrupts since the last read, as a u64. */
static ssize_t port_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct dlb2_port *port = file->private_data;
	u64 n;
	int ret;

	if (count < sizeof(n))
		return -EINVAL;
	if (!port->intr)
		return -EOPNOTSUPP;
	for (;;) {
		n = atomic_xchg(&port->irqs, 0);
		if (n)
			break;
		if (!READ_ONCE(port->dlb2))
			return -ENODEV;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(port->wq,
					       atomic_read(&port->irqs) ||
					       !READ_ONCE(port->dlb2));
		if (ret)
			return ret;
	}
	if (copy_to_user(buf, &n, sizeof(n)))
		return -EFAULT;
	return sizeof(n);
}

static int port_info(struct dlb2_port *port, struct dlb2_port_info *info)
{
	struct dlb2_domain *dom = port->dom;

	if (!port->dlb2)
		return -ENODEV;
	memset(info, 0, sizeof(*info));
	info->version = port->dlb2->ver;
	info->flags = (port->ldb ? DLB2_PORT_LDB : 0) |
		      (port->intr ? DLB2_PORT_INTERRUPT : 0);
	info->domain_id = dom->res.id;
	info->port_id = port->id;
	info->dir_queue_id = port->ldb ? 0 : port->id;
	info->cq_depth = port->cq_depth;
	info->cq_entries = port->cq_entries;
	info->cq_stride = 64;
	info->cq_size = cq_size(port);
	info->hist_list = port->hist_size;
	info->num_pools = port->dlb2->ver == DLB2_HW_V2_5 ? 1 : 2;
	info->credits[DLB2_CREDIT_POOL_LDB] = dom->res.req.ldb_credits;
	info->credits[DLB2_CREDIT_POOL_DIR] = dom->res.req.dir_credits;
	return 0;
}

static long port_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct dlb2_port *port = file->private_data;
	struct dlb2_port_info info;
	int ret;

	switch (cmd) {
	case DLB2_IOC_PORT_INFO:
		mutex_lock(&port->lock);
		ret = port_info(port, &info);
		mutex_unlock(&port->lock);
		if (!ret && copy_to_user((void __user *)arg, &info, sizeof(info)))
			ret = -EFAULT;
		return ret;
	case DLB2_IOC_EXPORT_DMABUF:
		if (arg & ~O_CLOEXEC)
			return -EINVAL;
		return dlb2_dmabuf_export(port, arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations port_fops = {
	.owner = THIS_MODULE,
	.open = port_open,
	.release = port_release,
	.mmap = port_mmap,
	.poll = port_poll,
	.read = port_read,
	.unlocked_ioctl = port_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/**
 * dlb2_port_cdev_add() - create a port's character device, not yet usable
 * @port: a port of a domain being enabled; the device lock held
 * @dev_id: N of the device's dlb2_<N>
 *
 * Until dlb2_port_cdev_enable(), an open of the device answers ENODEV, so
 * that a domain whose enable fails later leaves no opener behind.
 *
 * Return: 0 or a negative errno.
 */
int dlb2_port_cdev_add(struct dlb2_port *port, int dev_id)
{
	struct device *dev;
	int minor;

	lockdep_assert_held(port->dev_lock);
	/* Cyclic: a stale node or path does not soon name a new port. */
	mutex_lock(&dlb2_minors_lock);
	minor = idr_alloc_cyclic(&dlb2_minors, NULL, 0, DLB2_MAX_PORT_MINORS,
				 GFP_KERNEL);
	mutex_unlock(&dlb2_minors_lock);
	if (minor < 0)
		return minor;
	port->devt = MKDEV(MAJOR(dlb2_devt), minor);
	/* '!' becomes '/' in the device node: /dev/dlb2/N/domain/port. */
	dev = device_create(dlb2_class, &port->dlb2->pdev->dev, port->devt,
			    port, "dlb2!%d!%s!%s", dev_id, port->dom->name,
			    port->name);
	if (IS_ERR(dev)) {
		mutex_lock(&dlb2_minors_lock);
		idr_remove(&dlb2_minors, minor);
		mutex_unlock(&dlb2_minors_lock);
		return PTR_ERR(dev);
	}
	port->cdev_dev = dev;
	return 0;
}

/**
 * dlb2_port_cdev_enable() - let user space open a port's character device
 * @port: a port dlb2_port_cdev_add() succeeded for; the device lock held
 */
void dlb2_port_cdev_enable(struct dlb2_port *port)
{
	lockdep_assert_held(port->dev_lock);
	mutex_lock(&dlb2_minors_lock);
	idr_replace(&dlb2_minors, port, MINOR(port->devt));
	mutex_unlock(&dlb2_minors_lock);
}

/**
 * dlb2_port_revoke() - take a port away from user space
 * @port: the port; the device lock held
 *
 * Removes the device node, makes every mapping of the open file (if any)
 * fault from now on and wakes its waiters.  From now on the port is dead
 * for its peer-to-peer holders as well: no pin, map, CPU address or
 * dma-buf attach succeeds.  Their callbacks are not called here but by
 * dlb2_p2p_revoke_all(), once the caller has dropped the device lock.  The
 * file itself stays open until user space closes it; its operations
 * answer ENODEV.
 */
void dlb2_port_revoke(struct dlb2_port *port)
{
	lockdep_assert_held(port->dev_lock);
	if (port->cdev_dev) {
		device_destroy(dlb2_class, port->devt);
		mutex_lock(&dlb2_minors_lock);
		idr_remove(&dlb2_minors, MINOR(port->devt));
		mutex_unlock(&dlb2_minors_lock);
		port->cdev_dev = NULL;
	}
	mutex_lock(&port->lock);
	port->dlb2 = NULL;
	port->dom = NULL;
	if (port->file)
		unmap_mapping_range(port->file->f_mapping, 0, 0, 1);
	mutex_unlock(&port->lock);
	wake_up_all(&port->wq);
}

static char *port_devnode(DLB2_DEVNODE_CONST struct device *dev,
			  umode_t *mode)
{
	if (mode)
		*mode = 0600;
	return NULL;
}

int dlb2_port_chrdev_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&dlb2_devt, 0, DLB2_MAX_PORT_MINORS,
				  DLB2_DRV_NAME);
	if (ret)
		return ret;
	cdev_init(&dlb2_cdev, &port_fops);
	ret = cdev_add(&dlb2_cdev, dlb2_devt, DLB2_MAX_PORT_MINORS);
	if (ret)
		goto err_region;
	dlb2_class = dlb2_class_create(DLB2_DRV_NAME);
	if (IS_ERR(dlb2_class)) {
		ret = PTR_ERR(dlb2_class);
		goto err_cdev;
	}
	dlb2_class->devnode = port_devnode;
	return 0;

err_cdev:
	cdev_del(&dlb2_cdev);
err_region:
	unregister_chrdev_region(dlb2_devt, DLB2_MAX_PORT_MINORS);
	return ret;
}

void dlb2_port_chrdev_exit(void)
{
	class_destroy(dlb2_class);
	cdev_del(&dlb2_cdev);
	unregister_chrdev_region(dlb2_devt, DLB2_MAX_PORT_MINORS);
	idr_destroy(&dlb2_minors);
}

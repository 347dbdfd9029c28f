// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: port character devices, the user-space data path.
 *
 * /dev/dlb2/<N>/<domain>/<port> exists while the domain is enabled.  One
 * opener at a time.  mmap gives the producer port (write-only, write
 * combining), the CQ ring (read-only) and the domain credit page
 * (read-write); see include/uapi/linux/dlb2.h.  Pages are inserted by the
 * fault handler, never at mmap time, and it installs each PTE itself under
 * port->lock, so that revocation (domain disable, unbind) cannot miss a
 * mapping: it marks the port dead under port->lock and zaps the file's
 * mappings, after which every access faults (SIGBUS).  The producer port
 * and the CQ ring are mapped as PFNs (VM_IO | VM_PFNMAP), without a page
 * reference: get_user_pages() refuses them, so nothing (vmsplice(), an
 * RDMA registration) keeps a CQ page that the port's next opener receives
 * its QEs in (cq.c).  The credit page, one per domain, is an ordinary page
 * (VM_MIXEDMAP, inserted with a reference) that RDMA may register.
 *
 * A file holds a reference on its port; the port object (cq.c) outlives
 * the domain, but its dlb2/dom pointers are cleared on revocation and only
 * used under port->lock while set.  Other kernel modules pin a producer
 * port through a user mapping of it here (dlb2_p2p_get(), p2p.c's pins).
 * Locks: dlb2.h, "Locking".
 */
#include <linux/cdev.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/dlb2_p2p.h>

#include "compat.h"
#include "domain.h"

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

static int port_open(struct inode *inode, struct file *file)
{
	struct dlb2_port *port;
	int ret = 0;

	mutex_lock(&dlb2_minors_lock);
	port = idr_find(&dlb2_minors, iminor(inode));
	/*
	 * A port in the IDR still has its domain's reference: the domain
	 * drops it only after dlb2_port_cdev_del() took the port out.
	 */
	if (port)
		kref_get(&port->ref);
	mutex_unlock(&dlb2_minors_lock);
	if (!port)
		return -ENODEV;
	mutex_lock(&port->lock);
	if (!port->dlb2) {
		ret = -ENODEV;
	} else if (port->cdev.file) {
		ret = -EBUSY;
	} else {
		port->cdev.file = file;
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
	 * (that needs one of the file's mappings, and dlb2_p2p_get() holds
	 * the file from finding the mapping until its pin is listed, so
	 * this release comes after that pin).
	 */
	dlb2_p2p_revoke_all(port);
	mutex_lock(port->dev_lock);
	mutex_lock(&port->lock);
	if (port->dlb2)
		dlb2_port_release_cq(port);
	port->cdev.file = NULL;
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
	vm_fault_t ret = VM_FAULT_SIGBUS;

	/*
	 * The PTE is installed here, under port->lock, not by the core after
	 * we return (vmf->page): dlb2_port_kill() zaps the file's mappings
	 * under the same lock, so a PTE is either in place before the zap
	 * or refused after it.
	 */
	mutex_lock(&port->lock);
	if (!port->dlb2)
		goto out;
	switch (region) {
	case DLB2_MMAP_PP_OFFSET:
		ret = vmf_insert_pfn_prot(vma, vmf->address,
					  PHYS_PFN(port->dlb2->func_phys +
						   dlb2_port_pp_offs(&port->hw)),
					  pgprot_writecombine(vma->vm_page_prot));
		break;
	case DLB2_MMAP_CREDIT_OFFSET:
		/* The mapping's own reference; RDMA may pin it. */
		ret = vmf_insert_page(vma, vmf->address,
				      port->dom->credit_page);
		break;
	}
out:
	mutex_unlock(&port->lock);
	return ret;
}

static const struct vm_operations_struct port_vm_ops = {
	.fault = port_fault,
};

/*
 * The CQ ring's mapping has every PTE from mmap() on (dlb2_port_cq_mmap());
 * a fault comes only after dlb2_port_kill() zapped them.
 */
static vm_fault_t port_cq_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct port_cq_vm_ops = {
	.fault = port_cq_fault,
};

/* The port whose producer port @vma maps, or NULL; mmap lock held. */
static struct dlb2_port *port_of_pp_vma(struct vm_area_struct *vma)
{
	if (vma->vm_ops != &port_vm_ops ||
	    (vma->vm_pgoff << PAGE_SHIFT) != DLB2_MMAP_PP_OFFSET)
		return NULL;
	return vma->vm_private_data;
}

#define refuse(err, fmt, ...) ({					\
	pr_info_ratelimited("dlb2: p2p refused: " fmt "\n", ##__VA_ARGS__); \
	ERR_PTR(err);							\
})

/**
 * dlb2_p2p_get() - pin the producer-port window behind a user address range
 * @mm: the address space (usually current->mm), not locked by the caller
 * @addr: start of the range
 * @len: its length; the range must lie within one port's PP mapping
 * @domain_id: the hardware domain the port must belong to, or -1 for any
 * @revoke: called when the port goes away (see dlb2_p2p_revoke_t)
 * @priv: its argument; must stay valid until dlb2_p2p_put() returns
 *
 * Return: the pin, or an ERR_PTR: -EINVAL when the range is not (all) in a
 * mapping of a dlb2 producer port, -ENODEV when its port is no longer live
 * (domain disabled, device reset or unbound), -EACCES when it belongs to
 * another domain than @domain_id, -ENOMEM.  Each refusal is logged.
 */
struct dlb2_p2p *dlb2_p2p_get(struct mm_struct *mm, unsigned long addr,
			      size_t len, int domain_id,
			      dlb2_p2p_revoke_t revoke, void *priv)
{
	struct vm_area_struct *vma;
	struct dlb2_port *port;
	struct dlb2_p2p *p2p;
	struct file *file;
	u32 offset;

	if (!len || addr + len < addr)
		return refuse(-EINVAL, "empty range at %#lx", addr);
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	port = vma ? port_of_pp_vma(vma) : NULL;
	if (!port) {
		mmap_read_unlock(mm);
		return refuse(-EINVAL, "%#lx is not in a dlb2 producer-port mapping",
			      addr);
	}
	if (addr + len > vma->vm_end) {
		mmap_read_unlock(mm);
		return refuse(-EINVAL, "%#lx+%#zx spans more than one producer port",
			      addr, len);
	}
	offset = addr - vma->vm_start;
	/*
	 * Hold the file, not only the port: once the mmap lock is dropped,
	 * the last munmap() of the file could otherwise release it before
	 * the pin is listed; the release's dlb2_p2p_revoke_all() would miss
	 * the pin, which would outlive the file and write into the producer
	 * port of the port's next opener.  Holding the file (which holds the
	 * port), its release runs only after our fput(), and finds the pin.
	 * fput() defers the release (to our return to user space, or a
	 * worker), so the holder's callback never runs inside this call.
	 */
	file = get_file(vma->vm_file);
	mmap_read_unlock(mm);

	p2p = dlb2_p2p_pin(port, offset, len, domain_id, revoke, priv);
	fput(file);
	return p2p;
}
EXPORT_SYMBOL_GPL(dlb2_p2p_get);

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
		if (size != dlb2_port_cq_map_size(&port->hw))
			ret = -EINVAL;
		deny |= VM_WRITE;
		clear |= VM_MAYWRITE;
		break;
	case DLB2_MMAP_CREDIT_OFFSET:
		if (size != DLB2_CREDIT_PAGE_SIZE)
			ret = -EINVAL;
		/* vm_insert_page() from the fault handler needs it set now. */
		dlb2_vm_flags_set(vma, VM_MIXEDMAP);
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
	vma->vm_private_data = port;
	if (off == DLB2_MMAP_CQ_OFFSET) {
		/* remap_pfn_range() sets VM_IO | VM_PFNMAP */
		vma->vm_ops = &port_cq_vm_ops;
		ret = dlb2_port_cq_mmap(port, &port->dlb2->pdev->dev, vma);
	} else {
		vma->vm_ops = &port_vm_ops;
	}
out:
	mutex_unlock(&port->lock);
	return ret;
}

static __poll_t port_poll(struct file *file, poll_table *wait)
{
	struct dlb2_port *port = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &port->irq.wq, wait);
	if (!READ_ONCE(port->dlb2))
		mask |= EPOLLERR | EPOLLHUP;
	if (atomic_read(&port->irq.count))
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
	if (!port->hw.intr)
		return -EOPNOTSUPP;
	for (;;) {
		n = atomic_xchg(&port->irq.count, 0);
		if (n)
			break;
		if (!READ_ONCE(port->dlb2))
			return -ENODEV;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(port->irq.wq,
					       atomic_read(&port->irq.count) ||
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
	info->flags = (port->hw.ldb ? DLB2_PORT_LDB : 0) |
		      (port->hw.intr ? DLB2_PORT_INTERRUPT : 0);
	info->domain_id = dom->res.id;
	info->port_id = port->hw.id;
	info->dir_queue_id = port->hw.ldb ? 0 : port->hw.id;
	info->cq_depth = port->hw.cq_depth;
	info->cq_entries = port->hw.cq_entries;
	info->cq_stride = 64;
	info->cq_size = dlb2_port_cq_size(&port->hw);
	info->hist_list = port->hw.hist_size;
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
	port->cdev.devt = MKDEV(MAJOR(dlb2_devt), minor);
	/* '!' becomes '/' in the device node: /dev/dlb2/N/domain/port. */
	dev = device_create(dlb2_class, &port->dlb2->pdev->dev, port->cdev.devt,
			    port, "dlb2!%d!%s!%s", dev_id, port->dom->name,
			    port->name);
	if (IS_ERR(dev)) {
		mutex_lock(&dlb2_minors_lock);
		idr_remove(&dlb2_minors, minor);
		mutex_unlock(&dlb2_minors_lock);
		return PTR_ERR(dev);
	}
	port->cdev.dev = dev;
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
	idr_replace(&dlb2_minors, port, MINOR(port->cdev.devt));
	mutex_unlock(&dlb2_minors_lock);
}

/**
 * dlb2_port_cdev_del() - remove a port's character device
 * @port: the port; the device lock held
 *
 * No new open finds the port; a file already open stays so until its
 * port is killed (dlb2_port_kill()) and user space closes it.
 */
void dlb2_port_cdev_del(struct dlb2_port *port)
{
	lockdep_assert_held(port->dev_lock);
	if (!port->cdev.dev)
		return;
	device_destroy(dlb2_class, port->cdev.devt);
	mutex_lock(&dlb2_minors_lock);
	idr_remove(&dlb2_minors, MINOR(port->cdev.devt));
	mutex_unlock(&dlb2_minors_lock);
	port->cdev.dev = NULL;
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

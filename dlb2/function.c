// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: what outlives a binding of a PCI function.
 *
 * A struct dlb2_function is made at the first probe of a PCI function and
 * kept until the module is unloaded.  It owns the function's device lock
 * (dlb2.h, "Locking", level 2) and its number N (dlb2_<N> in configfs and
 * sysfs, /dev/dlb2/<N>), and says which struct dlb2, if any, is bound to
 * it.  The configfs directory of the function (configfs.c), which outlives
 * every binding too, and the ports of a revoked domain lock the device
 * through it while no device is bound.
 */
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dlb2.h"

/*
 * Protects dlb2_functions and dlb2_function_ida while probe finds or makes
 * its function; taken with no other dlb2 lock held (level 0).
 */
static DEFINE_MUTEX(dlb2_functions_mutex);
static LIST_HEAD(dlb2_functions);
static DEFINE_IDA(dlb2_function_ida);

/**
 * dlb2_function_get() - the function of a PCI device, made at its first probe
 * @pdev: the device being probed
 *
 * Return: the function, which lives until dlb2_functions_exit(), or an
 * ERR_PTR (-ENOMEM, or no number left).
 */
struct dlb2_function *dlb2_function_get(struct pci_dev *pdev)
{
	struct dlb2_function *fn;
	int id;

	mutex_lock(&dlb2_functions_mutex);
	list_for_each_entry(fn, &dlb2_functions, node)
		if (!strcmp(fn->pci_name, pci_name(pdev)))
			goto out;
	id = ida_alloc(&dlb2_function_ida, GFP_KERNEL);
	if (id < 0) {
		fn = ERR_PTR(id);
		goto out;
	}
	fn = kzalloc(sizeof(*fn), GFP_KERNEL);
	if (!fn) {
		ida_free(&dlb2_function_ida, id);
		fn = ERR_PTR(-ENOMEM);
		goto out;
	}
	fn->id = id;
	mutex_init(&fn->lock);
	strscpy(fn->pci_name, pci_name(pdev), sizeof(fn->pci_name));
	list_add_tail(&fn->node, &dlb2_functions);
out:
	mutex_unlock(&dlb2_functions_mutex);
	return fn;
}

/**
 * dlb2_function_bind() - make a probed device the one bound to its function
 * @dlb2: the device, dlb2->fn set
 *
 * From here on its function's domains can be enabled on it.
 */
void dlb2_function_bind(struct dlb2 *dlb2)
{
	mutex_lock(&dlb2->fn->lock);
	dlb2->fn->dlb2 = dlb2;
	mutex_unlock(&dlb2->fn->lock);
}

/**
 * dlb2_function_unbind() - from now on no domain is enabled on @dlb2
 * @dlb2: the bound device, going away
 *
 * Domains enabled already stay until their owner (configfs.c) stops them.
 */
void dlb2_function_unbind(struct dlb2 *dlb2)
{
	mutex_lock(&dlb2->fn->lock);
	dlb2->fn->dlb2 = NULL;
	mutex_unlock(&dlb2->fn->lock);
}

/**
 * dlb2_functions_exit() - free every function, at module unload
 *
 * No device is bound, no configfs directory and no port is left.
 */
void dlb2_functions_exit(void)
{
	struct dlb2_function *fn, *tmp;

	list_for_each_entry_safe(fn, tmp, &dlb2_functions, node) {
		WARN_ON(fn->dlb2);
		mutex_destroy(&fn->lock);
		ida_free(&dlb2_function_ida, fn->id);
		kfree(fn);
	}
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5: a scheduling domain as its users see it, from
 * enable to release: the domain in hardware (domain.c), its statistics
 * devices (sysfs.c), its port devices (port.c) and, at the end, the
 * callbacks of its ports' P2P holders (p2p.c).  configfs.c calls these
 * three; nothing below calls back up (layers: dlb2.h).
 */
#include <linux/err.h>
#include <linux/kernel.h>

#include "domain.h"

/**
 * dlb2_domain_enable() - create a domain and give it to user space
 * @dlb2: the device
 * @desc: what the domain is
 * @why: set to the reason of a failure
 * @len: size of @why
 *
 * Called with the device lock held.  The port devices are created first
 * and can be opened only once every one of them exists, so that a failure
 * leaves no opener and no P2P holder behind.
 *
 * Return: the domain, or an ERR_PTR as dlb2_domain_create(); nothing is
 * left allocated or programmed on failure.
 */
struct dlb2_domain *dlb2_domain_enable(struct dlb2 *dlb2,
				       const struct dlb2_domain_desc *desc,
				       char *why, size_t len)
{
	struct dlb2_domain *dom;
	unsigned int i = 0;
	int ret;

	dom = dlb2_domain_create(dlb2, desc, why, len);
	if (IS_ERR(dom))
		return dom;
	ret = dlb2_domain_sysfs_add(dom);
	if (ret)
		goto err_destroy;
	for (i = 0; i < dom->hw.num_ports; i++) {
		ret = dlb2_port_cdev_add(dom->ports[i], dlb2->fn->id);
		if (ret)
			goto err_cdev;
	}
	for (i = 0; i < dom->hw.num_ports; i++)
		dlb2_port_cdev_enable(dom->ports[i]);
	return dom;

err_cdev:
	/* None could be opened yet: no holder to call. */
	while (i--)
		dlb2_port_cdev_del(dom->ports[i]);
	dlb2_domain_sysfs_del(dom);
err_destroy:
	dlb2_domain_destroy(dom);
	snprintf(why, len, "cannot create the port devices (%d)", ret);
	return ERR_PTR(ret);
}

/**
 * dlb2_domain_revoke() - take an enabled domain away from user space
 * @dom: the domain; the device lock held
 *
 * First of the two steps of disabling (dlb2.h, "Locking"): the port
 * devices and statistics devices go and the ports are killed
 * (dlb2_domain_kill()).  The caller must call dlb2_domain_release() once
 * it has dropped every dlb2 lock.
 */
void dlb2_domain_revoke(struct dlb2_domain *dom)
{
	unsigned int i;

	for (i = 0; i < dom->hw.num_ports; i++)
		dlb2_port_cdev_del(dom->ports[i]);
	dlb2_domain_sysfs_del(dom);
	dlb2_domain_kill(dom);
}

/**
 * dlb2_domain_release() - call the holders, then reset and free a domain
 * @dom: a domain dlb2_domain_revoke() took away; no dlb2 lock held
 *
 * The P2P holders of its ports are called (and waited for) with no lock
 * held; only then is the hardware drained and reset and are the resources
 * returned (dlb2_domain_teardown()).
 */
void dlb2_domain_release(struct dlb2_domain *dom)
{
	unsigned int i;

	might_sleep();
	for (i = 0; i < dom->hw.num_ports; i++)
		dlb2_p2p_revoke_all(dom->ports[i]);
	dlb2_domain_teardown(dom);
}

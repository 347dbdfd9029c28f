// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel DLB 2.0 / 2.5 PF driver: device attributes in sysfs.
 * Documented in Documentation/ABI/testing/sysfs-driver-dlb2.
 */
#include <linux/device.h>
#include <linux/sysfs.h>

#include "dlb2.h"

static ssize_t hw_version_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct dlb2 *dlb2 = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%s\n", dlb2->ver == DLB2_HW_V2_5 ? "2.5" : "2.0");
}
static DEVICE_ATTR_RO(hw_version);

static struct attribute *dlb2_dev_attrs[] = {
	&dev_attr_hw_version.attr,
	NULL,
};

static const struct attribute_group dlb2_dev_group = {
	.attrs = dlb2_dev_attrs,
};

const struct attribute_group *dlb2_dev_groups[] = {
	&dlb2_dev_group,
	NULL,
};

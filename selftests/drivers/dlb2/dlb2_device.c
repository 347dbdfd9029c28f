// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2 device tests: the DLB PF is present and bound to dlb2, reports the
 * hardware version of its PCI device ID, and survives unbind and rebind.
 *
 * Needs a DLB device (real, or the QEMU model of tools/qemu) and dlb2.ko
 * loaded; skips when there is no device.  When DLB2_MODEL_VERSION is set (the
 * VM harness sets it to what it attached), the device must be that version.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "dlb2_lib.h"

FIXTURE(dlb2_dev) {
	char bdf[NAME_MAX + 1];
	const char *version;	/* what the device ID says it is */
	char attr[PATH_MAX];	/* its hw_version attribute */
};

FIXTURE_SETUP(dlb2_dev)
{
	self->version = dlb2_find_device(self->bdf, sizeof(self->bdf));
	if (!self->version)
		SKIP(return, "no DLB 2.0/2.5 PF (8086:2710 or 8086:2714) present");
	/*
	 * The 6.1 harness runs the test body even when the setup skipped:
	 * every test starts with "if (!self->version) return;".
	 */
	snprintf(self->attr, sizeof(self->attr), PCI_DEVICES "/%s/hw_version",
		 self->bdf);
}

FIXTURE_TEARDOWN(dlb2_dev)
{
	/* Leave the device bound whatever the test did. */
	if (!self->version)
		return;
	dlb2_rebind(self->bdf);
}

TEST_F(dlb2_dev, model_version_matches)
{
	const char *want = getenv("DLB2_MODEL_VERSION");

	if (!self->version)
		return;
	if (!want)
		SKIP(return, "DLB2_MODEL_VERSION not set (not run by the VM harness)");
	ASSERT_STREQ(want, self->version);
}

TEST_F(dlb2_dev, bound_to_dlb2)
{
	char drv[NAME_MAX + 1];

	if (!self->version)
		return;
	pci_driver_of(self->bdf, drv, sizeof(drv));
	ASSERT_STREQ("dlb2", drv);
}

TEST_F(dlb2_dev, hw_version)
{
	char buf[32];

	if (!self->version)
		return;
	ASSERT_EQ(0, sysfs_read(self->attr, buf, sizeof(buf)));
	ASSERT_STREQ(self->version, buf);
}

TEST_F(dlb2_dev, hw_version_read_only)
{
	if (!self->version)
		return;
	ASSERT_EQ(-EACCES, sysfs_write(self->attr, "2.5"));
}

TEST_F(dlb2_dev, unbind_bind)
{
	char drv[NAME_MAX + 1], buf[32];
	int i;

	if (!self->version)
		return;
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, sysfs_write(DLB2_DRIVER "/unbind", self->bdf));
		pci_driver_of(self->bdf, drv, sizeof(drv));
		ASSERT_STREQ("", drv);
		/* The attribute belongs to the driver: gone while unbound. */
		ASSERT_EQ(-ENOENT, sysfs_read(self->attr, buf, sizeof(buf)));

		ASSERT_EQ(0, sysfs_write(DLB2_DRIVER "/bind", self->bdf));
		pci_driver_of(self->bdf, drv, sizeof(drv));
		ASSERT_STREQ("dlb2", drv);
		ASSERT_EQ(0, sysfs_read(self->attr, buf, sizeof(buf)));
		ASSERT_STREQ(self->version, buf);
	}
}

TEST_HARNESS_MAIN

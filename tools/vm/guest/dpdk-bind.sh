# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the guest programs that run DPDK's dlb2 PMD (dpdk-selftest,
# dpdk-pipeline-tests).  dpdk_bind: loads vfio-pci (in no-IOMMU mode
# unless the VM has a vIOMMU), binds the first DLB to it, reserves 512
# hugepages of 2 MiB and mounts hugetlbfs; sets $bdf, $dev and $huge.
# dpdk_unbind: unmounts it and clears the driver override.  Both call the
# caller's fail function with the reason when a step fails.

dpdk_bind() {
	if [ -d /sys/kernel/iommu_groups/0 ]; then
		modprobe vfio-pci || fail "cannot load vfio-pci"
	else
		{ modprobe vfio enable_unsafe_noiommu_mode=1 && modprobe vfio-pci; } ||
			fail "cannot load vfio in no-IOMMU mode"
		# which taints the kernel (U) once a device is bound
		if [ -n "${KERNEL_LOG_ALLOW_TAINT:-}" ]; then
			echo U >>"$KERNEL_LOG_ALLOW_TAINT"
		fi
	fi
	bdf=$(lspci -D -n -d 8086: | awk '$3 ~ /^8086:271[04]$/ && !bdf { bdf = $1 } END { print bdf }')
	[ -n "$bdf" ] || fail "no DLB device"
	dev=/sys/bus/pci/devices/$bdf
	if [ -e "$dev/driver" ]; then
		echo "$bdf" >"$dev/driver/unbind"
	fi
	echo vfio-pci >"$dev/driver_override"
	echo "$bdf" >/sys/bus/pci/drivers_probe
	[ "$(basename "$(readlink "$dev/driver")")" = vfio-pci ] ||
		fail "$bdf not bound to vfio-pci"
	echo 512 >/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	huge=$(mktemp -d)
	mount -t hugetlbfs nodev "$huge" || fail "cannot mount hugetlbfs"
}

dpdk_unbind() {
	umount "$huge"
	echo "" >"$dev/driver_override"
}

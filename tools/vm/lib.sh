# SPDX-License-Identifier: GPL-2.0
#
# Shared settings of the VM harness scripts: pinned versions and cache paths.
# Sourced, not executed.

# Pinned inputs.  Changing one of these invalidates the matching cache.
# The harness kernel (build-kernel --variant=default|debug): Debian's
# linux-source-6.12 with patches/linux; LINUX_VERSION is its Makefile's.
LINUX_DEB_VERSION=6.12.117-1~deb12u1
LINUX_VERSION=6.12.117
# The optional 6.1 harness kernel (build-kernel --variant=6.1, not run by
# make check): linux-source-6.1 with patches/linux-6.1.
LINUX61_DEB_VERSION=6.1.192-2
QEMU_DEB_VERSION=1:7.2+dfsg-7+deb12u18
VIRTME_NG_VERSION=1.42
# Debian's own kernel images the driver's tests also run on, as users boot
# them (tools/vm/run --kernel=stock:RELEASE): bookworm's 6.1 and its 6.12
# from the security suite.  install-deps installs each image and its headers
# into the test root (below) when the archive still carries it; make check
# skips those it does not.
STOCK_KERNELS="6.1.0-56-amd64 6.12.117+deb12-amd64"

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Build products live outside the checkout so that a fresh clone (CI) reuses them.
CACHE=${ACCDIRECT_CACHE:-/var/cache/accdirect}
VENV=$CACHE/venv
# A Debian 12 system of its own (tools/vm/testroot) for what make check
# installs as a user would: Debian's kernels, the project's packages, DKMS's
# modules.  Never the host's /boot or dpkg database.
TESTROOT=$CACHE/testroot
# in_root ROOT CMD...: CMD in the Debian system ROOT (a chroot), as root,
# in a private mount namespace that ends with it, with /proc, /dev, /sys,
# the checkout and the harness kernels' directories ($CACHE/linux) at their
# own paths, and a clean environment.
in_root() {
	local root=$1
	shift
	unshare --mount --propagation private sh -c '
		root=$1 top=$2 linux=$3; shift 3
		set -e
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		mount --rbind /sys "$root/sys"
		mkdir -p "$root$top" "$root$linux"
		mount --bind "$top" "$root$top"
		[ ! -d "$linux" ] || mount --bind "$linux" "$root$linux"
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' \
		sh "$root" "$TOP" "$CACHE/linux" "$@"
}
# stock_installed RELEASE: Debian's kernel RELEASE, image and headers, is in
# the test root.  (Its /lib/modules/RELEASE/build is an absolute link, which
# resolves only inside.)
stock_installed() {
	[ -f "$TESTROOT/boot/vmlinuz-$1" ] && [ -d "$TESTROOT/lib/modules/$1" ] &&
		[ -f "$TESTROOT/usr/src/linux-headers-$1/Makefile" ]
}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}

log() { printf '[%s] %s\n' "$(basename "$0")" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# inputs_hash FILE|DIR...: a short digest of the content and names of the
# inputs (names relative to the input, so that the digest does not depend on
# where the checkout is).
inputs_hash() {
	local f
	for f in "$@"; do
		if [ -d "$f" ]; then
			(cd "$f" && find . -type f ! -name '*~' -print0 | LC_ALL=C sort -z |
				xargs -0 -r sha256sum)
		elif [ -e "$f" ]; then
			echo "$(sha256sum <"$f" | cut -d' ' -f1) $(basename "$f")"
		else
			echo "absent $(basename "$f")"
		fi
	done | sha256sum | cut -c1-16
}

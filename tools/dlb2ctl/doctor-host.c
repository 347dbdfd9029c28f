// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2ctl doctor: the host's set-up for dlb2, before the path checks of
 * doctor.c.  Is dlb2 loaded, or built for the running kernel (and what
 * does DKMS say)?  Is configfs mounted?  Secure Boot and lockdown; the
 * group dlb2 and the caller's membership; the udev rule and the port
 * devices; the saved configurations of /etc/dlb2 (apply --check); failed
 * dlb2-apply@ units.
 *
 * Files are read under sysfs (--sysfs), procfs (--proc), the modules tree
 * (--modules) and the root (--root: etc/, run/, dev/, lib/udev, usr/...),
 * the group database from ROOT/etc/group unless the root is "/" (then
 * NSS), and the commands dkms and systemctl are run from the root's
 * usr/local/sbin, usr/local/bin, usr/sbin, usr/bin, sbin or bin: the tests
 * build every case as a tree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "doctor.h"
#include "doctor-int.h"

static const char *sysfs, *procfs, *moddir;
static char root[PATH_MAX / 2];		/* "" for "/": paths are root + "/..." */
static char rel[128];			/* the running kernel's release */
static bool loaded;			/* /sys/module/dlb2 */
static char ko[PATH_MAX];		/* the installed dlb2.ko, "" none */

/* ---- commands --------------------------------------------------------- */

#define RUN_TIMEOUT_MS	30000

/* @name in the root's sbin and bin directories into @path; false: none */
static bool find_cmd(const char *name, char *path, size_t len)
{
	static const char *const dirs[] = {
		"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin",
	};
	unsigned int i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, len, "%s%s/%s", root, dirs[i], name);
		if (!access(path, X_OK))
			return true;
	}
	return false;
}

/*
 * Run @path with @argv, its standard output into @out (at most @len - 1
 * bytes, the rest is read and dropped), standard error dropped, for at
 * most RUN_TIMEOUT_MS.  Returns its exit status, or -1 (@out: why).
 */
static int run(const char *path, char *const argv[], char *out, size_t len)
{
	struct timespec t0, t;
	struct pollfd pfd;
	size_t n = 0;
	char drop[512];
	int fds[2], st, ms, nul;
	ssize_t r;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(out, len, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(out, len, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		nul = open("/dev/null", O_RDWR);
		dup2(nul, 0);
		dup2(fds[1], 1);
		dup2(nul, 2);
		execv(path, argv);
		_exit(127);
	}
	close(fds[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pfd.fd = fds[0];
	pfd.events = POLLIN;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = RUN_TIMEOUT_MS - (int)((t.tv_sec - t0.tv_sec) * 1000 +
					   (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (ms <= 0 || poll(&pfd, 1, ms) == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			close(fds[0]);
			snprintf(out, len, "%.64s did not answer within %d s", argv[0], RUN_TIMEOUT_MS / 1000);
			return -1;
		}
		if (n + 1 < len)
			r = read(fds[0], out + n, len - 1 - n);
		else
			r = read(fds[0], drop, sizeof(drop));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (n + 1 < len)
			n += r;
	}
	out[n] = '\0';
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		snprintf(out, len, "%.64s cannot be run", argv[0]);
		return -1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The lines of @in, without empty ones, joined with "; " into @out */
static char *one_line(const char *in, char *out, size_t len)
{
	size_t n = 0, k;

	out[0] = '\0';
	while (*in) {
		while (*in == '\n' || *in == ' ')
			in++;
		k = strcspn(in, "\n");
		if (k && n < len)
			n += snprintf(out + n, len - n, "%s%.*s", n ? "; " : "", (int)k, in);
		in += k;
	}
	return out;
}

/* ---- module ----------------------------------------------------------- */

/* dlb2.ko, compressed or not, below @dir (depth @depth) into ko[] */
static void find_ko(const char *dir, int depth)
{
	static const char *const names[] = { "dlb2.ko", "dlb2.ko.xz", "dlb2.ko.zst", "dlb2.ko.gz" };
	char path[PATH_MAX];
	struct dirent **ents;
	struct stat st;
	unsigned int k;
	int i, n;

	n = scandir(dir, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		for (k = 0; k < sizeof(names) / sizeof(names[0]) && !ko[0]; k++)
			if (!strcmp(ents[i]->d_name, names[k]))
				snprintf(ko, sizeof(ko), "%s", path);
		if (!ko[0] && depth > 0 && ents[i]->d_name[0] != '.' &&
		    !lstat(path, &st) && S_ISDIR(st.st_mode))
			find_ko(path, depth - 1);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* Is @path a module with a signature appended?  1 yes, 0 no, -1 unknown */
static int ko_signed(const char *path)
{
	static const char magic[] = "~Module signature appended~\n";
	char tail[sizeof(magic) - 1];
	size_t n = strlen(path);
	int fd, ret = -1;
	off_t end;

	if (n < 3 || strcmp(path + n - 3, ".ko"))
		return -1;	/* compressed: the signature is inside */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	end = lseek(fd, 0, SEEK_END);
	if (end >= (off_t)sizeof(tail) &&
	    pread(fd, tail, sizeof(tail), end - sizeof(tail)) == (ssize_t)sizeof(tail))
		ret = !memcmp(tail, magic, sizeof(tail));
	close(fd);
	return ret;
}

static void check_module(void)
{
	static const char *const dirs[] = { "updates", "extra" };
	char ver[64], dkms[PATH_MAX], out[1024], said[1024], where[PATH_MAX * 2];
	char *argv[] = { "dkms", "status", "-m", "dlb2", NULL };
	unsigned int i;
	struct check *c;
	int ret = -2;

	loaded = !access(P("%s/module/dlb2", sysfs), F_OK);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !ko[0]; i++)
		find_ko(P("%s/%s/%s", moddir, rel, dirs[i]), 3);
	if (loaded) {
		if (rd(ver, sizeof(ver), P("%s/module/dlb2/version", sysfs)) || !ver[0])
			add("module", HOST, PASS, "dlb2 is loaded");
		else
			add("module", HOST, PASS, "dlb2 is loaded, version %s", ver);
		return;
	}
	if (ko[0]) {
		c = add("module", HOST, FAIL, "dlb2 is not loaded; %s has it: %s", rel, ko);
		if (installed("dlb2"))
			fix(c, "modprobe dlb2 (dmesg says why, if it fails)");
		else
			fix(c, "depmod %s (dlb2 is not in its modules.dep), then modprobe dlb2", rel);
		return;
	}
	snprintf(where, sizeof(where), "no dlb2.ko under %s/%s/updates or extra", moddir, rel);
	if (find_cmd("dkms", dkms, sizeof(dkms)))
		ret = run(dkms, argv, out, sizeof(out));
	if (ret == -2) {
		c = add("module", HOST, FAIL, "dlb2 is not loaded and not built for the running kernel %s: %s; no dkms command",
			rel, where);
		fix(c, "install dkms, linux-headers-%s and the dlb2-dkms package, or build it in the source tree (make install-modules); then modprobe dlb2", rel);
	} else if (ret == 0 && one_line(out, said, sizeof(said))[0]) {
		c = add("module", HOST, FAIL, "dlb2 is not loaded and not built for the running kernel %s: %s; dkms status -m dlb2: %s",
			rel, where, said);
		fix(c, "not built for this kernel: install linux-headers-%s and run dkms autoinstall -k %s, then modprobe dlb2", rel, rel);
	} else {
		c = add("module", HOST, FAIL, "dlb2 is not loaded and not built for the running kernel %s: %s; dkms status -m dlb2: %s",
			rel, where, ret ? (ret < 0 ? out : "failed") : "nothing");
		fix(c, "install linux-headers-%s and the dlb2-dkms package (DKMS builds dlb2 for each kernel), or build it in the source tree (make install-modules); then modprobe dlb2", rel);
	}
}

/* ---- configfs --------------------------------------------------------- */

static void check_configfs(void)
{
	char line[PATH_MAX + 256], mnt[PATH_MAX], type[64], want[PATH_MAX];
	bool mounted = false;
	struct check *c;
	FILE *f;

	snprintf(want, sizeof(want), "%s/kernel/config", sysfs);
	f = fopen(P("%s/mounts", procfs), "r");
	while (f && !mounted && fgets(line, sizeof(line), f))
		mounted = sscanf(line, "%*s %4095s %63s", mnt, type) == 2 &&
			  !strcmp(type, "configfs") && !strcmp(mnt, want);
	if (!f) {
		c = add("configfs", HOST, UNKNOWN, "%s/mounts cannot be read: whether configfs is mounted on %s is not known",
			procfs, want);
		fix(c, "findmnt -t configfs shows the mount");
		return;
	}
	fclose(f);
	if (access(want, F_OK)) {
		c = add("configfs", HOST, FAIL, "no %s: the kernel has no configfs (CONFIG_CONFIGFS_FS), or its module is not loaded",
			want);
		fix(c, "modprobe configfs; mount -t configfs none %s", want);
		return;
	}
	if (!mounted) {
		c = add("configfs", HOST, FAIL, "configfs is not mounted on %s: dlb2ctl and dlb2-apply@ cannot create domains", want);
		fix(c, "mount -t configfs none %s (systemd mounts it at boot: systemctl start sys-kernel-config.mount)", want);
		return;
	}
	if (!loaded) {
		add("configfs", HOST, PASS, "configfs is mounted on %s (dlb2/ appears there when dlb2 is loaded)", want);
		return;
	}
	if (access(P("%s/dlb2", want), F_OK)) {
		c = add("configfs", HOST, FAIL, "configfs is mounted on %s, but the loaded dlb2 has no directory there: it is not AccDirect's dlb2.ko (Intel's out-of-tree driver has the same name), or it could not register",
			want);
		fix(c, "modinfo -n dlb2 names the file modprobe loads; load AccDirect's: modprobe -r dlb2; modprobe dlb2 (dmesg says why a registration failed)");
		return;
	}
	add("configfs", HOST, PASS, "configfs is mounted on %s, with dlb2's directory dlb2/", want);
}

/* ---- Secure Boot and lockdown ----------------------------------------- */

#define SECURE_BOOT_VAR	"SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

static void check_secure_boot(void)
{
	char sbtext[PATH_MAX + 128], locktext[PATH_MAX + 64], lock[128], buf[16];
	char efi[PATH_MAX], var[PATH_MAX + 64];
	char *open_b, *close_b;
	int sb, fd, sig, err;
	struct dirent *de;
	struct check *c;
	bool enforced, sig_enforce;
	const char *refusal;
	ssize_t n;
	DIR *d;

	/* sb: 1 on, 0 off, -1 no EFI, -2 not known */
	snprintf(efi, sizeof(efi), "%s/firmware/efi", sysfs);
	snprintf(var, sizeof(var), "%s/efivars/" SECURE_BOOT_VAR, efi);
	fd = open(var, O_RDONLY | O_CLOEXEC);
	err = errno;
	if (fd >= 0) {
		/* 4 bytes of attributes, then the value */
		n = read(fd, buf, sizeof(buf));
		close(fd);
		sb = n == 5 ? buf[4] == 1 : -2;
		if (n == 5)
			snprintf(sbtext, sizeof(sbtext), "Secure Boot %s", sb ? "on" : "off");
		else
			snprintf(sbtext, sizeof(sbtext), "Secure Boot not known (%s: %zd bytes, not 5)", var, n);
	} else if (access(efi, F_OK)) {
		sb = -1;
		snprintf(sbtext, sizeof(sbtext), "not an EFI boot (no %s): no Secure Boot", efi);
	} else if (err == ENOENT) {
		/* efivarfs mounted (it has variables) without SecureBoot: off */
		d = opendir(P("%s/efivars", efi));
		sb = -2;
		while (d && sb == -2 && (de = readdir(d)))
			sb = de->d_name[0] == '.' ? -2 : 0;
		if (d)
			closedir(d);
		if (!sb)
			snprintf(sbtext, sizeof(sbtext), "Secure Boot off (no SecureBoot variable)");
		else
			snprintf(sbtext, sizeof(sbtext), "Secure Boot not known (no variables in %s/efivars: efivarfs not mounted)", efi);
	} else {
		sb = -2;
		snprintf(sbtext, sizeof(sbtext), "Secure Boot not known (%s: %s)", var, strerror(err));
	}

	/* "none [integrity] confidentiality": the bracketed word */
	lock[0] = '\0';
	if (rd(locktext, sizeof(locktext), P("%s/kernel/security/lockdown", sysfs)) == 0 &&
	    (open_b = strchr(locktext, '[')) && (close_b = strchr(open_b, ']'))) {
		*close_b = '\0';
		snprintf(lock, sizeof(lock), "%s", open_b + 1);
		snprintf(locktext, sizeof(locktext), "lockdown %s", lock);
	} else {
		snprintf(locktext, sizeof(locktext), "lockdown not reported (no %s/kernel/security/lockdown)", sysfs);
	}
	if (!rd(buf, sizeof(buf), P("%s/module/module/parameters/sig_enforce", sysfs)) &&
	    !strcmp(buf, "Y"))
		snprintf(locktext + strlen(locktext), sizeof(locktext) - strlen(locktext),
			 "; module.sig_enforce");

	/*
	 * Unsigned modules are refused under module.sig_enforce, or lockdown
	 * integrity (or confidentiality), which distributions' kernels turn on
	 * with Secure Boot: when lockdown is not reported, Secure Boot counts.
	 */
	sig_enforce = !strcmp(buf, "Y");
	enforced = sig_enforce || (lock[0] ? strcmp(lock, "none") : sb == 1);
	/*
	 * What modprobe says (module_sig_check()): signatures enforced,
	 * EKEYREJECTED; refused by lockdown alone, EPERM and the lockdown
	 * line in the log.
	 */
	refusal = sig_enforce ? "modprobe: \"Key was rejected by service\"" :
		  "modprobe: \"Operation not permitted\", the log: \"Lockdown: modprobe: unsigned module loading is restricted\"";
	if (!enforced && sb != -2) {
		add("secure-boot", HOST, PASS, "%s; %s: unsigned modules load", sbtext, locktext);
		return;
	}
	if (loaded) {
		add("secure-boot", HOST, PASS, "%s; %s; dlb2 is loaded: its signature was accepted", sbtext, locktext);
		return;
	}
	sig = ko[0] ? ko_signed(ko) : -1;
	if (enforced && sig == 0) {
		c = add("secure-boot", HOST, FAIL, "%s; %s; %s carries no signature: the kernel refuses it (%s)",
			sbtext, locktext, ko, refusal);
		fix(c, "DKMS-built modules must be signed with a key enrolled as a MOK: mokutil --import /var/lib/dkms/mok.pub, reboot and confirm the key in the MOK manager, then dkms autoinstall -k %s (builds and signs) and modprobe dlb2",
		    rel);
		return;
	}
	if (enforced)
		c = add("secure-boot", HOST, UNKNOWN, "%s; %s; dlb2 is not loaded: the kernel loads only modules signed with a key it trusts; %s means the key of dlb2.ko is not enrolled",
			sbtext, locktext, refusal);
	else
		c = add("secure-boot", HOST, UNKNOWN, "%s; %s; dlb2 is not loaded: if Secure Boot is on, the kernel loads only modules signed with a key it trusts",
			sbtext, locktext);
	fix(c, "DKMS-built modules must be signed with a key enrolled as a MOK: mokutil --import /var/lib/dkms/mok.pub, reboot and confirm the key in the MOK manager (mokutil --list-enrolled lists the keys; mokutil --sb-state the state), then modprobe dlb2");
}

/* ---- the group dlb2 --------------------------------------------------- */

/* Group @name (or, @name NULL, @gid) from the group database: 1 found */
static int group_find(const char *name, gid_t *gid, char *gname, size_t len,
		      const char *user, bool *lists)
{
	struct group *g = NULL;
	FILE *f = NULL;
	char **m;

	if (!root[0]) {
		g = name ? getgrnam(name) : getgrgid(*gid);
	} else if ((f = fopen(P("%s/etc/group", root), "r"))) {
		while ((g = fgetgrent(f)) && (name ? strcmp(g->gr_name, name) : g->gr_gid != *gid))
			;
	}
	if (g) {
		*gid = g->gr_gid;
		snprintf(gname, len, "%s", g->gr_name);
		for (*lists = false, m = g->gr_mem; user && *m; m++)
			*lists |= !strcmp(*m, user);
	}
	if (f)
		fclose(f);
	return !!g;
}

/* The name of user @uid ("uid N" when there is none) */
static void user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = NULL;
	FILE *f;

	snprintf(buf, len, "uid %u", (unsigned int)uid);
	if (!root[0]) {
		pw = getpwuid(uid);
		if (pw)
			snprintf(buf, len, "%s", pw->pw_name);
		return;
	}
	f = fopen(P("%s/etc/passwd", root), "r");
	while (f && (pw = fgetpwent(f)) && pw->pw_uid != uid)
		;
	if (pw)
		snprintf(buf, len, "%s", pw->pw_name);
	if (f)
		fclose(f);
}

static bool have_dlb2_group;
static gid_t dlb2_gid;

/* Does the calling process have group @gid? */
static bool in_group(gid_t gid)
{
	gid_t *list;
	int i, n;
	bool in = getgid() == gid || getegid() == gid;

	n = getgroups(0, NULL);
	list = n > 0 ? calloc(n, sizeof(*list)) : NULL;
	if (list)
		n = getgroups(n, list);
	for (i = 0; list && i < n; i++)
		in |= list[i] == gid;
	free(list);
	return in;
}

static void check_group(void)
{
	char user[64], gname[64];
	struct check *c;
	bool lists = false;

	user_name(getuid(), user, sizeof(user));
	have_dlb2_group = group_find("dlb2", &dlb2_gid, gname, sizeof(gname), user, &lists);
	if (!have_dlb2_group) {
		c = add("group", HOST, FAIL, "no group dlb2: the port devices stay root's (mode 0600)");
		fix(c, "groupadd --system dlb2 (the dlb2-tools package, and systemd-sysusers with make install's dlb2.conf, create it), then udevadm trigger --subsystem-match=dlb2 --action=change");
		return;
	}
	if (geteuid() == 0) {
		add("group", HOST, PASS, "group dlb2 (gid %u); the caller is root, who may open every port",
		    (unsigned int)dlb2_gid);
		return;
	}
	if (in_group(dlb2_gid)) {
		add("group", HOST, PASS, "group dlb2 (gid %u); %s is a member: may open the port devices",
		    (unsigned int)dlb2_gid, user);
		return;
	}
	if (lists) {
		c = add("group", HOST, FAIL, "group dlb2 (gid %u) lists %s, but this session does not have it (added after the login)",
			(unsigned int)dlb2_gid, user);
		fix(c, "log in again (or newgrp dlb2 in this shell)");
		return;
	}
	c = add("group", HOST, FAIL, "group dlb2 (gid %u); %s is not a member: cannot open the port devices",
		(unsigned int)dlb2_gid, user);
	fix(c, "usermod -aG dlb2 %s, then log in again", user);
}

/* ---- the udev rule and the port devices -------------------------------- */

#define RULE	"60-dlb2.rules"

struct nodes {
	int n, bad;
	char first[PATH_MAX];	/* the first one not group dlb2, mode 0660 */
	gid_t gid;
	mode_t mode;
};

/* The port devices below @dir: any entry not a directory */
static void walk_nodes(const char *dir, int depth, struct nodes *nd)
{
	char path[PATH_MAX];
	struct dirent **ents;
	struct stat st;
	int i, n;

	n = scandir(dir, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (ents[i]->d_name[0] == '.' || lstat(path, &st)) {
			/* nothing */
		} else if (S_ISDIR(st.st_mode)) {
			if (depth > 0)
				walk_nodes(path, depth - 1, nd);
		} else {
			nd->n++;
			if (!have_dlb2_group || st.st_gid != dlb2_gid ||
			    (st.st_mode & 0060) != 0060) {
				if (!nd->bad++) {
					snprintf(nd->first, sizeof(nd->first), "%s", path);
					nd->gid = st.st_gid;
					nd->mode = st.st_mode & 07777;
				}
			}
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

static void check_udev(void)
{
	static const char *const dirs[] = {	/* udev's order: the first wins */
		"/etc/udev/rules.d", "/run/udev/rules.d", "/usr/local/lib/udev/rules.d",
		"/usr/lib/udev/rules.d", "/lib/udev/rules.d",
	};
	char rule[PATH_MAX], text[4096], ports[PATH_MAX + 256], gname[64], real[PATH_MAX];
	const char *devdir = P("%s/dev/dlb2", root);
	struct nodes nd = { 0 };
	struct check *c;
	unsigned int i;
	struct stat st;
	bool lists;
	ssize_t n;
	int fd, err;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(rule, sizeof(rule), "%s%s/" RULE, root, dirs[i]);
		if (!lstat(rule, &st))
			break;
	}
	if (i == sizeof(dirs) / sizeof(dirs[0])) {
		c = add("udev", HOST, FAIL, "no " RULE " in %s%s, %s%s, %s%s, %s%s or %s%s: the port devices stay root's (mode 0600)",
			root, dirs[0], root, dirs[1], root, dirs[2], root, dirs[3], root, dirs[4]);
		fix(c, "install it: the dlb2-tools package, make install (into /usr/local/lib/udev/rules.d), or cp tools/dist/" RULE " /etc/udev/rules.d/; then udevadm control --reload-rules; udevadm trigger --subsystem-match=dlb2 --action=change");
		return;
	}
	/* a link to /dev/null, or an empty file, masks the rules of that name */
	text[0] = '\0';
	fd = open(rule, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
	err = errno;
	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	if ((realpath(rule, real) && !strcmp(real, "/dev/null")) || n == 0) {
		c = add("udev", HOST, FAIL, "%s masks the rule (a link to /dev/null, or empty): the port devices stay root's", rule);
		fix(c, "rm %s; udevadm control --reload-rules; udevadm trigger --subsystem-match=dlb2 --action=change", rule);
		return;
	}
	if (n < 0) {
		c = add("udev", HOST, UNKNOWN, "%s cannot be read: %s", rule, strerror(err));
		fix(c, "run as root");
		return;
	}
	if (!strstr(text, "GROUP=\"dlb2\"")) {
		c = add("udev", HOST, FAIL, "%s does not give the port devices to group dlb2 (no GROUP=\"dlb2\"): not the rule of dlb2-tools", rule);
		fix(c, "replace it with tools/dist/" RULE " (or remove it, if the package's is installed below it); then udevadm control --reload-rules; udevadm trigger --subsystem-match=dlb2 --action=change");
		return;
	}
	walk_nodes(devdir, 3, &nd);
	if (!nd.n) {
		add("udev", HOST, PASS, "%s gives the port devices to group dlb2; none now (no %s: no enabled domain)",
		    rule, devdir);
		return;
	}
	if (!nd.bad) {
		add("udev", HOST, PASS, "%s gives the port devices to group dlb2; %d under %s, each group dlb2, mode 0660",
		    rule, nd.n, devdir);
		return;
	}
	if (!group_find(NULL, &nd.gid, gname, sizeof(gname), NULL, &lists))
		snprintf(gname, sizeof(gname), "%u", (unsigned int)nd.gid);
	snprintf(ports, sizeof(ports), "%d of %d port devices under %s not group dlb2 with mode 0660: %s is group %s, mode %04o",
		 nd.bad, nd.n, devdir, nd.first, gname, (unsigned int)nd.mode);
	c = add("udev", HOST, FAIL, "%s gives the port devices to group dlb2, but %s", rule, ports);
	if (!have_dlb2_group)
		fix(c, "create the group (the group check), then udevadm trigger --subsystem-match=dlb2 --action=change");
	else
		fix(c, "udevadm control --reload-rules; udevadm trigger --subsystem-match=dlb2 --action=change (devices made before the rule was installed get it so)");
}

/* ---- saved configurations --------------------------------------------- */

static int json_file(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return de->d_name[0] != '.' && n > 5 && !strcmp(de->d_name + n - 5, ".json");
}

static void check_config(void)
{
	char dir[PATH_MAX], file[PATH_MAX + 256], msg[1024];
	struct dirent **ents;
	struct check *c;
	int i, n, ret;

	snprintf(dir, sizeof(dir), "%s/etc/dlb2", root);
	n = scandir(dir, &ents, json_file, alphasort);
	if (n < 0 && errno == ENOENT) {
		add("config", HOST, PASS, "no %s: no saved configuration to apply", dir);
		return;
	}
	if (n < 0) {
		c = add("config", HOST, UNKNOWN, "%s cannot be read: %s", dir, strerror(errno));
		fix(c, "run as root");
		return;
	}
	if (!n)
		add("config", HOST, PASS, "no *.json in %s: no saved configuration to apply", dir);
	for (i = 0; i < n; i++) {
		snprintf(file, sizeof(file), "%s/%s", dir, ents[i]->d_name);
		ret = check_spec_file(file, msg, sizeof(msg));
		if (!ret) {
			add("config", HOST, PASS, "%s", msg);
		} else if (ret == -EACCES) {
			c = add("config", HOST, UNKNOWN, "%s", msg);
			fix(c, "run as root");
		} else {
			c = add("config", HOST, FAIL, "%s", msg);
			fix(c, "correct it (dlb2ctl apply --check %s checks it again), or move it out of %s: dlb2-apply@ applies every *.json there at boot",
			    file, dir);
		}
		free(ents[i]);
	}
	free(ents);
}

/* ---- failed dlb2-apply@ units ----------------------------------------- */

static void check_units(void)
{
	char systemctl[PATH_MAX], out[8192], *line, *save = NULL, *unit, *bdf, *dot;
	char *argv[] = { "systemctl", "--failed", "--no-legend", "--plain", "--full",
			 "dlb2-apply@*", NULL };
	struct check *c;
	int ret, failed = 0;

	if (access(P("%s/run/systemd/system", root), F_OK)) {
		add("apply-unit", HOST, NA, "not booted with systemd (no %s/run/systemd/system): no dlb2-apply@ units", root);
		return;
	}
	if (!find_cmd("systemctl", systemctl, sizeof(systemctl))) {
		add("apply-unit", HOST, NA, "no systemctl command: no dlb2-apply@ units");
		return;
	}
	ret = run(systemctl, argv, out, sizeof(out));
	if (ret) {
		c = add("apply-unit", HOST, UNKNOWN, "systemctl --failed 'dlb2-apply@*': %s",
			ret < 0 ? out : "failed");
		fix(c, "systemctl --failed 'dlb2-apply@*' by hand");
		return;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* "dlb2-apply@0000:6d:00.0.service loaded failed failed ..." */
		unit = strstr(line, "dlb2-apply@");
		if (!unit)
			continue;
		unit[strcspn(unit, " \t")] = '\0';
		bdf = strdup(unit + strlen("dlb2-apply@"));
		if (bdf && (dot = strstr(bdf, ".service")))
			*dot = '\0';
		c = add("apply-unit", HOST, FAIL, "%s failed: the domains saved for %s are not all there",
			unit, bdf ? bdf : "the DLB");
		fix(c, "journalctl -u %s says why; once mended, systemctl restart %s", unit, unit);
		free(bdf);
		failed++;
	}
	if (!failed)
		add("apply-unit", HOST, PASS, "no dlb2-apply@ unit failed (systemctl --failed)");
}

void host_checks(const char *sysfs_dir, const char *procfs_dir, const char *moddir_dir,
		 const char *root_dir)
{
	struct utsname u;
	size_t len = strlen(root_dir);

	sysfs = sysfs_dir;
	procfs = procfs_dir;
	moddir = moddir_dir;
	while (len > 0 && root_dir[len - 1] == '/')
		len--;
	snprintf(root, sizeof(root), "%.*s", (int)len, root_dir);
	if (rd(rel, sizeof(rel), P("%s/sys/kernel/osrelease", procfs)) || !rel[0])
		snprintf(rel, sizeof(rel), "%s", uname(&u) ? "unknown" : u.release);
	check_module();
	check_configfs();
	check_secure_boot();
	check_group();
	check_udev();
	check_config();
	check_units();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2ctl: set up and inspect DLB scheduling domains.
 *
 *   dlb2ctl apply FILE...    JSON configuration -> configfs, enable
 *   dlb2ctl save [DOMAIN]    configfs -> JSON configuration
 *   dlb2ctl show [DOMAIN]    the configfs tree with its attributes
 *   dlb2ctl stats [BDF]      sysfs resources and statistics
 *   dlb2ctl enable DOMAIN    enable a domain (configfs enable = 1)
 *   dlb2ctl disable DOMAIN   disable it (enable = 0)
 *   dlb2ctl set DOMAIN A=V   write attributes of a domain, queue, port, link
 *   dlb2ctl destroy DOMAIN   disable and remove a domain
 *   dlb2ctl doctor           is the host set up (doctor-host.c), can a NIC
 *                            enqueue peer-to-peer (doctor.c)?
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "doctor.h"
#include "internal.h"	/* libdlb2.a's dlb2_attr_set(), which set shares */
#include "libdlb2.h"
#include "save.h"
#include "tree.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* the project's version: the Makefile passes the top-level file VERSION */
#ifndef DLB2CTL_VERSION
#error "DLB2CTL_VERSION is not defined: build with tools/dlb2ctl/Makefile"
#endif
#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

static const char *sysfs = "/sys";
static int device = -1;			/* -d N; -1: any */
static bool json;			/* -j */
static bool check_only;			/* apply --check */
static bool skip_existing;		/* apply --skip-existing */
static const char *out_file;		/* save -o FILE */
static double watch_interval;		/* stats --watch=SECONDS; 0: once */
static long watch_count;		/* stats --count=N; 0: until interrupted */
static const char *cmd_name;		/* the command: "apply", ... */

static const char usage_main[] =
"Usage: dlb2ctl [--configfs DIR] [--sysfs DIR] COMMAND [ARGS]\n"
"\n"
"Set up and inspect Intel DLB 2.0/2.5 scheduling domains (dlb2.ko).\n"
"\n"
"Commands:\n"
"  apply FILE...     create and enable the domains of JSON files\n"
"  save [DOMAIN...]  print the domains as a JSON file that apply takes back\n"
"  show [DOMAIN]     print the configfs tree: domains, queues, ports, links\n"
"  stats [BDF]       print device state, resources, statistics from sysfs\n"
"  enable DOMAIN     enable a domain: check it, program the device, create\n"
"                    its port devices\n"
"  disable DOMAIN    disable a domain (its configuration stays)\n"
"  set DOMAIN[/queues/Q|/ports/P[/links/Q]] ATTR=VALUE...\n"
"                    write attributes of a domain, queue, port or link\n"
"  destroy DOMAIN    disable a domain and remove it with its queues and ports\n"
"  doctor            check the host's set-up, a DLB and an RDMA NIC's path\n"
"  help [COMMAND]    this text, or a command's\n"
"\n"
"Options:\n"
"  --configfs DIR    configfs directory of dlb2 (/sys/kernel/config/dlb2)\n"
"  --sysfs DIR       sysfs mount point (/sys)\n"
"  --version         print the version and exit\n"
"\n"
"The file format: dlb2.json(5).  'dlb2ctl COMMAND --help' for more.\n";

static const char usage_apply[] =
"Usage: dlb2ctl apply [--check] [-d N | --bdf BDF] [--skip-existing] FILE...\n"
"\n"
"Reads each FILE ('-': standard input; a directory: its *.json files in\n"
"alphabetical order), checks it completely, then creates each domain\n"
"through configfs (credits, queues, ports, links) and enables those not\n"
"marked \"enable\": false.  Each file is all or nothing: when something\n"
"fails, the domains created from that file are removed again, and the\n"
"message names the file that refused a value and the domain's status; the\n"
"other files are still applied.  Exit status 1 if any file failed.\n"
"\n"
"  --check          only check the files, touch nothing\n"
"  -d N             only the domains of device N (others are skipped)\n"
"  --bdf BDF        only the domains of the device bound at PCI function\n"
"                   BDF (its dev_id in sysfs)\n"
"  --skip-existing  leave domains that already exist alone (say so)\n";

static const char usage_save[] =
"Usage: dlb2ctl save [-d N] [-o FILE] [DOMAIN...]\n"
"\n"
"Prints every domain (or those named) of every device (or device N) as a\n"
"configuration file that 'dlb2ctl apply' accepts back: credits, queues,\n"
"ports and links with each setting the driver holds, and whether the\n"
"domain is enabled; no hardware ids, no status.\n"
"\n"
"  -d N      only device N\n"
"  -o FILE   write FILE (replaced only when everything was read), creating\n"
"            the directories above it that are missing (mode 0755)\n";

static const char usage_show[] =
"Usage: dlb2ctl show [-j] [-d N] [DOMAIN]\n"
"\n"
"Prints every device (dlb2_N), its domains, their queues, ports and links,\n"
"with every attribute as name=value (status, hardware ids, settings).\n"
"\n"
"  -d N      only device N\n"
"  -j        JSON: { \"dlb2_N\": { DOMAIN: { attribute: value, ...,\n"
"            \"queues\": {...}, \"ports\": {...} } } }, integers as numbers\n";

static const char usage_stats[] =
"Usage: dlb2ctl stats [-j | --watch[=SECONDS] [--count=N]] [BDF]\n"
"\n"
"Prints, for each device bound to dlb2 (or the PCI function BDF, e.g.\n"
"0000:6d:00.0), its hw_version, state and iommu_mode, the files under\n"
"total_resources/, avail_resources/ and alarms/ of /sys/bus/pci/devices/BDF,\n"
"one line per directory, and the statistics of its enabled domains\n"
"(devices dlb2_domain/dlb2_N.DOMAIN), their queues (queue.NAME) and ports\n"
"(port.NAME), labelled domains/DOMAIN, queues/NAME and ports/NAME.  A BDF\n"
"that is not bound to dlb2 (no such PCI function, another driver or none)\n"
"is an error.\n"
"\n"
"  -j        JSON: { BDF: { \"hw_version\": ..., \"state\": ...,\n"
"            \"iommu_mode\": ..., \"total_resources\": {...},\n"
"            \"avail_resources\": {...}, \"alarms\": {...},\n"
"            \"domains\": {...} } }\n"
"  --watch[=SECONDS]\n"
"            print the statistics again every SECONDS (default 1; a\n"
"            fraction too), records separated by an empty line, until\n"
"            interrupted; each counter (the files of alarms/, enqueued,\n"
"            dequeued, alarms, released) from the second record on with\n"
"            its rate since the record before, as dequeued=1007(12.0/s)\n"
"  --count=N stop after N records (implies --watch)\n";

static const char usage_enable[] =
"Usage: dlb2ctl enable [-d N] DOMAIN\n"
"\n"
"Enables DOMAIN (writes 1 to its configfs attribute enable): the driver\n"
"checks the domain as a whole, allocates and programs the device's\n"
"resources and creates the port devices /dev/dlb2/N/DOMAIN/PORT.  An\n"
"enabled domain stays as it is.  A refusal names the driver's errno, what\n"
"it means, and the domain's status: EINVAL the description is\n"
"inconsistent, ENOSPC the device lacks a resource, EBUSY the device is\n"
"being reset or a queue, port or link of the domain is being created or\n"
"removed (retry), ENODEV the device is not bound to dlb2, EIO the device\n"
"did not come back from a reset; EACCES or EPERM: writing configfs takes\n"
"root.\n"
"\n"
"  -d N      the device (default: the one device that has DOMAIN)\n";

static const char usage_disable[] =
"Usage: dlb2ctl disable [-d N] DOMAIN\n"
"\n"
"Disables DOMAIN (writes 0 to its configfs attribute enable): its port\n"
"devices go away and their mappings are revoked, the device drops what\n"
"its queues hold and takes its resources back.  Its configuration stays,\n"
"to be changed (dlb2ctl set) and enabled again.  A disabled domain stays\n"
"as it is.\n"
"\n"
"  -d N      the device (default: the one device that has DOMAIN)\n";

static const char usage_set[] =
"Usage: dlb2ctl set [-d N] DOMAIN[/queues/QUEUE|/ports/PORT[/links/QUEUE]]\n"
"                   ATTR=VALUE...\n"
"\n"
"Writes each VALUE to the configfs attribute ATTR of DOMAIN, or of its\n"
"queue, port or link, in the order given, then prints them as the driver\n"
"reads them back.  An attribute that does not exist (the message lists\n"
"those that do) or is read-only writes nothing at all.  The driver checks\n"
"each value: a refusal names its errno and what it means (EBUSY: the\n"
"domain is enabled, disable it first; EINVAL: not a value the attribute\n"
"takes; ERANGE: out of its range; EACCES, EPERM: writing configfs takes\n"
"root) and stops there, and a second line says which were written before\n"
"and which not.  The attributes:\n"
"Documentation/ABI/testing/configfs-dlb2, or dlb2ctl show.\n"
"\n"
"  -d N      the device (default: the one device that has DOMAIN)\n";

static const char usage_destroy[] =
"Usage: dlb2ctl destroy [-d N] DOMAIN\n"
"\n"
"Disables DOMAIN (its port devices go away, their mappings are revoked),\n"
"then removes its links, ports, queues and the domain itself.\n"
"\n"
"  -d N      the device (default: the one device that has DOMAIN)\n";

static const char usage_doctor[] =
"Usage: dlb2ctl doctor [-j] [-d N | --dlb BDF] [--rdma IBDEV | --peer BDF]\n"
"                      [--atomic-cap none|hca|glob] [--proc DIR] [--modules DIR]\n"
"                      [--root DIR]\n"
"\n"
"Checks the host's set-up for dlb2: module (loaded, or built for the\n"
"running kernel; DKMS), configfs, secure-boot (and lockdown), group (dlb2,\n"
"and the caller in it), udev (the rule, the port devices' group), config\n"
"(each /etc/dlb2/*.json, as apply --check), apply-unit (failed\n"
"dlb2-apply@ units).  Then whether an RDMA NIC (or another PCI peer) can\n"
"enqueue into the DLB's producer ports peer-to-peer, and take DLB credits\n"
"with its RDMA atomics: driver, iommu, numa, acs, p2p-path, peer-mr,\n"
"atomics, atomic-cap.  Without a peer, only the DLB side: driver, iommu,\n"
"peer-mr.  Each prints pass, fail, unknown or n/a with what was found, and\n"
"a fix for fail and unknown.\n"
"\n"
"  -j, --json          JSON instead of text\n"
"  -d N, --dlb BDF     the DLB (default: the first bound to dlb2)\n"
"  --rdma IBDEV        the RDMA device (as ibv_devices names it)\n"
"  --peer BDF          a PCI function as the peer\n"
"  --atomic-cap CAP    the device's atomic_cap, instead of asking libibverbs\n"
"  --proc DIR          procfs (/proc): kallsyms, cpuinfo, sys/kernel/osrelease\n"
"  --modules DIR       the modules tree (/lib/modules): dlb2.ko, modules.dep\n"
"  --root DIR          where etc/, run/, dev/, lib/, usr/ are, and dkms and\n"
"                      systemctl (/)\n"
"\n"
"Exit status: 0 the host is ready, P2P enqueue and remote credits will work\n"
"(no peer: the DLB side passed); 1 P2P enqueue will not work; 2 remote\n"
"credits will not work (P2P enqueue will or may); 5 a host check failed\n"
"(nothing on the path did); 3 nothing failed but something is unknown;\n"
"4 usage error or no such peer.  The numa check is advice only.\n";

static void die_errno(int err, const char *what)
{
	char buf[PATH_MAX + 512];

	if (dlb2_last_error()->err)
		fprintf(stderr, "dlb2ctl: %s: %s\n", what,
			dlb2_strerror(buf, sizeof(buf)));
	else
		fprintf(stderr, "dlb2ctl: %s: %s\n", what, strerror(-err));
	exit(1);
}

static void need_configfs(void)
{
	struct stat st;

	if (stat(dlb2_configfs_root(), &st)) {
		fprintf(stderr, "dlb2ctl: %s: %s (is dlb2.ko loaded and configfs mounted?)\n",
			dlb2_configfs_root(), strerror(errno));
		exit(1);
	}
}

/* -d N, or --bdf BDF: the device's dev_id attribute in sysfs. */
static void set_device(const char *arg, bool bdf)
{
	char path[PATH_MAX], val[16];
	char *end;
	int ret = 0;

	if (bdf) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/dev_id", sysfs, arg);
		ret = dlb2_read_attr(path, val, sizeof(val));
		if (ret) {
			fprintf(stderr, "dlb2ctl: %s: %s (is %s bound to dlb2?)\n",
				path, strerror(-ret), arg);
			exit(1);
		}
		arg = val;
	}
	device = (int)strtol(arg, &end, 10);
	if (*end || end == arg || device < 0) {
		fprintf(stderr, "dlb2ctl: -d %s: not a device number\n", arg);
		exit(2);
	}
}

/*
 * Parse the options of a command that takes those in @allowed ("d": -d N
 * and --bdf, "j": -j, "o": -o FILE, "c": --check and --skip-existing, "w":
 * --watch and --count) and --help; returns the index of the first operand.
 */
static int cmd_opts(int argc, char **argv, const char *usage, const char *allowed)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "check", no_argument, NULL, 'c' },
		{ "skip-existing", no_argument, NULL, 's' },
		{ "bdf", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "watch", optional_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+d:jo:h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			exit(0);
		}
		if (!strchr(allowed, c == 'b' ? 'd' : c == 's' ? 'c' : c == 'n' ? 'w' : c)) {
			fputs(usage, stderr);
			exit(2);
		}
		switch (c) {
		case 'd':
		case 'b':
			set_device(optarg, c == 'b');
			break;
		case 'j':
			json = true;
			break;
		case 'o':
			out_file = optarg;
			break;
		case 'c':
			check_only = true;
			break;
		case 's':
			skip_existing = true;
			break;
		case 'w':
			watch_interval = optarg ? strtod(optarg, &end) : 1;
			if (optarg && (*end || end == optarg || !(watch_interval > 0) ||
				       watch_interval > 1e9)) {
				fprintf(stderr, "dlb2ctl: --watch=%s: not a number of seconds above 0\n",
					optarg);
				exit(2);
			}
			break;
		case 'n':
			watch_count = strtol(optarg, &end, 10);
			if (*end || end == optarg || watch_count <= 0) {
				fprintf(stderr, "dlb2ctl: --count=%s: not a number above 0\n", optarg);
				exit(2);
			}
			break;
		}
	}
	return optind;
}

/* Whether domain @name of device @dev exists in configfs. */
static bool domain_exists(int dev, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/dlb2_%d/%s", dlb2_configfs_root(), dev, name);
	return !stat(path, &st);
}

int check_spec_file(const char *file, char *msg, size_t len)
{
	struct dlb2_spec *spec;
	int i, n, ret;

	ret = dlb2_spec_load(file, &spec, msg, len);
	if (ret)
		return ret;
	for (n = 0, i = 0; i < spec->ndomains; i++)
		n += spec->domains[i].nqueues + spec->domains[i].nports;
	snprintf(msg, len, "%s: %d domain%s, %d queues and ports: OK", file,
		 spec->ndomains, spec->ndomains == 1 ? "" : "s", n);
	dlb2_spec_free(spec);
	return 0;
}

/* Apply one configuration file; returns 0 or 1 (message printed). */
static int apply_file(const char *file)
{
	struct dlb2_spec *spec, sub = { 0 };
	char err[512];
	int i, ret;

	if (check_only) {
		ret = check_spec_file(file, err, sizeof(err));
		if (ret)
			fprintf(stderr, "dlb2ctl: %s\n", err);
		else
			printf("%s\n", err);
		return ret ? 1 : 0;
	}
	ret = dlb2_spec_load(file, &spec, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "dlb2ctl: %s\n", err);
		return 1;
	}
	/* the domains to create: a shallow copy of those selected */
	sub.domains = calloc((size_t)spec->ndomains + 1, sizeof(*sub.domains));
	if (!sub.domains)
		die_errno(-ENOMEM, file);
	for (i = 0; i < spec->ndomains; i++) {
		const struct dlb2_domain_spec *d = &spec->domains[i];

		if (device >= 0 && d->device != device)
			continue;
		if (skip_existing && domain_exists(d->device, d->name)) {
			printf("dlb2_%d/%s: exists, left alone\n", d->device, d->name);
			continue;
		}
		sub.domains[sub.ndomains++] = *d;
	}
	ret = dlb2_spec_apply(&sub);
	if (ret) {
		char buf[PATH_MAX + 512];

		fprintf(stderr, "dlb2ctl: apply %s: %s\n", file,
			dlb2_strerror(buf, sizeof(buf)));
	}
	for (i = 0; !ret && i < sub.ndomains; i++)
		printf("dlb2_%d/%s: %s\n", sub.domains[i].device, sub.domains[i].name,
		       sub.domains[i].enable ? "enabled" : "created");
	free(sub.domains);
	dlb2_spec_free(spec);
	return ret ? 1 : 0;
}

static int json_file(const struct dirent *de)
{
	size_t n = strlen(de->d_name);

	return de->d_name[0] != '.' && n > 5 && !strcmp(de->d_name + n - 5, ".json");
}

static int cmd_apply(int argc, char **argv)
{
	char path[PATH_MAX];
	struct dirent **ents;
	struct stat st;
	int i, k, n, rc = 0;

	i = cmd_opts(argc, argv, usage_apply, "dc");
	if (i >= argc) {
		fputs(usage_apply, stderr);
		return 2;
	}
	if (!check_only)
		need_configfs();
	for (; i < argc; i++) {
		if (strcmp(argv[i], "-") && !stat(argv[i], &st) && S_ISDIR(st.st_mode)) {
			n = scandir(argv[i], &ents, json_file, alphasort);
			if (n < 0) {
				fprintf(stderr, "dlb2ctl: %s: %s\n", argv[i], strerror(errno));
				rc = 1;
				continue;
			}
			for (k = 0; k < n; k++) {
				snprintf(path, sizeof(path), "%s/%s", argv[i], ents[k]->d_name);
				rc |= apply_file(path);
				free(ents[k]);
			}
			free(ents);
		} else {
			rc |= apply_file(argv[i]);
		}
	}
	return rc;
}

/* Create the missing directories above save -o's FILE, mode 0755. */
static int make_parents(const char *file)
{
	char dir[PATH_MAX];
	struct stat st;
	char *p, c;
	int err;

	if (snprintf(dir, sizeof(dir), "%s", file) >= (int)sizeof(dir)) {
		fprintf(stderr, "dlb2ctl: save -o %s: %s\n", file, strerror(ENAMETOOLONG));
		return 1;
	}
	p = strrchr(dir, '/');
	if (!p || p == dir)
		return 0;
	*p = '\0';
	/* each leading directory, the last one included, as mkdir -p */
	for (p = dir + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		c = *p;
		*p = '\0';
		err = mkdir(dir, 0755) ? errno : 0;
		if (err == EEXIST)
			err = stat(dir, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
		if (err) {
			fprintf(stderr, "dlb2ctl: save -o %s: cannot create directory %s: %s\n",
				file, dir, strerror(err));
			return 1;
		}
		if (!c)
			return 0;
		*p = c;
	}
}

static int cmd_save(int argc, char **argv)
{
	char tmp[PATH_MAX];
	int i, rc;

	i = cmd_opts(argc, argv, usage_save, "do");
	need_configfs();
	/* FILE.tmp in FILE's directory, renamed to FILE when all was written */
	if (out_file) {
		if (make_parents(out_file))
			return 1;
		if (snprintf(tmp, sizeof(tmp), "%s.tmp", out_file) >= (int)sizeof(tmp)) {
			fprintf(stderr, "dlb2ctl: save -o %s: %s\n", out_file,
				strerror(ENAMETOOLONG));
			return 1;
		}
		if (!freopen(tmp, "w", stdout)) {
			fprintf(stderr, "dlb2ctl: save -o %s: cannot create %s: %s\n",
				out_file, tmp, strerror(errno));
			return 1;
		}
	}
	rc = save_domains(device, argv + i, argc - i);
	if (fflush(stdout) || ferror(stdout)) {
		if (out_file)
			fprintf(stderr, "dlb2ctl: save -o %s: writing %s: %s\n", out_file,
				tmp, strerror(errno));
		else
			fprintf(stderr, "dlb2ctl: save: %s\n", strerror(errno));
		rc = 1;
	}
	if (out_file && (rc || rename(tmp, out_file))) {
		if (!rc)
			fprintf(stderr, "dlb2ctl: save -o %s: cannot rename %s to it: %s\n",
				out_file, tmp, strerror(errno));
		unlink(tmp);
		rc = 1;
	}
	return rc;
}

/* Whether @name is dlb2_<N> (and N matches -d). */
static bool dev_dir(const char *name, int *n)
{
	char *end;

	if (strncmp(name, "dlb2_", 5))
		return false;
	*n = (int)strtol(name + 5, &end, 10);
	return *end == '\0' && end != name + 5 && (device < 0 || *n == device);
}

/*
 * The device of domain @name: -d N's, or the one device that has it; else
 * -1, the message printed (naming where it looked).
 */
static int find_domain(const char *name)
{
	char path[PATH_MAX + 300], where[1024] = "";
	const char *root = dlb2_configfs_root();
	struct dirent **devs;
	struct stat st;
	int i, k, n, dev = -1, hits = 0, ndevs = 0;
	size_t w = 0;

	if (!dlb2_name_valid(name)) {
		fprintf(stderr, "dlb2ctl: %s: not a domain name (1..32 characters of [A-Za-z0-9_.-])\n",
			name);
		return -1;
	}
	n = scandir(root, &devs, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (dev_dir(devs[i]->d_name, &k)) {
			snprintf(path, sizeof(path), "%s/%s/%s", root, devs[i]->d_name, name);
			if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
				dev = k;
				hits++;
			}
			if (w < sizeof(where))
				w += snprintf(where + w, sizeof(where) - w, "%s%s/%s",
					      ndevs ? ", " : "", root, devs[i]->d_name);
			ndevs++;
		}
		free(devs[i]);
	}
	if (n >= 0)
		free(devs);
	if (hits > 1)
		fprintf(stderr, "dlb2ctl: %s exists on %d devices: give -d N\n", name, hits);
	else if (!hits && device >= 0 && !ndevs)
		fprintf(stderr, "dlb2ctl: no device dlb2_%d in %s\n", device, root);
	else if (!hits && !ndevs)
		fprintf(stderr, "dlb2ctl: no domain %s: no device in %s\n", name, root);
	else if (!hits)
		fprintf(stderr, "dlb2ctl: no domain %s in %s\n", name, where);
	return hits == 1 ? dev : -1;
}

/* @s as the kernel's kstrtobool() reads it: 1, 0, or -1 for no boolean. */
static int kbool(const char *s)
{
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		return 1;
	case 'n': case 'N': case 'f': case 'F': case '0':
		return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N')
			return 1;
		if (s[1] == 'f' || s[1] == 'F')
			return 0;
	}
	return -1;
}

/*
 * What errno @err of writing @value to @attr (of the domain when @sub is
 * NULL, else of "queues/Q", "ports/P", "ports/P/links/Q") means
 * (Documentation/ABI/testing/configfs-dlb2); NULL: nothing to add.
 */
static const char *refusal_reason(const char *sub, const char *attr,
				  const char *value, int err)
{
	/* read-only attributes are refused before writing: a permission */
	if (err == EACCES || err == EPERM)
		return "writing configfs takes root";
	if (!sub && !strcmp(attr, "enable")) {
		int on = kbool(value);

		if (on < 0)
			return err == EINVAL ? "not a boolean" : NULL;
		switch (on ? err : 0) {
		case EINVAL:
			return "the domain's description is inconsistent";
		case ENOSPC:
			return "the device lacks a resource";
		case EBUSY:
			return "the device is being reset, or a queue, port or link of the domain is being created or removed: retry";
		case ENODEV:
			return "the device is not bound to dlb2";
		case EIO:
			return "the device did not come back from a reset: unbind and bind it again";
		}
		return NULL;
	}
	switch (err) {
	case EINVAL:
		return "not a value the attribute takes";
	case ERANGE:
		return "out of the attribute's range";
	case EBUSY:
		if (sub && !strncmp(sub, "ports/", 6) && !strchr(sub + 6, '/') &&
		    !strcmp(attr, "type"))
			return "the domain is enabled (dlb2ctl disable it first), or the port has links";
		return "the domain is enabled (dlb2ctl disable it first)";
	}
	return NULL;
}

/*
 * The driver refused the write of dlb2_last_error(): "dlb2ctl: @what:
 * ENAME (text): what it means; status: ..." on stderr, the domain's
 * status for enable only.
 */
static void print_refusal(const char *what, const char *sub, const char *attr)
{
	const struct dlb2_error *e = dlb2_last_error();
	const char *name = strerrorname_np(-e->err);
	const char *why = refusal_reason(sub, attr, e->value, -e->err);

	fprintf(stderr, "dlb2ctl: %s: %s%s%s%s%s", what, name ? name : "",
		name ? " (" : "", strerror(-e->err), name ? ")" : "",
		why ? ": " : "");
	if (why)
		fputs(why, stderr);
	/* the status says why enable failed (and stays until the next one) */
	if (!sub && !strcmp(attr, "enable") && !strncmp(e->status, "error", 5))
		fprintf(stderr, "; status: %s", e->status);
	fputc('\n', stderr);
}

/*
 * Member "@label": { domain: {...}, ... } of show -j for device directory
 * @path, all domains or @only; @comma: a member came before.  Returns the
 * domains printed.
 */
static int show_json(const char *path, const char *label, const char *only,
		     bool comma)
{
	char sub[PATH_MAX + 600];
	struct dirent **ents;
	struct stat st;
	int i, n, found = 0;

	n = scandir(path, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && (!only || !strcmp(only, ents[i]->d_name)) &&
		    !lstat(sub, &st) && S_ISDIR(st.st_mode)) {
			if (!found++) {
				printf("%s\n  ", comma ? "," : "");
				json_str(label);
				printf(": {");
			}
			printf("%s\n    ", found > 1 ? "," : "");
			json_str(ents[i]->d_name);
			printf(": ");
			tree_json(sub, 2);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	if (found)
		printf("\n  }");
	else if (!only) {
		printf("%s\n  ", comma ? "," : "");
		json_str(label);
		printf(": {}");
		return 1;
	}
	return found;
}

static int cmd_show(int argc, char **argv)
{
	char path[PATH_MAX + 300];
	const char *only = NULL;
	struct dirent **devs;
	int i, n, k, found = 0;

	i = cmd_opts(argc, argv, usage_show, "dj");
	if (argc - i > 1) {
		fputs(usage_show, stderr);
		return 2;
	}
	if (argc - i == 1)
		only = argv[i];
	need_configfs();
	n = scandir(dlb2_configfs_root(), &devs, NULL, alphasort);
	if (n < 0)
		die_errno(-errno, dlb2_configfs_root());
	if (json)
		printf("{");
	for (i = 0; i < n; i++) {
		if (dev_dir(devs[i]->d_name, &k)) {
			snprintf(path, sizeof(path), "%s/%s", dlb2_configfs_root(),
				 devs[i]->d_name);
			if (json)
				found += show_json(path, devs[i]->d_name, only, found);
			else
				found += tree_print_children(path, devs[i]->d_name, only);
		}
		free(devs[i]);
	}
	free(devs);
	if (json)
		printf("%s}\n", found ? "\n" : "");
	if (only && !found) {
		fprintf(stderr, "dlb2ctl: no domain %s\n", only);
		return 1;
	}
	return 0;
}

/*
 * The statistics devices of a PCI function (sysfs-driver-dlb2): each
 * enabled domain is a device in dlb2_domain/ named dlb2_N.DOMAIN, its
 * queues and ports are its child devices queue.NAME and port.NAME.
 */
#define DOMAIN_DIR	"dlb2_domain"

/* Subdirectories of @path whose names start with @prefix, sorted. */
static int scan_dirs(const char *path, const char *prefix, struct dirent ***out)
{
	char sub[PATH_MAX + 300];
	struct dirent **ents;
	struct stat st;
	int i, n, k = 0;

	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0)
		return 0;
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
		if (!strncmp(ents[i]->d_name, prefix, strlen(prefix)) &&
		    ents[i]->d_name[strlen(prefix)] && !lstat(sub, &st) &&
		    S_ISDIR(st.st_mode))
			ents[k++] = ents[i];
		else
			free(ents[i]);
	}
	*out = ents;
	return k;
}

/*
 * The name of statistics device @dir (file "name"), else its directory
 * name @dname without @prefix.
 */
static void stat_name(const char *dir, const char *dname, const char *prefix,
		      char *buf, size_t len)
{
	char path[PATH_MAX + 300];

	snprintf(path, sizeof(path), "%s/name", dir);
	if (tree_read(path, buf, len) || !buf[0])
		snprintf(buf, len, "%s", dname + strlen(prefix));
}

/* A statistic of device directory @dir: a file, not "name" or "uevent". */
static bool stat_file(const char *dir, const char *file)
{
	char path[PATH_MAX + 300];
	struct stat st;

	if (file[0] == '.' || !strcmp(file, "name") || !strcmp(file, "uevent"))
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return !lstat(path, &st) && S_ISREG(st.st_mode);
}

/*
 * stats --watch: the counters of the record being printed and of the one
 * before, by path, for the rates; the seconds between the two records.
 */
struct sample {
	char *path;
	unsigned long long val;
};

static struct samples {
	struct sample *s;
	size_t n, cap;
} samples[2];
static struct samples *cur_samples = &samples[0], *prev_samples = &samples[1];
static double elapsed;

/* The counters of sysfs-driver-dlb2, outside alarms/ (all counters). */
static bool counter_name(const char *file)
{
	static const char *const names[] = { "enqueued", "dequeued", "alarms", "released" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(file, names[i]))
			return true;
	return false;
}

/*
 * Counter @path reads @val: keep it, and print its rate "(12.0/s)" since
 * the record before, if that had it and it did not go back (a domain
 * enabled again, the driver bound again).
 */
static void print_rate(const char *path, const char *val)
{
	struct samples *c = cur_samples;
	unsigned long long v;
	char *end;
	size_t i;

	errno = 0;
	v = strtoull(val, &end, 10);
	if (errno || *end || end == val || val[0] == '-')
		return;
	if (c->n == c->cap) {
		struct sample *s = realloc(c->s, (c->cap * 2 + 64) * sizeof(*s));

		if (!s)
			return;
		c->s = s;
		c->cap = c->cap * 2 + 64;
	}
	c->s[c->n].path = strdup(path);
	if (!c->s[c->n].path)
		return;
	c->s[c->n++].val = v;
	for (i = 0; elapsed > 0 && i < prev_samples->n; i++)
		if (!strcmp(prev_samples->s[i].path, path)) {
			if (v >= prev_samples->s[i].val)
				printf("(%.1f/s)", (v - prev_samples->s[i].val) / elapsed);
			break;
		}
}

/* A record printed: its counters become those of the record before. */
static void next_samples(void)
{
	struct samples *t = prev_samples;
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->s[i].path);
	t->n = 0;
	prev_samples = cur_samples;
	cur_samples = t;
}

/*
 * The statistics of device directory @dir: as "label: a=1 b=2" at @indent
 * (text), or as JSON members, each preceded by a comma when *@k is not 0.
 * With --watch, counters (every file when @counters) get their rates.
 */
static void stat_files(const char *dir, const char *label, int indent, int *k,
		       bool counters)
{
	char path[PATH_MAX + 300], val[256];
	struct dirent **ents;
	int i, n;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return;
	if (!json)
		printf("%*s%s:", indent * 2, "", label);
	for (i = 0; i < n; i++) {
		const char *f = ents[i]->d_name;

		snprintf(path, sizeof(path), "%s/%s", dir, f);
		if (stat_file(dir, f)) {
			int bad = tree_read(path, val, sizeof(val));

			if (json) {
				printf("%s\n%*s", (*k)++ ? "," : "", (indent + 1) * 2, "");
				json_str(f);
				printf(": ");
				if (bad)
					printf("null");
				else
					json_value(val);
			} else if (bad) {
				printf(" %s=?", f);
			} else if (strchr(val, ' ') || !val[0]) {
				printf(" %s=\"%s\"", f, val);
			} else {
				printf(" %s=%s", f, val);
				if (watch_interval > 0 && (counters || counter_name(f)))
					print_rate(path, val);
			}
		}
		free(ents[i]);
	}
	free(ents);
	if (!json)
		printf("\n");
}

/* The queues (@prefix "queue.") or ports ("port.") of domain device @dom. */
static void stats_children(const char *dom, const char *prefix,
			   const char *label, int *k)
{
	char sub[PATH_MAX + 300], name[256], lab[300];
	struct dirent **ents;
	int i, n, m = 0;

	n = scan_dirs(dom, prefix, &ents);
	if (json) {
		printf("%s\n%*s", (*k)++ ? "," : "", 8, "");
		json_str(label);
		printf(": {");
	}
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", dom, ents[i]->d_name);
		stat_name(sub, ents[i]->d_name, prefix, name, sizeof(name));
		if (json) {
			int f = 0;

			printf("%s\n%*s", m++ ? "," : "", 10, "");
			json_str(name);
			printf(": {");
			stat_files(sub, NULL, 5, &f, false);
			printf("%s}", f ? "\n          " : "");
		} else {
			snprintf(lab, sizeof(lab), "%s/%s", label, name);
			stat_files(sub, lab, 2, NULL, false);
		}
		free(ents[i]);
	}
	if (n > 0)
		free(ents);
	if (json)
		printf("%s}", m ? "\n        " : "");
}

/* The domains of PCI function directory @pci: "domains/DOMAIN" and below. */
static void stats_domains(const char *pci)
{
	char dir[PATH_MAX + 300], dom[PATH_MAX + 600], name[256], lab[300];
	struct dirent **ents;
	int i, n, m = 0;

	snprintf(dir, sizeof(dir), "%s/%s", pci, DOMAIN_DIR);
	n = scan_dirs(dir, "dlb2_", &ents);
	if (json)
		printf(",\n    \"domains\": {");
	for (i = 0; i < n; i++) {
		const char *dot = strchr(ents[i]->d_name, '.');
		int k = 0;

		snprintf(dom, sizeof(dom), "%s/%s", dir, ents[i]->d_name);
		if (dot)
			stat_name(dom, dot + 1, "", name, sizeof(name));
		else
			stat_name(dom, ents[i]->d_name, "", name, sizeof(name));
		if (json) {
			printf("%s\n%*s", m++ ? "," : "", 6, "");
			json_str(name);
			printf(": {");
			stat_files(dom, NULL, 3, &k, false);
		} else {
			snprintf(lab, sizeof(lab), "domains/%s", name);
			stat_files(dom, lab, 1, NULL, false);
		}
		stats_children(dom, "queue.", "queues", &k);
		stats_children(dom, "port.", "ports", &k);
		if (json)
			printf("\n      }");
		free(ents[i]);
	}
	if (n > 0)
		free(ents);
	if (json)
		printf("%s}", m ? "\n    " : "");
}

/* One device; @first: no JSON member came before. */
static void stats_one(const char *bdf, bool first)
{
	static const char *const dirs[] = {
		"total_resources", "avail_resources",
	};
	/* the device's state and IOMMU mode (sysfs-driver-dlb2) */
	static const char *const attrs[] = { "state", "iommu_mode" };
	char path[PATH_MAX], ver[32] = "", val[ARRAY_SIZE(attrs)][32];
	unsigned int i;
	int k = 0;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/hw_version", sysfs, bdf);
	tree_read(path, ver, sizeof(ver));
	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", sysfs, bdf,
			 attrs[i]);
		if (tree_read(path, val[i], sizeof(val[i])))
			val[i][0] = '\0';
	}
	if (json) {
		printf("%s\n  ", first ? "" : ",");
		json_str(bdf);
		printf(": {\n    \"hw_version\": ");
		json_str(ver);
		for (i = 0; i < ARRAY_SIZE(attrs); i++) {
			printf(",\n    \"%s\": ", attrs[i]);
			json_str(val[i][0] ? val[i] : NULL);
		}
	} else {
		printf("%s%s%s", bdf, ver[0] ? " DLB " : "", ver);
		for (i = 0; i < ARRAY_SIZE(attrs); i++)
			if (val[i][0])
				printf(" %s=%s", attrs[i], val[i]);
		printf("\n");
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", sysfs,
			 bdf, dirs[i]);
		if (json) {
			printf(",\n    \"%s\": ", dirs[i]);
			tree_json(path, 2);
		} else {
			tree_print(path, dirs[i], 1);
		}
	}
	/* the alarms of each kind since the driver was bound */
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/alarms", sysfs, bdf);
	if (json)
		printf(",\n    \"alarms\": {");
	stat_files(path, "alarms", 1, &k, true);
	if (json)
		printf("%s}", k ? "\n    " : "");
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", sysfs, bdf);
	stats_domains(path);
	if (json)
		printf("\n  }");
}

/*
 * Whether @bdf is a PCI function bound to dlb2, as the functions stats
 * lists without one; if not, says so and why.
 */
static bool stats_bound(const char *bdf)
{
	char path[PATH_MAX], drv[PATH_MAX];
	const char *name;
	struct stat st;
	ssize_t n;

	/* the names of PCI functions, as 0000:6d:00.0 */
	if (!strchr(bdf, ':') || strchr(bdf, '/')) {
		fprintf(stderr, "dlb2ctl: stats %s: not a PCI function (such as 0000:6d:00.0)\n",
			bdf);
		return false;
	}
	snprintf(path, sizeof(path), "%s/bus/pci/drivers/dlb2/%s", sysfs, bdf);
	if (!lstat(path, &st))
		return true;
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", sysfs, bdf);
	if (lstat(path, &st)) {
		fprintf(stderr, "dlb2ctl: stats %s: no such PCI function (%s: %s)\n",
			bdf, path, strerror(errno));
		return false;
	}
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/driver", sysfs, bdf);
	n = readlink(path, drv, sizeof(drv) - 1);
	name = "no driver";
	if (n > 0) {
		drv[n] = '\0';
		name = strrchr(drv, '/') ? strrchr(drv, '/') + 1 : drv;
	}
	fprintf(stderr, "dlb2ctl: stats %s: bound to %s, not to dlb2\n", bdf, name);
	return false;
}

/*
 * One record: device @bdf, or every device bound to dlb2 (@bdf NULL);
 * @sep: an empty line first.  Returns the exit status.
 */
static int stats_record(const char *bdf, bool sep)
{
	char path[PATH_MAX];
	struct dirent **ents;
	int i, n, found = 0;

	if (bdf) {
		if (!stats_bound(bdf))
			return 1;
		if (sep)
			printf("\n");
		if (json)
			printf("{");
		stats_one(bdf, true);
		if (json)
			printf("\n}\n");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/bus/pci/drivers/dlb2", sysfs);
	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "dlb2ctl: %s: %s (is dlb2.ko loaded?)\n", path,
			strerror(errno));
		return 1;
	}
	if (sep)
		printf("\n");
	if (json)
		printf("{");
	for (i = 0; i < n; i++) {
		/* the bound devices are the links named like 0000:6d:00.0 */
		if (strchr(ents[i]->d_name, ':'))
			stats_one(ents[i]->d_name, !found++);
		free(ents[i]);
	}
	free(ents);
	if (json)
		printf("%s}\n", found ? "\n" : "");
	else if (!found)
		printf("no device bound to dlb2\n");
	return 0;
}

static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmd_stats(int argc, char **argv)
{
	struct timespec ts;
	double start, last, now, next;
	const char *bdf;
	long rec;
	int i, rc;

	i = cmd_opts(argc, argv, usage_stats, "jw");
	if (argc - i > 1) {
		fputs(usage_stats, stderr);
		return 2;
	}
	bdf = argc - i == 1 ? argv[i] : NULL;
	if (watch_count && !watch_interval)
		watch_interval = 1;
	if (!watch_interval)
		return stats_record(bdf, false);
	if (json) {
		fprintf(stderr, "dlb2ctl: stats: --watch prints text, not JSON (-j)\n");
		return 2;
	}
	/* records at start + k * interval, rates over the time between them */
	start = last = monotonic();
	for (rec = 0; ; rec++) {
		now = monotonic();
		elapsed = rec ? now - last : 0;
		last = now;
		rc = stats_record(bdf, rec);
		next_samples();
		fflush(stdout);
		if (rc || (watch_count && rec + 1 >= watch_count))
			return rc;
		next = start + (rec + 1) * watch_interval;
		ts.tv_sec = (time_t)next;
		ts.tv_nsec = (long)((next - ts.tv_sec) * 1e9);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
}

/* enable and disable: the attribute enable, 1 or 0. */
/*
 * The prologue of a command that takes "[-d N] DOMAIN": its options, then
 * the domain looked up.  Returns the device, or the exit status negated
 * (-2: usage, printed; -1: no such domain, said).
 */
static int domain_arg(int argc, char **argv, const char *usage, const char **name)
{
	int i = cmd_opts(argc, argv, usage, "d"), dev;

	if (argc - i != 1) {
		fputs(usage, stderr);
		return -2;
	}
	need_configfs();
	*name = argv[i];
	dev = find_domain(*name);
	return dev < 0 ? -1 : dev;
}

static int cmd_enable(int argc, char **argv)
{
	bool on = !strcmp(cmd_name, "enable");
	const char *name;
	char what[PATH_MAX];
	int dev;

	dev = domain_arg(argc, argv, on ? usage_enable : usage_disable, &name);
	if (dev < 0)
		return -dev;
	snprintf(what, sizeof(what), "%s dlb2_%d/%s", cmd_name, dev, name);
	if (on ? dlb2_domain_enable(dev, name) : dlb2_domain_disable(dev, name)) {
		print_refusal(what, NULL, "enable");
		return 1;
	}
	printf("dlb2_%d/%s: %s\n", dev, name, on ? "enabled" : "disabled");
	return 0;
}

/* 1: a writable attribute of configfs directory @dir, 0: a read-only one, -1: none. */
static int attr_mode(const char *dir, const char *name)
{
	char path[PATH_MAX + 300];
	struct stat st;

	if (name[0] == '.' || strchr(name, '/'))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (lstat(path, &st) || !S_ISREG(st.st_mode))
		return -1;
	return (st.st_mode & 0222) != 0;
}

/* The attributes of @dir, space-separated: all, or the writable ones. */
static void list_attrs(const char *dir, bool writable, char *buf, size_t len)
{
	struct dirent **ents;
	size_t w = 0;
	int i, n, m;

	buf[0] = '\0';
	n = scandir(dir, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		m = attr_mode(dir, ents[i]->d_name);
		if ((m > 0 || (m == 0 && !writable)) && w < len)
			w += snprintf(buf + w, len - w, "%s%s", w ? " " : "",
				      ents[i]->d_name);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* "queues/Q", "ports/P", "ports/P/links/Q": the kind ("queue", ...), else NULL. */
static const char *set_kind(const char *sub)
{
	char a[16], b[DLB2_NAME_MAX + 2], c[16], d[DLB2_NAME_MAX + 2], x;
	int n = sscanf(sub, "%15[^/]/%33[^/]/%15[^/]/%33[^/]%c", a, b, c, d, &x);

	if ((n != 2 && n != 4) || !dlb2_name_valid(b) ||
	    (n == 4 && !dlb2_name_valid(d)) || strlen(sub) != strlen(a) + strlen(b) + 1 +
	    (n == 4 ? strlen(c) + strlen(d) + 2 : 0))
		return NULL;
	if (n == 2 && !strcmp(a, "queues"))
		return "queue";
	if (n == 2 && !strcmp(a, "ports"))
		return "port";
	if (n == 4 && !strcmp(a, "ports") && !strcmp(c, "links"))
		return "link";
	return NULL;
}

/* "ATTR=VALUE ..." of attributes [@from, @to) of @names and @vals. */
static void join_attrs(char **names, char **vals, int from, int to, char *buf,
		       size_t len)
{
	size_t w = 0;
	int i;

	buf[0] = '\0';
	for (i = from; i < to && w < len; i++)
		w += snprintf(buf + w, len - w, "%s%s=%s", w ? " " : "", names[i], vals[i]);
}

static int cmd_set(int argc, char **argv)
{
	char target[PATH_MAX], dir[PATH_MAX + 600], path[PATH_MAX + 900];
	char label[PATH_MAX + 300], list[4096], val[256], what[PATH_MAX + 600];
	const char *sub = NULL, *kind = "domain";
	char **names, **vals, *slash;
	struct stat st;
	int i, j, k, n, dev, err;

	i = cmd_opts(argc, argv, usage_set, "d");
	if (argc - i < 2) {
		fputs(usage_set, stderr);
		return 2;
	}
	/* the attributes: ATTR=VALUE split in place, names[k] and vals[k] */
	names = argv + i + 1;
	n = argc - i - 1;
	vals = calloc(n, sizeof(*vals));
	if (!vals)
		die_errno(-ENOMEM, "set");
	for (k = 0; k < n; k++) {
		vals[k] = strchr(names[k], '=');
		if (!vals[k] || vals[k] == names[k]) {
			fprintf(stderr, "dlb2ctl: set: %s: not ATTR=VALUE\n", names[k]);
			return 2;
		}
		*vals[k]++ = '\0';
	}
	snprintf(target, sizeof(target), "%s", argv[i]);
	slash = strchr(target, '/');
	if (slash) {
		*slash = '\0';
		sub = slash + 1;
		kind = set_kind(sub);
		if (!kind) {
			fprintf(stderr, "dlb2ctl: set: %s: not DOMAIN, DOMAIN/queues/QUEUE, DOMAIN/ports/PORT or DOMAIN/ports/PORT/links/QUEUE\n",
				argv[i]);
			return 2;
		}
	}
	need_configfs();
	dev = find_domain(target);
	if (dev < 0)
		return 1;
	snprintf(label, sizeof(label), "dlb2_%d/%s", dev, argv[i]);
	snprintf(dir, sizeof(dir), "%s/%s", dlb2_configfs_root(), label);
	err = stat(dir, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	if (err) {
		fprintf(stderr, "dlb2ctl: set %s: no such %s (%s: %s)\n", label, kind,
			dir, strerror(err));
		return 1;
	}
	/* every attribute known and writable before the first write */
	for (k = 0; k < n; k++) {
		int m = attr_mode(dir, names[k]);

		if (m < 0) {
			list_attrs(dir, false, list, sizeof(list));
			fprintf(stderr, "dlb2ctl: set %s: no attribute %s; the %s's attributes: %s\n",
				label, names[k], kind, list);
		} else if (m == 0) {
			list_attrs(dir, true, list, sizeof(list));
			fprintf(stderr, "dlb2ctl: set %s: %s is read-only; the writable ones: %s\n",
				label, names[k], list);
		}
		if (m <= 0) {
			fprintf(stderr, "dlb2ctl: set %s: nothing written\n", label);
			return 1;
		}
	}
	for (k = 0; k < n; k++) {
		if (!dlb2_attr_set(dev, target, sub, names[k], vals[k]))
			continue;
		snprintf(what, sizeof(what), "set %s: %s=%s", label, names[k], vals[k]);
		print_refusal(what, sub, names[k]);
		join_attrs(names, vals, 0, k, what, sizeof(what));
		join_attrs(names, vals, k, n, list, sizeof(list));
		if (k)
			fprintf(stderr, "dlb2ctl: set %s: written: %s; not written: %s\n",
				label, what, list);
		else
			fprintf(stderr, "dlb2ctl: set %s: nothing written\n", label);
		return 1;
	}
	/* what the driver holds now, each attribute once (where last given) */
	printf("%s:", label);
	for (k = 0; k < n; k++) {
		for (j = k + 1; j < n && strcmp(names[j], names[k]); j++)
			;
		if (j < n)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, names[k]);
		printf(" %s=%s", names[k], tree_read(path, val, sizeof(val)) ? vals[k] : val);
	}
	printf("\n");
	free(vals);
	return 0;
}

static int cmd_destroy(int argc, char **argv)
{
	const char *name;
	int dev, ret;

	dev = domain_arg(argc, argv, usage_destroy, &name);
	if (dev < 0)
		return -dev;
	ret = dlb2_domain_destroy(dev, name);
	if (ret)
		die_errno(ret, "destroy");
	printf("dlb2_%d/%s: destroyed\n", dev, name);
	return 0;
}

static int cmd_doctor(int argc, char **argv)
{
	return doctor_main(argc, argv, sysfs, usage_doctor);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "configfs", required_argument, NULL, 'C' },
		{ "sysfs", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
		const char *usage;
	} cmds[] = {
		{ "apply", cmd_apply, usage_apply },
		{ "save", cmd_save, usage_save },
		{ "show", cmd_show, usage_show },
		{ "stats", cmd_stats, usage_stats },
		{ "enable", cmd_enable, usage_enable },
		{ "disable", cmd_enable, usage_disable },
		{ "set", cmd_set, usage_set },
		{ "destroy", cmd_destroy, usage_destroy },
		{ "doctor", cmd_doctor, usage_doctor },
	};
	static char prog[64];
	unsigned int i;
	int c;

	/* getopt's messages: "dlb2ctl: ...", "dlb2ctl COMMAND: ..." */
	argv[0] = "dlb2ctl";
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			dlb2_set_configfs_root(optarg);
			break;
		case 'S':
			sysfs = optarg;
			break;
		case 'h':
			fputs(usage_main, stdout);
			return 0;
		case 'V':
			printf("dlb2ctl %s\n", DLB2CTL_VERSION);
			return 0;
		default:
			fputs(usage_main, stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs(usage_main, stderr);
		return 2;
	}
	argc -= optind;
	argv += optind;
	if (!strcmp(argv[0], "help")) {
		for (i = 0; argc > 1 && i < ARRAY_SIZE(cmds); i++)
			if (!strcmp(argv[1], cmds[i].name)) {
				fputs(cmds[i].usage, stdout);
				return 0;
			}
		if (argc > 1) {
			fprintf(stderr, "dlb2ctl: unknown command '%s'\n", argv[1]);
			return 2;
		}
		fputs(usage_main, stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[0], cmds[i].name)) {
			cmd_name = cmds[i].name;
			snprintf(prog, sizeof(prog), "dlb2ctl %s", cmd_name);
			argv[0] = prog;
			return cmds[i].fn(argc, argv);
		}
	fprintf(stderr, "dlb2ctl: unknown command '%s'\n\n%s", argv[0], usage_main);
	return 2;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2ctl: set up and inspect DLB scheduling domains.
 *
 *   dlb2ctl apply FILE       JSON configuration -> configfs, enable
 *   dlb2ctl show [DOMAIN]    the configfs tree with its attributes
 *   dlb2ctl stats [BDF]      sysfs resources and statistics
 *   dlb2ctl destroy DOMAIN   disable and remove a domain
 *   dlb2ctl doctor           can a NIC enqueue peer-to-peer? (doctor.c)
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor.h"
#include "libdlb2.h"
#include "tree.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

static const char *sysfs = "/sys";
static int device = -1;			/* -d N; -1: any */

static const char usage_main[] =
"Usage: dlb2ctl [--configfs DIR] [--sysfs DIR] COMMAND [ARGS]\n"
"\n"
"Set up and inspect Intel DLB 2.0/2.5 scheduling domains (dlb2.ko).\n"
"\n"
"Commands:\n"
"  apply FILE        create and enable the domains of a JSON file\n"
"  show [DOMAIN]     print the configfs tree: domains, queues, ports, links\n"
"  stats [BDF]       print the device resources and statistics from sysfs\n"
"  destroy DOMAIN    disable a domain and remove it with its queues and ports\n"
"  doctor            check a DLB and an RDMA NIC for peer-to-peer enqueue\n"
"  help [COMMAND]    this text, or a command's\n"
"\n"
"Options:\n"
"  --configfs DIR    configfs directory of dlb2 (/sys/kernel/config/dlb2)\n"
"  --sysfs DIR       sysfs mount point (/sys)\n"
"\n"
"The JSON schema: tools/lib/dlb2/README.md.  'dlb2ctl COMMAND --help' for more.\n";

static const char usage_apply[] =
"Usage: dlb2ctl apply [--check] FILE\n"
"\n"
"Reads FILE ('-': standard input), checks it completely, then creates each\n"
"domain through configfs (credits, queues, ports, links) and enables those\n"
"not marked \"enable\": false.  All or nothing: when something fails, the\n"
"domains this command created are removed again, and the message names the\n"
"file that refused a value and the domain's status.\n"
"\n"
"  --check   only check the file, touch nothing\n";

static const char usage_show[] =
"Usage: dlb2ctl show [-d N] [DOMAIN]\n"
"\n"
"Prints every device (dlb2_N), its domains, their queues, ports and links,\n"
"with every attribute as name=value (status, hardware ids, settings).\n"
"\n"
"  -d N      only device N\n";

static const char usage_stats[] =
"Usage: dlb2ctl stats [BDF]\n"
"\n"
"Prints, for each device bound to dlb2 (or the PCI function BDF, e.g.\n"
"0000:6d:00.0), the files under total_resources/, avail_resources/ and\n"
"domains/ of /sys/bus/pci/devices/BDF, one line per directory.\n";

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
"\n"
"Checks whether an RDMA NIC (or another PCI peer) can enqueue into the DLB's\n"
"producer ports peer-to-peer, and take DLB credits with its RDMA atomics:\n"
"driver, iommu, numa, acs, p2p-path, peer-mr, atomics, atomic-cap.  Each\n"
"prints pass, fail or unknown with what was found, and a fix if not pass.\n"
"Without a peer, only the DLB side: driver, iommu, peer-mr.\n"
"\n"
"  -j, --json          JSON instead of text\n"
"  -d N, --dlb BDF     the DLB (default: the first bound to dlb2)\n"
"  --rdma IBDEV        the RDMA device (as ibv_devices names it)\n"
"  --peer BDF          a PCI function as the peer\n"
"  --atomic-cap CAP    the device's atomic_cap, instead of asking libibverbs\n"
"  --proc DIR          procfs (/proc): kallsyms, cpuinfo, sys/kernel/osrelease\n"
"  --modules DIR       the modules tree (/lib/modules): modules.dep\n"
"\n"
"Exit status: 0 P2P enqueue and remote credits will work (no peer: the DLB\n"
"side passed); 1 P2P enqueue will not work; 2 remote credits will not work\n"
"(P2P enqueue will or may); 3 nothing needed failed but something is\n"
"unknown; 4 usage error or no such peer.  The numa check is advice only.\n";

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

/* Parse "-d N" and "--help" of a command; returns the first operand. */
static int cmd_opts(int argc, char **argv, const char *usage, bool *check)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "check", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case 'd':
			device = (int)strtol(optarg, &end, 10);
			if (*end || device < 0) {
				fprintf(stderr, "dlb2ctl: -d %s: not a device number\n", optarg);
				exit(2);
			}
			break;
		case 'c':
			if (check) {
				*check = true;
				break;
			}
			fallthrough;
		default:
			fputs(usage, stderr);
			exit(2);
		}
	}
	return optind;
}

static int cmd_apply(int argc, char **argv)
{
	struct dlb2_spec *spec;
	bool check = false;
	char err[512];
	int i, n, ret;

	i = cmd_opts(argc, argv, usage_apply, &check);
	if (argc - i != 1) {
		fputs(usage_apply, stderr);
		return 2;
	}
	ret = dlb2_spec_load(argv[i], &spec, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "dlb2ctl: %s\n", err);
		return 1;
	}
	for (n = 0, i = 0; i < spec->ndomains; i++)
		n += spec->domains[i].nqueues + spec->domains[i].nports;
	if (check) {
		printf("%s: %d domain%s, %d queues and ports: OK\n", argv[optind],
		       spec->ndomains, spec->ndomains == 1 ? "" : "s", n);
		dlb2_spec_free(spec);
		return 0;
	}
	need_configfs();
	ret = dlb2_spec_apply(spec);
	if (ret)
		die_errno(ret, "apply");
	for (i = 0; i < spec->ndomains; i++)
		printf("dlb2_%d/%s: %s\n", spec->domains[i].device,
		       spec->domains[i].name,
		       spec->domains[i].enable ? "enabled" : "created");
	dlb2_spec_free(spec);
	return 0;
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

static int cmd_show(int argc, char **argv)
{
	char path[PATH_MAX + 300];
	const char *only = NULL;
	struct dirent **devs;
	int i, n, k, found = 0;

	i = cmd_opts(argc, argv, usage_show, NULL);
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
	for (i = 0; i < n; i++) {
		if (dev_dir(devs[i]->d_name, &k)) {
			snprintf(path, sizeof(path), "%s/%s", dlb2_configfs_root(),
				 devs[i]->d_name);
			found += tree_print_children(path, devs[i]->d_name, only);
		}
		free(devs[i]);
	}
	free(devs);
	if (only && !found) {
		fprintf(stderr, "dlb2ctl: no domain %s\n", only);
		return 1;
	}
	return 0;
}

static void stats_one(const char *bdf)
{
	static const char *const dirs[] = {
		"total_resources", "avail_resources", "domains",
	};
	char path[PATH_MAX], ver[32] = "";
	unsigned int i;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/hw_version", sysfs, bdf);
	tree_read(path, ver, sizeof(ver));
	printf("%s%s%s\n", bdf, ver[0] ? " DLB " : "", ver);
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", sysfs,
			 bdf, dirs[i]);
		tree_print(path, dirs[i], 1);
	}
}

static int cmd_stats(int argc, char **argv)
{
	char path[PATH_MAX];
	struct dirent **ents;
	int i, n, found = 0;

	i = cmd_opts(argc, argv, usage_stats, NULL);
	if (argc - i > 1) {
		fputs(usage_stats, stderr);
		return 2;
	}
	if (argc - i == 1) {
		stats_one(argv[i]);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/bus/pci/drivers/dlb2", sysfs);
	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "dlb2ctl: %s: %s (is dlb2.ko loaded?)\n", path,
			strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		/* the bound devices are the links named like 0000:6d:00.0 */
		if (strchr(ents[i]->d_name, ':')) {
			stats_one(ents[i]->d_name);
			found++;
		}
		free(ents[i]);
	}
	free(ents);
	if (!found)
		printf("no device bound to dlb2\n");
	return 0;
}

static int cmd_destroy(int argc, char **argv)
{
	char path[PATH_MAX + 300];
	struct dirent **devs;
	struct stat st;
	int i, n, k, dev = -1, hits = 0, ret;

	i = cmd_opts(argc, argv, usage_destroy, NULL);
	if (argc - i != 1) {
		fputs(usage_destroy, stderr);
		return 2;
	}
	need_configfs();
	if (device >= 0) {
		dev = device;
	} else {
		n = scandir(dlb2_configfs_root(), &devs, NULL, alphasort);
		for (k = 0; k < n; k++) {
			snprintf(path, sizeof(path), "%s/%s/%s", dlb2_configfs_root(),
				 devs[k]->d_name, argv[i]);
			if (dev_dir(devs[k]->d_name, &ret) && !stat(path, &st)) {
				dev = ret;
				hits++;
			}
			free(devs[k]);
		}
		if (n >= 0)
			free(devs);
		if (hits > 1) {
			fprintf(stderr, "dlb2ctl: %s exists on %d devices: give -d N\n",
				argv[i], hits);
			return 1;
		}
		if (!hits) {
			fprintf(stderr, "dlb2ctl: no domain %s\n", argv[i]);
			return 1;
		}
	}
	ret = dlb2_domain_destroy(dev, argv[i]);
	if (ret)
		die_errno(ret, "destroy");
	printf("dlb2_%d/%s: destroyed\n", dev, argv[i]);
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
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
		const char *usage;
	} cmds[] = {
		{ "apply", cmd_apply, usage_apply },
		{ "show", cmd_show, usage_show },
		{ "stats", cmd_stats, usage_stats },
		{ "destroy", cmd_destroy, usage_destroy },
		{ "doctor", cmd_doctor, usage_doctor },
	};
	unsigned int i;
	int c;

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
		if (!strcmp(argv[0], cmds[i].name))
			return cmds[i].fn(argc, argv);
	fprintf(stderr, "dlb2ctl: unknown command '%s'\n\n%s", argv[0], usage_main);
	return 2;
}

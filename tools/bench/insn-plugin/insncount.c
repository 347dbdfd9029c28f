// SPDX-License-Identifier: GPL-2.0
/*
 * insncount: a QEMU TCG plugin (system emulation, x86-64 guests) that counts
 * the guest's user-space instructions between markers the guest program
 * executes, per vCPU.  The markers are exchanges of a register with itself,
 * which do nothing when no plugin is loaded (insncount.h):
 *
 *   START   xchg %rbx,%rbx (48 87 db)  count from the next instruction on
 *   STOP    xchg %rcx,%rcx (48 87 c9)  stop counting (the count is kept)
 *   REPORT  xchg %rdx,%rdx (48 87 d2)  write the count and reset it
 *
 * Counted: instructions at addresses below 0x0000800000000000 (user space)
 * executed on a vCPU between its START and STOP, neither marker included.
 * The kernel (interrupts, page faults) is not counted.  Translation blocks
 * without a marker are counted whole when they start; blocks holding one
 * are counted instruction by instruction.  A block cut short by a fault is
 * counted whole; a measured program warms up first so that none is.
 *
 * Each REPORT writes one line "insncount SEQ vcpu V windows W insns N":
 * SEQ counts the reports from 0, W the STARTs since the last report.
 *
 * Usage: -plugin insncount.so[,out=FILE]   (default: QEMU's log, stderr)
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define USER_TOP	0x0000800000000000ull

enum { MARK_NONE, MARK_START, MARK_STOP, MARK_REPORT };

struct vcpu {
	uint64_t insns;
	uint64_t windows;
	int on;
} __attribute__((aligned(64)));

static struct vcpu *vcpus;
static int nvcpus;
static FILE *out;
static uint64_t seq;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int marker(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);

	if (qemu_plugin_insn_size(insn) != 3 || b[0] != 0x48 || b[1] != 0x87)
		return MARK_NONE;
	switch (b[2]) {
	case 0xdb: return MARK_START;
	case 0xc9: return MARK_STOP;
	case 0xd2: return MARK_REPORT;
	}
	return MARK_NONE;
}

static struct vcpu *vcpu(unsigned int i)
{
	return i < (unsigned int)nvcpus ? &vcpus[i] : NULL;
}

static void tb_exec(unsigned int i, void *udata)
{
	struct vcpu *v = vcpu(i);

	if (v && v->on)
		v->insns += (uintptr_t)udata;
}

static void insn_exec(unsigned int i, void *udata)
{
	struct vcpu *v = vcpu(i);
	char line[128];

	if (!v)
		return;
	switch ((uintptr_t)udata) {
	case MARK_NONE:
		if (v->on)
			v->insns++;
		break;
	case MARK_START:
		v->on = 1;
		v->windows++;
		break;
	case MARK_STOP:
		v->on = 0;
		break;
	case MARK_REPORT:
		v->on = 0;
		pthread_mutex_lock(&lock);
		snprintf(line, sizeof(line),
			 "insncount %" PRIu64 " vcpu %u windows %" PRIu64
			 " insns %" PRIu64 "\n", seq++, i, v->windows, v->insns);
		if (out) {
			fputs(line, out);
			fflush(out);
		} else {
			qemu_plugin_outs(line);
		}
		pthread_mutex_unlock(&lock);
		v->insns = 0;
		v->windows = 0;
		break;
	}
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), k;
	bool marked = false;

	(void)id;
	if (qemu_plugin_tb_vaddr(tb) >= USER_TOP)
		return;
	for (k = 0; k < n && !marked; k++)
		marked = marker(qemu_plugin_tb_get_insn(tb, k)) != MARK_NONE;
	if (!marked) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec,
						     QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)n);
		return;
	}
	for (k = 0; k < n; k++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, k);

		qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_exec,
			QEMU_PLUGIN_CB_NO_REGS,
			(void *)(uintptr_t)marker(insn));
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	if (out && out != stderr)
		fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int k;

	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insncount: x86_64 system emulation only\n");
		return -1;
	}
	for (k = 0; k < argc; k++) {
		if (!strncmp(argv[k], "out=", 4)) {
			out = fopen(argv[k] + 4, "w");
			if (!out) {
				perror(argv[k] + 4);
				return -1;
			}
		} else {
			fprintf(stderr, "insncount: unknown argument %s\n", argv[k]);
			return -1;
		}
	}
	nvcpus = info->system.max_vcpus;
	vcpus = calloc(nvcpus, sizeof(*vcpus));
	if (!vcpus)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}

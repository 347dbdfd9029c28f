/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The markers of the insncount TCG plugin (insncount.c), for guest programs:
 * exchanges of a register with itself, which change nothing and cost one
 * instruction when no plugin is loaded.  Between INSN_START() and
 * INSN_STOP() the plugin counts the vCPU's user-space instructions;
 * INSN_REPORT() writes the sum of the windows since the last report.
 * "memory" keeps the compiler from moving memory accesses across them.
 */
#ifndef INSNCOUNT_H
#define INSNCOUNT_H

#define INSN_START()	__asm__ volatile(".byte 0x48, 0x87, 0xdb" ::: "memory")
#define INSN_STOP()	__asm__ volatile(".byte 0x48, 0x87, 0xc9" ::: "memory")
#define INSN_REPORT()	__asm__ volatile(".byte 0x48, 0x87, 0xd2" ::: "memory")

#endif

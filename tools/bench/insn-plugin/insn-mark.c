// SPDX-License-Identifier: GPL-2.0
/*
 * insn-mark: executes one marker of the insncount TCG plugin (insncount.h)
 * on the CPU it runs on, for scripts that count what other processes pinned
 * to that CPU execute: "taskset -c N insn-mark start", then the work, then
 * "... stop" and "... report".  Linked statically, so that its own start-up
 * adds few instructions to a window.
 */
#include <stdio.h>
#include <string.h>

#include "insncount.h"

int main(int argc, char **argv)
{
	if (argc != 2)
		goto usage;
	if (!strcmp(argv[1], "start"))
		INSN_START();
	else if (!strcmp(argv[1], "stop"))
		INSN_STOP();
	else if (!strcmp(argv[1], "report"))
		INSN_REPORT();
	else
		goto usage;
	return 0;
usage:
	fprintf(stderr, "Usage: insn-mark start|stop|report\n");
	return 2;
}

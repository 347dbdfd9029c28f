/* SPDX-License-Identifier: GPL-2.0 */
/* dlb2ctl save: configfs domains as a configuration file. */
#ifndef DLB2CTL_SAVE_H
#define DLB2CTL_SAVE_H

/*
 * Print the domains of device @device (-1: every device), all or those of
 * @names, as JSON that "dlb2ctl apply" accepts.  Returns the exit status:
 * 0, or 1 (message on stderr) when nothing matched or something could not
 * be read.
 */
int save_domains(int device, char **names, int nnames);

#endif /* DLB2CTL_SAVE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The project's version, for each program's --version: the Makefile passes
 * the top-level file VERSION as ACCDIRECT_VERSION (as dlb2ctl's does).
 */
#ifndef ACCDIRECT_VERSION_H
#define ACCDIRECT_VERSION_H

#ifndef ACCDIRECT_VERSION
#error "ACCDIRECT_VERSION is not defined: build with tools/accdirect/Makefile"
#endif

#endif /* ACCDIRECT_VERSION_H */

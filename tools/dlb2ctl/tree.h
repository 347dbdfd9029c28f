/* SPDX-License-Identifier: GPL-2.0 */
/* dlb2ctl: printing configfs and sysfs directories of attributes. */
#ifndef DLB2CTL_TREE_H
#define DLB2CTL_TREE_H

#include <stddef.h>

/* Read a one-line attribute, newlines turned into spaces; -errno. */
int tree_read(const char *path, char *buf, size_t len);
/*
 * Print directory @path as "<indent>label: name=value ..." and its
 * subdirectories below it; a directory without attributes (queues/,
 * ports/, links/) prints no line of its own, its children are labelled
 * "queues/q0".  Symbolic links are not followed.  Returns lines printed.
 */
int tree_print(const char *path, const char *label, int indent);
/*
 * Print "label" and then each subdirectory of @path (all, or only the one
 * named @only) with tree_print().  Returns the subdirectories printed.
 */
int tree_print_children(const char *path, const char *label, const char *only);

/* Print @s as a JSON string, escaped; NULL as null. */
void json_str(const char *s);
/* Print attribute value @s: a decimal integer as a number, else a string. */
void json_value(const char *s);
/*
 * Print directory @path as a JSON object: each attribute a member (a
 * decimal integer as a number, anything else a string, null when it cannot
 * be read), each subdirectory a nested object; members in the order of
 * tree_print(); nested lines indented by 2 * (@indent + 1) spaces.
 */
void tree_json(const char *path, int indent);

#endif /* DLB2CTL_TREE_H */

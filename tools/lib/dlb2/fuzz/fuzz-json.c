// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Fuzz target: the JSON reader (json.c, json_parse() of internal.h) on
 * arbitrary bytes.  Besides what the sanitizers catch, it checks that
 *  - an error message starts with a line:column inside the input, and a
 *    value's line:column points at the character that starts it;
 *  - an accepted input holds no NUL byte (RFC 8259 allows none);
 *  - a tree read, written back as JSON and read again is the same tree;
 *  - with one of its allocations failing (tests/fail-alloc.c; which one, a
 *    hash of the input), the input is refused with "out of memory".
 * Everything allocated is freed (LeakSanitizer).
 */
#include <stdbool.h>
#include <string.h>

#include "../internal.h"
#include "fuzz.h"

/* Offset in @data of @line:@col (from 1); -1 if there is no such line. */
static long offset_of(const uint8_t *data, size_t size, int line, int col)
{
	size_t i = 0;

	FUZZ_CHECK(line >= 1 && col >= 1);
	while (--line > 0) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);

		if (!nl)
			return -1;
		i = nl - data + 1;
	}
	return (long)(i + col - 1);
}

/* Each value's line:column is where its text starts. */
static void check_positions(const uint8_t *data, size_t size,
			    const struct json *j)
{
	static const char starts[][13] = {
		[JSON_NULL] = "n", [JSON_BOOL] = "tf",
		[JSON_INT] = "-0123456789", [JSON_NUM] = "-0123456789",
		[JSON_STR] = "\"", [JSON_ARR] = "[", [JSON_OBJ] = "{",
	};
	long off = offset_of(data, size, j->line, j->col);
	int i;

	FUZZ_CHECK(off >= 0 && (size_t)off < size);
	FUZZ_CHECK(data[off] && strchr(starts[j->type], data[off]));
	if (j->type == JSON_ARR || j->type == JSON_OBJ)
		for (i = 0; i < j->n; i++)
			check_positions(data, size, j->v[i]);
}

static void put_str(FILE *f, const char *s)
{
	const unsigned char *c;

	fputc('"', f);
	for (c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

static void put(FILE *f, const struct json *j)
{
	int i;

	switch (j->type) {
	case JSON_NULL:
		fputs("null", f);
		break;
	case JSON_BOOL:
		fputs(j->b ? "true" : "false", f);
		break;
	case JSON_INT:
		fprintf(f, "%lld", j->i);
		break;
	case JSON_NUM:			/* carries no value */
		fputs("0.5", f);
		break;
	case JSON_STR:
		put_str(f, j->s);
		break;
	case JSON_ARR:
	case JSON_OBJ:
		fputc(j->type == JSON_ARR ? '[' : '{', f);
		for (i = 0; i < j->n; i++) {
			if (i)
				fputc(',', f);
			if (j->type == JSON_OBJ) {
				put_str(f, j->k[i]);
				fputc(':', f);
			}
			put(f, j->v[i]);
		}
		fputc(j->type == JSON_ARR ? ']' : '}', f);
		break;
	}
}

static bool same(const struct json *a, const struct json *b)
{
	int i;

	if (a->type != b->type)
		return false;
	switch (a->type) {
	case JSON_NULL:
	case JSON_NUM:
		return true;
	case JSON_BOOL:
		return a->b == b->b;
	case JSON_INT:
		return a->i == b->i;
	case JSON_STR:
		return !strcmp(a->s, b->s);
	case JSON_ARR:
	case JSON_OBJ:
		if (a->n != b->n)
			return false;
		for (i = 0; i < a->n; i++)
			if ((a->k && strcmp(a->k[i], b->k[i])) ||
			    !same(a->v[i], b->v[i]))
				return false;
		return true;
	}
	return false;
}

static void check_oom(const uint8_t *data, size_t size, long allocs)
{
	struct json *j;
	char err[256];

	if (!allocs)
		return;
	fail_alloc(fail_alloc_pick(data, size, allocs));
	j = json_parse((const char *)data, size, err, sizeof(err));
	fail_alloc(-1);
	FUZZ_CHECK(!j && strstr(err, ": out of memory"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json *j, *again;
	char err[256], *text;
	int line, col, n;
	size_t len;
	long off;
	FILE *f;

	fail_alloc(-1);
	j = json_parse((const char *)data, size, err, sizeof(err));
	check_oom(data, size, fail_alloc_count);
	if (!j) {
		n = 0;
		FUZZ_CHECK(sscanf(err, "%d:%d: %n", &line, &col, &n) == 2 && n);
		FUZZ_CHECK(err[n]);
		off = offset_of(data, size, line, col);
		FUZZ_CHECK(off >= 0 && (size_t)off <= size);
		return 0;
	}
	FUZZ_CHECK(!err[0]);
	FUZZ_CHECK(!memchr(data, '\0', size));
	check_positions(data, size, j);

	f = open_memstream(&text, &len);
	FUZZ_CHECK(f);
	put(f, j);
	FUZZ_CHECK(!fclose(f));
	again = json_parse(text, len, err, sizeof(err));
	if (!again)
		fprintf(stderr, "written back: %s\nread again: %s\n", text, err);
	FUZZ_CHECK(again && same(j, again));
	json_free(again);
	json_free(j);
	free(text);
	return 0;
}

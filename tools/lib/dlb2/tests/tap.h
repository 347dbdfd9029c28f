/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Minimal TAP for the libdlb2 unit tests: each test function is one
 * "ok N - name" line; CHECK* macros inside it record failures as "#"
 * diagnostics.  tap_done() prints the plan and gives the exit status.
 */
#ifndef DLB2_TAP_H
#define DLB2_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed_tests, tap_fails;

static void __attribute__((format(printf, 1, 2))) diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#define CHECK(c) do {							\
	if (!(c)) {							\
		tap_fails++;						\
		diag("%s:%d: CHECK(%s) failed", __FILE__, __LINE__, #c);\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		tap_fails++;						\
		diag("%s:%d: %s is %lld, expected %lld", __FILE__,	\
		     __LINE__, #a, _a, _b);				\
	}								\
} while (0)

#define CHECK_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	if (!_a || strcmp(_a, _b)) {					\
		tap_fails++;						\
		diag("%s:%d: %s is \"%s\", expected \"%s\"", __FILE__,	\
		     __LINE__, #a, _a ? _a : "(null)", _b);		\
	}								\
} while (0)

static void __attribute__((unused)) tap_hex(const char *what, const void *p, size_t n)
{
	const unsigned char *b = p;
	char line[3 * 64 + 1] = "";
	size_t i;

	for (i = 0; i < n && i < 64; i++)
		sprintf(line + 3 * i, " %02x", b[i]);
	diag("%s:%s", what, line);
}

#define CHECK_MEM(a, b, n) do {						\
	if (memcmp((a), (b), (n))) {					\
		tap_fails++;						\
		diag("%s:%d: %s differs from %s", __FILE__, __LINE__,	\
		     #a, #b);						\
		tap_hex("got     ", (a), (n));				\
		tap_hex("expected", (b), (n));				\
	}								\
} while (0)

static void run_test(const char *name, void (*fn)(void))
{
	int before = tap_fails;

	fn();
	if (tap_fails != before)
		tap_failed_tests++;
	printf("%sok %d - %s\n", tap_fails != before ? "not " : "", ++tap_n,
	       name);
	fflush(stdout);
}

#define RUN(fn) run_test(#fn, fn)

static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed_tests ? 1 : 0;
}

#endif /* DLB2_TAP_H */

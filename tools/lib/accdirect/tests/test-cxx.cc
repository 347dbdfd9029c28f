// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libaccdirect from C++: accdirect.h included by a C++17 program (with
 * -Wall -Wextra -pedantic -Werror) that links against the C objects and
 * calls them, so that a missing extern "C" (mangled names) or a C-only
 * construct in the header fails the build or this test.  TAP.
 */
#include <cstdio>
#include <cstring>

#include "accdirect.h"

int main()
{
	struct accd_credits c;
	int n = 0, bad = 0;

	std::memset(&c, 0, sizeof(c));
	c.quanta = 32;
	accd_credits_add(&c, 40);
	++n;
	if (accd_credits_spend(&c, 8) == 8 && c.cache == 32) {
		std::printf("ok %d - accd_credits_spend() from C++: 8 of 40 spent, 32 left\n", n);
	} else {
		std::printf("not ok %d - accd_credits_spend() from C++: cache %llu\n", n,
			    (unsigned long long)c.cache);
		bad = 1;
	}
	++n;
	if (accd_credits_drain(&c) == 32 && c.cache == 0) {
		std::printf("ok %d - accd_credits_drain() from C++: the 32 left given back\n", n);
	} else {
		std::printf("not ok %d - accd_credits_drain() from C++\n", n);
		bad = 1;
	}
	std::printf("1..%d\n", n);
	return bad;
}

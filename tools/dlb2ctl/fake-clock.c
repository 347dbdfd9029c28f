// SPDX-License-Identifier: GPL-2.0
/*
 * dlb2ctl-fake's clock, for the tests of stats --watch: programs linked
 * with -Wl,--wrap=clock_gettime,--wrap=clock_nanosleep get these.  With
 * DLB2CTL_FAKE_SLEEP in the environment, CLOCK_MONOTONIC starts at 1000 s
 * and moves only when the program sleeps, by exactly what it asked for,
 * at once; each sleep first runs DLB2CTL_FAKE_SLEEP as a shell command,
 * which changes the stand-in sysfs files as a device would meanwhile.
 * Without it, the real clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int __real_clock_gettime(clockid_t clk, struct timespec *ts);
int __real_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			   struct timespec *rem);
int __wrap_clock_gettime(clockid_t clk, struct timespec *ts);
int __wrap_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			   struct timespec *rem);

static struct timespec now = { 1000, 0 };

int __wrap_clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (clk != CLOCK_MONOTONIC || !getenv("DLB2CTL_FAKE_SLEEP"))
		return __real_clock_gettime(clk, ts);
	*ts = now;
	return 0;
}

int __wrap_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			   struct timespec *rem)
{
	const char *cmd = getenv("DLB2CTL_FAKE_SLEEP");

	if (clk != CLOCK_MONOTONIC || !cmd)
		return __real_clock_nanosleep(clk, flags, req, rem);
	if (!(flags & TIMER_ABSTIME)) {
		now.tv_sec += req->tv_sec;
		now.tv_nsec += req->tv_nsec;
		now.tv_sec += now.tv_nsec / 1000000000;
		now.tv_nsec %= 1000000000;
	} else if (req->tv_sec > now.tv_sec ||
		   (req->tv_sec == now.tv_sec && req->tv_nsec > now.tv_nsec)) {
		now = *req;
	}
	fflush(stdout);
	if (system(cmd))
		fprintf(stderr, "fake-clock: %s failed\n", cmd);
	return 0;
}

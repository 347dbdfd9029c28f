// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput() once on
 * every file named and every file under a directory named, with
 * AddressSanitizer, UndefinedBehaviorSanitizer and a leak check after each
 * input (make fuzz-replay builds it with gcc, so the corpus is replayed
 * where clang is missing).  Each input is given in a buffer of its exact
 * size.  On a sanitizer report or a failed FUZZ_CHECK it prints
 * "reproducer: PATH" and aborts; after a leak, "reproducer: PATH (leak)"
 * and exit status 1.  Prints "N inputs" at the end.
 */
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sanitizer/lsan_interface.h>

#include "fuzz.h"

/* a sanitizer report aborts, so that the SIGABRT handler names the input */
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);
const char *__asan_default_options(void)
{
	return "abort_on_error=1";
}

const char *__ubsan_default_options(void)
{
	return "abort_on_error=1:halt_on_error=1:print_stacktrace=1";
}

static char current[4096];
static int inputs;

static void on_abort(int sig)
{
	ssize_t r;

	if (current[0]) {
		r = write(2, "reproducer: ", 12);
		r += write(2, current, strlen(current));
		r += write(2, "\n", 1);
		(void)r;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static int run(const char *path, const struct stat *st, int flag,
	       struct FTW *ftw)
{
	uint8_t *buf;
	size_t len = st->st_size;
	ssize_t n;
	int fd;

	(void)ftw;
	if (flag != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	buf = malloc(len ? len : 1);
	if (fd < 0 || !buf || (n = read(fd, buf, len)) < 0 || (size_t)n != len) {
		fprintf(stderr, "%s: cannot read\n", path);
		exit(2);
	}
	close(fd);
	snprintf(current, sizeof(current), "%s", path);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	if (__lsan_do_recoverable_leak_check()) {
		fprintf(stderr, "reproducer: %s (leak)\n", path);
		_exit(1);	/* not the same leak again at exit */
	}
	current[0] = '\0';
	inputs++;
	return 0;
}

int main(int argc, char **argv)
{
	int i;

	signal(SIGABRT, on_abort);
	for (i = 1; i < argc; i++)
		if (nftw(argv[i], run, 16, FTW_PHYS)) {
			perror(argv[i]);
			return 2;
		}
	printf("%d inputs\n", inputs);
	return 0;
}

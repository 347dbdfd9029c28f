# SPDX-License-Identifier: GPL-2.0
"""Run the unittest cases of tools/sim/tests and print TAP: a plan, then
one "ok N - name" or "not ok N - name" line per case, the failure's
message as "#" lines.  Exits 1 when a case failed."""

import os
import sys
import time
import unittest


class TapResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.n = 0
        self.t0 = 0.0

    def startTest(self, test):
        super().startTest(test)
        self.t0 = time.monotonic()

    def _line(self, test, ok, note=""):
        self.n += 1
        name = test.id().split(".", 1)[-1]
        print(f"{'ok' if ok else 'not ok'} {self.n} - {name}{note}")
        print(f"# {time.monotonic() - self.t0:.1f} s", flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(test, True)

    def _fail(self, test, err, kind):
        self._line(test, False)
        for line in self._exc_info_to_string(err, test).splitlines():
            print(f"# {line}")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._fail(test, err, "failure")

    def addError(self, test, err):
        super().addError(test, err)
        self._fail(test, err, "error")

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(test, True, f" # SKIP {reason}")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    pattern = sys.argv[1] if len(sys.argv) > 1 else "test_*.py"
    suite = unittest.defaultTestLoader.discover(here, pattern=pattern,
                                                top_level_dir=here)
    print(f"1..{suite.countTestCases()}", flush=True)
    result = TapResult()
    suite.run(result)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())

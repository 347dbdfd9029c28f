# SPDX-License-Identifier: GPL-2.0
"""Command line: python3 -m lbsim {run,sweep,figure} ..."""

import argparse
import sys
import time

from . import distributions, engine, figures, policies
from .engine import Config
from .sweep import curves, peaks, plot, sweep, write_csv


def _config(a):
    return Config(workers=a.workers, delay=a.delay, feedback=a.feedback,
                  ingress=a.ingress, dispatcher_time=a.dispatcher_time,
                  release=a.release, burst=a.burst, flows=a.flows,
                  credits=a.credits)


def _common(p):
    p.add_argument("--dist", default="exp:1",
                   help="fixed:V, exp:MEAN, bimodal:SHORT:RATIO:FRAC, "
                   "masstree:GET=0.5,SCAN18=0.5 (default exp:1)")
    p.add_argument("--workers", type=int, default=16)
    p.add_argument("--delay", type=float, default=0.0,
                   help="one-way dispatch delay scheduler->worker, us")
    p.add_argument("--feedback", type=float, default=None,
                   help="release notification delay, us (default: --delay)")
    p.add_argument("--ingress", type=float, default=0.0,
                   help="constant delay before the scheduler, us")
    p.add_argument("--dispatcher-time", type=float, default=0.0,
                   help="software dispatcher cost per request, us")
    p.add_argument("--release", choices=("complete", "start"),
                   default="complete")
    p.add_argument("--burst", type=int, default=1,
                   help="dequeue burst (with --release start)")
    p.add_argument("--flows", type=int, default=0,
                   help="atomic flows, pinned while inflight (dlb:K:ARB)")
    p.add_argument("--credits", type=int, default=0,
                   help="bound of the scheduler's queue (0: none)")
    p.add_argument("--nreq", type=int, default=200000)
    p.add_argument("--seed", type=int, default=1)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="lbsim", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("run", help="one run; prints the statistics")
    _common(p)
    p.add_argument("--policy", default="jsq",
                   help="random, rr, jsq, cfcfs, jbsq:K, jbsq-rr:K, "
                   "dlb:K:rr, dlb:K:sf")
    p.add_argument("--load", type=float, default=0.8,
                   help="offered load, fraction of workers / E[S]")

    p = sub.add_parser("sweep", help="sweep the load for some policies; "
                       "writes OUT.csv, OUT.png, OUT.svg")
    _common(p)
    p.add_argument("--policies", default="random,rr,jsq,cfcfs,jbsq:2")
    p.add_argument("--loads", default="0.1:0.95:0.05",
                   help="FROM:TO:STEP or a comma list, fraction of capacity")
    p.add_argument("--slo", type=float, default=30.0,
                   help="p99 SLO in multiples of E[S] (peaks printed)")
    p.add_argument("--out", required=True, help="output path, no extension")

    p = sub.add_parser("figure", help="reproduce a paper's figure")
    p.add_argument("names", nargs="*", default=list(figures.FIGURES),
                   help=", ".join(figures.FIGURES))
    p.add_argument("--out", default="results")
    p.add_argument("--nreq", type=int, default=200000)
    p.add_argument("--seed", type=int, default=1)

    a = ap.parse_args(argv)
    if a.cmd == "run":
        dist = distributions.parse(a.dist)
        r = engine.run(policies.parse(a.policy), dist,
                       a.load * a.workers / dist.mean, _config(a),
                       nreq=a.nreq, seed=a.seed)
        for k, v in r.row().items():
            print(f"{k:>10} {v:.6g}" if isinstance(v, float)
                  else f"{k:>10} {v}")
        return 0
    if a.cmd == "sweep":
        dist = distributions.parse(a.dist)
        if ":" in a.loads:
            lo, hi, st = map(float, a.loads.split(":"))
            loads = [lo + st * i for i in range(int(round((hi - lo) / st)) + 1)]
        else:
            loads = [float(x) for x in a.loads.split(",")]
        rates = [x * a.workers / dist.mean for x in loads]
        rows = []
        for spec in a.policies.split(","):
            rows += sweep(spec, dist, _config(a), rates, a.nreq, a.seed)
        write_csv(a.out + ".csv", rows)
        plot(a.out, [(f"{dist.name}, {a.workers} workers, delay {a.delay} us",
                      rows, "load", lambda r: r["p99"] / dist.mean, {})],
             "load", "p99 / E[S]", (0, 1.2 * a.slo),
             hlines=((a.slo, f"{a.slo:g}x SLO"),))
        for c, v in peaks(rows, "load", a.slo * dist.mean).items():
            print(f"{c:>12}: peak load under {a.slo:g}x SLO {v:.3f}")
        return 0
    for name in a.names:
        t = time.monotonic()
        table = figures.FIGURES[name](a.out, nreq=a.nreq, seed=a.seed)
        for row in table:
            print("  " + "  ".join(f"{k}={v:.3f}" if isinstance(v, float)
                                   else f"{k}={v}" for k, v in row.items()))
        print(f"{name}: {time.monotonic() - t:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0
"""The reproduced figures: Turbo's Fig. 2 and AccDirect's Fig. 10(a).

Each writes NAME.csv (every point), NAME-peaks.csv (the peak load under
each SLO per curve) and NAME.png / NAME.svg under the output directory,
and returns the peaks.  Parameters and their sources are in
Documentation/accdirect/simulator.rst.
"""

import time

from . import distributions as d
from .engine import Config
from .sweep import Shifted, peaks, plot, sweep, write_csv

LOADS = [0.05 * i for i in range(1, 19)] + [0.925, 0.95, 0.975, 0.99]


def _log(msg):
    print(msg, flush=True)


def turbo_fig2(out, nreq=200000, seed=1):
    """Turbo Fig. 2: 16 serving units, bimodal service (10% of requests
    5x longer), interface latency 0% (a) and 25% (b) of the mean service
    time; p99 over load normalised to the theoretical peak.  Policies
    c-FCFS, d-FCFS(r), d-FCFS(rr), JSQ; plus JBSQ(2) (DLB with a CQ
    depth of 2, not in Turbo's figure)."""
    dist = d.bimodal(1.0, 5.0, 0.10)
    workers = 16
    mean = dist.mean
    rates = [x * workers / mean for x in LOADS]
    pols = [("cfcfs", "c-FCFS"), ("random", "d-FCFS(r)"),
            ("rr", "d-FCFS(rr)"), ("jsq", "JSQ"), ("jbsq:2", "JBSQ(2)")]
    styles = {"c-FCFS": {"color": "tab:red"},
              "d-FCFS(r)": {"color": "tab:blue"},
              "d-FCFS(rr)": {"color": "tab:green"},
              "JSQ": {"color": "tab:orange"},
              "JBSQ(2)": {"color": "black", "ls": "--", "marker": "x",
                          "label": "JBSQ(2) (DLB, not in Turbo)"}}
    panels, allrows, table = [], [], []
    for frac, tag in ((0.0, "a"), (0.25, "b")):
        cfg = Config(workers=workers, delay=frac * mean)
        rows = []
        for spec, label in pols:
            t = time.monotonic()
            rows += sweep(spec, dist, cfg, rates, nreq, seed, label)
            _log(f"turbo-fig2({tag}) {label}: {time.monotonic() - t:.1f} s")
        for r in rows:
            r["panel"] = tag
            r["delay"] = cfg.delay
        allrows += rows
        # the SLO in multiples of E[S] (Turbo Sec. VI) and, the paper's
        # Sec. III wording being "the query service time", of the short
        # requests' service time
        for base, unit in (("mean", mean), ("short", 1.0)):
            for slo in (10, 30):
                pk = peaks(rows, "load", slo * unit)
                for c, v in pk.items():
                    table.append({"panel": tag, "delay": cfg.delay,
                                  "slo_x": slo, "slo_of": base, "curve": c,
                                  "peak_load": v})
        panels.append((f"({tag}) interface latency {frac * 100:.0f}% of E[S]",
                       rows, "load", lambda r: r["p99"] / mean, styles))
    write_csv(f"{out}/turbo-fig2.csv", allrows)
    write_csv(f"{out}/turbo-fig2-peaks.csv", table)
    plot(f"{out}/turbo-fig2", panels, "load (fraction of the theoretical peak)",
         "p99 latency / E[S]", (0, 35),
         hlines=((10, "10x SLO"), (30, "30x SLO")),
         title="Turbo Fig. 2 reproduced: 16 workers, bimodal 5x-10%")
    return table


def accdirect_fig10(out, nreq=200000, seed=1):
    """AccDirect Fig. 10(a): Masstree on 16 worker cores, 50% GET / 50%
    SCAN18; p99 over the request rate; rss, swlb and AccDirect (DLB),
    60 us target."""
    dist = d.Masstree({"GET": 0.5, "SCAN18": 0.5})
    workers = 16
    cap = workers / dist.mean                     # requests per us = MRPS
    rates = [x * cap for x in LOADS]
    # (spec, label, config, service distribution) -- see simulator.rst
    curves = [
        ("random", "rss", Config(workers=workers), dist),
        ("jbsq:8", "swlb (queueing only)",
         Config(workers=workers, delay=0.2, dispatcher_time=0.05), dist),
        ("jbsq:8", "swlb + 0.6 us/request",
         Config(workers=workers, delay=0.2, dispatcher_time=0.05),
         Shifted(dist, 0.6)),
        ("jbsq:4", "AccDirect (DLB, CQ depth 4)",
         Config(workers=workers, delay=0.12, ingress=1.6, release="start"),
         dist),
    ]
    styles = {"rss": {"color": "#004A86"},
              "swlb (queueing only)": {"color": "green", "ls": "--"},
              "swlb + 0.6 us/request": {"color": "green"},
              "AccDirect (DLB, CQ depth 4)": {"color": "#E96115"}}
    rows = []
    for spec, label, cfg, dd in curves:
        t = time.monotonic()
        rows += sweep(spec, dd, cfg, rates, nreq, seed, label)
        _log(f"accdirect-fig10 {label}: {time.monotonic() - t:.1f} s")
    for r in rows:
        r["mrps"] = r["rate"]
    # the DLB's CQ depth: peak rate under 60 us for a range of depths
    table = [{"curve": c, "slo_us": 60, "peak_mrps": v}
             for c, v in peaks(rows, "mrps", 60.0).items()]
    for k in (1, 2, 4, 8, 16, 64):
        cfg = Config(workers=workers, delay=0.12, ingress=1.6,
                     release="start")
        rr = sweep(f"jbsq:{k}", dist, cfg, rates, nreq, seed,
                   f"DLB CQ depth {k}")
        for r in rr:
            r["mrps"] = r["rate"]
        table += [{"curve": c, "slo_us": 60, "peak_mrps": v}
                  for c, v in peaks(rr, "mrps", 60.0).items()]
    # each query type fixed at its mean instead of exponential around it:
    # the least variable reading of Turbo's per-type means
    dfx = d.Masstree({"GET": 0.5, "SCAN18": 0.5}, exponential=False)
    for spec, label, cfg, _ in (curves[0], curves[3]):
        rr = sweep(spec, dfx, cfg, rates, nreq, seed,
                   label + ", fixed per-type service")
        for r in rr:
            r["mrps"] = r["rate"]
        table += [{"curve": c, "slo_us": 60, "peak_mrps": v}
                  for c, v in peaks(rr, "mrps", 60.0).items()]
    _log("accdirect-fig10 CQ depth and variance sweeps done")
    write_csv(f"{out}/accdirect-fig10.csv", rows)
    write_csv(f"{out}/accdirect-fig10-peaks.csv", table)
    plot(f"{out}/accdirect-fig10",
         [("(a) 50% GET / 50% SCAN18, 16 workers", rows, "mrps",
           lambda r: r["p99"], styles)],
         "request rate (MRPS)", "p99 latency (us)", (0, 80),
         hlines=((60, "60 us target"),),
         title="AccDirect Fig. 10(a) reproduced (queueing model)")
    return table


FIGURES = {"turbo-fig2": turbo_fig2, "accdirect-fig10": accdirect_fig10}

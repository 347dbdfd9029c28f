# SPDX-License-Identifier: GPL-2.0
"""Statistics of one simulation run."""

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Result:
    offered: float          # offered load, rate * E[S] / workers
    n: int                  # measured requests
    mean: float             # latency, us
    p50: float
    p99: float
    p999: float
    throughput: float       # completions per us while measuring
    util: list = field(default_factory=list)  # per worker, in [0, 1]
    wait_mean: float = 0.0  # start - arrival, us
    batch_means: list = field(default_factory=list)  # of latency, 20 batches
    latencies: np.ndarray = None
    waits: np.ndarray = None    # start - arrival of each measured request
    classes: dict = None        # with priorities: "queue_prio", "qe_prio"
                                # of each measured request

    def row(self):
        return {"load": self.offered, "n": self.n, "mean": self.mean,
                "p50": self.p50, "p99": self.p99, "p999": self.p999,
                "throughput": self.throughput,
                "util_min": min(self.util), "util_max": max(self.util)}


def summarise(arrivals, service, start, done, where, workers, warmup,
              offered, batches=20):
    k = int(len(arrivals) * warmup)
    a = arrivals[k:]
    lat = done[k:] - a
    t0, t1 = a[0], a[-1]
    # busy time of each worker inside [t0, t1]
    s = np.clip(start[k:], t0, t1)
    e = np.clip(done[k:], t0, t1)
    util = np.bincount(where[k:], weights=e - s, minlength=workers) / (t1 - t0)
    # completions (of any request, warm-up included) inside the window:
    # in overload this is the capacity, not the offered rate
    served = np.count_nonzero((done >= t0) & (done <= t1))
    p50, p99, p999 = np.percentile(lat, [50, 99, 99.9])
    bm = [float(b.mean()) for b in np.array_split(lat, batches)]
    return Result(offered=offered, n=len(lat), mean=float(lat.mean()),
                  p50=float(p50), p99=float(p99), p999=float(p999),
                  throughput=served / (t1 - t0), util=util.tolist(),
                  wait_mean=float((start[k:] - a).mean()),
                  batch_means=bm, latencies=lat, waits=start[k:] - a)


def batch_se(result):
    """Standard error of the mean latency by the method of batch means
    (batches long against the queue's relaxation time are nearly
    independent)."""
    b = np.asarray(result.batch_means)
    return float(b.std(ddof=1) / np.sqrt(len(b)))


def peak_under_slo(loads, p99s, slo):
    """The highest load at which p99 <= slo, interpolating linearly
    between the two sweep points that bracket the crossing; 0 when even
    the lowest load misses the SLO, the last load when none does."""
    loads = list(loads)
    p99s = list(p99s)
    if not loads or p99s[0] > slo:
        return 0.0
    for j in range(1, len(loads)):
        if p99s[j] > slo:
            x0, x1, y0, y1 = loads[j - 1], loads[j], p99s[j - 1], p99s[j]
            return x0 + (slo - y0) * (x1 - x0) / (y1 - y0)
    return loads[-1]

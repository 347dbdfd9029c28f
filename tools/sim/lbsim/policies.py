# SPDX-License-Identifier: GPL-2.0
"""Load-balancing policies.

A policy is the scheduler's decision rule.  The engine (engine.py) asks
it for a worker when a request is at the scheduler (select()), tells it
when it sent a request to a worker (dispatched()) and when the worker's
release notification came back (released()).  A policy that holds
requests (holds = True) keeps them in one central FCFS queue at the
scheduler while select() returns None; the engine retries the head of
that queue on every release.

What the scheduler knows of a worker is only what it dispatched and what
was released back to it, so with a dispatch delay its view lags: that is
where c-FCFS's "execution bubbles" (Turbo Sec. II-C) come from.

  random   d-FCFS(r): uniformly random worker on arrival (RSS with ideal
           hashing, one request per flow; Turbo Sec. III)
  rr       d-FCFS(rr): round robin on arrival
  jsq      JSQ: the worker with the fewest outstanding requests in the
           scheduler's view, no bound (Turbo)
  cfcfs    c-FCFS: one central queue; the head goes to a worker the
           scheduler knows to be idle (RPCValet; Turbo Fig. 1a)
  jbsq:K   JBSQ(K): central queue plus per-worker queues bounded by K
           outstanding requests, shortest first (R2P2; DLB with a
           consumer-queue depth of K, see engine.Config.release)
  jbsq-rr:K  the same bound, but the next worker with room in round-robin
           order instead of the shortest: an arbiter that only knows
           "has room" / "is full".  As K grows, jbsq:K tends to JSQ and
           jbsq-rr:K to rr; with K=1 both are c-FCFS.
  dlb:K:ARB  the DLB as a policy: CQ depth K, the worker chosen among CQs
           with room by ARB = rr (round robin from the CQ served last, as
           the QEMU model's arbitration=rr, tools/qemu/dlb2-sched.c) or
           sf (shortest first, lowest index on ties: jbsq:K); with
           engine.Config.flows > 0 the queue is atomic: a flow with
           inflight events is pinned to its worker (select() waits for
           that CQ to have room; requests of other flows go past it) and
           unpinned when its last inflight event completes.  The DLB's
           own rule is not documented (dlb2-hardware-facts.md, "CQ
           arbitration algorithm among several eligible CQs": UNKNOWN).
           Without flows, dlb:K:sf is jbsq:K and dlb:K:rr is jbsq-rr:K
           on the same sample path (tests/test_dlb.py).

A policy's select() takes the request's flow (-1: none); only a policy
with flow_aware = True uses it, and gets dispatched(w, flow) and
finished(w, flow) (the flow's event completed, heard after the feedback
delay) from the engine.
"""


class Policy:
    holds = False
    flow_aware = False
    name = "?"

    def reset(self, n, rng, nreq):
        self.n = n

    def select(self):
        raise NotImplementedError

    def dispatched(self, w):
        pass

    def released(self, w):
        pass


class Random(Policy):
    name = "random"

    def reset(self, n, rng, nreq):
        self.n = n
        self._draws = rng.integers(0, n, nreq).tolist()
        self._i = 0

    def select(self):
        w = self._draws[self._i]
        self._i += 1
        return w


class RoundRobin(Policy):
    name = "rr"

    def reset(self, n, rng, nreq):
        self.n = n
        self._next = 0

    def select(self):
        w = self._next
        self._next = w + 1 if w + 1 < self.n else 0
        return w


class JBSQ(Policy):
    """Join the bounded shortest queue.  bound=None is plain JSQ (no bound,
    nothing held centrally).  Ties go to the lowest-numbered worker, as a
    fixed-priority hardware arbiter would."""

    def __init__(self, bound=None):
        self.bound = bound
        self.holds = bound is not None
        self.name = "jsq" if bound is None else f"jbsq({bound})"

    def reset(self, n, rng, nreq):
        self.n = n
        self.view = [0] * n

    def select(self):
        view = self.view
        m = min(view)
        if self.bound is not None and m >= self.bound:
            return None
        return view.index(m)

    def dispatched(self, w):
        self.view[w] += 1

    def released(self, w):
        self.view[w] -= 1


class JBSQRoundRobin(Policy):
    """Bounded per-worker queues, the next worker with room in round-robin
    order."""

    holds = True

    def __init__(self, bound=1):
        self.bound = bound
        self.name = f"jbsq-rr({bound})"

    def reset(self, n, rng, nreq):
        self.n = n
        self.view = [0] * n
        self._next = 0

    def select(self):
        view, n, k = self.view, self.n, self.bound
        w = self._next
        for _ in range(n):
            if view[w] < k:
                self._next = w + 1 if w + 1 < n else 0
                return w
            w = w + 1 if w + 1 < n else 0
        return None

    def dispatched(self, w):
        self.view[w] += 1

    def released(self, w):
        self.view[w] -= 1


class CentralFCFS(Policy):
    """c-FCFS, written independently of JBSQ: a stack of workers the
    scheduler believes idle.  Equivalent to JBSQ(1) in distribution (not
    in sample path: the tie-breaking differs), which the tests check."""

    name = "cfcfs"
    holds = True

    def reset(self, n, rng, nreq):
        self.n = n
        self.idle = list(range(n - 1, -1, -1))

    def select(self):
        return self.idle.pop() if self.idle else None

    def released(self, w):
        self.idle.append(w)


class DLB(Policy):
    """The DLB's choice of a consumer queue: depth K, arbitration "rr" or
    "sf" among the CQs with room, atomic flows pinned while inflight."""

    holds = True
    flow_aware = True

    def __init__(self, depth=4, arb="rr"):
        if arb not in ("rr", "sf"):
            raise ValueError("dlb arbitration must be rr or sf")
        self.bound, self.arb = int(depth), arb
        self.name = f"dlb({self.bound},{arb})"

    def reset(self, n, rng, nreq):
        self.n = n
        self.view = [0] * n
        self._next = 0
        self.pin = {}           # flow -> [worker, inflight events]
        self.picks = []         # every choice, for the tests (small runs)
        self.record = nreq <= 1000

    def room(self):
        return min(self.view) < self.bound

    def select(self, f=-1):
        view, k = self.view, self.bound
        p = self.pin.get(f) if f >= 0 else None
        if p is not None:
            w = p[0] if view[p[0]] < k else None
        elif self.arb == "sf":
            m = min(view)
            w = None if m >= k else view.index(m)
        else:
            n, w = self.n, self._next
            for _ in range(n):
                if view[w] < k:
                    self._next = w + 1 if w + 1 < n else 0
                    break
                w = w + 1 if w + 1 < n else 0
            else:
                w = None
        if self.record and w is not None:
            self.picks.append(w)
        return w

    def dispatched(self, w, f=-1):
        self.view[w] += 1
        if f >= 0:
            p = self.pin.get(f)
            if p is None:
                self.pin[f] = [w, 1]
            else:
                p[1] += 1

    def released(self, w):
        self.view[w] -= 1

    def finished(self, w, f):
        p = self.pin[f]
        p[1] -= 1
        if not p[1]:
            del self.pin[f]


def parse(spec):
    """Policy from a spec: random, rr, jsq, cfcfs, jbsq:K, jbsq-rr:K,
    dlb:K:rr, dlb:K:sf."""
    kind, _, arg = spec.partition(":")
    if kind in ("random", "rss", "dfcfs-r"):
        return Random()
    if kind in ("rr", "dfcfs-rr"):
        return RoundRobin()
    if kind == "jsq":
        return JBSQ(None)
    if kind in ("cfcfs", "c-fcfs"):
        return CentralFCFS()
    if kind == "jbsq":
        return JBSQ(int(arg or 1))
    if kind == "jbsq-rr":
        return JBSQRoundRobin(int(arg or 1))
    if kind == "dlb":
        k, _, arb = arg.partition(":")
        return DLB(int(k or 4), arb or "rr")
    raise ValueError(f"unknown policy {spec!r}")

# SPDX-License-Identifier: GPL-2.0
"""Discrete-event engine.

The model, per request (all times in microseconds):

  arrival a (open loop: Poisson, exponential inter-arrival times)
    -> + ingress: a constant delay before the scheduler (e.g. the SmartNIC
       writing the queue element to the DLB); it shifts latency but does
       not change the scheduling
    -> optional software dispatcher (dispatcher_time > 0): one FIFO server
       in front of the scheduler taking dispatcher_time per request (a
       software load balancer's distributor core)
    -> the scheduler: the policy picks a worker now, or keeps the request
       in its central FCFS queue (policies.py)
    -> + delay: one-way dispatch delay from the scheduler to the worker's
       queue (Turbo's "interface latency", NIC to core)
    -> the worker's FIFO queue, one request in service at a time, work
       conserving, no preemption
    -> completion at c; latency = c - a.

The scheduler learns about a worker only through release notifications,
which take feedback (default: = delay) to come back.  release="complete"
sends it when the request completes (Turbo's egress path decrementing
the queue count; c-FCFS's "I am idle"); release="start" sends it when
the worker takes the request out of its queue to serve it (a DLB
consumer queue slot is free as soon as the core has dequeued the QE, so
JBSQ(K) with release="start" bounds the requests waiting in the CQ, not
counting the one in service).

The DLB's knobs (with policies.DLB, "dlb:K:rr" or "dlb:K:sf"):

  burst    dequeue burst B (release="start" only): an idle worker takes
           up to B requests out of its CQ at once (their slots are
           released together) and serves them one after another before it
           looks at its CQ again; B = 1 is release="start" as above.
  flows    F > 0: the queue is atomic, each request belongs to one of F
           flows drawn uniformly; a flow stays pinned to the worker of its
           inflight events until the last of them completes (the
           completion heard after the feedback delay); requests of pinned
           flows wait for their worker's CQ while others go past them.
  credits  C > 0: at most C requests wait inside the scheduler (a DLB
           credit is consumed at enqueue and returned when the QE is
           written to a CQ); the others wait at the producer, in order.
           Keeps the scheduler's scan short in overload (Fig. 13).
  priorities, queue_prios, prio_shift, bypass
           (AccDirect's Fig. 12; not with flows): each request gets a QE
           priority drawn uniformly from 0..priorities-1 and one of the
           queues, drawn uniformly, whose priority queue_prios gives (0 is
           the highest).  The scheduler serves its waiting requests by
           class, (queue priority >> prio_shift, QE priority >>
           prio_shift), the lowest first and FIFO inside a class: the
           highest-priority queue first, then the highest-priority event
           in it (dlb2-hardware-facts 7.2, FACT; each worker linked to
           every queue); prio_shift 1 is the 4 effective levels of 8
           (FACT for DPDK's documentation; the bins' weights are not
           known).  With probability bypass a pick takes a random lower
           non-empty class instead (the documented anti-starvation pick,
           "about 1 %").  A request's class is kept in Result.classes.
           Inside a worker's CQ the order stays FIFO.

Events are kept in a heapq; arrivals come from a presorted array and are
merged with the heap, so the heap holds only in-flight events.  Ties
(zero delays) are handled inline, in causal order.
"""

import heapq
from collections import deque
from dataclasses import dataclass

import numpy as np

from . import metrics


@dataclass
class Config:
    workers: int = 16
    delay: float = 0.0          # scheduler -> worker, us
    feedback: float = None      # worker -> scheduler, us (None: = delay)
    ingress: float = 0.0        # constant before the scheduler, us
    dispatcher_time: float = 0.0  # software dispatcher per request, us
    release: str = "complete"   # "complete" or "start"
    burst: int = 1              # dequeue burst (release="start")
    flows: int = 0              # atomic flows (0: none)
    credits: int = 0            # scheduler's queue bound (0: none)
    priorities: int = 0         # QE priority levels (0: none)
    queue_prios: tuple = ()     # each queue's priority (empty: one queue)
    prio_shift: int = 1         # class = priority >> prio_shift
    bypass: float = 0.0         # probability of a pick of a lower class


class _Classes:
    """The scheduler's queue with priorities: one FIFO per class, the
    lowest class first; with probability bypass a pick goes to a random
    lower non-empty class (engine's docstring)."""

    def __init__(self, cls, bypass, rng):
        self.cls = cls          # request -> class (tuple)
        self.q = {}
        self.n = 0
        self.bypass = bypass
        self.rng = rng

    def __len__(self):
        return self.n

    def append(self, r):
        c = self.cls[r]
        d = self.q.get(c)
        if d is None:
            d = self.q[c] = deque()
        d.append(r)
        self.n += 1

    def popleft(self):
        live = sorted(c for c, d in self.q.items() if d)
        c = live[0]
        if len(live) > 1 and self.bypass and self.rng.random() < self.bypass:
            c = live[int(self.rng.integers(1, len(live)))]
        self.n -= 1
        return self.q[c].popleft()


def run(policy, dist, rate, cfg, nreq=100000, seed=1, warmup=0.1,
        trace=None):
    """Simulate nreq requests arriving at rate (per us) and return
    metrics.Result.  The first warmup fraction of the requests (by
    arrival) is discarded from the statistics.  trace = (arrival times,
    service times[, flows]) replaces the random draws (dist, rate, nreq
    and seed are then ignored but for the result's offered load)."""
    n = cfg.workers
    delay = float(cfg.delay)
    fb = delay if cfg.feedback is None else float(cfg.feedback)
    if cfg.release not in ("complete", "start"):
        raise ValueError("release must be 'complete' or 'start'")
    rel_on_start = cfg.release == "start"
    burst = int(cfg.burst)
    if burst < 1 or (burst > 1 and not rel_on_start):
        raise ValueError("burst > 1 needs release='start'")
    credits = int(cfg.credits)
    pinning = cfg.flows > 0 or (trace is not None and len(trace) > 2)
    if pinning and not policy.flow_aware:
        raise ValueError(f"policy {policy.name} does not know flows")
    if (pinning or credits) and not policy.holds:
        raise ValueError("flows and credits need a policy that holds "
                         "requests (dlb:K:ARB)")
    prio = cfg.priorities > 0 or len(cfg.queue_prios) > 0
    if prio and (pinning or not policy.holds or trace is not None):
        raise ValueError("priorities need a policy that holds requests "
                         "(dlb:K:ARB), no flows and no trace")
    if prio and not 0.0 <= cfg.bypass < 1.0:
        raise ValueError("bypass must be in [0, 1)")

    if trace is None:
        ss = np.random.SeedSequence(seed)
        rng_arr, rng_svc, rng_pol, rng_flow = (np.random.default_rng(s)
                                               for s in ss.spawn(4))
        arrivals = np.cumsum(rng_arr.exponential(1.0 / rate, nreq))
        service = dist.sample(rng_svc, nreq)
        fl = (rng_flow.integers(0, cfg.flows, nreq).tolist() if pinning
              else None)
        if prio:
            # drawn after the others, so that runs without priorities
            # keep their numbers
            rng_cls, rng_byp = (np.random.default_rng(s)
                                for s in ss.spawn(2))
            qep = rng_cls.integers(0, max(cfg.priorities, 1), nreq)
            qp = np.asarray(cfg.queue_prios or (0,))[
                rng_cls.integers(0, max(len(cfg.queue_prios), 1), nreq)]
    else:
        arrivals = np.asarray(trace[0], dtype=float)
        service = np.asarray(trace[1], dtype=float)
        nreq = len(arrivals)
        rng_pol = np.random.default_rng(seed)
        fl = list(trace[2]) if pinning else None
    ready = arrivals + cfg.ingress
    if cfg.dispatcher_time > 0:
        ready = _fifo_stage(ready, cfg.dispatcher_time)
    policy.reset(n, rng_pol, nreq)

    svc = service.tolist()
    rdy = ready.tolist()
    start = [0.0] * nreq
    done = [0.0] * nreq
    where = [0] * nreq

    select = policy.select
    dispatched = policy.dispatched
    released = policy.released
    finished = policy.finished if pinning else None
    room = getattr(policy, "room", None)
    holds = policy.holds
    if prio:
        sh = int(cfg.prio_shift)
        classes = list(zip((qp >> sh).tolist(), (qep >> sh).tolist()))
        central = _Classes(classes, float(cfg.bypass), rng_byp)
    else:
        central = deque()
    producer = deque()          # waiting for a credit
    local = [deque() for _ in range(n)]
    taken = [0] * n             # dequeued in the current burst, not begun
    busy = [False] * n
    heap = []
    push = heapq.heappush
    pop = heapq.heappop
    seq = 0
    AT_WORKER, DONE, RELEASE, FINISH = 0, 1, 2, 3

    def pick(r):
        return select(fl[r]) if pinning else select()

    def send(t, r, w):
        nonlocal seq
        if pinning:
            dispatched(w, fl[r])
        else:
            dispatched(w)
        where[r] = w
        if delay > 0:
            seq += 1
            push(heap, (t + delay, seq, AT_WORKER, w, r))
        else:
            at_worker(t, r, w)

    def drain(t):
        # the scheduler's queue in order; with flows a request whose
        # worker is full is passed over, not blocking the others
        nonlocal central
        if prio:
            while central:
                w = select()
                if w is None:
                    break
                send(t, central.popleft(), w)
        elif pinning:
            keep = deque()
            while central and room():
                r = central.popleft()
                w = pick(r)
                if w is None:
                    keep.append(r)
                else:
                    send(t, r, w)
            keep.extend(central)
            central = keep
        else:
            while central:
                w = pick(central[0])
                if w is None:
                    break
                send(t, central.popleft(), w)
        while producer and (not credits or len(central) < credits):
            enter(t, producer.popleft())

    def enter(t, r):
        # r reaches the scheduler
        if (not central or pinning) and (room is None or room()):
            w = pick(r)
            if w is not None:
                send(t, r, w)
                return
        central.append(r)

    def notify(t, w, kind, r):
        nonlocal seq
        if fb > 0:
            seq += 1
            push(heap, (t + fb, seq, kind, w, r))
        elif kind == RELEASE:
            released(w)
            drain(t)
        else:
            finished(w, fl[r])
            drain(t)

    def begin(t, r, w):
        nonlocal seq
        busy[w] = True
        start[r] = t
        seq += 1
        push(heap, (t + svc[r], seq, DONE, w, r))

    def next_job(t, w):
        # w is idle and its CQ (local[w]) not empty
        # (busy before the releases: with no feedback delay a release
        # may send the next request to w at once)
        q = local[w]
        k = 0
        if rel_on_start:
            if not taken[w]:
                k = min(burst, len(q))
                taken[w] = k
            taken[w] -= 1
        begin(t, q.popleft(), w)
        for _ in range(k):
            notify(t, w, RELEASE, -1)

    def at_worker(t, r, w):
        local[w].append(r)
        if not busy[w]:
            next_job(t, w)

    i = 0
    inf = float("inf")
    while i < nreq or heap:
        ta = rdy[i] if i < nreq else inf
        if heap and heap[0][0] <= ta:
            t, _, kind, w, r = pop(heap)
            if kind == DONE:
                done[r] = t
                busy[w] = False
                if local[w]:
                    next_job(t, w)
                if not rel_on_start:
                    notify(t, w, RELEASE, -1)
                if pinning:
                    notify(t, w, FINISH, r)
            elif kind == AT_WORKER:
                at_worker(t, r, w)
            elif kind == RELEASE:
                released(w)
                drain(t)
            else:
                finished(w, fl[r])
                drain(t)
        else:
            r = i
            i += 1
            if producer or (credits and len(central) >= credits):
                producer.append(r)
            elif holds and central and not pinning:
                central.append(r)
            else:
                enter(ta, r)

    res = metrics.summarise(arrivals, service, np.array(start),
                            np.array(done), np.array(where), n, warmup,
                            offered=rate * dist.mean / n)
    res.picks = getattr(policy, "picks", None)
    res.where = where
    if prio:
        k = int(nreq * warmup)
        res.classes = {"queue_prio": qp[k:], "qe_prio": qep[k:]}
    return res


def _fifo_stage(t_in, cost):
    """Lindley recursion of a single FIFO server with a constant cost."""
    out = np.empty_like(t_in)
    free = -np.inf
    for j, t in enumerate(t_in.tolist()):
        free = (t if t > free else free) + cost
        out[j] = free
    return out

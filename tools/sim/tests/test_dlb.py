# SPDX-License-Identifier: GPL-2.0
"""The DLB as a policy (policies.DLB, "dlb:K:rr" / "dlb:K:sf"): the exact
workers chosen by round robin and by shortest first on small traces, the
CQ depth, the dequeue burst and atomic flows pinned while inflight; and
that without flows the DLB policy follows jbsq-rr:K / jbsq:K on the same
sample path.  Small and deterministic: about 2 s in all."""

import os
import sys
import unittest
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from lbsim import distributions as d  # noqa: E402
from lbsim import engine, policies  # noqa: E402

ONE = d.Fixed(1.0)


def picks(arb, trace, depth=2, **cfg):
    """A run of a small trace (arrival times, service times[, flows]);
    its statistics over a handful of requests are meaningless (numpy
    warns), its picks, where and latencies exact."""
    cfg.setdefault("workers", 3)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return engine.run(policies.DLB(depth, arb), ONE, 1.0,
                          engine.Config(**cfg), trace=trace, warmup=0)


class Arbitration(unittest.TestCase):
    # 3 workers, CQ depth 2, no delay, release at completion; arrivals at
    # 0, 1, 2, 3, 4, 4.5 us, the first two 10 us long, the others 1 us.
    # Both fill w0, w1, w2; r2 leaves w2 at 3.  r3 (t=3): shortest first
    # takes the emptiest CQ, w2 (0 against 1, 1); round robin takes the
    # next CQ after w2 that has room, w0 (1 < 2).  r4 (t=4): w2 again
    # (empty) against w1.  r5 (t=4.5): shortest first sees 1, 1, 1 and
    # takes the lowest index, w0; round robin's next is w2.
    TRACE = ([0, 1, 2, 3, 4, 4.5], [10, 10, 1, 1, 1, 1])

    def test_shortest_first_picks(self):
        self.assertEqual(picks("sf", self.TRACE).picks, [0, 1, 2, 2, 2, 0])

    def test_round_robin_picks(self):
        self.assertEqual(picks("rr", self.TRACE).picks, [0, 1, 2, 0, 1, 2])

    def test_round_robin_skips_full_cqs(self):
        # depth 1: w0 and w1 full with the 10 us requests; w2 frees at 3,
        # 4 and 5, so round robin must pass over w0 and w1 every time
        r = picks("rr", self.TRACE, depth=1)
        self.assertEqual(r.picks, [0, 1, 2, 2, 2, 2])
        # r5 arrives at 4.5 while r4 runs on w2 until 5: it waits
        self.assertAlmostEqual(r.latencies[5], 1.5)

    def test_cq_depth_holds_requests(self):
        # 1 worker, depth 1, release at completion: the second request
        # waits in the scheduler until the first completes
        r = picks("rr", ([0, 0.1], [1, 1]), depth=1, workers=1)
        self.assertEqual(r.picks, [0, 0])
        self.assertAlmostEqual(r.latencies[1], 1.9)


class Burst(unittest.TestCase):
    def test_burst_frees_slots_at_dequeue(self):
        trace = ([0, 0, 0, 0], [1, 1, 1, 1])
        # 1 worker, depth 1, the first dequeued at once (slot free), the
        # second fills the CQ, the third and fourth wait in the scheduler
        one = picks("rr", trace, depth=1, workers=1, release="start")
        self.assertEqual([round(x, 9) for x in one.latencies], [1, 2, 3, 4])
        self.assertEqual(one.picks, [0, 0, 0, 0])

    def test_burst_dequeues_together(self):
        # 2 workers, depth 2, shortest first, release at dequeue; six
        # requests at 0 (r1 10 us, the others 1 us): w0 runs r0, its CQ
        # holds r1, r4; w1 runs r2, its CQ holds r3, r5.  At 1 each core
        # dequeues: with burst 1 one QE (views 1, 1), with burst 2 both
        # (views 0, 0: w0's core holds r1 and r4 privately).  At 2 w1
        # dequeues r5 (burst 1: views 1, 0) or has it already (0, 0).  r6
        # at 2.5: burst 1 sends it to w1 (1.5 us); burst 2 to w0 by the
        # tie, behind the 10 us r1 and r4 (10.5 us).
        trace = ([0] * 6 + [2.5], [1, 10, 1, 1, 1, 1, 1])
        b1 = picks("sf", trace, workers=2, release="start", burst=1)
        b2 = picks("sf", trace, workers=2, release="start", burst=2)
        self.assertEqual(b1.picks, [0, 0, 1, 1, 0, 1, 1])
        self.assertEqual(b2.picks, [0, 0, 1, 1, 0, 1, 0])
        self.assertAlmostEqual(b1.latencies[6], 1.5)
        self.assertAlmostEqual(b2.latencies[6], 10.5)

    def test_burst_needs_release_at_start(self):
        with self.assertRaises(ValueError):
            picks("rr", ([0], [1]), burst=2)


class Flows(unittest.TestCase):
    def test_pinned_flow_goes_to_its_worker(self):
        # 2 workers, depth 2: r0 (flow 7) and r1 (flow 8, 20 us) take w0
        # and w1; r2 (flow 8) goes to w1, where flow 8 is inflight,
        # although shortest first alone would take w0 (1, 1: lowest);
        # r3 (flow 9) takes w0, the only CQ with room
        trace = ([0, 0.5, 1, 2], [5, 20, 1, 1], [7, 8, 8, 9])
        for arb in ("sf", "rr"):
            self.assertEqual(picks(arb, trace, workers=2).picks,
                             [0, 1, 1, 0], arb)

    def test_other_flows_pass_a_blocked_one(self):
        # 2 workers, depth 1: r1 (flow 7) waits for w0, where flow 7 is
        # inflight, while r2 (flow 8) arriving later takes the free w1
        trace = ([0, 1, 2], [10, 1, 1], [7, 7, 8])
        r = picks("rr", trace, depth=1, workers=2)
        self.assertEqual(r.where, [0, 0, 1])
        self.assertEqual([round(x, 9) for x in r.latencies], [10, 10, 1])

    def test_unpinned_when_inflight_completes(self):
        p = policies.DLB(2, "sf")
        p.reset(3, None, 10)
        p.dispatched(2, 7)
        p.dispatched(2, 7)
        self.assertEqual(p.select(7), None)     # w2 full, flow 7 waits
        p.released(2)
        self.assertEqual(p.select(7), 2)        # room on w2: still pinned
        p.finished(2, 7)
        p.finished(2, 7)
        self.assertNotIn(7, p.pin)
        self.assertEqual(p.select(7), 0)        # free: the shortest CQ

    def test_one_flow_uses_one_worker(self):
        r = engine.run(policies.DLB(4, "rr"), d.Exponential(1.0), 3.0,
                       engine.Config(workers=4, flows=1, release="start",
                                     credits=64), nreq=20_000, seed=3)
        self.assertAlmostEqual(r.throughput, 1.0, delta=0.05)
        self.assertEqual(sorted(u > 0 for u in r.util).count(True), 1)


class SamePath(unittest.TestCase):
    """Without flows dlb:K:sf is jbsq:K and dlb:K:rr is jbsq-rr:K, sample
    path for sample path."""

    def test_dlb_follows_jbsq(self):
        dist = d.bimodal(1.0, 5.0, 0.1)
        for rel, delay in (("complete", 0.35), ("start", 0.0),
                           ("start", 0.12)):
            cfg = engine.Config(workers=16, delay=delay, release=rel)
            for a, b in ((policies.JBSQ(2), policies.DLB(2, "sf")),
                         (policies.JBSQRoundRobin(4), policies.DLB(4, "rr"))):
                ra = engine.run(a, dist, 0.9 * 16 / dist.mean, cfg,
                                nreq=20_000, seed=4)
                rb = engine.run(b, dist, 0.9 * 16 / dist.mean, cfg,
                                nreq=20_000, seed=4)
                self.assertTrue(np.array_equal(ra.latencies, rb.latencies),
                                f"{a.name} {b.name} {rel} {delay}")

    def test_rules_differ_at_depth_64(self):
        """Depth 64 and a bimodal mix at 90 %: round robin queues behind
        long requests, shortest first does not."""
        dist = d.bimodal(1.0, 10.0, 0.1)
        cfg = engine.Config(workers=16, release="start")
        rr, sf = (engine.run(policies.parse(f"dlb:64:{a}"), dist,
                             0.9 * 16 / dist.mean, cfg, nreq=50_000,
                             seed=5).p99 for a in ("rr", "sf"))
        self.assertGreater(rr, 2 * sf)


if __name__ == "__main__":
    unittest.main()


class Priorities(unittest.TestCase):
    """The scheduler's classes (engine._Classes) and AccDirect Fig. 12's
    model: the exact order of picks, the anti-starvation bypass, the 4
    effective levels and queue priority before QE priority."""

    def test_exact_order(self):
        # class of each request: (queue priority bin, QE priority bin)
        cls = [(1, 0), (0, 3), (0, 1), (1, 0), (0, 1), (0, 0)]
        q = engine._Classes(cls, 0.0, np.random.default_rng(1))
        for r in range(6):
            q.append(r)
        self.assertEqual(len(q), 6)
        # lowest class first, FIFO inside one: (0,0) r5, (0,1) r2 r4,
        # (0,3) r1, (1,0) r0 r3
        self.assertEqual([q.popleft() for _ in range(6)], [5, 2, 4, 1, 0, 3])
        self.assertEqual(len(q), 0)

    def test_bypass(self):
        # two classes always waiting: a share bypass of the picks go to
        # the lower one (10,000 picks; 3 standard deviations)
        cls = [(0, 0), (0, 1)] * 10010
        q = engine._Classes(cls, 0.2, np.random.default_rng(7))
        for r in range(4):
            q.append(r)
        low, nxt = 0, 4
        for _ in range(10000):
            r = q.popleft()
            low += cls[r] == (0, 1)
            q.append(nxt if cls[nxt] == cls[r] else nxt + 1)
            nxt += 2
        self.assertLess(abs(low / 10000 - 0.2), 3 * (0.2 * 0.8 / 10000) ** 0.5)

    def run12(self, shift, queues=()):
        cfg = engine.Config(workers=8, release="start", priorities=8,
                            queue_prios=queues, prio_shift=shift,
                            bypass=0.0)
        r = engine.run(policies.parse("dlb:1:rr"), d.Fixed(0.1), 79.2,
                       cfg, nreq=60000, seed=3)
        return r, r.classes["qe_prio"], r.classes["queue_prio"]

    def test_four_levels(self):
        # prio_shift 1: 2k and 2k+1 share a class; the lowest class waits
        # longest, the classes in order
        r, qe, _ = self.run12(1)
        m = [r.latencies[qe == p].mean() for p in range(8)]
        for k in range(4):
            self.assertLess(abs(m[2 * k] - m[2 * k + 1]), 0.15 * m[2 * k])
        for k in range(3):
            self.assertLess(m[2 * k], m[2 * k + 2] * 1.02)
        self.assertGreater(m[6], 5 * m[0])

    def test_eight_levels(self):
        # the control: with 8 levels 7 waits much longer than 6
        r, qe, _ = self.run12(0)
        self.assertGreater(r.latencies[qe == 7].mean(),
                           3 * r.latencies[qe == 6].mean())

    def test_queue_priority_first(self):
        # 8 queues of priorities 0-7: the worst pair of the highest queue
        # class waits less than the best pair of the lowest
        r, qe, qp = self.run12(1, tuple(range(8)))
        worst_high = max(r.latencies[(qp >> 1 == 0) & (qe >> 1 == b)].mean()
                         for b in range(4))
        best_low = min(r.latencies[(qp >> 1 == 3) & (qe >> 1 == b)].mean()
                       for b in range(4))
        self.assertLess(worst_high, best_low)

    def test_refused_with_flows(self):
        cfg = engine.Config(workers=2, release="start", priorities=8,
                            flows=4)
        with self.assertRaises(ValueError):
            engine.run(policies.parse("dlb:1:rr"), ONE, 1.0, cfg, nreq=10)
        cfg = engine.Config(workers=2, priorities=8)
        with self.assertRaises(ValueError):
            engine.run(policies.parse("jsq"), ONE, 1.0, cfg, nreq=10)

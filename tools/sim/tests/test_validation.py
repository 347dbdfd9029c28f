# SPDX-License-Identifier: GPL-2.0
"""Validation of lbsim against closed forms, and sanity of its policies.

Tolerances.  A run is seeded, so each test is deterministic; the
tolerance is chosen so that it would also hold for (almost) any seed.
Latencies of consecutive requests are correlated, so the standard error
(SE) of an estimate is taken from 20 batch means (batches of 45,000 or
more requests, long against the relaxation time of the queues used).  A
test accepts when |estimate - theory| <= 4 SE (a normal deviate beyond
4 has probability 6e-5) *and* SE <= 2% of the theory (3% for p99), so
that a noisy run cannot pass by having a wide interval: the tests can
only pass when the simulator is within about 8% (12% for p99) of the
closed form, and then they are centred on it.  The negative tests check
that the same acceptance rejects a deliberately wrong model.
"""

import math
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from lbsim import distributions as d  # noqa: E402
from lbsim import engine, policies  # noqa: E402
from lbsim.metrics import batch_se  # noqa: E402

K_SE = 4.0
MAX_REL_SE = 0.02
MAX_REL_SE_P99 = 0.03
N = 1_000_000   # requests of the closed-form runs (about 1 s each)


def erlang_c(c, a):
    """Probability of waiting in M/M/c, offered load a = lambda/mu."""
    s = sum(a ** k / math.factorial(k) for k in range(c))
    t = a ** c / math.factorial(c) * c / (c - a)
    return t / (s + t)


def batch_quantile_se(lat, q, batches=20):
    v = [np.percentile(b, q) for b in np.array_split(lat, batches)]
    return float(np.percentile(lat, q)), float(np.std(v, ddof=1) /
                                               math.sqrt(batches))


class Check(unittest.TestCase):
    def agree(self, est, se, theory, rel_se=MAX_REL_SE, what=""):
        msg = (f"{what}: simulated {est:.4f} +- {se:.4f} (SE), "
               f"closed form {theory:.4f}")
        self.assertLessEqual(se, rel_se * theory, "too noisy: " + msg)
        self.assertLessEqual(abs(est - theory), K_SE * se, msg)
        return msg

    def disagree(self, est, se, theory, rel_se=MAX_REL_SE, what=""):
        msg = (f"{what}: simulated {est:.4f} +- {se:.4f} (SE), "
               f"closed form {theory:.4f}")
        self.assertLessEqual(se, rel_se * theory, "too noisy: " + msg)
        self.assertGreater(abs(est - theory), K_SE * se,
                           "a wrong model was accepted: " + msg)


class MM1(Check):
    """One worker, exponential service (mu = 1/us), Poisson arrivals:
    sojourn time T ~ Exp(mu - lambda), E[T] = 1/(mu - lambda),
    p99 = ln(100)/(mu - lambda)."""

    def run1(self, rho, mean_service=1.0, seed=1):
        return engine.run(policies.Random(), d.Exponential(mean_service),
                          rho, engine.Config(workers=1), nreq=N, seed=seed)

    def test_mean_rho_05(self):
        r = self.run1(0.5)
        self.agree(r.mean, batch_se(r), 1 / (1 - 0.5), what="M/M/1 E[T]")

    def test_mean_rho_08(self):
        r = self.run1(0.8, seed=2)
        self.agree(r.mean, batch_se(r), 1 / (1 - 0.8), what="M/M/1 E[T]")

    def test_p99_rho_07(self):
        r = self.run1(0.7, seed=3)
        p99, se = batch_quantile_se(r.latencies, 99)
        self.assertAlmostEqual(p99, r.p99)
        self.agree(p99, se, math.log(100) / (1 - 0.7), MAX_REL_SE_P99,
                   "M/M/1 p99")

    def test_utilisation(self):
        r = self.run1(0.7, seed=4)
        # utilisation = rho, by the SLLN; its SE is far below that of T
        self.assertAlmostEqual(r.util[0], 0.7, delta=0.01)

    def test_negative_wrong_service_rate(self):
        """The acceptance must reject a simulator whose service rate is
        10% off (mu = 1.1 while the closed form assumes mu = 1)."""
        r = self.run1(0.8, mean_service=1 / 1.1, seed=2)
        self.disagree(r.mean, batch_se(r), 1 / (1 - 0.8),
                      what="M/M/1 with mu=1.1 against mu=1")


class MG1(Check):
    """One worker, Turbo's bimodal service (10% 5x longer):
    Pollaczek-Khinchine, E[T] = E[S] + lambda E[S^2] / (2 (1 - rho))."""

    def test_pk_bimodal(self):
        dist = d.bimodal(1.0, 5.0, 0.10)
        rho = 0.7
        lam = rho / dist.mean
        r = engine.run(policies.Random(), dist, lam,
                       engine.Config(workers=1), nreq=N, seed=5)
        theory = dist.mean + lam * dist.second_moment / (2 * (1 - rho))
        self.agree(r.mean, batch_se(r), theory, what="M/G/1 P-K E[T]")


class MMc(Check):
    """c-FCFS without dispatch delay is M/M/c: E[T] = 1/mu + C(c, a) /
    (c mu - lambda), P(wait) = C(c, a) (Erlang C)."""

    def runc(self, c, rho, policy, seed, delay=0.0):
        return engine.run(policy, d.Exponential(1.0), rho * c,
                          engine.Config(workers=c, delay=delay),
                          nreq=N, seed=seed)

    def check(self, c, rho, policy, seed):
        r = self.runc(c, rho, policy, seed)
        a = rho * c
        cw = erlang_c(c, a)
        self.agree(r.mean, batch_se(r), 1 + cw / (c - a),
                   what=f"M/M/{c} E[T] rho={rho}")
        return r, cw

    def test_mm4_rho_08(self):
        self.check(4, 0.8, policies.CentralFCFS(), 6)

    def test_mm16_rho_09(self):
        self.check(16, 0.9, policies.CentralFCFS(), 7)

    def test_mm16_rho_09_wait_probability(self):
        c, rho = 16, 0.9
        r = engine.run(policies.CentralFCFS(), d.Exponential(1.0), rho * c,
                       engine.Config(workers=c), nreq=N, seed=7)
        a = rho * c
        waited = (r.waits > 1e-12).astype(float)
        b = [x.mean() for x in np.array_split(waited, 20)]
        se = float(np.std(b, ddof=1) / math.sqrt(20))
        self.agree(waited.mean(), se, erlang_c(c, a),
                   what="M/M/16 P(wait) (Erlang C)")

    def test_negative_dispatch_delay_is_not_mmc(self):
        """With a dispatch delay of 25% of E[S], c-FCFS is no longer
        M/M/c (each request costs a 2 x 0.25 us bubble): the acceptance
        must reject it."""
        c, rho = 16, 0.5
        r = self.runc(c, rho, policies.CentralFCFS(), 8, delay=0.25)
        a = rho * c
        self.disagree(r.mean, batch_se(r), 1 + erlang_c(c, a) / (c - a),
                      what="c-FCFS with delay against M/M/16")


class Policies(Check):
    """Consistency between the policies (16 workers)."""

    def test_jbsq1_equals_cfcfs(self):
        """JBSQ(1) without delay is c-FCFS (different implementation and
        tie-breaking: equal in distribution)."""
        dist = d.Exponential(1.0)
        runs = [engine.run(p, dist, 0.9 * 16, engine.Config(workers=16),
                           nreq=N, seed=9)
                for p in (policies.JBSQ(1), policies.CentralFCFS())]
        se = math.hypot(batch_se(runs[0]), batch_se(runs[1]))
        self.assertLessEqual(abs(runs[0].mean - runs[1].mean), K_SE * se)
        self.assertLessEqual(abs(runs[0].p99 - runs[1].p99),
                             0.03 * runs[1].p99)

    def test_jbsq_unbounded_is_jsq(self):
        dist = d.bimodal(1.0, 5.0, 0.1)
        a, b = (engine.run(p, dist, 0.9 * 16 / dist.mean,
                           engine.Config(workers=16, delay=0.35),
                           nreq=100_000, seed=10)
                for p in (policies.JBSQ(10 ** 9), policies.JBSQ(None)))
        self.assertEqual(a.p99, b.p99)

    def test_jbsq_rr_unbounded_is_rr(self):
        dist = d.bimodal(1.0, 5.0, 0.1)
        a, b = (engine.run(p, dist, 0.9 * 16 / dist.mean,
                           engine.Config(workers=16, delay=0.35),
                           nreq=100_000, seed=10)
                for p in (policies.JBSQRoundRobin(10 ** 9),
                          policies.RoundRobin()))
        self.assertEqual(a.p99, b.p99)

    def test_jbsq_orders_between_cfcfs_and_random(self):
        """Without delay, at 90% load of a bimodal mix: c-FCFS = JBSQ(1)
        <= JBSQ(2) <= JBSQ(16) <= JSQ < RR < random in p99 (2% slack
        for noise between neighbours)."""
        dist = d.bimodal(1.0, 5.0, 0.1)
        order = [policies.CentralFCFS(), policies.JBSQ(2), policies.JBSQ(16),
                 policies.JBSQ(None), policies.RoundRobin(),
                 policies.Random()]
        p99 = [engine.run(p, dist, 0.9 * 16 / dist.mean,
                          engine.Config(workers=16), nreq=300_000,
                          seed=11).p99 for p in order]
        for lo, hi, a, b in zip(order, order[1:], p99, p99[1:]):
            self.assertLessEqual(a, 1.02 * b, f"{lo.name} {a} > {hi.name} {b}")
        self.assertLess(p99[0] * 2, p99[-1], "random is not far worse")

    def test_random_utilisation_balanced_on_average(self):
        dist = d.Exponential(1.0)
        r = engine.run(policies.Random(), dist, 0.6 * 16,
                       engine.Config(workers=16), nreq=300_000, seed=12)
        self.assertAlmostEqual(sum(r.util) / 16, 0.6, delta=0.01)


class DispatchDelay(Check):
    """Closed forms of the dispatch delay with fixed service times."""

    def test_cfcfs_capacity_with_bubbles(self):
        """Overloaded c-FCFS with one-way delay L: each request occupies
        its worker for S + 2L (request travels L, the idle notification
        L back), so the throughput is c / (S + 2L) (Turbo Sec. II-C)."""
        c, s, L = 16, 1.0, 0.25
        r = engine.run(policies.CentralFCFS(), d.Fixed(s), 1.2 * c / s,
                       engine.Config(workers=c, delay=L), nreq=200_000,
                       seed=13)
        self.assertAlmostEqual(r.throughput, c / (s + 2 * L),
                               delta=0.01 * c / (s + 2 * L))

    def test_jbsq2_hides_delay(self):
        """JBSQ(2) keeps a second request in flight: as long as S >= 2L
        it loses no capacity (throughput tracks the offered 95%)."""
        c, s, L = 16, 1.0, 0.25
        r = engine.run(policies.JBSQ(2), d.Fixed(s), 0.95 * c / s,
                       engine.Config(workers=c, delay=L), nreq=200_000,
                       seed=14)
        self.assertAlmostEqual(r.throughput, 0.95 * c / s, delta=0.02 * c)

    def test_light_load_latency(self):
        """At 1% load nobody waits: latency = ingress + delay + S."""
        r = engine.run(policies.Random(), d.Fixed(2.0), 0.01,
                       engine.Config(workers=16, delay=0.5, ingress=1.5),
                       nreq=20_000, seed=15)
        self.assertAlmostEqual(r.p50, 4.0, places=9)

    def test_software_dispatcher_caps_throughput(self):
        """A software dispatcher taking 0.1 us per request serves at
        most 10 requests/us whatever the workers could do."""
        r = engine.run(policies.JBSQ(4), d.Fixed(1.0), 12.0,
                       engine.Config(workers=16, dispatcher_time=0.1),
                       nreq=200_000, seed=16)
        self.assertAlmostEqual(r.throughput, 10.0, delta=0.1)


if __name__ == "__main__":
    unittest.main()

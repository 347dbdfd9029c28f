# SPDX-License-Identifier: GPL-2.0
"""Service-time distributions.

Each distribution draws n service times (microseconds) from a numpy
Generator and knows its first two moments, which the closed forms of the
tests (M/M/1, M/M/c, M/G/1) and the load normalisation of the figures use.

Sources of the parameters:

* Turbo (Fig. 2, Sec. III; Sec. VII-A): fixed, exponential, and bimodal
  distributions where B% of the requests are A times longer than the
  short ones; Fig. 2 uses A=5, B=10% ("10% of queries are 5x longer");
  Sec. VII-A also uses A=10, B=40%, with 2 us short requests.
* Turbo Fig. 7 caption: Masstree's mean service time per query type,
  GET 0.975 us, PUT 1.35 us, SCAN18 4.7 us, SCAN46 9.18 us,
  SCAN105 17.7 us.  AccDirect (Sec. 4.3) reuses Turbo's Masstree; the
  mix of its Fig. 10(a) is 50% GET / 50% SCAN18 (the artifact's fig10
  scripts: ratio 5 = SCAN18, 50% long queries); the paper's text does
  not give the mixes.  Each query type is modelled here as exponential
  around its mean (the papers give means only), see Masstree.
* Shinjuku's 99.5% 0.5 us / 0.5% 500 us bimodal is not used by either
  paper; it is available as bimodal(0.5, 1000, 0.005) for comparison.
"""

import numpy as np


class Distribution:
    name = "?"

    def sample(self, rng, n):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def second_moment(self):
        raise NotImplementedError

    @property
    def scv(self):
        """Squared coefficient of variation, Var[S] / E[S]^2."""
        return self.second_moment / self.mean ** 2 - 1.0

    def __repr__(self):
        return self.name


class Fixed(Distribution):
    def __init__(self, value=1.0):
        self.value = float(value)
        self.name = f"fixed({self.value:g})"

    def sample(self, rng, n):
        return np.full(n, self.value)

    @property
    def mean(self):
        return self.value

    @property
    def second_moment(self):
        return self.value ** 2


class Exponential(Distribution):
    def __init__(self, mean=1.0):
        self._mean = float(mean)
        self.name = f"exp({self._mean:g})"

    def sample(self, rng, n):
        return rng.exponential(self._mean, n)

    @property
    def mean(self):
        return self._mean

    @property
    def second_moment(self):
        return 2.0 * self._mean ** 2


class Discrete(Distribution):
    """A mix of fixed values: value[i] with probability prob[i]."""

    def __init__(self, values, probs, name=None):
        self.values = np.asarray(values, dtype=float)
        self.probs = np.asarray(probs, dtype=float)
        if abs(self.probs.sum() - 1.0) > 1e-9:
            raise ValueError("probabilities must sum to 1")
        self.name = name or "discrete(" + ",".join(
            f"{v:g}@{p:g}" for v, p in zip(self.values, self.probs)) + ")"

    def sample(self, rng, n):
        idx = rng.choice(len(self.values), size=n, p=self.probs)
        return self.values[idx]

    @property
    def mean(self):
        return float(np.dot(self.values, self.probs))

    @property
    def second_moment(self):
        return float(np.dot(self.values ** 2, self.probs))


def bimodal(short=1.0, ratio=5.0, frac_long=0.10):
    """Turbo's bimodal: frac_long of the requests take ratio x short."""
    return Discrete([short, short * ratio], [1.0 - frac_long, frac_long],
                    name=f"bimodal({ratio:g}x-{frac_long * 100:g}%)")


class Masstree(Distribution):
    """A Masstree-like query mix: query type i with probability prob[i],
    its service time exponential around the type's mean (Turbo Fig. 7).
    exponential=False makes each type fixed at its mean instead."""

    MEANS = {"GET": 0.975, "PUT": 1.35, "SCAN18": 4.7, "SCAN46": 9.18,
             "SCAN105": 17.7}

    def __init__(self, mix, exponential=True):
        self.types = list(mix)
        self.probs = np.array([mix[t] for t in self.types], dtype=float)
        if abs(self.probs.sum() - 1.0) > 1e-9:
            raise ValueError("mix must sum to 1")
        self.means = np.array([self.MEANS[t] for t in self.types])
        self.exponential = exponential
        self.name = "masstree(" + ",".join(
            f"{t}:{p * 100:g}%" for t, p in zip(self.types, self.probs)) + ")"

    def sample(self, rng, n):
        idx = rng.choice(len(self.types), size=n, p=self.probs)
        m = self.means[idx]
        return rng.exponential(1.0, n) * m if self.exponential else m

    @property
    def mean(self):
        return float(np.dot(self.means, self.probs))

    @property
    def second_moment(self):
        k = 2.0 if self.exponential else 1.0
        return float(np.dot(k * self.means ** 2, self.probs))


def parse(spec):
    """Distribution from a command-line spec:
    fixed:V  exp:MEAN  bimodal:SHORT:RATIO:FRAC  masstree:TYPE=P,TYPE=P
    """
    kind, _, rest = spec.partition(":")
    args = rest.split(":") if rest else []
    if kind == "fixed":
        return Fixed(*map(float, args))
    if kind == "exp":
        return Exponential(*map(float, args))
    if kind == "bimodal":
        return bimodal(*map(float, args))
    if kind == "masstree":
        mix = {}
        for item in (rest or "GET=0.5,SCAN18=0.5").split(","):
            t, _, p = item.partition("=")
            mix[t.upper()] = float(p)
        return Masstree(mix)
    raise ValueError(f"unknown distribution {spec!r}")

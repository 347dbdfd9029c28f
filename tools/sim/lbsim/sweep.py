# SPDX-License-Identifier: GPL-2.0
"""Load sweeps, CSV output and plots (PNG and SVG)."""

import csv
import os

from . import engine, policies
from .metrics import peak_under_slo


class Shifted:
    """A distribution plus a constant per-request cost on the worker (a
    software overhead that adds to every service time)."""

    def __init__(self, dist, extra):
        self.dist, self.extra = dist, float(extra)
        self.name = f"{dist.name}+{self.extra:g}"

    def sample(self, rng, n):
        return self.dist.sample(rng, n) + self.extra

    @property
    def mean(self):
        return self.dist.mean + self.extra

    @property
    def second_moment(self):
        m = self.dist.mean
        return self.dist.second_moment + 2 * m * self.extra + self.extra ** 2


def sweep(policy_spec, dist, cfg, rates, nreq=200000, seed=1, label=None):
    """Run one policy over a list of arrival rates (per us); the same seed
    at every rate and for every policy (common random numbers)."""
    rows = []
    for j, rate in enumerate(rates):
        r = engine.run(policies.parse(policy_spec), dist, rate, cfg,
                       nreq=nreq, seed=seed + j)
        row = {"curve": label or policy_spec, "policy": policy_spec,
               "rate": rate}
        row.update(r.row())
        rows.append(row)
    return rows


def write_csv(path, rows):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    keys = list(rows[0])
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, lineterminator="\n")
        w.writeheader()
        for row in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v)
                        for k, v in row.items()})


def curves(rows):
    out = {}
    for row in rows:
        out.setdefault(row["curve"], []).append(row)
    return out


def peaks(rows, x, slo):
    """{curve: the highest x with p99 <= slo}."""
    return {c: peak_under_slo([r[x] for r in rs], [r["p99"] for r in rs], slo)
            for c, rs in curves(rows).items()}


def plot(path_noext, panels, xlabel, ylabel, ylim, hlines=(), title=None):
    """panels: list of (title, rows, x_key, y_fn, styles); writes
    path_noext.png and .svg."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "lbsim"   # reproducible SVG ids
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.8),
                             squeeze=False)
    for ax, (ptitle, rows, xkey, yfn, styles) in zip(axes[0], panels):
        for name, rs in curves(rows).items():
            st = styles.get(name, {})
            ax.plot([r[xkey] for r in rs], [yfn(r) for r in rs],
                    label=st.get("label", name), color=st.get("color"),
                    linestyle=st.get("ls", "-"), marker=st.get("marker", "o"),
                    markersize=3)
        for y, lab in hlines:
            ax.axhline(y, color="grey", linewidth=0.8, linestyle=":")
            ax.text(ax.get_xlim()[0], y, " " + lab, va="bottom", fontsize=7,
                    color="grey")
        ax.set_ylim(*ylim)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(ptitle, fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path_noext) or ".", exist_ok=True)
    fig.savefig(path_noext + ".png", dpi=110)
    fig.savefig(path_noext + ".svg", metadata={"Date": None})
    plt.close(fig)

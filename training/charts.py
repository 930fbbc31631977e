"""Charts of training runs and tournaments, drawn with matplotlib (Agg, no display needed) as PNG files.

* :func:`plot_curves` - a run's learning curve from its ``log.csv``: win rates against samples (evaluation
  points with 95% Wilson intervals, training-game win rates as thin lines), the policy's entropy below, wall
  time on the top axis.
* :func:`plot_win_matrix` - a tournament's win shares as a heat map (:func:`training.arena.tournament.save_result`).

matplotlib comes with the ``train`` extra and is imported only when a chart is drawn.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from training.stats import wilson_interval


@dataclass
class EvalSeries:
    """One baseline's evaluation points of a run: samples, win rates and their 95% intervals (NaN where the
    number of games is unknown)."""

    steps: np.ndarray
    rates: np.ndarray
    games: np.ndarray
    low: np.ndarray
    high: np.ndarray


def read_log(csv_path: str | Path) -> list[dict[str, str]]:
    """The rows of a run's ``log.csv``."""
    with open(csv_path, newline="") as f:
        return list(csv.DictReader(f))


def _number(text: str | None) -> float:
    try:
        value = float(text) if text not in (None, "") else math.nan
    except ValueError:
        return math.nan
    return value


def _sidecar_eval_games(csv_path: Path) -> int | None:
    """``eval_games`` from the run's ``policy.json`` next to ``log.csv`` (logs written before the CSV had an
    ``eval_<kind>_games`` column)."""
    try:
        return int(json.loads((csv_path.parent / "policy.json").read_text())["config"]["eval_games"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def evaluation_series(rows: list[dict[str, str]], eval_games: int | None = None) -> dict[str, EvalSeries]:
    """Per baseline (``eval_<kind>_win_rate`` columns), the evaluated rows. The games per evaluation come from
    the row's ``eval_<kind>_games``, else ``eval_games``; unknown: no interval."""
    kinds = [
        c[len("eval_") : -len("_win_rate")]
        for c in (rows[0] if rows else {})
        if c.startswith("eval_") and c.endswith("_win_rate")
    ]
    series = {}
    for kind in kinds:
        steps, rates, games = [], [], []
        for row in rows:
            rate = _number(row.get(f"eval_{kind}_win_rate"))
            if math.isnan(rate):
                continue
            n = _number(row.get(f"eval_{kind}_games"))
            steps.append(_number(row["global_step"]))
            rates.append(rate)
            games.append(n if not math.isnan(n) else (eval_games or math.nan))
        if not steps:
            continue
        bounds = [
            wilson_interval(r * n, int(n)) if n == n and n > 0 else (math.nan, math.nan) for r, n in zip(rates, games)
        ]
        series[kind] = EvalSeries(
            np.array(steps),
            np.array(rates),
            np.array(games, dtype=float),
            np.array([b[0] for b in bounds]),
            np.array([b[1] for b in bounds]),
        )
    return series


def _column(rows: list[dict[str, str]], name: str) -> tuple[np.ndarray, np.ndarray]:
    """(samples, values) of the rows where column ``name`` holds a finite number."""
    pairs = [(_number(r["global_step"]), _number(r.get(name))) for r in rows]
    pairs = [(s, v) for s, v in pairs if math.isfinite(v)]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def _figure(width: float, height: float, rows: int = 1, **kwargs: Any) -> tuple[Any, Any]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, 1, squeeze=False, **kwargs)[:, 0]
    return fig, axes


COLOURS = {"random": "tab:blue", "greedy": "tab:red", "snapshot": "tab:green", "search": "tab:purple"}


def plot_curves(
    csv_path: str | Path,
    png_path: str | Path,
    title: str | None = None,
    eval_games: int | None = None,
    x_label: str = "samples (learner decisions trained on)",
) -> Path | None:
    """Draw a run's learning curve from its ``log.csv`` into ``png_path``; None for an empty log.

    Top: the greedy policy's win rate against each baseline at every evaluation, with its 95% Wilson interval
    (games per evaluation from the CSV's ``eval_<kind>_games``, else ``eval_games``, else the run's
    ``policy.json``), and the learner's win rate over its last 200 training games per opponent kind (thin
    lines; shared first places count half). Bottom: the policy's entropy over legal actions. The x axis counts
    samples (learner decisions trained on); the top axis shows the wall time of the run's rollouts and updates
    (``time_s``, without evaluations) where it is logged.
    ``title``: the run's name (default: the run directory's name); ``x_label``: what ``global_step`` counts.
    """
    from matplotlib.ticker import EngFormatter

    csv_path = Path(csv_path)
    rows = read_log(csv_path)
    if not rows:
        return None
    if eval_games is None and not any(c.endswith("_games") for c in rows[0]):
        eval_games = _sidecar_eval_games(csv_path)
    fig, (wins, entropy) = _figure(10, 7, rows=2, sharex=True, gridspec_kw={"height_ratios": [3, 1.4]})
    fig.suptitle(title or csv_path.parent.name)

    series = evaluation_series(rows, eval_games)
    span = max(float(_number(rows[-1]["global_step"])), 1.0)
    for n, (kind, s) in enumerate(series.items()):
        colour = COLOURS.get(kind)
        dodge = (n - (len(series) - 1) / 2) * 0.004 * span  # side by side where evaluations coincide
        known = ~np.isnan(s.low)
        label = f"vs {kind} (evaluation"
        if known.any():
            games = sorted({int(g) for g in s.games[known]})
            label += f", {'/'.join(map(str, games))} games, 95% interval)"
        else:
            label += ", games unknown)"
        yerr = np.vstack([s.rates - s.low, s.high - s.rates])
        wins.errorbar(
            s.steps + dodge,
            s.rates,
            yerr=np.where(np.isnan(yerr), 0.0, yerr),
            color=colour,
            marker="o",
            markersize=3.5,
            linewidth=1.6,
            capsize=2.5,
            label=label,
        )
    for column in [c for c in rows[0] if c.startswith("train_win_")]:
        kind = column[len("train_win_") :]
        steps, values = _column(rows, column)
        if len(steps):
            wins.plot(
                steps,
                values,
                color=COLOURS.get(kind),
                linewidth=0.8,
                alpha=0.55,
                marker="." if len(steps) == 1 else None,
                label=f"vs {kind} (training games, last 200)",
            )
    wins.set_ylim(-0.02, 1.02)
    wins.set_ylabel("win rate (shared first = half)")
    wins.grid(True, alpha=0.3)
    if wins.get_legend_handles_labels()[0]:
        wins.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)

    steps, values = _column(rows, "entropy")
    entropy.plot(steps, values, color="black", linewidth=1.0, label="policy entropy")
    entropy.set_ylabel("entropy (nats)")
    entropy.set_xlabel(x_label)
    entropy.grid(True, alpha=0.3)
    entropy.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    entropy.xaxis.set_major_formatter(EngFormatter())
    entropy.set_xlim(left=0)

    time_steps, seconds = _column(rows, "time_s")
    if len(time_steps) and time_steps[0] > 0:  # the run starts at 0 samples, 0 s
        time_steps, seconds = np.concatenate([[0.0], time_steps]), np.concatenate([[0.0], seconds])
    if len(time_steps) > 1 and np.all(np.diff(time_steps) > 0) and np.all(np.diff(seconds) >= 0):
        # wall time as a function of samples (piecewise linear through the logged updates, extrapolated)
        slope = (seconds[-1] - seconds[0]) / (time_steps[-1] - time_steps[0])
        scale = 60.0 if seconds[-1] < 3 * 3600 else 3600.0
        unit = "min" if scale == 60.0 else "h"

        def to_time(x: np.ndarray) -> np.ndarray:
            x = np.asarray(x, dtype=float)
            inside = np.interp(x, time_steps, seconds)
            outside = seconds[-1] + (x - time_steps[-1]) * slope
            before = seconds[0] + (x - time_steps[0]) * slope
            return np.where(x > time_steps[-1], outside, np.where(x < time_steps[0], before, inside)) / scale

        def to_steps(t: np.ndarray) -> np.ndarray:
            t = np.asarray(t, dtype=float) * scale
            inside = np.interp(t, seconds, time_steps)
            outside = time_steps[-1] + (t - seconds[-1]) / slope if slope > 0 else np.full_like(t, time_steps[-1])
            before = time_steps[0] + (t - seconds[0]) / slope if slope > 0 else np.full_like(t, time_steps[0])
            return np.where(t > seconds[-1], outside, np.where(t < seconds[0], before, inside))

        top = wins.secondary_xaxis("top", functions=(to_time, to_steps))
        top.set_xlabel(f"wall time of rollouts and updates ({unit}; evaluations not counted)")
    png_path = Path(png_path)
    fig.savefig(png_path)
    return png_path


def _short(name: str, width: int = 22) -> str:
    """A policy spec short enough for a tick label (a checkpoint path keeps its end)."""
    return name if len(name) <= width else "..." + name[-(width - 3) :]


def plot_win_matrix(
    names: Sequence[str],
    share: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    parity: float,
    title: str,
    png_path: str | Path,
) -> Path:
    """A heat map of ``share[i, j]``: the win share of policy ``i`` in one seat against policy ``j`` in every
    other seat (NaN: not played, e.g. the diagonal), each cell labelled with its 95% interval
    ``[low, high]``; the colour scale is centred on ``parity`` (the share of an equal player, 1/players)."""
    from matplotlib import colormaps
    from matplotlib.colors import TwoSlopeNorm

    k = len(names)
    size = 1.25 * k
    fig, (ax,) = _figure(max(6.0, size + 3.5), max(4.5, size + 2.0))
    masked = np.ma.masked_invalid(share)
    cmap = colormaps["RdYlGn"].with_extremes(bad="#e6e6e6")
    image = ax.imshow(masked, cmap=cmap, norm=TwoSlopeNorm(vmin=0.0, vcenter=parity, vmax=1.0))
    for i in range(k):
        for j in range(k):
            if not np.isnan(share[i, j]):
                ax.text(
                    j,
                    i,
                    f"{share[i, j]:.2f}\n[{low[i, j]:.2f}, {high[i, j]:.2f}]",
                    ha="center",
                    va="center",
                    fontsize=8,
                )
    ax.set_xticks(range(k), [_short(n) for n in names], rotation=30, ha="right")
    ax.set_yticks(range(k), [_short(n) for n in names])
    ax.set_xlabel("policy in every other seat (column)")
    ax.set_ylabel("policy in one seat (row)")
    ax.set_title(title)
    bar = fig.colorbar(image, ax=ax, shrink=0.85)
    bar.set_label(f"win share of the row policy, 95% interval (parity {parity:.2f})")
    png_path = Path(png_path)
    fig.savefig(png_path)
    return png_path

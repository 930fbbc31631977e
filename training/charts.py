"""Charts of training runs and tournaments (PNG files).

* :func:`plot_curves` - a run's learning curve from its ``log.csv``.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path


def plot_curves(csv_path: str | Path, png_path: str | Path) -> None:
    """Draw the run's win rates (evaluation: solid; training games: thin) and entropy against samples (PNG)."""
    from PIL import Image, ImageDraw

    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    steps = [float(r["global_step"]) for r in rows]
    x_max = max(steps) or 1.0
    width, height, pad = 900, 560, 60
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    panels = [("win rate", 20, 330, 0.0, 1.0), ("entropy", 370, 530, None, None)]
    colors = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189), (255, 127, 14), (140, 86, 75)]
    win_cols = [c for c in rows[0] if c.endswith("_win_rate") or c.startswith("train_win_")]
    for title, top, bottom, lo, hi in panels:
        cols = win_cols if title == "win rate" else ["entropy"]
        series = {}
        for c in cols:
            pts = [(s, float(r[c])) for s, r in zip(steps, rows) if r.get(c) not in ("", None)
                   and math.isfinite(float(r[c]))]
            if pts:
                series[c] = pts
        if not series:
            continue
        ys = [y for pts in series.values() for _, y in pts]
        y_lo = min(ys) if lo is None else lo
        y_hi = max(ys) if hi is None else hi
        if y_hi - y_lo < 1e-9:
            y_hi = y_lo + 1.0
        draw.rectangle([pad, top, width - 20, bottom], outline="black")
        draw.text((pad + 5, top + 3), title, fill="black")
        draw.text((5, top), f"{y_hi:.2f}", fill="black")
        draw.text((5, bottom - 10), f"{y_lo:.2f}", fill="black")

        def xy(s: float, y: float) -> tuple[float, float]:
            return (pad + (width - 20 - pad) * s / x_max, bottom - (bottom - top) * (y - y_lo) / (y_hi - y_lo))

        for n, (c, pts) in enumerate(series.items()):
            color = colors[n % len(colors)]
            thin = c.startswith("train_")
            if len(pts) > 1:
                draw.line([xy(*p) for p in pts], fill=color, width=1 if thin else 3)
            else:
                x, y = xy(*pts[0])
                draw.ellipse([x - 3, y - 3, x + 3, y + 3], fill=color)
            draw.text((width - 260, top + 5 + 13 * n), c, fill=color)
    draw.text((pad, height - 22), f"samples (0 .. {int(x_max)})", fill="black")
    image.save(png_path)

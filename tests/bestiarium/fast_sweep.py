"""A longer differential sweep of the batched engine against ``rules.py`` than the suite runs.

``python tests/bestiarium/fast_sweep.py --games 2000`` plays that many random games per option set (all nine)
with the suite's checks every ply (``test_bestiarium_fast.play_differential``) and prints what they went through.
"""

from __future__ import annotations

import argparse
import time

from test_bestiarium_fast import OPTION_SETS, engine, play_differential


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2000, help="games per option set")
    parser.add_argument("--chunk", type=int, default=100, help="games played side by side")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for size, eq in OPTION_SETS:
        fg = engine(size, eq)
        totals: dict[str, int] = {}
        start = time.perf_counter()
        for k in range(0, args.games, args.chunk):
            seen = play_differential(fg, min(args.chunk, args.games - k), seed=args.seed * 1_000_003 + 7919 * k + size)
            for key, v in seen.items():
                totals[key] = max(totals.get(key, 0), v) if key == "max_size" else totals.get(key, 0) + v
        print(
            f"board_size={size} shape_equivalence={eq}: {args.games} games identical, {totals}, "
            f"{time.perf_counter() - start:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()

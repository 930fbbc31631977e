"""The same measurement in two checkouts, alternated, so that a machine that drifts from minute to minute slows both
alike: what a refactor's "same speed" claim needs (docs/speed.md).

``python -m lab.paired_runs --before /path/to/old/checkout --after . --rounds 2 -- python -m envs.benchmark all
--seconds 3``: runs the command (after ``--``) in ``--before``, then in ``--after``, ``--rounds`` times (a warm-up
run of each first, untimed and unprinted, so numba's compile and cache loads stay out), each with its checkout as
the working directory and first on ``PYTHONPATH``, and prints every run's output under a header naming the
checkout, the round and the clock time. It parses nothing: each benchmark prints its own numbers.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path


def run(command: list[str], checkout: Path) -> str:
    """``command``'s output, run in ``checkout`` with that checkout's packages first on the import path."""
    env = {**os.environ, "PYTHONPATH": f"{checkout}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return f"exit {done.returncode}\n{done.stdout}{done.stderr[-3000:]}"
    return done.stdout


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the old checkout")
    parser.add_argument("--after", type=Path, default=Path("."), help="the new checkout (default: here)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for tree in trees.values():
        run(command, tree)  # warm-up: compile or load numba's caches
    for k in range(args.rounds):
        for name, tree in trees.items():
            started = time.strftime("%H:%M:%S")
            print(f"===== {name} ({tree}), round {k + 1}, {started}", flush=True)
            print(run(command, tree), flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()

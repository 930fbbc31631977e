"""``barnyard declare CHECKPOINT PLAY``: record in a checkpoint's sidecar how it is played (spec ``agent:PATH``).

``PLAY`` is a spec kind without the path (:data:`training.checkpoint.PLAY_KINDS`): ``network`` (the argmax of
its network), ``sample`` or ``sample:T`` (sampled at temperature T), ``sym``, ``guided:K:N`` or ``mcts:N``.
``barnyard play``, the web page, ``barnyard evaluate`` and ``barnyard rate`` play ``agent:PATH`` that way; a bare
``PATH`` stays the network alone everywhere. Without ``PLAY`` it prints what the checkpoint declares.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from training.arena.players import make_policy
from training.checkpoint import (
    CheckpointError,
    checked_play,
    declared_play,
    declared_spec,
    play_spec,
    read_sidecar,
    write_sidecar,
)


def declare_play(path: str | Path, play: str) -> None:
    """Write ``play`` (:data:`training.checkpoint.PLAY_KINDS`) into a checkpoint's sidecar: how ``agent:PATH``
    plays it. The policy is built once first, so a bad kind, temperature or budget raises and the sidecar is left
    as it was."""
    meta = read_sidecar(path)
    make_policy(play_spec(path, checked_play(play, path)), meta["game"], meta.get("options", {}), seed=0)
    meta["play"] = play
    write_sidecar(path, meta)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="barnyard declare", description=__doc__)
    parser.add_argument("checkpoint", help="a checkpoint (.pt or its sidecar)")
    parser.add_argument("play", nargs="?", help="how agent:PATH plays it, e.g. sample, sample:0.5, guided:3:80")
    args = parser.parse_args(argv)
    try:
        if args.play is not None:
            declare_play(args.checkpoint, args.play)
        play, spec = declared_play(args.checkpoint), declared_spec(args.checkpoint)
        print(f"{args.checkpoint}: plays as {play} (agent:PATH = {spec})")
    except (CheckpointError, ValueError) as err:
        raise SystemExit(f"error: {err}") from None


if __name__ == "__main__":
    main()

"""The arguments of policy specs, parsed and capped in one place, whatever their source: a spec typed on the command
line or chosen on the web page, or a checkpoint's sidecar (its declared ``play``, its training run's search
budget). Every count is checked as text against its cap before it is converted or anything is allocated, and an
error names the cap (:class:`~envs.common.policies.PolicySpecError`). No torch here: the web app checks specs and
its catalogue's declared plays with it.
"""

from __future__ import annotations

import math
from typing import Any

from envs.common.policies import MAX_BUDGET, PolicySpecError, parse_count

MAX_SIMULATIONS = MAX_BUDGET
"""Largest ``search:N`` and ``guided:PATH:K:N`` budget N (the compiled searches: about a second a move on a slow
core at the cap)."""
MAX_NETWORK_SIMULATIONS = 1_000
"""Largest ``mcts:PATH:N`` budget, and the most ``mcts:PATH`` takes from its training run (one network call and
one tree node a simulation)."""
MAX_TOP_K = 1_000
"""Largest ``guided:PATH:K`` K (moves searched at the root)."""
PLAY_KINDS = ("network", "sample", "sym", "guided", "mcts")
"""How a checkpoint can declare it is played (its sidecar's ``"play"``): ``network`` (the argmax of its network:
the default), ``sample[:T]``, ``sym``, ``guided[:K[:N]]`` or ``mcts[:N]``, the spec kinds of
:func:`training.arena.players.make_policy` without the path."""
MAX_PLAY = 64
"""Longest declared ``play`` (characters)."""

__all__ = [
    "MAX_NETWORK_SIMULATIONS",
    "MAX_PLAY",
    "MAX_SIMULATIONS",
    "MAX_TOP_K",
    "PLAY_KINDS",
    "PolicySpecError",
    "check_play",
    "declared_simulations",
    "parse_guided_spec",
    "parse_mcts_spec",
    "parse_sample_spec",
    "parse_temperature",
]


def parse_sample_spec(arg: str) -> tuple[str, str]:
    """A ``sample:`` spec's argument as ``(checkpoint, temperature text)``, the text empty where none is given
    (``PATH`` or ``PATH:T``; a last part ending in ``.pt`` / ``.json`` is the path's)."""
    head, _, tail = arg.rpartition(":")
    if head and not tail.endswith((".pt", ".json")):
        return head, tail
    return arg, ""


def parse_temperature(text: str, what: str = "sample:PATH:T") -> float:
    """A sampling temperature: a number above 0 and finite (:class:`PolicySpecError` otherwise)."""
    try:
        temperature = float(text)
    except ValueError:
        raise PolicySpecError(f"{what}: the temperature {text[:20]!r} is not a number") from None
    if not (temperature > 0.0 and math.isfinite(temperature)):
        raise PolicySpecError(f"{what}: the temperature must be above 0 and finite")
    return temperature


def parse_mcts_spec(arg: str) -> tuple[str, int | None]:
    """An ``mcts:`` spec's argument (``PATH`` or ``PATH:N``) as ``(PATH, N or None)``, N from 1 to
    :data:`MAX_NETWORK_SIMULATIONS`; a last part that is not digits is the path's."""
    path, _, count = arg.rpartition(":")
    if not (path and count.isdigit()):
        return arg, None
    return path, parse_count(count, "mcts:PATH:N", MAX_NETWORK_SIMULATIONS)


def parse_guided_spec(arg: str) -> tuple[str, int | None, int | None]:
    """A ``guided:`` spec's argument (``PATH``, ``PATH:K`` or ``PATH:K:N``) as ``(PATH, K or None, N or None)``,
    K from 1 to :data:`MAX_TOP_K`, N from 1 to :data:`MAX_SIMULATIONS`; trailing parts that are not digits are the
    path's."""
    parts = arg.split(":")
    numbers: list[str] = []
    while len(parts) > 1 and parts[-1].isdigit() and len(numbers) < 2:
        numbers.insert(0, parts.pop())
    top_k = parse_count(numbers[0], "guided:PATH:K (K, moves searched)", MAX_TOP_K) if numbers else None
    budget = parse_count(numbers[1], "guided:PATH:K:N (N, simulations)", MAX_SIMULATIONS) if numbers[1:] else None
    return ":".join(parts), top_k, budget


def check_play(play: Any) -> str:
    """``play`` if it is a :data:`PLAY_KINDS` entry whose arguments parse as that spec's would, each count within
    its cap (``guided:24:20``; not ``guided:999999999:999999999``); :class:`PolicySpecError` otherwise."""
    kinds = ", ".join(PLAY_KINDS)
    if not isinstance(play, str) or len(play) > MAX_PLAY:
        raise PolicySpecError(f"'play' must be one of {kinds} with its arguments, at most {MAX_PLAY} characters")
    kind, colon, args = play.partition(":")
    if kind not in PLAY_KINDS:
        raise PolicySpecError(f"'play' must be one of {kinds} with its arguments, not {play[:20]!r}")
    arg = "PATH" + (f":{args}" if colon else "")  # parsed as the spec agent:PATH turns it into
    try:
        if kind in ("network", "sym"):
            path = "PATH" if not colon else ""
        elif kind == "sample":
            path, tail = parse_sample_spec(arg)
            if tail or colon:
                parse_temperature(tail, "sample:T")
        elif kind == "mcts":
            path = parse_mcts_spec(arg)[0]
        else:
            path = parse_guided_spec(arg)[0]
    except PolicySpecError as err:
        raise PolicySpecError(f"'play' {play[:30]!r}: {err}") from None
    if path != "PATH":
        raise PolicySpecError(f"'play' {play[:20]!r}: {kind} does not take the arguments {args[:20]!r}")
    return play


def declared_simulations(meta: dict[str, Any], simulations: int | None = None) -> int:
    """The simulations ``mcts:PATH[:N]`` searches with for the checkpoint of sidecar ``meta``: ``simulations`` (N)
    where given, else its training run's (an AlphaZero run's ``config.simulations``; 16 for a PPO checkpoint),
    from 1 to :data:`MAX_NETWORK_SIMULATIONS` whatever the source (:class:`PolicySpecError` naming the cap)."""

    def within(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_NETWORK_SIMULATIONS

    if simulations is not None:
        if not within(simulations):
            raise PolicySpecError(f"mcts:PATH:N takes a whole number from 1 to {MAX_NETWORK_SIMULATIONS:,}")
        return simulations
    config = meta.get("config")
    trained = config.get("simulations", 16) if meta.get("algo") == "alphazero" and isinstance(config, dict) else 16
    if not within(trained):
        raise PolicySpecError(
            f"its sidecar's training run searched {str(trained)[:20]} simulations a move; mcts:PATH takes at most "
            f"{MAX_NETWORK_SIMULATIONS:,} (give mcts:PATH:N, N from 1 to {MAX_NETWORK_SIMULATIONS:,})"
        )
    return int(trained)

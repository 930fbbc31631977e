"""Speed of random legal play, one process: ``python -m envs.benchmark GAME [--seconds S] [option=value ...]``.

Reports AEC steps/s through ``env()`` (the standard wrappers, observation and mask built every step, as a
training loop would), through ``raw_env()``, and raw engine steps/s (``legal_actions`` + ``apply``, no
observation). A step is one decision; the dead steps at the end of an AEC game are not counted.

``--batched [--num-envs B]`` adds the batched engine (``envs.<game>_v0.vector_env``): B games per ``step``, the
random legal actions drawn from the masks inside the timed loop, observations and masks built every step.
``--connect-four`` adds PettingZoo's ``connect_four_v3.env()`` under the same loop as the yardstick (measured in
the same run, since these machines drift from hour to hour; needs pygame, which the `test` extra installs).

``python -m envs.benchmark all --seconds S`` measures every game at its default options: connect four, the
game's ``env()`` and its batched engine one after the other, and prints one markdown table (the README's).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import envs
from envs.common.game import ConfigError
from envs.common.options import parse_options


def bench_aec(make_env, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Decisions per second of random legal play through an AEC env; returns (steps/s, games)."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + games)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"].view(bool))
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start), games


def bench_engine(game, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Engine steps per second of random legal play (legal_actions + apply); returns (steps/s, games)."""
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.initial_state(rng)
        while not game.is_terminal(state) and not game.is_truncated(state):
            legal = game.legal_actions(state)
            game.apply(state, legal[rng.integers(len(legal))], rng)
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start), games


def bench_batched(make_vector, num_envs: int, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Decisions per second of random legal play through a batched engine; returns (steps/s, games finished).

    The first ``step`` (numba's compile or cache load) is outside the timed loop."""
    from envs.common.fastrng import seed_states
    from envs.common.vector import sample_legal

    venv = make_vector(num_envs)
    venv.copy = False  # a training loop reads each observation before the next step: no allocation per step
    _, info = venv.reset(seed=seed)
    rng = seed_states(seed + 1, num_envs)
    actions = np.empty(num_envs, dtype=np.int64)
    sample_legal(info["action_mask"], rng, actions)
    _, _, _, _, info = venv.step(actions)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        sample_legal(info["action_mask"], rng, actions)
        _, _, terminated, truncated, info = venv.step(actions)
        steps += num_envs
        games += int(terminated.sum() + truncated.sum())
    return steps / (time.perf_counter() - start), games


def bench_connect_four(seconds: float) -> float | None:
    """PettingZoo's connect four ``env()`` under :func:`bench_aec` (None when it cannot be imported)."""
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:
        return None
    return bench_aec(connect_four_v3.env, seconds)[0]


def table(seconds: float, num_envs: int) -> str:
    """Every game at its default options beside PettingZoo's connect four, measured just before it (markdown)."""
    rows = [
        f"| game | `env()` steps/s | connect four `env()`, same run | ratio | batched steps/s (B = {num_envs}) |",
        "|---|---|---|---|---|",
    ]
    for game in envs.GAMES:
        mod = envs.module(game)
        c4 = bench_connect_four(seconds)
        if c4 is None:
            raise SystemExit("connect four needs pygame: pip install pygame")
        wrapped = bench_aec(mod.env, seconds)[0]
        batched = bench_batched(mod.vector_env, num_envs, seconds)[0]
        players = envs.make_game(game).num_players
        rows.append(
            f"| {envs.game_info(game).title} ({players} players) | {wrapped:,.0f} | {c4:,.0f} | "
            f"{wrapped / c4:.1f}x | {batched:,.0f} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=[*envs.GAMES, "all"])
    parser.add_argument("options", nargs="*", help="env options as key=value, e.g. num_players=4")
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--batched", action="store_true", help="also measure the batched engine")
    parser.add_argument("--num-envs", type=int, default=1024, help="games per batched step")
    parser.add_argument("--connect-four", action="store_true", help="also measure PettingZoo's connect four env()")
    args = parser.parse_args(argv)
    if args.game == "all":
        if args.options:
            raise SystemExit("'all' measures every game at its default options; give no key=value options")
        print(table(args.seconds, args.num_envs))
        return
    try:
        options = parse_options(args.options, args.game)
    except ConfigError as err:
        parser.error(str(err))
    mod = envs.module(args.game)
    if args.connect_four:
        c4 = bench_connect_four(args.seconds)
        print("connect_four_v3 env():", "not installed (pip install pygame)" if c4 is None else f"{c4:,.0f} steps/s")
    wrapped, g1 = bench_aec(lambda: mod.env(**options), args.seconds)
    raw, g2 = bench_aec(lambda: mod.raw_env(**options), args.seconds)
    engine, g3 = bench_engine(envs.make_game(args.game, **options), args.seconds)
    print(f"{args.game} {options or ''}")
    print(f"  AEC env()     : {wrapped:10,.0f} steps/s  ({g1} games)")
    print(f"  AEC raw_env() : {raw:10,.0f} steps/s  ({g2} games)")
    print(f"  engine        : {engine:10,.0f} steps/s  ({g3} games)")
    if args.batched:
        batched, g4 = bench_batched(lambda b: mod.vector_env(b, **options), args.num_envs, args.seconds)
        print(f"  batched (B={args.num_envs}): {batched:10,.0f} steps/s  ({g4} games)")


if __name__ == "__main__":
    main()

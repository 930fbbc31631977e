"""Play one random game and show it: ``python -m envs.demo [GAME] [--seed S] [--png FILE] [key=value ...]``."""

from __future__ import annotations

import argparse

import numpy as np

import envs
from envs.common.game import ConfigError
from envs.common.options import parse_options


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("game", nargs="?", default="battle_sheep", choices=envs.GAMES)
    parser.add_argument("options", nargs="*", help="env options as key=value")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--png", help="also save the final board as a PNG picture")
    parser.add_argument("--quiet", action="store_true", help="print only the final position")
    args = parser.parse_args(argv)
    try:
        options = parse_options(args.options, args.game)
    except ConfigError as err:
        parser.error(str(err))
    env = envs.module(args.game).env(render_mode="ansi", **options)
    env.reset(seed=args.seed)
    rng = np.random.default_rng(args.seed)
    moves = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        if not args.quiet:
            print(f"{agent}: {env.unwrapped.action_to_str(action)}")
        env.step(action)
        moves += 1
    raw = env.unwrapped
    print(raw.game.render_ansi(raw.game_state))
    print(
        f"{moves} moves; final rewards:",
        {a: float(r) for a, r in zip(raw.possible_agents, raw.game.returns(raw.game_state))},
    )
    if args.png:
        from PIL import Image

        Image.fromarray(raw.game.render_rgb(raw.game_state)).save(args.png)
        print(f"saved {args.png}")


if __name__ == "__main__":
    main()

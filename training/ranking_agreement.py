"""How often a reference policy's move is among a checkpoint's K most likely moves: the measure behind the K of
``guided:PATH:K:N`` (training/guided.py).

    python -m training.ranking_agreement --game bestiarium --checkpoint checkpoints/bestiarium/policy.pt \\
        --reference search:300 --positions 150

Positions come from games of the ``search`` baseline against itself in which every third move is the
reference's; every decision with more than one legal move counts. Prints, for each K, the share of positions
where the reference's move is among the checkpoint's K most likely.
"""

from __future__ import annotations

import argparse

import numpy as np

import envs
from envs.common.game import TERMINAL
from envs.common.policies import decision_from_state, make_baseline
from training.guided import load_guided_policy

KS = (1, 2, 4, 8, 16, 24, 32)


def agreement(game_name: str, checkpoint: str, reference: str, positions: int, seed: int = 3) -> dict[int, float]:
    """{K: share of positions whose ``reference`` move is among the checkpoint's K most likely}."""
    game = envs.module(game_name).raw_env().game
    ranker = load_guided_policy(f"{checkpoint}:{max(KS)}:1", game_name, seed=0)
    ranker.top_k = game.num_actions
    judge = make_baseline(game_name, reference, seed=seed + 1, engine=game)
    player = make_baseline(game_name, "search", seed=seed + 2, engine=game)
    if judge is None or player is None:
        raise ValueError(f"{reference!r} or search is not a baseline of {game_name}")
    rng = np.random.default_rng(seed)
    ranks: list[int] = []
    while len(ranks) < positions:
        state = game.initial_state(rng)
        while game.current_player(state) != TERMINAL and not game.is_truncated(state) and len(ranks) < positions:
            decision = decision_from_state(game, state)
            if decision.legal_actions().size > 1:
                order = ranker.root_moves(decision)
                move = int(judge.act(decision))
                ranks.append(int(np.flatnonzero(order == move)[0]))
                if len(ranks) % 3 == 0:
                    game.apply(state, move, rng)
                    continue
            game.apply(state, int(player.act(decision)), rng)
    ranked = np.array(ranks)
    return {k: float((ranked < k).mean()) for k in KS}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.ranking_agreement", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, choices=["battle_sheep", "bestiarium", "beasty_borders"])
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--reference", default="search:300", help="a baseline spec, e.g. search:1200")
    parser.add_argument("--positions", type=int, default=150)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    shares = agreement(args.game, args.checkpoint, args.reference, args.positions, args.seed)
    print(f"{args.game}: {args.reference}'s move among the checkpoint's K most likely, {args.positions} positions")
    print(" | ".join(f"K={k}: {v:.3f}" for k, v in shares.items()))


if __name__ == "__main__":
    main()

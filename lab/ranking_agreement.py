"""How good a root cut can be: how often a reference policy's move is among a checkpoint's K most likely moves
(the measure behind the K of ``guided:PATH:K:N``, training/alphazero/guided.py), and what the cut scores against
``search`` when its K moves come from a much larger search instead of a network (Battle Sheep).

    python -m lab.ranking_agreement --game bestiarium --checkpoint checkpoints/bestiarium/policy.pt \\
        --reference search:300 --positions 150
    python -m lab.ranking_agreement --game battle_sheep --ceiling --games 100 --seed 41

Agreement: positions come from games of the ``search`` baseline against itself in which every third move is the
reference's; every decision with more than one legal move counts. Prints, for each K, the share of positions
where the reference's move is among the checkpoint's K most likely.

Ceiling: the root's K moves are the K most visited of a ``--ranker-budget`` simulation search (its time not
counted), then ``--budget`` simulations over them choose; prints its score against ``search`` (seats alternated).
"""

from __future__ import annotations

import argparse

import numpy as np

from envs.common.game import TERMINAL
from envs.common.policies import Decision, decision_from_state, make_baseline
from training.alphazero.guided import ranked_moves
from training.arena.tournament import play_game
from training.checkpoint import load_network

KS = (1, 2, 4, 8, 16, 24, 32)


def agreement(game_name: str, checkpoint: str, reference: str, positions: int, seed: int = 3) -> dict[int, float]:
    """{K: share of positions whose ``reference`` move is among the checkpoint's K most likely}."""
    net, _, game = load_network(checkpoint, game_name, {})
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
                order = ranked_moves(net, decision)
                move = int(judge.act(decision))
                ranks.append(int(np.flatnonzero(order == move)[0]))
                if len(ranks) % 3 == 0:
                    game.apply(state, move, rng)
                    continue
            game.apply(state, int(player.act(decision)), rng)
    ranked = np.array(ranks)
    return {k: float((ranked < k).mean()) for k in KS}


class SearchRankedCut:
    """The cut of ``guided:`` with the root's ``top_k`` moves ranked by a ``ranker_budget`` search's visits
    (Battle Sheep's compiled search, which reports them) instead of a network."""

    name = "search-ranked-cut"

    def __init__(self, seed: int, top_k: int, ranker_budget: int, budget: int):
        self.ranker = make_baseline("battle_sheep", f"search:{ranker_budget}", seed=seed)
        self.search = make_baseline("battle_sheep", "search", seed=seed + 1)
        self.top_k, self.budget = top_k, budget

    def reset(self, seed: int | None = None) -> None:
        self.ranker.reset(seed)
        self.search.reset(None if seed is None else seed + 1)

    def act(self, decision: Decision) -> int:
        legal = decision.legal_actions()
        if legal.size == 1:
            return int(legal[0])
        visits = np.zeros(decision.game.num_actions, dtype=np.int64)
        self.ranker.act_among(decision, None, root_visits=visits)
        top = np.argsort(-visits, kind="stable")[: self.top_k]
        return int(self.search.act_among(decision, top[visits[top] > 0].astype(np.int64), budget=self.budget))


def cut_ceiling(games: int, seed: int, top_k: int = 16, ranker_budget: int = 2400, budget: int = 420) -> float:
    """Score of :class:`SearchRankedCut` against Battle Sheep's ``search`` over ``games`` (seats alternated)."""
    score = 0.0
    for i in range(games):
        cut = SearchRankedCut(seed * 1000 + i, top_k, ranker_budget, budget)
        baseline = make_baseline("battle_sheep", "search", seed=seed * 1000 + 500 + i)
        record = play_game(
            "battle_sheep",
            {},
            ["cut", "search"],
            seed=seed * 1000 + i,
            policies=[cut, baseline] if i % 2 == 0 else [baseline, cut],
        )
        mine = record.returns[i % 2]
        score += 1.0 if mine > 0 else 0.5 if mine == 0 else 0.0
    return score / games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m lab.ranking_agreement",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--game", required=True, choices=["battle_sheep", "bestiarium", "beasty_borders"])
    parser.add_argument("--checkpoint", help="the checkpoint to rank moves (agreement)")
    parser.add_argument("--reference", default="search:300", help="a baseline spec, e.g. search:1200")
    parser.add_argument("--positions", type=int, default=150)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--ceiling", action="store_true", help="score the search-ranked cut (battle_sheep)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--top-k", type=int, default=16)
    parser.add_argument("--ranker-budget", type=int, default=2400)
    parser.add_argument("--budget", type=int, default=420)
    args = parser.parse_args(argv)
    if args.ceiling:
        if args.game != "battle_sheep":
            parser.error("--ceiling is built for battle_sheep")
        score = cut_ceiling(args.games, args.seed, args.top_k, args.ranker_budget, args.budget)
        print(
            f"battle_sheep: the {args.top_k} moves of search:{args.ranker_budget}, {args.budget} simulations "
            f"over them, against search: {score:.3f} over {args.games} games"
        )
        return
    if not args.checkpoint:
        parser.error("--checkpoint is needed (or --ceiling)")
    shares = agreement(args.game, args.checkpoint, args.reference, args.positions, args.seed)
    print(f"{args.game}: {args.reference}'s move among the checkpoint's K most likely, {args.positions} positions")
    print(" | ".join(f"K={k}: {v:.3f}" for k, v in shares.items()))


if __name__ == "__main__":
    main()

"""Why Bestiarium's greedy loses to random: greedy against random on the batched engine, then what decided the
games greedy lost (each seat's cascade values at the largest sizes on the board) and how many stones each side
had eaten.

    python -m lab.greedy_losses --games 400 --seed 1 --show 12
"""

from __future__ import annotations

import argparse

import numpy as np

from envs.bestiarium.fast import BestiariumBatched
from envs.common.fastrng import seed_states


def play(games: int, seed: int) -> dict[str, object]:
    """``games`` games of greedy (seat ``b % 2`` in game ``b``) against uniform random moves; returns greedy's win
    flags, the stones each side lost to eats (greedy's, random's), and each lost game's values at its four largest
    sizes as ``(size, greedy's value, random's value)``."""
    engine = BestiariumBatched()
    state = engine.new_state(games)
    engine.reset_rows(state, np.arange(games))
    greedy_seat = np.arange(games) % 2
    rows = np.arange(games)
    rng = np.random.default_rng(seed)
    ties = seed_states(seed, games)
    mask = np.zeros((games, engine.num_actions), dtype=bool)
    greedy_moves = np.zeros(games, dtype=np.int64)
    lost = np.zeros((games, 2))
    before = np.stack([(state.color == 1).sum(1), (state.color == 2).sum(1)], 1)
    while not state.over.all():
        engine.legal_mask(state, mask)
        engine.greedy_actions(state, ties, greedy_moves)
        random_moves = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        live = ~state.over
        engine.apply(state, np.where(engine.current_player(state) == greedy_seat, greedy_moves, random_moves))
        after = np.stack([(state.color == 1).sum(1), (state.color == 2).sum(1)], 1)
        lost += np.maximum(before - after, 0) * live[:, None]
        before = after
    won = engine.returns(state)[rows, greedy_seat] > 0
    decided = []
    for b in np.flatnonzero(~won):
        reference = engine.to_reference(state, int(b))
        mine = engine.reference.size_values(reference, int(greedy_seat[b]))
        theirs = engine.reference.size_values(reference, 1 - int(greedy_seat[b]))
        sizes = sorted(set(mine) | set(theirs), reverse=True)[:4]
        decided.append([(s, mine.get(s, 0), theirs.get(s, 0)) for s in sizes])
    return {
        "won": won,
        "greedy_lost_stones": lost[rows, greedy_seat],
        "random_lost_stones": lost[rows, 1 - greedy_seat],
        "lost_games": decided,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=12, help="lost games to print")
    args = parser.parse_args(argv)
    out = play(args.games, args.seed)
    won = out["won"]
    assert isinstance(won, np.ndarray)
    greedy_lost, random_lost = out["greedy_lost_stones"], out["random_lost_stones"]
    assert isinstance(greedy_lost, np.ndarray) and isinstance(random_lost, np.ndarray)
    print(f"greedy won {won.mean():.3f} of {won.size} games against random")
    for name, flags in (("won", won), ("lost", ~won)):
        if flags.any():
            print(
                f"games greedy {name}: greedy lost {greedy_lost[flags].mean():.1f} stones to eats, "
                f"random {random_lost[flags].mean():.1f}"
            )
    print("lost games, (size, greedy's value, random's value) at the four largest sizes:")
    lost_games = out["lost_games"]
    assert isinstance(lost_games, list)
    for row in lost_games[: args.show]:
        print("  ", row)


if __name__ == "__main__":
    main()

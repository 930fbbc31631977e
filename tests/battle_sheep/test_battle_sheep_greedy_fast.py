"""The compiled greedy (``BattleSheepBatched.greedy_actions``) against the Python ``GreedyPolicy``, move by move.

Random games are played in the batched engine; at every decision of every row the compiled scores
(``BattleSheepBatched.greedy_scores``) must equal the Python greedy's (``baselines.greedy_scores`` on the row's
reference state) exactly, and the compiled choice must be one of the best-scoring actions, the very action where
only one scores best. The two draw their tie-breaks from different generators, so only the set is
compared where several tie. Every phase is covered: build (``pasture="build"``), stack placement and moves, 2-4
players, both end rules.

Speed of both: ``python tests/battle_sheep/test_battle_sheep_greedy_fast.py --speed``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pytest

from envs.battle_sheep.baselines import GreedyPolicy, greedy_scores
from envs.battle_sheep.fast import BattleSheepBatched
from envs.battle_sheep.rules import BUILD, MOVE, OVER, PLACE
from envs.common.fastrng import seed_states
from envs.common.policies import Decision
from envs.common.vector import sample_legal

OPTION_SETS = [
    {"num_players": 2, "pasture": "build", "end_rule": "battle_sheep"},
    {"num_players": 2, "pasture": "random", "end_rule": "splits"},
    {"num_players": 3, "pasture": "build", "end_rule": "battle_sheep"},
    {"num_players": 4, "pasture": "random", "end_rule": "battle_sheep"},
    {"num_players": 4, "pasture": "build", "end_rule": "battle_sheep", "canvas_radius": 7},
]
IDS = [
    "{num_players}p-{pasture}-{end_rule}".format(**o) + (f"-r{o['canvas_radius']}" if "canvas_radius" in o else "")
    for o in OPTION_SETS
]


def compare_games(options: dict, rows: int, seed: int, greedy_rows: float = 0.5) -> dict[str, int]:
    """Play ``rows`` games (each ply a random legal action, or, in about ``greedy_rows`` of the decisions, the
    compiled greedy's, so that greedy positions are reached too) and check the compiled greedy at every decision;
    returns the decisions checked per phase and how many had a unique best."""
    fast = BattleSheepBatched(**options)
    ref = fast.reference
    state = fast.new_state(rows)
    state.rng[:] = seed_states(seed, rows)
    fast.reset_rows(state, np.arange(rows))
    tie_rng = seed_states(seed + 1, rows)
    play_rng = seed_states(seed + 2, rows)
    coin = np.random.default_rng(seed)
    mask = np.zeros((rows, fast.num_actions), dtype=bool)
    chosen = np.empty(rows, dtype=np.int64)
    randoms = np.empty(rows, dtype=np.int64)
    counts = {"build": 0, "place": 0, "move": 0, "unique": 0, "final": 0}
    while (state.phase != OVER).any():
        before = {f: getattr(state, f).copy() for f in state._fields}
        fast.greedy_actions(state, tie_rng, chosen)
        for f in state._fields:  # the position is read, never changed
            assert np.array_equal(getattr(state, f), before[f]), f
        fast.legal_mask(state, mask)
        for b in range(rows):
            if state.phase[b] == OVER:
                assert chosen[b] == -1
                continue
            ref_state = fast.to_reference(state, b)
            legal, scores = greedy_scores(ref, ref_state, ref_state.to_move)
            assert np.array_equal(legal, np.flatnonzero(mask[b]))
            compiled_legal, compiled_scores = fast.greedy_scores(state, b)
            assert np.array_equal(compiled_legal, legal)
            assert compiled_scores.tolist() == scores.tolist()  # exactly: the same float operations
            if state.phase[b] == MOVE and np.abs(scores).max() >= 1000 / (ref.num_players - 1):
                counts["final"] += 1  # a move that ends the game: its score is the result's
            best = legal[scores == scores.max()]
            assert chosen[b] in best, (b, int(chosen[b]), best)
            if best.size == 1:
                counts["unique"] += 1
                assert chosen[b] == best[0]
            counts[("build", "place", "move")[int(state.phase[b])]] += 1
        sample_legal(mask, play_rng, randoms)
        actions = np.where(coin.random(rows) < greedy_rows, chosen, randoms)
        fast.apply(state, np.where(state.phase == OVER, 0, actions))
    return counts


@pytest.mark.parametrize("options", OPTION_SETS, ids=IDS)
def test_compiled_greedy_picks_among_the_python_greedys_best(options):
    counts = compare_games(options, rows=6, seed=OPTION_SETS.index(options) + 1)
    if options["pasture"] == "build":
        assert counts["build"] >= 6 * 4 * options["num_players"]
    assert counts["place"] >= 6 * options["num_players"]
    assert counts["move"] >= 6 * 10
    assert counts["unique"] > 0
    assert counts["final"] > 0


def test_ties_are_drawn_from_the_rows_generator():
    """A tie (the first tile: 3 orientations, all scoring 0) is broken by the row's generator: each tied action
    comes up, the same generator state gives the same action, and the generator advances; without a tie it does
    not."""
    fast = BattleSheepBatched(num_players=2)
    rows = 64
    state = fast.new_state(rows)
    fast.reset_rows(state, np.arange(rows))
    rng = seed_states(3, rows)
    start = rng.copy()
    out = np.empty(rows, dtype=np.int64)
    fast.greedy_actions(state, rng, out)
    centre = fast.reference.center
    assert set(out.tolist()) == {3 * centre, 3 * centre + 1, 3 * centre + 2}
    assert (rng != start).all()
    again = np.empty(rows, dtype=np.int64)
    fast.greedy_actions(state, start.copy(), again)
    assert np.array_equal(out, again)


def test_bad_buffers_are_refused():
    fast = BattleSheepBatched(num_players=2)
    state = fast.new_state(2)
    fast.reset_rows(state, np.arange(2))
    with pytest.raises(ValueError, match="out must be"):
        fast.greedy_actions(state, np.zeros(2, np.uint64), np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="rng must be"):
        fast.greedy_actions(state, np.zeros(2, np.int64), np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="row 2"):
        fast.greedy_scores(state, 2)


def speed(seconds: float = 2.0, rows: int = 64, seed: int = 0) -> None:
    """Moves/s of the Python GreedyPolicy and the compiled greedy on the same positions, per phase (2 players:
    every position of ``rows`` random games), printed."""
    fast = BattleSheepBatched(num_players=2)
    ref = fast.reference
    state = fast.new_state(rows)
    state.rng[:] = seed_states(seed, rows)
    fast.reset_rows(state, np.arange(rows))
    play_rng = seed_states(seed + 1, rows)
    mask = np.zeros((rows, fast.num_actions), dtype=bool)
    actions = np.empty(rows, dtype=np.int64)
    positions: dict[int, list] = {BUILD: [], PLACE: [], MOVE: []}  # per phase, batches of positions in it
    while (state.phase != OVER).any():
        for phase, found in positions.items():
            rows_in = np.flatnonzero(state.phase == phase)
            if rows_in.size:
                found.append(fast.take(state, rows_in))
        fast.legal_mask(state, mask)
        sample_legal(mask, play_rng, actions)
        fast.apply(state, np.where(state.phase == OVER, 0, actions))
    policy = GreedyPolicy(ref, seed=seed)
    for phase, batches in positions.items():
        total = sum(p.phase.size for p in batches)
        outs = [np.empty(p.phase.size, dtype=np.int64) for p in batches]
        tie_rngs = [seed_states(seed + 2, p.phase.size) for p in batches]
        fast.greedy_actions(batches[0], tie_rngs[0], outs[0])  # compile / load outside the clock
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for p, out, tie_rng in zip(batches, outs, tie_rngs):
                fast.greedy_actions(p, tie_rng, out)
            done += total
        compiled = done / (time.perf_counter() - start)
        refs = [fast.to_reference(p, b) for p in batches for b in range(p.phase.size)]
        masks = [ref.legal_mask(s) for s in refs]
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for s, legal in zip(refs, masks):
                policy.act(Decision(ref, int(s.to_move), s.clone(), np.empty(0, np.float32), legal))
                done += 1
                if done % 16 == 0 and time.perf_counter() - start >= seconds:
                    break
        python = done / (time.perf_counter() - start)
        print(
            f"{('build', 'place', 'move')[phase]:5s} ({total:4d} positions): Python GreedyPolicy {python:9,.0f} "
            f"moves/s, compiled greedy_actions {compiled:9,.0f} moves/s: {compiled / python:5.0f}x"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--speed", action="store_true", help="measure the moves/s of both")
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    if args.speed:
        speed(args.seconds)
    else:
        for opts, name in zip(OPTION_SETS, IDS):
            print(name, compare_games(opts, rows=24, seed=1))

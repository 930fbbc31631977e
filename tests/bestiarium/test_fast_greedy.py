"""The compiled greedy (``BestiariumBatched.greedy_actions``) against the Python ``GreedyPolicy``, move by move.

Games are played in the batched engine (random moves, a 'grower' that places next to its own stones for eating
chains and big shapes, and the compiled greedy's own moves); at checked decisions of every row the compiled keys
(``BestiariumBatched.greedy_scores``) must equal the Python greedy's (``baselines.key_after_chain`` after each
legal action on the row's reference state) exactly, and the compiled choice must be one of the actions with the
best key, the very action where only one is best. The two draw their tie-breaks from different generators, so
only the set is compared where several tie. Covered: placements, growth-cell choices inside a chain, placements
that start a chain, passes that end the game, finished rows (-1), every board size and shape equivalence.

Speed of both: ``python tests/bestiarium/test_fast_greedy.py --speed``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pytest

from envs.bestiarium import render
from envs.bestiarium.baselines import GreedyPolicy, key_after_chain
from envs.bestiarium.fast import BestiariumBatched
from envs.bestiarium.rules import BOARD_SIZES, GROW, SHAPE_EQUIVALENCES, BestiariumGame, BestiariumState
from envs.common.fastrng import seed_states
from envs.common.policies import decision_from_state
from envs.common.vector import sample_legal

_ENGINES: dict[tuple[int, str], BestiariumBatched] = {}


def engine(size: int = 6, eq: str = "free") -> BestiariumBatched:
    if (size, eq) not in _ENGINES:
        _ENGINES[size, eq] = BestiariumBatched(board_size=size, shape_equivalence=eq)
    return _ENGINES[size, eq]


def python_keys(game: BestiariumGame, s: BestiariumState) -> tuple[list[int], list[tuple[int, ...]]]:
    """The legal actions and ``GreedyPolicy.act``'s key for each (every one scored, a single one too)."""
    legal = game.legal_actions(s)
    keys = []
    for a in legal:
        child = s.clone()
        game.apply(child, a)
        keys.append(key_after_chain(game, child, s.to_move))
    return legal, keys


def compare_games(fg: BestiariumBatched, rows: int, seed: int, check: float) -> dict[str, int]:
    """Play ``rows`` games to their end and compare the compiled greedy with the Python one at a ``check``
    fraction of the decisions (every grow phase and every decision with a pass pending); returns counters."""
    ref = fg.reference
    n = fg.num_cells
    state = fg.new_state(rows)
    fg.reset_rows(state, np.arange(rows))
    tie_rng = seed_states(seed, rows)
    play_rng = seed_states(seed + 1, rows)
    coin = np.random.default_rng(seed)
    mask = np.zeros((rows, fg.num_actions), dtype=bool)
    chosen = np.empty(rows, dtype=np.int64)
    randoms = np.empty(rows, dtype=np.int64)
    nbrs = fg.tables.nbrs
    seen = {"place": 0, "grow": 0, "chain_start": 0, "final": 0, "over": 0, "unique": 0, "ties": 0}
    while not state.over.all():
        before = [f.copy() for f in state]
        rng_before = tie_rng.copy()
        fg.greedy_actions(state, tie_rng, chosen)
        for f, old in zip(state, before):  # the position is read, never changed
            assert np.array_equal(f, old)
        again = np.empty(rows, dtype=np.int64)
        rng_again = rng_before.copy()
        fg.greedy_actions(state, rng_again, again)  # the same generator states give the same actions
        assert np.array_equal(again, chosen) and np.array_equal(rng_again, tie_rng)
        fg.legal_mask(state, mask)
        for b in range(rows):
            if state.over[b]:
                assert chosen[b] == -1 and tie_rng[b] == rng_before[b]
                seen["over"] += 1
                continue
            assert mask[b, chosen[b]]
            grow = state.phase[b] == GROW
            if not (grow or state.passes[b] == 1 or coin.random() < check):
                continue
            s = fg.to_reference(state, b)
            legal, keys = python_keys(ref, s)
            actions, compiled = fg.greedy_scores(state, b)
            assert actions.tolist() == legal == np.flatnonzero(mask[b]).tolist()
            assert compiled.shape == (len(legal), n + 1)
            assert [tuple(k) for k in compiled.tolist()] == keys, b
            top = max(keys)
            best = [a for a, k in zip(legal, keys) if k == top]
            assert chosen[b] in best
            if len(best) == 1:
                seen["unique"] += 1
                assert chosen[b] == best[0] and tie_rng[b] == rng_before[b]  # no draw without a tie
            else:
                seen["ties"] += 1
                assert tie_rng[b] != rng_before[b]
            seen["grow" if grow else "place"] += 1
            if any(k[0] != 0 for k in keys):
                seen["final"] += 1
            if not grow:
                for a in legal:
                    child = s.clone()
                    ref.apply(child, a)
                    if child.phase == GROW and not child.over:
                        seen["chain_start"] += 1
                        break
        # half the moves the greedy's own, else random or (odd rows) next to the mover's own stones
        sample_legal(mask, play_rng, randoms)
        padded = np.concatenate([state.color, np.zeros((rows, 1), dtype=np.uint8)], axis=1)
        near = (padded[:, nbrs] == (state.to_move.astype(np.uint8) + 1)[:, None, None]).any(axis=2)
        actions = randoms.copy()
        for b in range(rows):
            if state.over[b]:
                actions[b] = 0
            elif coin.random() < 0.5:
                actions[b] = chosen[b]
            elif b % 2:
                grow_cells = np.flatnonzero(mask[b, :n] & near[b])
                if grow_cells.size:
                    actions[b] = grow_cells[coin.integers(grow_cells.size)]
        fg.apply(state, actions)
    fg.greedy_actions(state, tie_rng, chosen)
    assert (chosen == -1).all()
    return seen


@pytest.mark.parametrize("size,eq", [(5, "fixed"), (6, "free"), (7, "one_sided")])
def test_compiled_greedy_keys_and_choices_match_the_python_greedy(size, eq):
    seen = compare_games(engine(size, eq), rows=6, seed=size, check={5: 0.25, 6: 0.15, 7: 0.1}[size])
    assert seen["place"] >= 20 and seen["grow"] > 0 and seen["chain_start"] > 0, seen
    assert seen["final"] > 0 and seen["over"] > 0 and seen["unique"] > 0 and seen["ties"] > 0, seen


@pytest.mark.parametrize("size", BOARD_SIZES)
@pytest.mark.parametrize("eq", SHAPE_EQUIVALENCES)
def test_every_option_set_scores_like_the_python_greedy(size, eq):
    """A few positions of random games per option set (the big sweep above covers three of them)."""
    fg = engine(size, eq)
    ref = fg.reference
    rng = np.random.default_rng(size * 7 + SHAPE_EQUIVALENCES.index(eq))
    state = fg.new_state(1)
    checked = 0
    for _ in range(2):
        s = ref.initial_state()
        while not s.over:
            if s.phase == GROW or rng.random() < 0.03:
                fg.from_reference(s, state, 0)
                legal, keys = python_keys(ref, s)
                actions, compiled = fg.greedy_scores(state, 0)
                assert actions.tolist() == legal and [tuple(k) for k in compiled.tolist()] == keys
                checked += 1
            legal = ref.legal_actions(s)
            ref.apply(s, legal[rng.integers(len(legal))])
        fg.from_reference(s, state, 0)
        assert fg.greedy_scores(state, 0)[0].size == 0
    assert checked >= 4


def test_the_python_greedy_and_the_compiled_one_agree_on_a_known_position():
    """The baselines test's position: growing the domino into a bent or triangle triomino (a size-3 fauna) is
    best, for both."""
    fg = engine(5, "free")
    ref = fg.reference
    s = render.state_from_text(
        ref,
        """
        X X X . .
       . . . . . .
      . . . . . . .
     . X X . . . . .
    . . . . . . . . .
     . . . . . . . .
      . . . . . . .
       . . . . . .
        . . . . .
    """,
    )
    state = fg.new_state(1)
    fg.from_reference(s, state, 0)
    legal, keys = python_keys(ref, s)
    best = sorted(a for a, k in zip(legal, keys) if k == max(keys))
    rng = seed_states(0, 1)
    out = np.empty(1, dtype=np.int64)
    picks = set()
    for seed in range(40):
        rng[0] = seed_states(seed, 1)[0]
        fg.greedy_actions(state, rng, out)
        picks.add(int(out[0]))
    assert picks == set(best)
    policy = GreedyPolicy(ref, seed=0)
    assert policy.act(decision_from_state(ref, s)) in best


def test_ties_are_drawn_from_the_rows_generator():
    """On the empty board every placement ties: each row draws one from its generator, the same state gives the
    same action, and the generator advances; a single legal action (a pass) is not drawn for."""
    fg = engine(5, "free")
    rows = 64
    state = fg.new_state(rows)
    fg.reset_rows(state, np.arange(rows))
    rng = seed_states(3, rows)
    start = rng.copy()
    out = np.empty(rows, dtype=np.int64)
    fg.greedy_actions(state, rng, out)
    assert len(set(out.tolist())) > 20 and (out >= 0).all() and (out < fg.num_cells).all()
    assert (rng != start).all()
    again = np.empty(rows, dtype=np.int64)
    fg.greedy_actions(state, start.copy(), again)
    assert np.array_equal(out, again)
    # a full board: the mover's only action is the pass
    ref = fg.reference
    s = ref.initial_state()
    while not (ref.legal_actions(s) == [ref.pass_action] and s.phase != GROW):
        legal = ref.legal_actions(s)
        ref.apply(s, legal[0])
    one = fg.new_state(1)
    fg.from_reference(s, one, 0)
    r = seed_states(4, 1)
    r0 = r.copy()
    single = np.empty(1, dtype=np.int64)
    fg.greedy_actions(one, r, single)
    assert single[0] == ref.pass_action and r[0] == r0[0]


def test_bad_buffers_are_refused():
    fg = engine(5, "free")
    state = fg.new_state(2)
    fg.reset_rows(state, np.arange(2))
    assert fg.has_greedy_actions
    with pytest.raises(ValueError, match="out must be"):
        fg.greedy_actions(state, np.zeros(2, np.uint64), np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="out must be"):
        fg.greedy_actions(state, np.zeros(2, np.uint64), np.zeros(2, np.int32))
    with pytest.raises(ValueError, match="rng must be"):
        fg.greedy_actions(state, np.zeros(2, np.int64), np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="rng must be"):
        fg.greedy_actions(state, np.zeros(3, np.uint64), np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="row 2"):
        fg.greedy_scores(state, 2)


def speed(size: int = 6, rows: int = 32, seed: int = 0, positions: int = 300) -> None:
    """Seconds (process time) per decision of the Python GreedyPolicy and the compiled greedy on the same
    ``positions`` positions of random games (board side ``size``), printed."""
    fg = engine(size, "free")
    ref = fg.reference
    rng = np.random.default_rng(seed)
    found: list[BestiariumState] = []
    while len(found) < positions:
        s = ref.initial_state()
        while not s.over and len(found) < positions:
            if rng.random() < 0.25:
                found.append(s.clone())
            legal = ref.legal_actions(s)
            ref.apply(s, legal[rng.integers(len(legal))])
    state = fg.new_state(len(found))
    for b, s in enumerate(found):
        fg.from_reference(s, state, b)
    out = np.empty(len(found), dtype=np.int64)
    fg.greedy_actions(fg.take(state, np.arange(2)), seed_states(seed, 2), out[:2])  # compile (or load) first
    policy = GreedyPolicy(ref, seed=seed)
    t = time.process_time()
    for s in found:
        policy.act(decision_from_state(ref, s))
    python = (time.process_time() - t) / len(found)
    t = time.process_time()
    fg.greedy_actions(state, seed_states(seed, len(found)), out)
    compiled = (time.process_time() - t) / len(found)
    t = time.process_time()
    one = np.empty(1, dtype=np.int64)
    r = seed_states(seed, 1)
    for b in range(len(found)):
        fg.greedy_actions(fg.take(state, np.array([b])), r, one)
    single = (time.process_time() - t) / len(found)
    print(
        f"side {size}, {len(found)} positions: Python GreedyPolicy.act {python * 1e3:.3f} ms/decision; compiled "
        f"{compiled * 1e3:.4f} ms/decision in one call ({python / compiled:.0f}x), {single * 1e3:.4f} ms/decision "
        f"one row a call ({python / single:.0f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed", action="store_true", help="time the Python and compiled greedy")
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--positions", type=int, default=300)
    args = parser.parse_args()
    if args.speed:
        speed(size=args.size, positions=args.positions)


if __name__ == "__main__":
    main()

"""The batched engine (``pig/fast.py``) against the reference ``pig/rules.py``, move by move, and its compiled
greedy and search.

The two engines draw their dice from different generators (numpy's in ``rules.py``, each row's SplitMix64 in
``fast.py``), so the test makes them roll the same dice: before every batched step the row's generator state is
copied into an :class:`envs.common.fastrng.MirrorRng`, which answers the reference's ``rng.integers(6)`` with the
kernel's ``below(rng, row, 6)``; both engines then play the same games. A longer sweep:
``python tests/example_game/test_pig_fast.py --games 5000``.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pig_v0
import pytest
from pig.baselines import HOLD_AT, GreedyPolicy
from pig.fast import PigBatched
from pig.rules import PigGame

from envs.common.fastrng import MirrorRng, seed_states
from envs.common.game import TERMINAL, ConfigError
from envs.common.policies import decision_from_state, make_baseline
from envs.common.testing import check_from_reference_games, differential_sweep

OPTION_SETS = [{"target": 10}, {"target": 20}, {"target": 100}]


def state_json(game: PigGame, state) -> str:
    return json.dumps(game.state_to_json(state), sort_keys=True)


def play_both(options: dict, games: int, rows: int = 16, seed: int = 0) -> int:
    """Play ``games`` random games (``rows`` at a time) in both engines on the same dice; assert that they agree
    on every position (mover, legal mask, both seats' observations, returns, the whole state). Returns the
    positions checked."""
    fast = PigBatched(**options)
    ref = fast.reference
    batch = fast.new_state(rows)
    batch.rng[:] = seed_states(seed, rows)
    fast.reset_rows(batch, np.arange(rows))
    refs = [ref.initial_state(np.random.default_rng(0)) for _ in range(rows)]
    pick = np.random.default_rng(seed)
    mask = np.zeros((rows, 2), dtype=bool)
    views = np.zeros((2, rows, 5), dtype=np.float32)
    actions = np.zeros(rows, dtype=np.int64)
    finished = checked = 0
    while finished < games:
        fast.legal_mask(batch, mask)
        for seat in range(2):
            fast.observe(batch, np.full(rows, seat), views[seat])
        for b in range(rows):
            s = refs[b]
            assert state_json(ref, fast.to_reference(batch, b)) == state_json(ref, s)
            assert fast.current_player(batch)[b] == ref.current_player(s)
            assert np.array_equal(mask[b], ref.legal_mask(s).astype(bool))
            for seat in range(2):
                assert views[seat, b].tobytes() == ref.observation(s, seat).tobytes()
            legal = np.flatnonzero(mask[b])
            actions[b] = legal[pick.integers(legal.size)]
            checked += 1
        before = batch.rng.copy()
        fast.apply(batch, actions)
        returns = fast.returns(batch)
        assert not fast.truncated(batch).any()
        for b in range(rows):
            mirror = MirrorRng(before[b])
            ref.apply(refs[b], int(actions[b]), mirror)
            assert mirror.state == int(batch.rng[b])  # the same draws, as many
            assert np.array_equal(returns[b], ref.returns(refs[b]))
        done = np.flatnonzero(fast.current_player(batch) == TERMINAL)
        for b in done:
            assert state_json(ref, fast.to_reference(batch, b)) == state_json(ref, refs[b])
            refs[b] = ref.initial_state(np.random.default_rng(0))
        finished += done.size
        fast.reset_rows(batch, done)
    return checked


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: f"target={o['target']}")
def test_random_games_match_the_reference(options):
    assert play_both(options, games=60, seed=options["target"]) > 100


def test_positions_loaded_from_the_reference_match():
    """The other way round: the reference plays with numpy's dice, each position loaded into a row."""
    ref = PigGame(target=15)
    fast = PigBatched(target=15)

    def check(s, state, row, mask, views):
        assert fast.current_player(state)[row] == ref.current_player(s)
        assert np.array_equal(mask[row], ref.legal_mask(s).astype(bool))
        for seat in range(2):
            assert views[seat, row].tobytes() == ref.observation(s, seat).tobytes()
        assert np.array_equal(fast.returns(state)[row], ref.returns(s))

    check_from_reference_games(ref, fast, games=30, seed=3, check=check)


def test_bad_options_are_the_reference_engines_errors():
    with pytest.raises(ConfigError, match="target"):
        PigBatched(target=5)


def test_the_ply_cap_truncates_a_row_as_the_aec_env_does():
    fast = PigBatched(target=10)
    state = fast.new_state(1)
    fast.reset_rows(state, np.array([0]))
    fast.from_reference(fast.reference.make_state([4, 6], current=1), state, 0, plies=fast.max_game_length)
    assert fast.truncated(state)[0] and not fast.returns(state).any()


def test_the_vector_env_plays_seeded_games():
    venv = pig_v0.vector_env(4, target=10)
    obs, info = venv.reset(seed=5)
    assert obs.shape == (4, 5) and venv.single_observation_space.contains(obs[0])
    ended = 0
    for _ in range(300):
        actions = np.array([np.flatnonzero(m)[-1] for m in info["action_mask"]])  # hold whenever it can
        obs, rewards, term, trunc, info = venv.step(actions)
        ended += int(term.sum())
        assert np.array_equal(rewards.sum(axis=1), np.zeros(4)) and not trunc.any()
    assert ended > 20


def test_the_compiled_greedy_is_the_python_greedy():
    fast = PigBatched(target=30)
    assert fast.greedy_hold_at == HOLD_AT
    ref = fast.reference
    greedy = GreedyPolicy(ref)
    rng = np.random.default_rng(1)
    state = fast.new_state(1)
    out = np.zeros(1, dtype=np.int64)
    for _ in range(20):
        s = ref.initial_state(rng)
        while not ref.is_terminal(s):
            fast.from_reference(s, state, 0)
            fast.greedy_actions(state, np.zeros(1, dtype=np.uint64), out)
            action = greedy.act(decision_from_state(ref, s))
            assert out[0] == action
            legal = ref.legal_actions(s)
            ref.apply(s, legal[rng.integers(len(legal))], rng)
        fast.from_reference(s, state, 0)
        fast.greedy_actions(state, np.zeros(1, dtype=np.uint64), out)
        assert out[0] == -1


def test_the_compiled_search_keeps_the_contract():
    """``CompiledSearch``'s call (``envs/common/fastsearch.py``): seeded decisions repeat, the root can be
    restricted and its visits counted, the position is left unchanged, a forced root answers its one move."""
    search = make_baseline("pig", "search:64", {"target": 20}, seed=0).compiled
    game = search.game
    state = game.make_state([14, 18], turn_total=4, current=0, last_roll=4)
    before = state_json(game, state)
    visits = np.zeros(2, dtype=np.int64)
    first = search(state, np.random.default_rng(3), root_visits=visits)
    assert first in (0, 1) and visits.sum() == 64 and state_json(game, state) == before
    assert search(state, np.random.default_rng(3)) == first
    assert search(state, np.random.default_rng(3), root_actions=np.array([1]), budget=8, root_visits=visits) == 1
    assert visits.tolist() == [0, 8]
    start = game.initial_state()
    assert search(start, np.random.default_rng(0), budget=5) == 0  # only roll is legal
    with pytest.raises(ValueError, match="illegal"):
        search(start, np.random.default_rng(0), root_actions=np.array([1]))


if __name__ == "__main__":
    differential_sweep(OPTION_SETS, [f"target={o['target']}" for o in OPTION_SETS], play_both, 1000, sys.argv[1:])

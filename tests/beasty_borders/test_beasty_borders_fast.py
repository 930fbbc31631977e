"""The batched compiled engine (envs/beasty_borders/fast.py) against the reference rules.py, game for game.

Both engines are driven with the same actions; the chance outcomes (the tiles laid at the start, every die roll)
are drawn by the batched engine's generators and fed to the reference engine through :class:`FedChance`, a
stand-in for its numpy generator. After every decision both must agree on everything a player or a trainer
sees: the legal mask, both seats' observations (against the reference's compiled ``observation``, which recounts
the groups, and its readable ``observation_python``), the seat to move, rewards, results and scores.

A longer sweep: ``python tests/beasty_borders/test_beasty_borders_fast.py --games 20000`` (every option set).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from envs import beasty_borders_v0
from envs.beasty_borders import observation, render
from envs.beasty_borders.actions import SIGNPOST_TILE, TILES
from envs.beasty_borders.baselines import (
    GreedyPolicy,
    greedy_choice,
    search_policy,
)
from envs.beasty_borders.fast import BeastyBordersBatched
from envs.beasty_borders.rules import BeastyBordersGame
from envs.beasty_borders.search import playout
from envs.common.fastrng import seed_states
from envs.common.game import TERMINAL, ConfigError, IllegalActionError
from envs.common.policies import decision_from_state
from envs.common.testing import check_from_reference_games, differential_sweep

OPTION_SETS = [{"variant": v, "path_order": p} for v in ("main", "without_luck") for p in ("typewriter", "snake")]
IDS = [f"{o['variant']}-{o['path_order']}" for o in OPTION_SETS]
GAMES_PER_OPTION_SET = 100


class FedChance:
    """Stands in for the reference engine's numpy generator: deals the batched engine's tiles and die roll.

    ``initial_state`` asks ``permutation`` (main) or ``choice`` + ``permutation`` (variant) for the tiles, and
    ``_roll`` asks ``integers(1, 9)`` for the die; each answer is checked to be a draw the reference could have
    made. ``used`` counts the die rolls served (at most one per call)."""

    def __init__(self, roll: int, tiles: list[int] | None = None):
        self.roll = roll
        self.tiles = tiles
        self.used = 0

    def integers(self, low, high=None, *args, **kwargs):
        assert (low, high) == (1, 9), "the reference asked for something other than a D8"
        assert self.used == 0, "two die rolls in one decision"
        self.used += 1
        return self.roll

    def permutation(self, x):
        items = list(range(x)) if isinstance(x, (int, np.integer)) else [int(t) for t in x]
        assert self.tiles is not None and sorted(items) == sorted(self.tiles)
        return np.array(self.tiles)

    def choice(self, a, size, replace=True):
        others = [t for t in self.tiles if t != SIGNPOST_TILE]
        assert not replace and size == len(others) and set(others) <= {int(t) for t in a}
        return np.array(others)

    def __getattr__(self, name):
        raise AssertionError(f"the reference engine drew {name}: a chance event the test does not feed")


def reference_start(ref: BeastyBordersGame, fast: BeastyBordersBatched, state, b: int):
    """The reference engine's initial state dealt with row ``b``'s tiles and first roll."""
    chance = FedChance(int(state.roll[b]), [int(t) for t in state.tiles[b]])
    ref_state = ref.initial_state(chance)
    assert chance.used == 1
    return ref_state


def assert_same(
    ref: BeastyBordersGame, fast: BeastyBordersBatched, ref_state, state, b: int, mask: np.ndarray, obs: np.ndarray
) -> None:
    """Row ``b`` of the batched engine (its mask ``mask[b]`` and both seats' observations ``obs[:, b]``)
    agrees with the reference state in everything observable."""
    seat = ref.current_player(ref_state)
    assert fast.current_player(fast.take(state, np.array([b])))[0] == seat
    assert np.array_equal(mask[b], ref.legal_mask(ref_state).astype(bool))
    for viewer in range(2):
        assert np.array_equal(obs[viewer, b], ref.observation(ref_state, viewer)), f"seat {viewer}'s view"
        assert np.array_equal(obs[viewer, b], observation.observation_python(ref, ref_state, viewer)), (
            f"seat {viewer} (readable)"
        )
    assert state.vp[b].tolist() == ref.scores(ref_state).tolist()
    assert fast.shaping_potential(state)[b].tolist() == ref.shaping_potential(ref_state).tolist()
    assert fast.returns(state)[b].tolist() == ref.returns(ref_state).tolist()
    assert ref.state_to_json(fast.to_reference(state, b)) == ref.state_to_json(ref_state)


def run_differential(options: dict, games: int, seed: int, batch: int = 32) -> int:
    """Play ``games`` random games in both engines (batches of ``batch``), checking every decision; returns
    the decisions checked. Each row plays with its own pass rate (from uniform over the legal actions to
    rarely passing), so that supplies run out and the look-ahead wraps round in some games; in one game of
    four the row is rebuilt from the reference state (from_reference) at a random ply, so that the engine
    also continues from positions it did not reach itself."""
    ref = BeastyBordersGame(**options)
    fast = BeastyBordersBatched(**options)
    rng = np.random.default_rng(seed)
    checked = 0
    for first in range(0, games, batch):
        n = min(batch, games - first)
        state = fast.new_state(n)
        state.rng[:] = seed_states(seed * 1_000_003 + first, n)
        fast.reset_rows(state, np.arange(n))
        refs = [reference_start(ref, fast, state, b) for b in range(n)]
        pass_rate = rng.choice([-1.0, 0.02, 0.15, 0.4], size=n)  # -1: uniform over the legal actions
        rebuild_at = np.where(rng.random(n) < 0.25, rng.integers(0, 60, size=n), -1)
        mask = np.zeros((n, fast.num_actions), dtype=bool)
        obs = np.zeros((2, n, *fast.observation_shape), dtype=np.float32)
        for ply in itertools.count():
            fast.legal_mask(state, mask)
            for viewer in range(2):
                fast.observe(state, np.full(n, viewer), obs[viewer])
            live = fast.current_player(state) != TERMINAL
            for b in range(n):
                assert_same(ref, fast, refs[b], state, b, mask, obs)
                checked += 1
            assert not fast.truncated(state).any()
            assert (state.plies[live] < fast.max_game_length).all()
            if not live.any():
                break
            actions = np.full(n, fast.reference.pass_action, dtype=np.int64)
            for b in np.flatnonzero(live):
                legal = np.flatnonzero(mask[b])
                placing = legal[legal != fast.reference.pass_action]
                if pass_rate[b] >= 0 and placing.size and rng.random() >= pass_rate[b]:
                    actions[b] = placing[rng.integers(placing.size)]
                else:
                    actions[b] = legal[rng.integers(legal.size)]
            before_plies = state.plies.copy()
            fast.apply(state, actions)
            assert (state.plies == before_plies + live).all()
            for b in np.flatnonzero(live):
                chance = FedChance(int(state.roll[b]))
                ref.apply(refs[b], int(actions[b]), chance)
                if ply == rebuild_at[b]:
                    fast.from_reference(refs[b], state, b)
                    state.plies[b] = before_plies[b] + 1
    return checked


@pytest.mark.parametrize("options", OPTION_SETS, ids=IDS)
def test_random_games_match_the_reference(options):
    checked = run_differential(options, GAMES_PER_OPTION_SET, seed=len(IDS[OPTION_SETS.index(options)]))
    assert checked > GAMES_PER_OPTION_SET * 27


@pytest.mark.parametrize("options", OPTION_SETS, ids=IDS)
def test_from_reference_matches_the_reference_games(options):
    """Positions of games the reference engine plays with its own generator, copied into a batch row."""
    ref = BeastyBordersGame(**options)
    fast = BeastyBordersBatched(**options)
    check_from_reference_games(
        ref, fast, 6, 7, lambda s, state, row, mask, views: assert_same(ref, fast, s, state, row, mask, views)
    )


def test_look_ahead_corner_cases_match_the_reference():
    """The rule tests' corner cases of the spaces block, copied into a batch row: only the marker's space a1 and
    f9 empty (every look-ahead row is f9's), the marker on the last empty space (rows 1..8 zeros), and a spaces
    block with groups of both sides next to the marker."""
    ref = BeastyBordersGame()
    fast = BeastyBordersBatched()
    two_left = [".##~####~", "#~#######", "~#######~", "#~#~##~##", "#~#####~A", "##~##~#A."]
    one_left = ["###~####~"] + two_left[1:]
    lakes = ["....~...~", "..~......", "...~.....", "~...~..~.", "~...~...~", ".....~~.."]
    positions = [
        render.state_from_text(ref, ["AA.X~...~"] + lakes[1:], marker="a3", roll=3),
        render.state_from_text(ref, two_left, marker="a1"),
        render.state_from_text(ref, two_left, marker="f9"),
        render.state_from_text(ref, one_left, marker="f9"),
    ]
    state = fast.new_state(1)
    mask = np.zeros((1, fast.num_actions), dtype=bool)
    obs = np.zeros((2, 1, *fast.observation_shape), dtype=np.float32)
    for s in positions:
        fast.from_reference(s, state, 0)
        fast.legal_mask(state, mask)
        for viewer in range(2):
            fast.observe(state, np.full(1, viewer), obs[viewer])
        assert_same(ref, fast, s, state, 0, mask, obs)
    width = ref.layout.space_width
    assert obs[:, 0, ref.layout.spaces :].any() and not obs[:, 0, ref.layout.spaces + width :].any()  # the last


# ----- the vector env -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", OPTION_SETS, ids=IDS)
def test_vector_env_auto_reset_final_obs_and_rewards_match_the_reference(options):
    """Through VectorEnv: each game ends with the reference's rewards and final observation (the last mover's
    view), and the row is already a new game whose observation is the reference's."""
    ref = BeastyBordersGame(**options)
    n = 12
    venv = beasty_borders_v0.vector_env(n, **options)
    obs, info = venv.reset(seed=3)
    refs = [reference_start(ref, venv.game, venv.state, b) for b in range(n)]
    rng = np.random.default_rng(0)
    ended = 0
    while ended < 3 * n:
        for b in range(n):
            seat = ref.current_player(refs[b])
            assert info["current_player"][b] == seat
            assert np.array_equal(obs[b], ref.observation(refs[b], seat))
            assert np.array_equal(info["action_mask"][b], ref.legal_mask(refs[b]).astype(bool))
        actions = np.array([rng.choice(np.flatnonzero(info["action_mask"][b])) for b in range(n)])
        movers = info["current_player"].copy()
        obs, rewards, terminated, truncated, info = venv.step(actions)
        assert obs.dtype == np.float32 and rewards.shape == (n, 2) and not truncated.any()
        for b in range(n):
            if terminated[b]:
                # the reference game's last roll is not drawn (the landscape is full)
                ref.apply(refs[b], int(actions[b]), FedChance(0))
                assert ref.is_terminal(refs[b]) and info["_final_obs"][b]
                assert rewards[b].tolist() == ref.returns(refs[b]).tolist()
                assert np.array_equal(info["final_obs"][b], ref.observation(refs[b], int(movers[b])))
                refs[b] = reference_start(ref, venv.game, venv.state, b)
                ended += 1
            else:
                ref.apply(refs[b], int(actions[b]), FedChance(int(venv.state.roll[b])))
                assert not ref.is_terminal(refs[b])
                assert (rewards[b] == 0).all()
                assert "_final_obs" not in info or not info["_final_obs"][b]


def test_vector_env_observe_gives_every_seats_view():
    venv = beasty_borders_v0.vector_env(4, variant="without_luck")
    venv.reset(seed=2)
    ref = venv.game.reference
    for seats in ([0, 1, 0, 1], [1, 1, 0, 0]):
        views = venv.observe(np.array(seats))
        for b, seat in enumerate(seats):
            assert np.array_equal(views[b], ref.observation(venv.game.to_reference(venv.state, b), seat))
    with pytest.raises(ValueError, match="seats"):
        venv.observe(np.array([0, 1, 2, 0]))


@pytest.mark.parametrize("options", OPTION_SETS[::3], ids=IDS[::3])
def test_same_seed_same_games(options):
    def play(seed: int) -> list[np.ndarray]:
        venv = beasty_borders_v0.vector_env(6, **options)
        obs, info = venv.reset(seed=seed)
        out = [obs]
        for step in range(150):
            mask = info["action_mask"]
            actions = np.array([np.flatnonzero(mask[b])[step % mask[b].sum()] for b in range(6)])
            obs, _, _, _, info = venv.step(actions)
            out.append(obs)
        return out

    a, b, c = play(11), play(11), play(12)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_illegal_action_refused_with_no_change():
    venv = beasty_borders_v0.vector_env(3, variant="without_luck")
    _, info = venv.reset(seed=5)
    mask = info["action_mask"]
    bad = int(np.flatnonzero(~mask[2])[0])
    before = [f.copy() for f in venv.state]
    for actions in ([28, 28, bad], [28, 28, 29], [28, -1, 28], [28, 28]):
        with pytest.raises(IllegalActionError):
            venv.step(np.array(actions))
    for x, y in zip(before, venv.state):
        assert np.array_equal(x, y)
    assert np.array_equal(venv.action_mask, mask)


def test_bad_options_raise_the_references_config_error():
    for bad in ({"variant": "lucky"}, {"path_order": "spiral"}):
        with pytest.raises(ConfigError) as fast_err:
            beasty_borders_v0.vector_env(2, **bad)
        with pytest.raises(ConfigError) as ref_err:
            BeastyBordersGame(**bad)
        assert str(fast_err.value) == str(ref_err.value)
    with pytest.raises(TypeError):
        beasty_borders_v0.vector_env(2, players=3)
    with pytest.raises(ValueError, match="num_envs"):
        beasty_borders_v0.vector_env(0)
    venv = beasty_borders_v0.vector_env(2, path_order="snake")
    assert venv.game.options() == {"variant": "main", "path_order": "snake"}
    assert venv.single_observation_space.shape == (568,) and venv.single_action_space.n == 4


def test_the_coming_dice_are_not_in_the_observation():
    """Two games that differ only in their generators (the rolls still to come) look the same to both seats,
    and after the same move they differ only where the new roll shows."""
    fast = BeastyBordersBatched()
    state = fast.new_state(2)
    state.rng[:] = seed_states(4, 1)[0]
    fast.reset_rows(state, np.arange(2))  # both rows: the same tiles and first roll
    state.rng[1] = seed_states(5, 1)[0]
    for seat in range(2):
        out = np.zeros((2, 568), dtype=np.float32)
        fast.observe(state, np.full(2, seat), out)
        assert np.array_equal(out[0], out[1])


# ----- chance ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["main", "without_luck"])
def test_tiles_and_dice_are_drawn_uniformly(variant):
    fast = BeastyBordersBatched(variant=variant)
    n = 20_000
    state = fast.new_state(n)
    state.rng[:] = seed_states(9, n)
    fast.reset_rows(state, np.arange(n))
    tiles = state.tiles.astype(np.int64)
    assert all(len(set(row)) == fast.reference.num_tiles and SIGNPOST_TILE in row for row in tiles.tolist())
    # each tile in each slot: main 1/9; variant: the signpost tile 1/6, any other 5/8 * 1/6
    share = np.stack([(tiles == t).mean(axis=0) for t in range(len(TILES))])
    expect = (
        np.full_like(share, 1 / 9)
        if variant == "main"
        else np.where(np.arange(len(TILES))[:, None] == SIGNPOST_TILE, 1 / 6, 5 / 48)
    )
    assert np.abs(share - expect).max() < 0.015  # about 6 standard errors
    fast.apply(state, np.full(n, fast.reference.pass_action))  # variant: the roller passes (no roll yet)
    if variant == "without_luck":
        fast.apply(state, np.full(n, fast.reference.pass_action))
    rolls = np.bincount(state.roll, minlength=9)[1:] / n
    assert np.abs(rolls - 1 / 8).max() < 0.015


# ----- the search baseline's compiled playout ------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["main", "without_luck"])
def test_greedy_actions_follow_the_reference_greedy_rule(variant):
    """On positions of random games, the compiled greedy choice is one the reference greedy_choice makes (ties
    are broken at random by both: the reference is asked with several generators)."""
    ref = BeastyBordersGame(variant=variant)
    fast = BeastyBordersBatched(variant=variant)
    rng = np.random.default_rng(1)
    state = fast.new_state(1)
    state.rng[:] = seed_states(1, 1)
    ties = 0
    for _ in range(4):
        s = ref.initial_state(rng)
        while not ref.is_terminal(s):
            legal = ref.legal_actions(s)
            seat = ref.current_player(s)
            choices = {greedy_choice(ref, s, seat, legal, np.random.default_rng(k)) for k in range(12)}
            fast.from_reference(s, state, 0)
            before = state.rng.copy()
            draws, out = seed_states(7, 1), np.empty(1, dtype=np.int64)
            picked = set()
            for _ in range(12):
                fast.greedy_actions(state, draws, out)
                picked.add(int(out[0]))
            assert np.array_equal(state.rng, before)  # ties come from the given generator, not the game's
            assert picked <= choices and (len(choices) > 1 or picked == choices)
            ties += len(choices) > 1
            ref.apply(s, legal[rng.integers(len(legal))], rng)
    assert ties > 0


@pytest.mark.parametrize("variant", ["main", "without_luck"])
def test_playout_plays_legal_games_to_the_end(variant):
    ref = BeastyBordersGame(variant=variant)
    fast = BeastyBordersBatched(variant=variant)
    state = fast.new_state(4)
    state.rng[:] = seed_states(2, 4)
    fast.reset_rows(state, np.arange(4))
    assert playout(fast, state, 0, max_depth=5) == 5 and state.plies[0] == 5
    for b in range(4):
        playout(fast, state, b, epsilon=[0.0, 0.1, 1.0, 0.1][b])
        assert state.empty_count[b] == 0
        s = fast.to_reference(state, b)
        s2 = ref.state_from_json(ref.state_to_json(s))  # the snapshot checks count every figure
        assert ref.is_terminal(s2) and ref.scores(s2).tolist() == state.vp[b].tolist()


def test_compiled_search_visits_like_the_reference_search():
    """The compiled search (BordersMCTS with compiled=True) and the reference one on rules.py spread their root
    visits alike (summed over 3 seeds at budget 200; they draw different random numbers), on positions late in
    greedy games (short playouts keep the reference quick)."""
    from envs.common import mcts

    roots = []

    class RecordedNode(mcts._Node):
        def __init__(self, num_players):
            super().__init__(num_players)
            roots.append(self)

    for variant in ("main", "without_luck"):
        game = BeastyBordersGame(variant=variant)
        rng = np.random.default_rng(3)
        s = game.initial_state(rng)
        greedy = GreedyPolicy(game, seed=0)
        positions = []
        while not game.is_terminal(s):
            decision = decision_from_state(game, s)
            if len(s.empty) <= 16 and decision.legal_actions().size > 1:
                positions.append(decision)
            game.apply(s, greedy.act(decision), rng)
        for decision in positions[:2]:
            reference = np.zeros(game.num_actions)
            compiled = np.zeros(game.num_actions)
            for seed in range(3):
                roots.clear()
                with pytest.MonkeyPatch.context() as patch:
                    patch.setattr(mcts, "_Node", RecordedNode)
                    search_policy(game, seed=seed, budget=200, compiled=False).act(decision)
                for a, child in roots[0].children.items():
                    reference[a] += child.visits
                policy = search_policy(game, seed=seed, budget=200)
                visits = np.zeros(game.num_actions, dtype=np.int64)
                action = policy.compiled(decision.info_state, np.random.default_rng(seed), root_visits=visits)
                assert decision.action_mask[action] and visits[action] == visits.max() and visits.sum() == 200
                compiled += visits
            assert set(np.flatnonzero(compiled)) == set(np.flatnonzero(reference))
            assert 0.5 * np.abs(reference / reference.sum() - compiled / compiled.sum()).sum() < 0.2


def main() -> None:
    differential_sweep(OPTION_SETS, IDS, run_differential, default_games=5000)


if __name__ == "__main__":
    main()

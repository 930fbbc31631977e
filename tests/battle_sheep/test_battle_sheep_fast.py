"""The batched compiled engine (envs/battle_sheep/fast.py) against the reference rules.py, game for game.

Both engines are driven with the same actions. The only chance, ``pasture="random"``'s build, is drawn by the
batched engine's generators and fed to the reference through :class:`~envs.common.fastrng.MirrorRng` (the same
``below(count)`` draws over the same legal tiles). After every decision both must agree on everything a player or a
trainer sees: the legal mask (against the readable ``legal_mask_python``), every seat's observation, the seat to
move, rewards, truncation, shaping potential and the whole state (through ``to_reference``). The batched
observation is compared with the reference's ``observation`` (the compiled kernel on the reference's state), and on
a sample of positions with the readable ``observation_numpy`` too (the property tests compare those two on every
position of their games).

A longer sweep: ``python tests/battle_sheep/test_battle_sheep_fast.py --games 2000`` (every option set).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from envs import battle_sheep_v0
from envs.battle_sheep.fast import BattleSheepBatched
from envs.battle_sheep.kernels import STATE
from envs.battle_sheep.observation import observation_numpy
from envs.battle_sheep.render import board_from_text
from envs.battle_sheep.rules import BattleSheepGame, BattleSheepState
from envs.battle_sheep.search import playout
from envs.common.fastrng import MirrorRng, seed_states
from envs.common.game import TERMINAL, ConfigError, IllegalActionError, SnapshotError
from envs.common.testing import check_from_reference_games, differential_sweep

OPTION_SETS = [
    {"num_players": n, "pasture": p, "end_rule": e}
    for n in (2, 3, 4)
    for p in ("build", "random")
    for e in ("battle_sheep", "splits")
    if e == "battle_sheep" or n == 2
] + [
    {"num_players": 2, "pasture": "build", "end_rule": "battle_sheep", "canvas_radius": 6},
    {"num_players": 2, "pasture": "random", "end_rule": "splits", "canvas_radius": 9},
    {"num_players": 3, "pasture": "random", "end_rule": "battle_sheep", "canvas_radius": 7},
    {"num_players": 4, "pasture": "build", "end_rule": "battle_sheep", "canvas_radius": 7},
    {"num_players": 4, "pasture": "random", "end_rule": "battle_sheep", "canvas_radius": 16},
]
IDS = [
    "{num_players}p-{pasture}-{end_rule}".format(**o) + (f"-r{o['canvas_radius']}" if "canvas_radius" in o else "")
    for o in OPTION_SETS
]
GAMES_PER_OPTION_SET = 100


def reference_start(ref: BattleSheepGame, rng_state: np.uint64):
    """The reference engine's initial state, its random pasture (if any) drawn as the batched row drew it from a
    generator that started in ``rng_state``."""
    return ref.initial_state(MirrorRng(rng_state))


def assert_same(
    ref: BattleSheepGame,
    fast: BattleSheepBatched,
    ref_state,
    state,
    b: int,
    mask: np.ndarray,
    views: np.ndarray,
    readable: bool,
) -> None:
    """Row ``b`` of the batched engine (its mask ``mask[b]`` and every seat's observation ``views[:, b]``) agrees
    with the reference state in everything observable; ``readable``: also against ``observation_numpy``."""
    seat = ref.current_player(ref_state)
    assert fast.current_player(state)[b] == seat
    assert np.array_equal(mask[b], ref.legal_mask_python(ref_state).astype(bool))
    for viewer in range(ref.num_players):
        assert np.array_equal(views[viewer, b], ref.observation(ref_state, viewer)), f"seat {viewer}'s view"
        if readable:
            assert np.array_equal(views[viewer, b], observation_numpy(ref, ref_state, viewer)), f"seat {viewer}"
    assert fast.returns(state)[b].tolist() == ref.returns(ref_state).tolist()
    assert fast.scores(state)[b].tolist() == ref.scores(ref_state).tolist()
    assert fast.shaping_potential(state)[b].tolist() == ref.shaping_potential(ref_state).tolist()
    assert ref.state_to_json(fast.to_reference(state, b)) == ref.state_to_json(ref_state)


def run_differential(options: dict, games: int, seed: int, batch: int = 24) -> int:
    """Play ``games`` random games in both engines (batches of ``batch``), checking every decision; returns the
    decisions checked. In one game of four the row is rebuilt from the reference state (from_reference) at a
    random ply, so that the engine also continues from positions it did not reach itself; every third decision
    writes the mask into a fresh array (a whole write) instead of the previous one (an update in place)."""
    ref = BattleSheepGame(**options)
    fast = BattleSheepBatched(**options)
    n = ref.num_players
    rng = np.random.default_rng(seed)
    checked = 0
    for first in range(0, games, batch):
        rows = min(batch, games - first)
        state = fast.new_state(rows)
        state.rng[:] = seed_states(seed * 1_000_003 + first, rows)
        starts = state.rng.copy()
        fast.reset_rows(state, np.arange(rows))
        refs = [reference_start(ref, starts[b]) for b in range(rows)]
        rebuild_at = np.where(rng.random(rows) < 0.25, rng.integers(0, 40, size=rows), -1)
        mask = np.zeros((rows, fast.num_actions), dtype=bool)
        views = np.zeros((n, rows, *fast.observation_shape), dtype=np.float32)
        for ply in itertools.count():
            if ply % 3 == 2:
                mask = np.zeros((rows, fast.num_actions), dtype=bool)
            fast.legal_mask(state, mask)
            for viewer in range(n):
                fast.observe(state, np.full(rows, viewer), views[viewer])
            live = fast.current_player(state) != TERMINAL
            for b in range(rows):
                assert_same(ref, fast, refs[b], state, b, mask, views, readable=(ply + b) % 7 == 0)
                checked += 1
            assert not fast.truncated(state).any()
            if not live.any():
                break
            actions = np.zeros(rows, dtype=np.int64)
            for b in np.flatnonzero(live):
                legal = np.flatnonzero(mask[b])
                actions[b] = legal[rng.integers(legal.size)]
            before = state.plies.copy()
            fast.apply(state, actions)
            assert (state.plies == before + live).all()
            for b in np.flatnonzero(live):
                ref.apply(refs[b], int(actions[b]))
                if ply == rebuild_at[b]:
                    fast.from_reference(refs[b], state, b)
    return checked


@pytest.mark.parametrize("options", OPTION_SETS, ids=IDS)
def test_random_games_match_the_reference(options):
    checked = run_differential(options, GAMES_PER_OPTION_SET, seed=IDS.index(IDS[OPTION_SETS.index(options)]) + 1)
    assert checked > GAMES_PER_OPTION_SET * 20


@pytest.mark.parametrize("options", OPTION_SETS[:8:3], ids=IDS[:8:3])
def test_from_reference_matches_the_reference_games(options):
    """Positions of games the reference engine plays with its own generator (its own random pastures), copied into
    a batch row at every decision."""
    ref = BattleSheepGame(**options)
    fast = BattleSheepBatched(**options)
    check_from_reference_games(
        ref,
        fast,
        3,
        7,
        lambda s, state, row, mask, views: assert_same(ref, fast, s, state, row, mask, views, readable=True),
    )


HOLE_BOARD = """
 .  .  .  .
   .  .  .  .
 .  .  _  .  .
   .  .  .  .
 .  .  .  .
"""
BOARDS = [
    (2, "battle_sheep", HOLE_BOARD, 0),  # stack placement next to an interior hole
    (
        2,
        "battle_sheep",
        """
A1 A1 A1 A1 A1 A1
  A1 A1 A1 A1 B1 B1
B1 B1 B1 B1 B1 B1
  B1 A1 A1 A1 A1 A1
_  _  _  _  _  .
  B1 B1 B1 B1 B1 B1
""",
        0,
    ),  # the rulebook's tie: 15 pastures each, herds 10 and 9
    (2, "battle_sheep", "A1 A1 _ B1 B1 _ A1 B1", 0),  # a full tie: a draw
    (4, "battle_sheep", "A1 A1 A1 _ B1 B1 _ C1 C1 _ D1", 0),  # four players, two tied in the middle
    (3, "battle_sheep", "A5 B1 C3 .  .", 0),  # A blocked, B a single sheep: C moves
    (2, "splits", "A2 .  B1 .  B1 .  B1", 0),  # splits: B cannot move after A's move and loses
    (2, "battle_sheep", "A2 .  B1 .  B1 .  B1", 0),
]


@pytest.mark.parametrize("players, end_rule, text, to_move", BOARDS)
def test_hand_made_positions_match_the_reference(players, end_rule, text, to_move):
    """The rule tests' boards (holes, ties broken by herds, draws, blocked seats, splits), copied into a row and
    played out with every legal action in turn."""
    ref = BattleSheepGame(num_players=players, end_rule=end_rule)
    fast = BattleSheepBatched(num_players=players, end_rule=end_rule)
    start = board_from_text(ref, text, to_move=to_move)
    state = fast.new_state(1)
    mask = np.zeros((1, fast.num_actions), dtype=bool)
    views = np.zeros((players, 1, *fast.observation_shape), dtype=np.float32)
    rng = np.random.default_rng(0)
    s = ref.clone(start)
    fast.from_reference(s, state, 0)
    while True:
        fast.legal_mask(state, mask)
        for viewer in range(players):
            fast.observe(state, np.full(1, viewer), views[viewer])
        assert_same(ref, fast, s, state, 0, mask, views, readable=True)
        if ref.is_terminal(s):
            break
        legal = ref.legal_actions(s)
        action = legal[rng.integers(len(legal))]
        ref.apply(s, action)
        fast.apply(state, np.array([action]))
    assert ref.is_terminal(s)


def test_mask_written_whole_or_in_place_is_the_same():
    """The mask updated in place (the previous call's array) equals one written whole, step after step, and an array
    changed by another call in between is written whole again."""
    fast = BattleSheepBatched(num_players=3, pasture="random")
    state = fast.new_state(16)
    state.rng[:] = seed_states(5, 16)
    fast.reset_rows(state, np.arange(16))
    kept = np.zeros((16, fast.num_actions), dtype=bool)
    other = np.zeros_like(kept)
    rng = np.random.default_rng(2)
    for ply in range(80):
        fast.legal_mask(state, kept)
        fresh = np.ones_like(kept)  # garbage to be overwritten
        fast.legal_mask(state, fresh)
        assert np.array_equal(kept, fresh)
        if ply % 5 == 0:
            fast.legal_mask(state, other)  # another array in between: the next call on `kept` writes it whole
        seats = fast.current_player(state)
        if (seats == TERMINAL).all():
            break
        actions = np.array(
            [np.flatnonzero(fresh[b])[rng.integers(fresh[b].sum())] if seats[b] != TERMINAL else 0 for b in range(16)]
        )
        fast.apply(state, actions)
        over = np.flatnonzero(fast.current_player(state) == TERMINAL)
        fast.reset_rows(state, over[: len(over) // 2])


# ----- the vector env -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [OPTION_SETS[0], OPTION_SETS[5], OPTION_SETS[3]], ids=[IDS[0], IDS[5], IDS[3]])
@pytest.mark.parametrize("copy", [True, False])
def test_vector_env_auto_reset_final_obs_and_rewards_match_the_reference(options, copy):
    """Through VectorEnv: each game ends with the reference's rewards and final observation (the last mover's
    view), the row is already a new game whose observation is the reference's, and rows that did not end have an
    all-zero final observation (also when the buffer is reused, copy=False)."""
    ref = BattleSheepGame(**options)
    n = 8
    venv = battle_sheep_v0.vector_env(n, **options)
    venv.copy = copy
    starts = seed_states(3, n)
    obs, info = venv.reset(seed=3)
    refs = [reference_start(ref, starts[b]) for b in range(n)]
    rng = np.random.default_rng(0)
    ended = 0
    while ended < 2 * n:
        for b in range(n):
            seat = ref.current_player(refs[b])
            assert info["current_player"][b] == seat
            assert np.array_equal(obs[b], ref.observation(refs[b], seat))
            assert np.array_equal(info["action_mask"][b], ref.legal_mask_python(refs[b]).astype(bool))
        actions = np.array([rng.choice(np.flatnonzero(info["action_mask"][b])) for b in range(n)])
        movers = info["current_player"].copy()
        rng_before = venv.state.rng.copy()
        obs, rewards, terminated, truncated, info = venv.step(actions)
        assert obs.dtype == np.float32 and rewards.shape == (n, ref.num_players) and not truncated.any()
        for b in range(n):
            ref.apply(refs[b], int(actions[b]))
            if terminated[b]:
                assert ref.is_terminal(refs[b]) and info["_final_obs"][b]
                assert rewards[b].tolist() == ref.returns(refs[b]).tolist()
                assert np.array_equal(info["final_obs"][b], ref.observation(refs[b], int(movers[b])))
                refs[b] = reference_start(ref, rng_before[b])
                ended += 1
            else:
                assert not ref.is_terminal(refs[b]) and (rewards[b] == 0).all()
                if "_final_obs" in info:
                    assert not info["_final_obs"][b] and not info["final_obs"][b].any()


def test_vector_env_truncates_at_the_ply_cap_and_restarts():
    venv = battle_sheep_v0.vector_env(4)
    venv.game.max_game_length = 12
    obs, info = venv.reset(seed=1)
    for step in range(12):
        actions = np.array([np.flatnonzero(info["action_mask"][b])[0] for b in range(4)])
        obs, rewards, terminated, truncated, info = venv.step(actions)
        assert not terminated.any() and (rewards == 0).all()
        assert truncated.all() == (step == 11)
    assert info["_final_obs"].all() and (venv.state.plies == 0).all()


def test_vector_env_observe_gives_every_seats_view():
    venv = battle_sheep_v0.vector_env(4, num_players=3)
    venv.reset(seed=2)
    for _ in range(17):  # 12 tiles and 3 stacks, then moves
        venv.step(np.array([np.flatnonzero(venv.action_mask[b])[-1] for b in range(4)]))
    ref = venv.game.reference
    for seats in ([0, 1, 2, 0], [2, 2, 1, 0]):
        views = venv.observe(np.array(seats))
        for b, seat in enumerate(seats):
            assert np.array_equal(views[b], observation_numpy(ref, venv.game.to_reference(venv.state, b), seat))
    with pytest.raises(ValueError, match="seats"):
        venv.observe(np.array([0, 1, 3, 0]))


@pytest.mark.parametrize("pasture", ["build", "random"])
def test_same_seed_same_games(pasture):
    def play(seed: int) -> list[np.ndarray]:
        venv = battle_sheep_v0.vector_env(5, pasture=pasture)
        obs, info = venv.reset(seed=seed)
        out = [obs]
        for step in range(60):
            mask = info["action_mask"]
            actions = np.array([np.flatnonzero(mask[b])[(7 * step) % mask[b].sum()] for b in range(5)])
            obs, _, _, _, info = venv.step(actions)
            out.append(obs)
        return out

    a, b = play(11), play(11)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    if pasture == "random":  # the seed decides the pastures
        c = play(12)
        assert not np.array_equal(a[0], c[0])


def test_random_pastures_differ_between_games_and_are_legal_builds():
    fast = BattleSheepBatched(pasture="random")
    state = fast.new_state(40)
    state.rng[:] = seed_states(8, 40)
    fast.reset_rows(state, np.arange(40))
    ref = fast.reference
    shapes = set()
    for b in range(40):
        s = fast.to_reference(state, b)
        assert s.num_pasture == 32 and s.phase == 1 and s.plies == 0 and s.last_action == -1
        assert ref.state_to_json(ref.state_from_json(ref.state_to_json(s))) == ref.state_to_json(s)
        shapes.add(tuple(np.flatnonzero(state.cells[b] != -2)))
    assert len(shapes) == 40


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_written_out_reference_state_follows_the_declaration(players):
    """``rules.BattleSheepState`` is written out (``kernels.STATE`` says why): it holds every reference field of the
    declaration, a fresh one their fresh values (``fill``, in the declared containers), and the snapshots hold
    exactly those fields, the phase by its name and ``can_move`` as bools."""
    game = BattleSheepGame(num_players=players)
    fresh = game.blank_state()
    assert {f.name for f in STATE.reference_fields} <= set(BattleSheepState.__slots__)
    for f in STATE.converted:
        value = STATE.fresh_value(f, game.layout_sizes)
        assert type(getattr(fresh, f.name)) is type(value) and getattr(fresh, f.name) == value, f.name
    assert fresh.stacks == [[] for _ in range(players)] and fresh.can_move == [True] * players
    data = game.state_to_json(fresh)
    assert list(data) == [
        "phase",
        "to_move",
        "cells",
        "heights",
        "stacks",
        "tiles_left",
        "stacks_placed",
        "can_move",
        "plies",
        "last_action",
    ]
    assert data["phase"] == "build" and data["can_move"] == [True] * players
    with pytest.raises(SnapshotError, match="damaged.*phase"):
        game.state_from_json({**data, "phase": 0})
    with pytest.raises(SnapshotError, match="damaged.*unknown"):
        game.state_from_json({**data, "extra": 1})


def test_illegal_action_refused_with_no_change():
    venv = battle_sheep_v0.vector_env(3)
    _, info = venv.reset(seed=5)
    mask = info["action_mask"].copy()
    legal = [int(np.flatnonzero(mask[b])[0]) for b in range(3)]
    bad = int(np.flatnonzero(~mask[2])[0])
    before = [f.copy() for f in venv.state]
    for actions in (
        [legal[0], legal[1], bad],
        [legal[0], -1, legal[2]],
        [legal[0], legal[1], venv.num_actions],
        [legal[0], legal[1]],
    ):
        with pytest.raises(IllegalActionError):
            venv.step(np.array(actions))
    with pytest.raises(IllegalActionError):
        venv.step(np.array([0.0, 1.0, 2.0]))
    for x, y in zip(before, venv.state):
        assert np.array_equal(x, y)
    assert np.array_equal(venv.action_mask, mask)
    venv.step(np.array(legal))  # and the game goes on from there


def test_bad_options_raise_the_references_config_error():
    for bad in (
        {"num_players": 5},
        {"pasture": "hex"},
        {"end_rule": "chess"},
        {"num_players": 3, "end_rule": "splits"},
        {"canvas_radius": 5},
        {"canvas_radius": 17},
    ):
        with pytest.raises(ConfigError) as fast_err:
            battle_sheep_v0.vector_env(2, **bad)
        with pytest.raises(ConfigError) as ref_err:
            BattleSheepGame(**bad)
        assert str(fast_err.value) == str(ref_err.value)
    with pytest.raises(TypeError):
        battle_sheep_v0.vector_env(2, players=3)
    with pytest.raises(ValueError, match="num_envs"):
        battle_sheep_v0.vector_env(0)
    venv = battle_sheep_v0.vector_env(2, num_players=3, canvas_radius=8)
    assert venv.game.options() == {"num_players": 3, "pasture": "build", "end_rule": "battle_sheep", "canvas_radius": 8}
    assert venv.single_observation_space.shape == (24, 17, 17) and venv.single_action_space.n == 94 * 217


# ----- the search baseline's compiled playouts and tree -----------------------------------------------------------
@pytest.mark.parametrize("options", [OPTION_SETS[0], OPTION_SETS[5], OPTION_SETS[7]], ids=[IDS[0], IDS[5], IDS[7]])
def test_playout_plays_games_to_a_consistent_end(options):
    ref = BattleSheepGame(**options)
    fast = BattleSheepBatched(**options)
    state = fast.new_state(4)
    state.rng[:] = seed_states(2, 4)
    fast.reset_rows(state, np.arange(4))
    plies = playout(fast, state, 0, max_depth=3)
    assert plies == 3 and state.plies[0] == 3
    lengths = set()
    for b in range(4):
        start = int(state.plies[b])
        lengths.add(start + playout(fast, state, b))
        s = fast.to_reference(state, b)
        snapshot = ref.state_to_json(s)
        s2 = ref.state_from_json(snapshot)  # the snapshot checks sizes and owners
        assert ref.is_terminal(s2) and ref.state_to_json(s2) == snapshot
        assert all(sum(s2.heights[c] for c in s2.stacks[seat]) == 16 for seat in range(ref.num_players))
        assert fast.returns(state)[b].tolist() == ref.returns(s2).tolist()
    assert len(lengths) > 1


def test_playout_draws_every_legal_action_uniformly():
    """From one position, the first playout move is each legal action about equally often."""
    ref = BattleSheepGame()
    fast = BattleSheepBatched()
    s = board_from_text(
        ref,
        """
    .  .  A3 .  .
      .  .  B2 .  .
    """,
    )
    legal = ref.legal_actions(s)
    rows = 6000
    state = fast.new_state(rows)
    for b in range(rows):
        fast.from_reference(s, state, b)
    state.rng[:] = seed_states(4, rows)
    for b in range(rows):
        playout(fast, state, b, max_depth=1)
    firsts = state.last_action
    counts = np.array([(firsts == a).sum() for a in legal])
    assert counts.sum() == rows and counts.min() > 0
    expected = rows / len(legal)
    assert np.abs(counts - expected).max() < 5 * np.sqrt(expected)


@pytest.mark.parametrize("options", [{}, {"num_players": 3, "pasture": "random"}, {"end_rule": "splits"}])
def test_row_functions_agree_with_the_engines(options):
    """The row functions of the compiled contract (envs.common.fastsearch.ROW_FUNCTIONS) and legal_tiles_row, one
    row at a time, agree with the batched engine (mover, legal mask and count, returns) and the reference (apply)
    on random games of every phase; copy_row copies the game, random_action_row plays legal moves."""
    from envs.battle_sheep.fast import (
        apply_row,
        copy_row,
        legal_row,
        legal_tiles_row,
        mover_row,
        random_action_row,
        returns_row,
    )

    fast = BattleSheepBatched(**options)
    ref, tab = fast.reference, fast.tables
    rows = 6
    spare = rows  # the last row receives the copies
    state = fast.new_state(rows + 1)
    state.rng[:] = seed_states(11, rows + 1)
    fast.reset_rows(state, np.arange(rows + 1))
    mask = np.zeros((rows + 1, fast.num_actions), dtype=bool)
    one = np.zeros(fast.num_actions, dtype=bool)
    tiles = np.zeros(3 * fast.num_cells, dtype=np.int64)
    out = np.zeros(fast.num_players)
    live = True
    while live:
        fast.legal_mask(state, mask)
        seats = fast.current_player(state)
        returns = fast.returns(state)
        live = False
        for b in range(rows):
            assert mover_row(state, tab, b) == (-1 if seats[b] == TERMINAL else seats[b])
            assert legal_row(state, tab, b, one) == mask[b].sum()
            assert (one == mask[b]).all()
            returns_row(state, tab, b, out)
            assert out.tolist() == returns[b].tolist()
            if seats[b] == TERMINAL:
                continue
            live = True
            n = legal_tiles_row(state, tab, b, tiles)
            if not mask[b, 3 * fast.num_cells :].any():  # the build phase: its legal actions are the tiles
                assert tiles[:n].tolist() == np.flatnonzero(mask[b]).tolist()
            copy_row(state, tab, b, spare)
            assert ref.state_to_json(fast.to_reference(state, spare)) == ref.state_to_json(fast.to_reference(state, b))
            a = random_action_row(state, tab, b)
            assert mask[b, a]
            expected = fast.to_reference(state, b)
            ref.apply(expected, int(a))
            apply_row(state, tab, b, a)
            assert ref.state_to_json(fast.to_reference(state, b)) == ref.state_to_json(expected)


def test_search_candidates_are_the_references():
    """The tree's candidate actions (compiled) are baselines.move_candidates, in order, on random positions of every
    phase."""
    from envs.battle_sheep.baselines import move_candidates
    from envs.battle_sheep.search import CompiledSearch

    ref = BattleSheepGame(num_players=3)
    search = CompiledSearch(ref, budget=1, exploration=1.0)
    rng = np.random.default_rng(5)
    for _ in range(4):
        s = ref.initial_state(rng)
        while not ref.is_terminal(s):
            assert search.candidates(s).tolist() == move_candidates(ref, s)
            legal = ref.legal_actions(s)
            ref.apply(s, legal[rng.integers(len(legal))])


def test_compiled_search_visits_like_the_reference_search():
    """The compiled search and the reference one on rules.py spread their root visits alike (summed over 6 seeds
    at budget 300; they draw different random numbers), on positions late in greedy games (short playouts keep
    the reference quick)."""
    from envs.battle_sheep.baselines import GreedyPolicy, search_policy
    from envs.common import mcts
    from envs.common.policies import decision_from_state

    roots = []

    class RecordedNode(mcts._Node):
        def __init__(self, num_players):
            super().__init__(num_players)
            roots.append(self)

    game = BattleSheepGame()
    rng = np.random.default_rng(3)
    s = game.initial_state(rng)
    greedy = GreedyPolicy(game, seed=0)
    positions = []
    while not game.is_terminal(s):
        decision = decision_from_state(game, s)
        if s.phase == 2 and sum(len(x) for x in s.stacks) >= 14 and decision.legal_actions().size > 1:
            positions.append(decision)
        game.apply(s, greedy.act(decision), rng)
    assert len(positions) >= 2
    for decision in positions[:2]:
        reference = np.zeros(game.num_actions)
        compiled = np.zeros(game.num_actions)
        for seed in range(6):
            roots.clear()
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(mcts, "_Node", RecordedNode)
                search_policy(game, seed=seed, budget=300, compiled=False).act(decision)
            for a, child in roots[0].children.items():
                reference[a] += child.visits
            policy = search_policy(game, seed=seed, budget=300)
            visits = np.zeros(game.num_actions, dtype=np.int64)
            action = policy.compiled(decision.info_state, np.random.default_rng(seed), root_visits=visits)
            assert decision.action_mask[action] and visits[action] == visits.max() and visits.sum() == 300
            compiled += visits
        assert set(np.flatnonzero(compiled)) == set(np.flatnonzero(reference))
        # two reference runs of 6 other seeds each differ by about 0.1 (total variation); 3 seeds each, 0.15
        assert 0.5 * np.abs(reference / reference.sum() - compiled / compiled.sum()).sum() < 0.2


def test_compiled_search_is_seeded_and_legal_in_every_phase():
    from envs.battle_sheep.baselines import search_policy
    from envs.common.policies import decision_from_state

    game = BattleSheepGame(num_players=3)
    rng = np.random.default_rng(9)
    s = game.initial_state(rng)
    a, b = search_policy(game, seed=4, budget=40), search_policy(game, seed=4, budget=40)
    phases = set()
    while not game.is_terminal(s):
        decision = decision_from_state(game, s)
        action = a.act(decision)
        assert decision.action_mask[action] and b.act(decision) == action
        phases.add(s.phase)
        game.apply(s, action)
    assert phases == {0, 1, 2}


def main() -> None:
    differential_sweep(OPTION_SETS, IDS, run_differential, default_games=2000)


if __name__ == "__main__":
    main()

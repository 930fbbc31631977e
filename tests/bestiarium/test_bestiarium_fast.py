"""The batched engine (``envs/bestiarium/fast.py``) against the reference ``rules.py``.

Random games over every option set, both engines driven with the same actions: identical legal masks, both seats'
observations, current player, rewards/returns, truncation, score (shaping potential) and whole state (through
``to_reference``), with rows swapped for ``from_reference`` copies of the reference mid-game. Shape recognition
gets its own checks: the compiled canonical forms count every polyhex up to size 6 under each equivalence, agree
with ``hexgrid.canonical_shape`` on random polyhexes and their images, and eating decisions against rotated and
mirrored rivals match the reference. Bestiarium has no chance and no hidden information (both seats see the
whole board), so there is nothing to copy between the engines and no hidden-information check to make.
A longer sweep: ``python tests/bestiarium/test_bestiarium_fast.py --games 2000`` (that many random games per option set,
all nine, with these checks every ply).
"""

from __future__ import annotations

import numpy as np
import pytest

from envs import bestiarium_v1
from envs.bestiarium import observation, render
from envs.bestiarium.fast import BestiariumBatched
from envs.bestiarium.observation import NUM_STONE_PLANES, score_planes_reference
from envs.bestiarium.rules import GROW, BestiariumGame
from envs.common.fastrng import seed_states
from envs.common.game import TERMINAL, ConfigError, IllegalActionError
from envs.common.hexgrid import DIRECTIONS, canonical_shape, transforms
from envs.common.vector import sample_legal

OPTION_SETS = [(size, eq) for size in (5, 6, 7) for eq in ("free", "one_sided", "fixed")]
GAMES_PER_SET = {5: 150, 6: 100, 7: 60}
"""Random games per option set in the suite (a few seconds each); the sweep script plays thousands."""

_ENGINES: dict[tuple[int, str], BestiariumBatched] = {}


def engine(size: int = 6, eq: str = "free") -> BestiariumBatched:
    key = (size, eq)
    if key not in _ENGINES:
        _ENGINES[key] = BestiariumBatched(board_size=size, shape_equivalence=eq)
    return _ENGINES[key]


def pick_actions(
    fg: BestiariumBatched, state, mask: np.ndarray, rows: list[int], rng: np.random.Generator
) -> np.ndarray:
    """Uniform random legal actions in even rows; in odd rows a 'grower' that mostly places next to its own
    stones (bigger creatures, more eating chains, larger shapes to compare)."""
    actions = np.zeros(mask.shape[0], dtype=np.int64)
    nbrs = fg.tables.nbrs
    padded = np.concatenate([state.color, np.zeros((state.color.shape[0], 1), dtype=np.uint8)], axis=1)
    own = state.to_move.astype(np.uint8)[:, None, None] + 1
    near = (padded[:, nbrs] == own).any(axis=2)  # (B, N): a cell next to one of the mover's stones
    for b in rows:
        legal = np.flatnonzero(mask[b])
        if b % 2 and legal.size > 1 and rng.random() < 0.8:
            grow = legal[(legal < fg.num_cells) & near[b, np.minimum(legal, fg.num_cells - 1)]]
            if grow.size:
                legal = grow
        actions[b] = legal[rng.integers(legal.size)]
    return actions


def play_differential(fg: BestiariumBatched, games: int, seed: int) -> dict[str, int]:
    """Play ``games`` random games in both engines at once, comparing everything every ply until each game ends
    (its final position included); returns counters of what the games went through."""
    ref: BestiariumGame = fg.reference
    state = fg.new_state(games)
    fg.reset_rows(state, np.arange(games))
    refs = [ref.initial_state() for _ in range(games)]
    rng = np.random.default_rng(seed)
    mask = np.zeros((games, fg.num_actions), dtype=bool)
    obs = np.zeros((2, games, *fg.observation_shape), dtype=np.float32)
    seen = {"plies": 0, "chains": 0, "passes": 0, "reloads": 0, "max_size": 0, "black_wins": 0, "white_wins": 0}
    active = list(range(games))
    ply = 0
    while active:
        fg.legal_mask(state, mask)
        for seat in (0, 1):
            fg.observe(state, np.full(games, seat), obs[seat])
        players = fg.current_player(state)
        returns = fg.returns(state)
        truncated = fg.truncated(state)
        potential = fg.shaping_potential(state)
        live = []
        for b in active:
            s = refs[b]
            for seat in (0, 1):
                assert np.array_equal(obs[seat, b], ref.observation(s, seat)), (b, seat, ply)
            assert players[b] == ref.current_player(s)
            assert np.array_equal(mask[b], ref.legal_mask(s).astype(bool)), (b, ply)
            assert np.array_equal(returns[b], ref.returns(s))
            assert truncated[b] == ref.is_truncated(s)
            done = players[b] == TERMINAL or truncated[b]
            if ply % 4 == b % 4 or done:
                assert np.array_equal(potential[b], ref.shaping_potential(s))
            if ply % 16 == b % 16 or done:
                assert ref.state_to_json(fg.to_reference(state, b)) == ref.state_to_json(s)
            if not done:
                live.append(b)
            elif ref.winner(s) >= 0:
                seen["black_wins" if ref.winner(s) == 0 else "white_wins"] += 1
        active = live
        if not live:
            break
        actions = pick_actions(fg, state, mask, live, rng)
        for b in live:
            ref.apply(refs[b], int(actions[b]))
            seen["plies"] += 1
            seen["chains"] += refs[b].phase == GROW
            seen["passes"] += int(actions[b]) == fg.num_cells
        fg.apply(state, actions)
        seen["max_size"] = max(seen["max_size"], int(state.size.max()))
        ply += 1
        if ply % 13 == 0:  # swap a few rows for copies loaded from the reference (slots renamed, lists rebuilt)
            for b in live[::5]:
                fg.from_reference(refs[b], state, b)
                seen["reloads"] += 1
    return seen


@pytest.mark.parametrize("size,eq", OPTION_SETS)
def test_random_games_match_the_reference(size, eq):
    games = GAMES_PER_SET[size]
    seen = play_differential(engine(size, eq), games, seed=1000 * size + len(eq))
    # the games did reach what matters: eating chains, forced passes, both results, creatures well past size 2
    assert seen["chains"] > games // 2 and seen["passes"] >= 2 * games
    assert seen["black_wins"] > 0 and seen["white_wins"] > 0
    assert seen["max_size"] >= 8 and seen["reloads"] > 0


# ----- shapes ---------------------------------------------------------------------------------------------------
def fixed_polyhexes(n: int) -> list[tuple[tuple[int, int], ...]]:
    """Every polyhex of ``n`` cells up to translation (axial coordinates, the first cell at the origin)."""

    def norm(cells):
        cells = sorted(cells)
        q0, r0 = cells[0]
        return tuple((q - q0, r - r0) for q, r in cells)

    level = {((0, 0),)}
    for _ in range(n - 1):
        nxt = set()
        for poly in level:
            have = set(poly)
            for q, r in poly:
                for dq, dr in DIRECTIONS:
                    c = (q + dq, r + dr)
                    if c not in have:
                        nxt.add(norm(have | {c}))
        level = nxt
    return sorted(level)


# Counts of polyhexes with n = 1..6 cells: OEIS A000228 (free), A006535 (one-sided), A001207 (fixed).
POLYHEX_COUNTS = {"free": [1, 1, 3, 7, 22, 82], "one_sided": [1, 1, 3, 10, 33, 147], "fixed": [1, 3, 11, 44, 186, 814]}


@pytest.mark.parametrize("eq", ["free", "one_sided", "fixed"])
def test_compiled_forms_count_every_polyhex_up_to_size_six(eq):
    fg = engine(7, eq)  # radius 6: a polyhex of 6 cells anchored at the centre fits
    index = fg.reference.grid.index
    for n, expected in enumerate(POLYHEX_COUNTS[eq], start=1):
        polys = fixed_polyhexes(n)
        assert len(polys) == POLYHEX_COUNTS["fixed"][n - 1]
        forms = {fg.shape_form([index[c] for c in poly]) for poly in polys}
        assert len(forms) == expected, (eq, n)
        # and the reference agrees on the same sets
        assert len({canonical_shape(poly, eq) for poly in polys}) == expected


def random_polyhex(grid, n: int, rng: np.random.Generator, start: int | None = None) -> list[int]:
    """``n`` connected cells grown at random from ``start`` (default the centre); the last one is a leaf."""
    cells = [grid.index[(0, 0)] if start is None else start]
    have = set(cells)
    while len(cells) < n:
        frontier = sorted({j for c in cells for j in grid.neighbor_lists[c] if j not in have})
        j = frontier[rng.integers(len(frontier))]
        cells.append(j)
        have.add(j)
    return cells


def image(grid, cells: list[int], t, shift: tuple[int, int]) -> list[int] | None:
    """``cells`` mapped by point map ``t`` about the centre then shifted; None if it leaves the board."""
    out = []
    for c in cells:
        q, r = t(grid.coords[c])
        j = grid.index.get((q + shift[0], r + shift[1]))
        if j is None:
            return None
        out.append(j)
    return out


def test_compiled_forms_agree_with_canonical_shape_on_random_polyhexes():
    rng = np.random.default_rng(7)
    all_maps = transforms("free")
    for eq in ("free", "one_sided", "fixed"):
        fg = engine(7, eq)
        grid = fg.reference.grid
        agree = {True: 0, False: 0}
        for _ in range(400):
            n = int(rng.integers(1, 15))
            a = random_polyhex(grid, n, rng)
            t = all_maps[rng.integers(len(all_maps))]
            shift = (int(rng.integers(-3, 4)), int(rng.integers(-3, 4)))
            b = image(grid, a, t, shift) or image(grid, a, t, (0, 0))
            c = random_polyhex(grid, n, rng)
            for other in (b, c):
                same_ref = canonical_shape([grid.coords[i] for i in a], eq) == canonical_shape(
                    [grid.coords[i] for i in other], eq
                )
                assert (fg.shape_form(a) == fg.shape_form(other)) == same_ref, (eq, a, other)
                agree[same_ref] += 1
        assert agree[True] > 50 and agree[False] > 50, (eq, agree)


def test_eating_rotated_and_mirrored_rivals_matches_the_reference():
    """Black completes a creature C next to a White creature that is an image of C (a random one of the 12
    symmetries, shifted to touch): the engines agree on whether it is eaten, under every equivalence."""
    rng = np.random.default_rng(11)
    all_maps = transforms("free")
    for eq in ("free", "one_sided", "fixed"):
        fg = engine(7, eq)
        ref = fg.reference
        grid = ref.grid
        state = fg.new_state(1)
        outcomes = {True: 0, False: 0}
        tried = 0
        while tried < 100:
            n = int(rng.integers(3, 9))
            c = random_polyhex(grid, n, rng, start=int(rng.integers(grid.num_cells)))
            t = all_maps[rng.integers(len(all_maps))]
            shift = (int(rng.integers(-n - 1, n + 2)), int(rng.integers(-n - 1, n + 2)))
            e = image(grid, c, t, shift)
            if e is None or set(e) & set(c):
                continue
            ring_c = {j for x in c for j in grid.neighbor_lists[x]}
            if not ring_c & set(e):
                continue
            board = ["."] * grid.num_cells
            for x in c[:-1]:
                board[x] = "X"
            for x in e:
                board[x] = "O"
            s = ref.state_from_json(
                {
                    "board": "".join(board),
                    "to_move": 0,
                    "phase": "place",
                    "chain": [],
                    "passes": 0,
                    "first_passer": -1,
                    "plies": 0,
                    "over": False,
                }
            )
            place = c[-1]
            if not s.legal[0][place]:
                continue
            tried += 1
            fg.from_reference(s, state, 0)
            ref.apply(s, place)
            fg.apply(state, np.array([place]))
            assert ref.state_to_json(fg.to_reference(state, 0)) == ref.state_to_json(s), (eq, c, e)
            outcomes[s.phase == GROW] += 1
        if eq == "free":
            assert outcomes[True] == 0  # an image is always the same shape
        else:
            assert outcomes[True] > 10 and outcomes[False] > 10, (eq, outcomes)


# ----- the VectorEnv face ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("size,eq", [(5, "fixed"), (6, "free"), (7, "one_sided")])
def test_vector_env_matches_the_reference_with_autoreset(size, eq):
    num = 12
    venv = bestiarium_v1.vector_env(num, board_size=size, shape_equivalence=eq)
    ref = venv.game.reference
    obs, info = venv.reset(seed=3)
    refs = [ref.initial_state() for _ in range(num)]
    rng = seed_states(4, num)
    actions = np.empty(num, dtype=np.int64)
    ended = 0
    for _ in range(500):
        for b in range(num):
            seat = ref.current_player(refs[b])
            assert info["current_player"][b] == seat
            assert np.array_equal(obs[b], ref.observation(refs[b], seat))
            assert np.array_equal(info["action_mask"][b], ref.legal_mask(refs[b]).astype(bool))
        other = venv.observe(1 - info["current_player"])
        for b in range(num):
            assert np.array_equal(other[b], ref.observation(refs[b], 1 - ref.current_player(refs[b])))
        sample_legal(info["action_mask"], rng, actions)
        movers = info["current_player"].copy()
        obs, rewards, terminated, truncated, info = venv.step(actions)
        assert obs.dtype == np.float32 and rewards.shape == (num, 2) and info["action_mask"].dtype == bool
        for b in range(num):
            ref.apply(refs[b], int(actions[b]))
            assert terminated[b] == ref.is_terminal(refs[b]) and not truncated[b]
            assert np.array_equal(rewards[b], ref.returns(refs[b]).astype(np.float32))
            if terminated[b]:
                ended += 1
                assert info["_final_obs"][b]
                assert np.array_equal(info["final_obs"][b], ref.observation(refs[b], movers[b]))
                refs[b] = ref.initial_state()
            else:
                assert not info.get("_final_obs", np.zeros(num, bool))[b]
    assert ended >= num


def test_same_seed_same_games():
    def run(seed):
        venv = bestiarium_v1.vector_env(6)
        obs, info = venv.reset(seed=seed)
        rng = seed_states(seed, 6)
        actions = np.empty(6, dtype=np.int64)
        trace = [obs.copy()]
        for _ in range(150):
            sample_legal(info["action_mask"], rng, actions)
            obs, rewards, _, _, info = venv.step(actions)
            trace.append(obs.copy())
            trace.append(rewards.copy())
        return trace, venv.state.rng.copy()

    a, rng_a = run(5)
    b, rng_b = run(5)
    c, _ = run(6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b)) and np.array_equal(rng_a, rng_b)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_threaded_observation_equals_the_one_thread_rows():
    """A large batch's planes are built in blocks of rows on numba's threads: any block count gives the rows of the
    one-thread kernel (both seats' views, positions from random play, rows split unevenly)."""
    num = 200
    venv = bestiarium_v1.vector_env(num)
    _, info = venv.reset(seed=3)
    rng = seed_states(3, num)
    actions = np.empty(num, dtype=np.int64)
    for _ in range(40):
        sample_legal(info["action_mask"], rng, actions)
        _, _, _, _, info = venv.step(actions)
    game, state = venv.game, venv.state
    shape = (num, *game.observation_shape)
    for seat in (0, 1):
        seats = np.full(num, seat, dtype=np.int64)
        one = np.zeros(shape, dtype=np.float32).reshape(num, shape[1], -1)
        observation.observe_kernel(state, game.tables, seats, one)
        for blocks in (2, 3, 7):
            split = np.full_like(one, np.nan)
            observation.observe_kernel_threads(state, game.tables, seats, split, blocks)
            assert np.array_equal(split, one), blocks
        assert np.array_equal(venv.observe(seats).reshape(one.shape), one)  # the public path, either kernel


def test_illegal_action_is_refused_and_changes_nothing():
    venv = bestiarium_v1.vector_env(3)
    _, info = venv.reset(seed=0)
    rng = seed_states(0, 3)
    actions = np.empty(3, dtype=np.int64)
    for _ in range(30):
        sample_legal(info["action_mask"], rng, actions)
        _, _, _, _, info = venv.step(actions)
    before = [f.copy() for f in venv.state]
    mask = info["action_mask"]
    occupied = int(np.flatnonzero(venv.state.color[1])[0])
    bad = actions.copy()
    sample_legal(mask, rng, bad)
    for b, a in ((1, occupied), (2, venv.num_actions - 1), (0, venv.num_actions), (0, -1)):
        if 0 <= a < venv.num_actions and mask[b, a]:
            continue
        trial = bad.copy()
        trial[b] = a
        with pytest.raises(IllegalActionError, match=f"game {b}"):
            venv.step(trial)
        for x, y in zip(before, venv.state):
            assert np.array_equal(x, y)


def test_bad_options_raise_the_references_config_error():
    for opts in ({"board_size": 8}, {"board_size": "6"}, {"shape_equivalence": "mirror"}, {"shape_equivalence": 1}):
        with pytest.raises(ConfigError) as fast_err:
            bestiarium_v1.vector_env(2, **opts)
        with pytest.raises(ConfigError) as ref_err:
            bestiarium_v1.raw_env(**opts)
        assert str(fast_err.value) == str(ref_err.value)
    with pytest.raises(TypeError):
        bestiarium_v1.vector_env(2, num_players=3)
    with pytest.raises(ValueError, match="num_envs"):
        bestiarium_v1.vector_env(0)
    assert bestiarium_v1.vector_env(1, board_size=7, shape_equivalence="fixed").game.options() == {
        "board_size": 7,
        "shape_equivalence": "fixed",
    }


def test_ply_cap_truncates_as_the_aec_env_does():
    venv = bestiarium_v1.vector_env(2, board_size=5)
    ref = venv.game.reference
    venv.reset(seed=0)
    cap = ref.max_game_length
    s = render.state_from_text(ref, "\n".join([". " * n for n in (5, 6, 7, 8, 9, 8, 7, 6, 5)]), plies=cap - 1)
    venv.game.from_reference(s, venv.state, 1)
    venv.game.legal_mask(venv.state, venv._mask)
    obs, rewards, terminated, truncated, info = venv.step(np.array([0, 30]))
    ref.apply(s, 30)
    assert ref.is_truncated(s) and not ref.is_terminal(s)
    assert truncated.tolist() == [False, True] and not terminated.any() and (rewards == 0).all()
    assert info["_final_obs"].tolist() == [False, True]
    assert np.array_equal(info["final_obs"][1], ref.observation(s, 0))
    assert venv.state.plies[1] == 0 and venv.state.color[1].sum() == 0  # restarted
    # the AEC env cuts at the same ply
    aec = bestiarium_v1.raw_env(board_size=5)
    aec.reset(seed=0)
    aec.state = render.state_from_text(ref, "\n".join([". " * n for n in (5, 6, 7, 8, 9, 8, 7, 6, 5)]), plies=cap - 1)
    aec.num_plies = cap - 1
    aec.step(30)
    assert all(aec.truncations.values()) and not any(aec.terminations.values())


def test_shaping_potential_and_returns_on_a_finished_position():
    fg = engine(5, "free")
    ref = fg.reference
    # Black: a fauna of two size-3 shapes (+18); White: a species of two lines (-18)
    text = """
    X X X . .
    . . . . . .
    . X . . . O .
    . X X . . O . .
    . . . . . O . . .
    . . . . . . . .
    . O O O . . .
    . . . . . .
    . . . . .
    """
    data = ref.state_to_json(render.state_from_text(ref, text))
    data.update(to_move=1, passes=2, first_passer=1, over=True)  # White passed, then Black: the game is over
    s = ref.state_from_json(data)
    state = fg.new_state(1)
    fg.from_reference(s, state, 0)
    assert s.over and state.over[0]
    assert np.array_equal(fg.returns(state)[0], ref.returns(s)) and ref.winner(s) == 0
    assert np.array_equal(fg.shaping_potential(state)[0], ref.shaping_potential(s))
    assert fg.shaping_potential(state)[0].tolist() == [18.0, -18.0]


# ----- the compiled search baseline -----------------------------------------------------------------------------
def random_positions(game: BestiariumGame, count: int, seed: int) -> list:
    """Positions met in random games (grow phases and finished games included)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = game.initial_state()
        while not game.is_terminal(s):
            if rng.random() < 0.1:
                out.append(game.clone(s))
            legal = game.legal_actions(s)
            game.apply(s, legal[rng.integers(len(legal))])
        out.append(s)
    return out


def test_compiled_leaf_value_at_depth_zero_is_cascade_value():
    from envs.bestiarium.baselines import EVAL_SCALE, cascade_value
    from envs.bestiarium.search import CompiledSearch

    for size, eq in [(5, "fixed"), (6, "free"), (7, "one_sided")]:
        game = BestiariumGame(board_size=size, shape_equivalence=eq)
        search = CompiledSearch(game, budget=1, exploration=1.4, depth=0, scale=EVAL_SCALE)
        positions = random_positions(game, 150, seed=size)
        assert any(s.over for s in positions) and any(s.phase == GROW for s in positions)
        for s in positions:
            assert np.allclose(search.leaf_value(s, seed=0), cascade_value(game, s), rtol=1e-12, atol=0)
        # at the ply cap a leaf is worth 0, as MCTSPolicy's playout returns the (zero) returns of a cut game
        capped = game.state_from_json({**game.state_to_json(positions[0]), "plies": game.max_game_length})
        assert search.leaf_value(capped, seed=0).tolist() == [0.0, 0.0]


def test_compiled_playouts_score_like_the_python_playouts():
    """The mean leaf value of 20 random plies then the cascade, compiled vs MCTSPolicy's Python playout."""
    from envs.bestiarium.baselines import EVAL_SCALE, ROLLOUT_DEPTH, search_policy
    from envs.bestiarium.search import CompiledSearch

    game = BestiariumGame(board_size=5)
    python = search_policy(game, seed=0, compiled=False)
    compiled = CompiledSearch(game, budget=1, exploration=1.4, depth=ROLLOUT_DEPTH, scale=EVAL_SCALE)
    rng = np.random.default_rng(0)
    s = game.initial_state()
    for _ in range(24):
        legal = game.legal_actions(s)
        game.apply(s, legal[rng.integers(len(legal))])
    n = 1500
    py = np.array([python._leaf_value(game.clone(s))[0] for _ in range(n)])
    fast = np.array([compiled.leaf_value(s, seed=k)[0] for k in range(n)])
    assert py.std() > 0.05 and fast.std() > 0.05
    se = np.sqrt(py.var() / n + fast.var() / n)
    assert abs(py.mean() - fast.mean()) < 4.5 * se, (py.mean(), fast.mean(), se)


def test_compiled_search_is_seeded_and_legal_and_the_python_search_stays():
    from envs.bestiarium.baselines import CompiledSearchPolicy, search_policy
    from envs.common.mcts import MCTSPolicy
    from envs.common.policies import decision_from_state

    game = BestiariumGame(board_size=5)
    assert isinstance(search_policy(game), CompiledSearchPolicy)
    assert isinstance(search_policy(game, compiled=False, budget=3), MCTSPolicy)
    positions = random_positions(game, 40, seed=9)
    for s in positions:
        if game.is_terminal(s):
            continue
        d = decision_from_state(game, s)
        picks = {search_policy(game, seed=5, budget=30).act(d) for _ in range(2)}
        assert len(picks) == 1 and d.action_mask[picks.pop()] == 1
        assert d.action_mask[search_policy(game, seed=None, budget=1).act(d)] == 1


# ----- the AEC env's compiled observation -----------------------------------------------------------------------
@pytest.mark.parametrize("size,eq", [(5, "fixed"), (6, "free"), (7, "one_sided")])
def test_compiled_observation_equals_the_numpy_definition(size, eq):
    game = BestiariumGame(board_size=size, shape_equivalence=eq)
    enc = observation.encoder(game)
    for s in random_positions(game, 120, seed=size):
        grow = s.phase == GROW and not s.over
        chain = s.members[s.chain] if grow else None
        for seat in (0, 1):
            args = (np.frombuffer(s.color, dtype=np.uint8), seat, chain, grow, s.passes == 1)
            full = (s.members, s.cid, s.legal[seat])
            assert np.array_equal(enc.encode(*args, *full), enc.encode_numpy(*args, *full))
            assert np.array_equal(enc.encode(*args), enc.encode_numpy(*args))  # without the derived planes
            obs = game.observation(s, seat)
            assert np.array_equal(obs[:NUM_STONE_PLANES], enc.encode_numpy(*args, *full))
            cells = obs.reshape(obs.shape[0], -1)[NUM_STONE_PLANES:, game.grid.square_index]
            assert np.array_equal(cells, score_planes_reference(game, s, seat))


def test_compiled_search_breaks_visit_ties_like_mcts_policy():
    """With fewer simulations than legal moves every root child has one visit: MCTSPolicy then answers the first
    child it expanded (a uniformly random move); so must the compiled search, not e.g. the lowest cell."""
    from envs.bestiarium.baselines import search_policy
    from envs.common.policies import decision_from_state

    game = BestiariumGame()
    d = decision_from_state(game, game.initial_state())
    picks = [search_policy(game, seed=k, budget=10).act(d) for k in range(60)]
    assert len(set(picks)) > 30 and 25 < np.median(picks) < 65, picks


def test_action_values_at_depth_zero_are_the_childrens_cascade_values():
    """Flat Monte Carlo with no random plies: each legal action's value is the cascade of the position after it,
    for the player who moved (exact), and NaN where the action is illegal."""
    from envs.bestiarium.baselines import EVAL_SCALE, cascade_value
    from envs.bestiarium.search import CompiledSearch

    game = BestiariumGame(board_size=5)
    search = CompiledSearch(game, budget=1, exploration=1.4, depth=0, scale=EVAL_SCALE)
    rng = np.random.default_rng(3)
    positions = [s for s in random_positions(game, 40, seed=11) if not s.over]
    assert any(s.phase == GROW for s in positions)
    for s in positions:
        values = search.action_values(s, rng, rollouts=3)
        legal = game.legal_actions(s)
        assert np.flatnonzero(~np.isnan(values)).tolist() == sorted(int(a) for a in legal)
        mover = game.current_player(s)
        for a in legal:
            child = game.clone(s)
            game.apply(child, int(a))
            assert values[a] == pytest.approx(cascade_value(game, child)[mover], abs=1e-12)


def test_action_values_average_the_search_playouts_and_are_seeded():
    from envs.bestiarium.baselines import EVAL_SCALE, ROLLOUT_DEPTH
    from envs.bestiarium.search import CompiledSearch

    game = BestiariumGame(board_size=5)
    search = CompiledSearch(game, budget=1, exploration=1.4, depth=ROLLOUT_DEPTH, scale=EVAL_SCALE)
    s = random_positions(game, 1, seed=5)[0]
    while game.is_terminal(s) or len(game.legal_actions(s)) < 3:
        s = random_positions(game, 1, seed=int(s.plies) + 6)[0]
    a = np.array_equal
    first = search.action_values(s, np.random.default_rng(0), rollouts=8)
    assert a(first, search.action_values(s, np.random.default_rng(0), rollouts=8), equal_nan=True)
    assert not a(first, search.action_values(s, np.random.default_rng(1), rollouts=8), equal_nan=True)
    legal = ~np.isnan(first)
    assert np.all(np.abs(first[legal]) <= 1.0)
    # one action's value over many playouts agrees with the mean of that many single leaf values after it
    action = int(np.flatnonzero(legal)[0])
    mover = game.current_player(s)
    many = search.action_values(s, np.random.default_rng(2), rollouts=1500)[action]
    child = game.clone(s)
    game.apply(child, action)
    leaves = np.array([search.leaf_value(child, seed=k)[mover] for k in range(1500)])
    se = np.sqrt(2 * leaves.var() / 1500)
    assert abs(many - leaves.mean()) < 4.5 * se + 1e-9, (many, leaves.mean(), se)


def main() -> None:
    """The longer differential sweep (module docstring): every option set, ``--games`` games in chunks played side
    by side, printing what they went through."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description="Longer differential sweep of the batched engine.")
    parser.add_argument("--games", type=int, default=2000, help="games per option set")
    parser.add_argument("--chunk", type=int, default=100, help="games played side by side")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for size, eq in OPTION_SETS:
        fg = engine(size, eq)
        totals: dict[str, int] = {}
        start = time.perf_counter()
        for k in range(0, args.games, args.chunk):
            seen = play_differential(fg, min(args.chunk, args.games - k), seed=args.seed * 1_000_003 + 7919 * k + size)
            for key, v in seen.items():
                totals[key] = max(totals.get(key, 0), v) if key == "max_size" else totals.get(key, 0) + v
        print(
            f"board_size={size} shape_equivalence={eq}: {args.games} games identical, {totals}, "
            f"{time.perf_counter() - start:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()

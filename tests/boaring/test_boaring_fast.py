"""The batched engine (envs/boaring/fast.py) against the reference rules.py, move by move.

Both engines play the same games: every batched row has a reference state beside it, both get the same random
legal actions, and the reference draws its shuffles through :class:`MirrorRng` (the row's generator), so every
deal, re-deal and deck order is the same. At every step: the legal mask, the seat to move, every seat's
observation (bytes), the running scores; after every step the rewards, the end and, at the end of each game, the
whole state. A longer sweep: ``python tests/boaring/test_boaring_fast.py --games 2000`` (games per option set).
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from envs import boaring_v0
from envs.boaring import actions as A
from envs.boaring.fast import BoaringBatched
from envs.boaring.observation import observation_layout
from envs.boaring.rules import BID, EAT, OVER, BoaringGame
from envs.common.fastrng import MirrorRng, seed_states
from envs.common.game import TERMINAL, ConfigError, IllegalActionError
from envs.common.vector import sample_legal

OPTION_SETS = [{"num_players": n, "reward": r} for n in range(2, 11) for r in ("pairwise", "score")]


def option_seed(options: dict, base: int = 1000) -> int:
    """A seed per option set (the two reward schemes play different games)."""
    return base + 10 * options["num_players"] + (options["reward"] == "score")


def state_json(game: BoaringGame, state) -> str:
    return json.dumps(game.state_to_json(state), sort_keys=True)


def check_row(fast: BoaringBatched, batch, b: int, ref_state, mask: np.ndarray, views: np.ndarray) -> None:
    """Row ``b`` of the batched engine agrees with ``ref_state`` on everything a player or a trainer reads."""
    ref = fast.reference
    cur = ref.current_player(ref_state)
    assert fast.current_player(batch)[b] == cur
    assert np.array_equal(mask[b], ref.legal_mask(ref_state).astype(bool)), (b, mask[b])
    for seat in range(fast.num_players):
        assert views[seat, b].tobytes() == ref.observation(ref_state, seat).tobytes(), (b, seat)


def play_both(options: dict, games: int, rows: int = 32, seed: int = 0, full_state_every: int = 7) -> dict:
    """Play ``games`` random games (``rows`` at a time) in both engines; assert they agree. Returns counters."""
    fast = BoaringBatched(**options)
    ref = fast.reference
    n = fast.num_players
    batch = fast.new_state(rows)
    batch.rng[:] = seed_states(seed, rows)
    refs: list = [None] * rows

    def start(rows_to_start: np.ndarray) -> None:
        before = batch.rng.copy()
        fast.reset_rows(batch, rows_to_start)
        for b in rows_to_start:
            mirror = MirrorRng(before[b])
            refs[b] = ref.initial_state(mirror)
            assert mirror.state == int(batch.rng[b])
            assert state_json(ref, fast.to_reference(batch, b)) == state_json(ref, refs[b])

    start(np.arange(rows))
    pick = np.random.default_rng(seed)
    mask = np.zeros((rows, fast.num_actions), dtype=bool)
    views = np.empty((n, rows, *fast.observation_shape), dtype=np.float32)
    actions = np.empty(rows, dtype=np.int64)
    seats = [np.full(rows, k, dtype=np.int64) for k in range(n)]
    stats = {"games": 0, "steps": 0, "eats": 0, "redeals": 0, "died": 0}
    step = 0
    while stats["games"] < games:
        fast.legal_mask(batch, mask)
        for k in range(n):
            fast.observe(batch, seats[k], views[k])
        potential = fast.shaping_potential(batch)
        for b in range(rows):
            check_row(fast, batch, b, refs[b], mask, views)
            assert np.array_equal(potential[b], ref.shaping_potential(refs[b]))
            legal = np.flatnonzero(mask[b])
            actions[b] = legal[pick.integers(legal.size)]
            stats["eats"] += refs[b].phase == EAT
        before = batch.rng.copy()
        fast.apply(batch, actions)
        returns = fast.returns(batch)
        truncated = fast.truncated(batch)
        step += 1
        stats["steps"] += rows
        for b in range(rows):
            mirror = MirrorRng(before[b])
            ref.apply(refs[b], int(actions[b]), mirror)
            assert mirror.state == int(batch.rng[b])  # the same shuffles, drawn alike
            assert np.array_equal(returns[b], ref.returns(refs[b]))
            assert not truncated[b]
            if step % full_state_every == 0:
                assert state_json(ref, fast.to_reference(batch, b)) == state_json(ref, refs[b])
        done = np.flatnonzero(fast.current_player(batch) == TERMINAL)
        for b in done:
            r = refs[b]
            assert r.phase == OVER and state_json(ref, fast.to_reference(batch, b)) == state_json(ref, r)
            assert abs(returns[b].sum()) < 1e-9
            stats["games"] += 1
            stats["redeals"] += r.deals
            stats["died"] += sum(map(sum, r.graveyard))
            # the finished game's views (every seat), then a new game
        if done.size:
            fast.legal_mask(batch, mask)
            assert not mask[done].any()
            for k in range(n):
                fast.observe(batch, seats[k], views[k])
            for b in done:
                check_row(fast, batch, b, refs[b], mask, views)
            start(done)
    return stats


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: f"{o['num_players']}p-{o['reward']}")
def test_random_games_match_the_reference(options):
    """Random games of every option set, both engines step for step (the reward scheme changes only the returns,
    so the score-reward sets play fewer games)."""
    n = options["num_players"]
    games = (160 if n <= 4 else 96 if n <= 7 else 64) // (1 if options["reward"] == "pairwise" else 2)
    stats = play_both(options, games, rows=32, seed=option_seed(options))
    assert stats["games"] >= games
    assert stats["eats"] > 0 and stats["redeals"] >= 3 * stats["games"] and stats["died"] > 0  # every path met


def make_batch(fast: BoaringBatched, ref_states: list, seed: int = 0):
    """A batch holding the given reference states (generators seeded)."""
    batch = fast.new_state(len(ref_states))
    batch.rng[:] = seed_states(seed, len(ref_states))
    for b, r in enumerate(ref_states):
        fast.from_reference(r, batch, b)
    return batch


def play_positions(fast: BoaringBatched, ref_state, actions: list[int], seed: int = 0) -> None:
    """Play ``actions`` from a hand-made position in both engines and compare the whole state after each."""
    ref = fast.reference
    batch = make_batch(fast, [ref.clone(ref_state)], seed)
    mask = np.zeros((1, fast.num_actions), dtype=bool)
    for a in actions:
        mirror = MirrorRng(batch.rng[0])
        ref.apply(ref_state, a, mirror)
        fast.apply(batch, np.array([a]))
        assert mirror.state == int(batch.rng[0])
        assert state_json(ref, fast.to_reference(batch, 0)) == state_json(ref, ref_state)
        fast.legal_mask(batch, mask)
        assert np.array_equal(mask[0], ref.legal_mask(ref_state).astype(bool))


def test_rare_paths_empty_pile_capped_redeal_and_eats():
    """Made-up positions for what random play rarely or never reaches: an empty food pile refilled from the
    discard, a re-deal capped by the animals left, a hyena eating from its graveyard, a lion from a savanna."""
    g = BoaringBatched(num_players=2)
    discard = [7] * 10
    for v in (1, 2, 3, 4, 5):
        discard[v - 1] -= 1
    s = g.reference.make_state([[1, 2], [3, 4]], "boar", 5, active=0, discard=discard, food_pile=[])
    play_positions(g, s, [A.play_action(1), A.play_action(3)])
    g3 = BoaringBatched(num_players=3)
    s = g3.reference.make_state([[5], [5], [5]], "boar", 1, active=0, animal_deck=[0, 1, 0], eaten=[27, 3, 4])
    play_positions(g3, s, [A.play_action(5)] * 3)
    s = g3.reference.make_state(
        [[9, 1], [2, 3], [4, 5]], "hyena", 1, active=1, graveyard=[[2, 0, 1], [0, 0, 0], [0, 0, 0]]
    )
    play_positions(g3, s, [A.play_action(2), A.play_action(4), A.play_action(9), A.hyena_action(2)])
    s = g3.reference.make_state(
        [[9, 1], [2, 3], [4, 5]], "lion", 1, active=0, savanna=[[0, 0, 0], [3, 1, 0], [0, 0, 2]]
    )
    play_positions(g3, s, [A.play_action(9), A.play_action(2), A.play_action(4), A.lion_action(2, 2)])


def test_reference_bridge_round_trip():
    """to_reference(from_reference(s)) == s on positions of random games; an information state is refused."""
    fast = BoaringBatched(num_players=5)
    ref = fast.reference
    rng = np.random.default_rng(3)
    states = []
    s = ref.initial_state(rng)
    while ref.current_player(s) != TERMINAL:
        states.append(ref.clone(s))
        legal = ref.legal_actions(s)
        ref.apply(s, legal[rng.integers(len(legal))], rng)
    states.append(s)
    batch = make_batch(fast, states)
    for b, r in enumerate(states):
        assert state_json(ref, fast.to_reference(batch, b)) == state_json(ref, r)
    with pytest.raises(ValueError, match="information state"):
        fast.from_reference(ref.information_state(states[3], 0), batch, 0)


@pytest.mark.parametrize("n", [2, 4, 10])
def test_hidden_cards_do_not_change_what_a_seat_sees(n):
    """Two batched games differing only in what a seat cannot see (the other hands, the others' committed cards,
    the pile and deck order, redealt by the reference's determinize) give that seat byte-identical observations;
    the mover's mask is unchanged when the mover is that seat."""
    fast = BoaringBatched(num_players=n)
    ref = fast.reference
    rng = np.random.default_rng(n)
    positions = []
    s = ref.initial_state(rng)
    while ref.current_player(s) != TERMINAL:
        positions.append(ref.clone(s))
        legal = ref.legal_actions(s)
        ref.apply(s, legal[rng.integers(len(legal))], rng)
    positions = positions[:: max(1, len(positions) // 60)] + [s]
    changed = 0
    for seat in range(n):
        others = [ref.determinize(ref.information_state(p, seat), seat, rng) for p in positions]
        a, b = make_batch(fast, positions), make_batch(fast, others)
        views = np.empty((2, len(positions), *fast.observation_shape), dtype=np.float32)
        seats = np.full(len(positions), seat)
        fast.observe(a, seats, views[0])
        fast.observe(b, seats, views[1])
        assert views[0].tobytes() == views[1].tobytes()
        masks = np.zeros((2, len(positions), fast.num_actions), dtype=bool)
        fast.legal_mask(a, masks[0])
        fast.legal_mask(b, masks[1])
        mine = fast.current_player(a) == seat
        assert np.array_equal(masks[0][mine], masks[1][mine])
        changed += int((a.hands != b.hands).any() or (a.pending != b.pending).any())
        # the other seats' views of the second batch do differ somewhere (their hands were redealt)
        other = np.full(len(positions), (seat + 1) % n)
        fast.observe(a, other, views[0])
        fast.observe(b, other, views[1])
        assert views[0].tobytes() != views[1].tobytes()
    assert changed == n


def replay_vector_env(options: dict, num_envs: int, steps: int, seed: int) -> int:
    """Step a VectorEnv with random legal actions beside reference replicas of its games (auto-reset included);
    check observations, masks, current players, rewards, the flags and final_obs. Returns the games finished."""
    venv = boaring_v0.vector_env(num_envs, **options)
    ref = venv.game.reference
    obs, info = venv.reset(seed=seed)
    refs = []
    for b in range(num_envs):
        mirror = MirrorRng(seed_states(seed, num_envs)[b])
        refs.append(ref.initial_state(mirror))
    pick = seed_states(seed + 1, num_envs)
    actions = np.empty(num_envs, dtype=np.int64)
    finished = 0
    for _ in range(steps):
        assert venv.observation_space.contains(obs)
        for b in range(num_envs):
            seat = ref.current_player(refs[b])
            assert info["current_player"][b] == seat
            assert obs[b].tobytes() == ref.observation(refs[b], seat).tobytes()
            assert np.array_equal(info["action_mask"][b], ref.legal_mask(refs[b]).astype(bool))
        sample_legal(info["action_mask"], pick, actions)
        acting = info["current_player"].copy()
        rng_before = venv.state.rng.copy()
        obs, rewards, terminated, truncated, info = venv.step(actions)
        assert rewards.shape == (num_envs, ref.num_players) and rewards.dtype == np.float32
        assert not truncated.any()
        for b in range(num_envs):
            mirror = MirrorRng(rng_before[b])
            ref.apply(refs[b], int(actions[b]), mirror)
            over = ref.current_player(refs[b]) == TERMINAL
            assert terminated[b] == over
            assert np.array_equal(rewards[b], ref.returns(refs[b]).astype(np.float32))
            if over:
                finished += 1
                assert info["_final_obs"][b]
                assert info["final_obs"][b].tobytes() == ref.observation(refs[b], acting[b]).tobytes()
                refs[b] = ref.initial_state(mirror)  # same-step auto-reset, from the row's generator
            elif "_final_obs" in info:
                assert not info["_final_obs"][b]  # final_obs rows are read only where _final_obs
    return finished


@pytest.mark.parametrize("options", [{"num_players": 2}, {"num_players": 5, "reward": "score"}])
def test_vector_env_autoreset_final_obs_and_rewards(options):
    assert replay_vector_env(options, num_envs=6, steps=260, seed=11) >= 6


def test_vector_env_same_seed_same_games_any_batch_size():
    def run(num_envs: int, seed: int) -> list[np.ndarray]:
        venv = boaring_v0.vector_env(num_envs, num_players=3)
        obs, info = venv.reset(seed=seed)
        out = [obs[:2].copy()]
        for _ in range(150):
            # the same actions in rows 0-1 whatever the batch size: the lowest legal card / decision
            actions = info["action_mask"].argmax(axis=1)
            obs, rewards, *_, info = venv.step(actions)
            out.append(obs[:2].copy())
        return out

    a, b, c = run(2, 5), run(5, 5), run(2, 6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_vector_env_refuses_an_illegal_action_and_changes_nothing():
    venv = boaring_v0.vector_env(3, num_players=4)
    _, info = venv.reset(seed=2)
    before = [f.copy() for f in venv.state]
    actions = info["action_mask"].argmax(axis=1)
    bad = actions.copy()
    bad[1] = A.NO_EAT  # an eat decision in the bid phase
    for wrong in (bad, np.array([0, 0, venv.num_actions]), actions[:2], actions.astype(float)):
        with pytest.raises(IllegalActionError):
            venv.step(wrong)
        for x, y in zip(before, venv.state):
            assert np.array_equal(x, y)
    venv.step(actions)  # still usable


def test_truncation_at_the_ply_cap_as_the_aec_env():
    """A live game that reaches max_game_length plies is truncated (not terminated) and restarted."""
    venv = boaring_v0.vector_env(2, num_players=4)
    _, info = venv.reset(seed=4)
    venv.state.plies[1] = venv.game.max_game_length - 1
    obs, rewards, terminated, truncated, info = venv.step(info["action_mask"].argmax(axis=1))
    assert truncated.tolist() == [False, True] and not terminated.any() and not rewards.any()
    assert info["_final_obs"].tolist() == [False, True] and venv.state.plies[1] == 0


def test_options_are_checked_like_the_reference():
    for bad in ({"num_players": 11}, {"num_players": 1}, {"reward": "wins"}, {"num_players": 4.0}):
        with pytest.raises(ConfigError) as fast_err:
            boaring_v0.vector_env(2, **bad)
        with pytest.raises(ConfigError) as ref_err:
            boaring_v0.raw_env(**bad)
        assert str(fast_err.value) == str(ref_err.value)
    venv = boaring_v0.vector_env(2, num_players=6, reward="score")
    assert venv.game.options() == {"num_players": 6, "reward": "score"}
    aec_space = boaring_v0.raw_env(num_players=6).observation_space("player_0")["observation"]
    assert venv.single_observation_space == aec_space  # the same Box, scores down to -0.5
    assert venv.observation_space.shape == (2, *aec_space.shape)
    assert venv.single_action_space.n == A.num_actions(6)


def test_end_of_game_active_seat_matches_the_reference():
    """The finished game's "active" block shows the last round's active player, as the reference does."""
    fast = BoaringBatched(num_players=3)
    ref = fast.reference
    s = ref.make_state([[5], [6], [7]], "boar", 1, active=2, animal_deck=[], eaten=[29, 4, 4])
    batch = make_batch(fast, [ref.clone(s)])
    for a in (A.play_action(7), A.play_action(5), A.play_action(6)):
        ref.apply(s, a, np.random.default_rng(0))
        fast.apply(batch, np.array([a]))
    assert ref.current_player(s) == TERMINAL and fast.current_player(batch)[0] == TERMINAL
    o = observation_layout(ref.num_players).offsets
    for seat in range(3):
        view = np.empty((1, *fast.observation_shape), dtype=np.float32)
        fast.observe(batch, np.array([seat]), view)
        assert view[0].tobytes() == ref.observation(s, seat).tobytes()
        assert view[0][o["active"] + (2 - seat) % 3] == 1.0  # p2 was active in the last round and stays active


# ----- the compiled search (the `search` baseline) ----------------------------------------------------------------


def random_positions(game: BoaringGame, seed: int, every: int = 1) -> list:
    """Positions of one random game (every ``every``-th decision and the end)."""
    rng = np.random.default_rng(seed)
    s = game.initial_state(rng)
    out = []
    k = 0
    while game.current_player(s) != TERMINAL:
        if k % every == 0:
            out.append(game.clone(s))
        legal = game.legal_actions(s)
        game.apply(s, legal[rng.integers(len(legal))], rng)
        k += 1
    return out + [s]


@pytest.mark.parametrize("n", [2, 4, 7, 10])
def test_compiled_playout_policy_and_evaluation_are_the_baselines(n):
    """The search kernel's opponent model / playout policy (fast_bid, eat_choice) choose exactly what
    envs/boaring/baselines.py chooses, for every seat of every position; its leaf evaluation equals evaluate."""
    from envs.boaring import fast as F
    from envs.boaring import search as S
    from envs.boaring.baselines import CARD_COST, eat_choice, evaluate, fast_bid

    fast = BoaringBatched(num_players=n)
    ref = fast.reference
    positions = []
    for seed in range(3):
        positions += random_positions(ref, 100 * n + seed, every=2)
    batch = make_batch(fast, positions)
    counts = np.empty(10, dtype=np.int64)
    leaf = np.empty(n)
    eats = 0
    for b, s in enumerate(positions):
        if s.phase == BID:
            for seat in range(n):
                bid = S.fast_bid_row(batch, fast.tables, b, seat, CARD_COST, counts)
                assert bid == fast_bid(ref, s, seat), (b, seat)
        elif s.phase == EAT:
            eats += 1
            assert F.eat_choice_row(batch, fast.tables, b, s.current) == eat_choice(ref, s, s.current)
        for temperature, weight in ((3.0, CARD_COST), (1.0, 0.0)):
            S.evaluate_row(batch, fast.tables, b, temperature, weight, leaf)
            assert np.allclose(leaf, evaluate(ref, s, temperature, weight), rtol=0, atol=1e-12)
    assert eats > 0


@pytest.mark.parametrize("n", [3, 6])
def test_compiled_determinization_is_consistent_with_what_the_seat_knows(n):
    """A determinized row keeps everything the seat knows (same information state), balances its books and
    redeals what the seat cannot see."""
    from envs.boaring import search as S

    fast = BoaringBatched(num_players=n)
    ref = fast.reference
    rng = seed_states(n, 1)
    cards = np.empty(70, dtype=np.int8)
    changed = 0
    for s in random_positions(ref, n, every=5)[:-1]:
        seat = int(rng[0] % n)
        info = ref.information_state(s, seat)
        batch = fast.new_state(1)
        fast.write_row(info, batch, 0)
        S.determinize_row(batch, 0, seat, n, rng, cards)
        full = fast.to_reference(batch, 0)
        ref.state_from_json(ref.state_to_json(full))  # 7 of each food value, 30 / 4 / 4 animals
        assert state_json(ref, ref.information_state(full, seat)) == state_json(ref, info)
        changed += full.hands != s.hands or full.food_pile != s.food_pile
    assert changed > 0


def test_compiled_search_is_seeded_and_legal():
    """Same seed, same decisions; every decision legal; the Python reference search stays available."""
    from envs.boaring.baselines import BoaringSearch, CompiledBoaringSearch, search_policy
    from envs.common.policies import decision_from_state

    game = BoaringGame(num_players=4)
    decisions = [decision_from_state(game, s) for s in random_positions(game, 5, every=3)[:-1]]
    a, b = search_policy(game, seed=3, budget=30), search_policy(game, seed=3, budget=30)
    assert isinstance(a, CompiledBoaringSearch)
    assert isinstance(search_policy(game, seed=3, compiled=False), BoaringSearch)
    acts = [a.act(d) for d in decisions]
    assert acts == [b.act(d) for d in decisions]
    assert all(d.action_mask[x] for d, x in zip(decisions, acts))
    c = search_policy(game, seed=4, budget=30)
    assert [c.act(d) for d in decisions] != acts  # the seed matters


if __name__ == "__main__":
    import argparse
    import time

    parser = argparse.ArgumentParser(description="Longer differential sweep of the batched Boaring engine.")
    parser.add_argument("--games", type=int, default=1000, help="games per option set")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    total = 0
    for opts in OPTION_SETS:
        t0 = time.perf_counter()
        st = play_both(opts, args.games, rows=64, seed=option_seed(opts, args.seed))
        total += st["games"]
        print(f"{opts}: {st} in {time.perf_counter() - t0:.1f} s", flush=True)
    print(f"{total} games agree")
    sys.exit(0)


@pytest.mark.parametrize("n", [2, 4, 7])
def test_apply_rows_plays_only_the_given_rows_as_take_apply_put_does(n):
    """``apply_rows`` (the row kernel in place, the trainer's scripted seats) leaves every array of every row as
    the contract's default (copy the rows out, ``apply``, copy them back) over random games, a random subset of
    rows moving each step (chance included: re-deals and refills from each row's generator)."""
    from envs.common.vector import BatchedGame

    fast = BoaringBatched(num_players=n)
    rows = 16
    kernel, default = fast.new_state(rows), fast.new_state(rows)
    kernel.rng[:] = seed_states(7 + n, rows)
    fast.reset_rows(kernel, np.arange(rows))
    for mine, theirs in zip(default, kernel):
        mine[...] = theirs
    pick = np.random.default_rng(n)
    mask = np.zeros((rows, fast.num_actions), dtype=bool)
    moved = 0
    for _ in range(600):
        over = np.flatnonzero(fast.current_player(kernel) == TERMINAL)
        if over.size:
            fast.reset_rows(kernel, over)
            fast.reset_rows(default, over)
        fast.legal_mask(kernel, mask)
        chosen = np.flatnonzero(pick.random(rows) < 0.4)
        actions = np.array([pick.choice(np.flatnonzero(mask[b])) for b in chosen], dtype=np.int64)
        fast.apply_rows(kernel, chosen, actions)
        BatchedGame.apply_rows(fast, default, chosen, actions)
        moved += chosen.size
        for name, mine, theirs in zip(kernel._fields, kernel, default):
            assert np.array_equal(mine, theirs), name
    assert moved > 3000

"""The compiled greedy baseline (``BoaringBatched.greedy_actions``) against envs/boaring/baselines.GreedyPolicy.

The compiled greedy draws its Monte-Carlo bid samples from SplitMix64 row generators, the Python one from numpy's,
so a seeded pair does not play the same moves. What is tested exactly: with the Python greedy's own draws fed to
the compiled EV step, every EV is bit-identical and the bid the same; forced moves and eat decisions (no sampling)
are identical. What is tested statistically: with many samples the compiled EVs converge to the Python ones, and
over many positions the compiled greedy's moves follow the Python greedy's move distribution.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.boaring import fast as F
from envs.boaring.baselines import CARD_COST, SAMPLES, GreedyPolicy, bid_values, hidden_counts
from envs.boaring.fast import BoaringBatched
from envs.boaring.rules import BID, EAT, OVER, BoaringGame
from envs.common.fastrng import seed_states
from envs.common.game import TERMINAL
from envs.common.policies import decision_from_state
from envs.common.vector import BatchedGame


class RecordingGenerator:
    """A numpy Generator stand-in that remembers the uniforms ``bid_values`` draws (its only use of the rng)."""

    def __init__(self, seed: int):
        self._rng = np.random.default_rng(seed)
        self.drawn: list[np.ndarray] = []

    def random(self, shape: tuple[int, ...]) -> np.ndarray:
        u = self._rng.random(shape)
        self.drawn.append(u)
        return u


def python_draws(state, seat: int, n: int, uniforms: np.ndarray) -> np.ndarray:
    """The other seats' bids bid_values derives from its uniforms: the pool ordered by the argsort of each row."""
    pool = np.repeat(np.arange(1, 11), hidden_counts(state, seat))
    return pool[np.argsort(uniforms, axis=1)[:, : n - 1]].astype(np.int64)


def positions(game: BoaringGame, seed: int, games: int, every: int = 1) -> list:
    """Positions (not over) of ``games`` games played by the Python greedy, every ``every``-th decision."""
    rng = np.random.default_rng(seed)
    policy = GreedyPolicy(game, seed=seed)
    out = []
    for _ in range(games):
        s = game.initial_state(rng)
        k = 0
        while game.current_player(s) != TERMINAL:
            if k % every == 0:
                out.append(game.clone(s))
            game.apply(s, policy.act(decision_from_state(game, s)), rng)
            k += 1
    return out


def batch_of(fast: BoaringBatched, states: list):
    batch = fast.new_state(len(states))
    for b, s in enumerate(states):
        fast.from_reference(s, batch, b)
    return batch


@pytest.mark.parametrize("n", [2, 3, 4, 6, 10])
def test_same_draws_same_evs_and_same_moves(n: int):
    """Every decision of Python-greedy games: forced moves and eat decisions identical (and no draw made); bids
    identical with the Python draws injected, every EV equal bit for bit to bid_values'."""
    game = BoaringGame(num_players=n)
    fast = BoaringBatched(num_players=n)
    states = positions(game, 10 + n, games=2 if n < 6 else 1)
    batch = batch_of(fast, states)
    rng = seed_states(n, len(states))
    before = rng.copy()
    out = np.empty(len(states), dtype=np.int64)
    fast.greedy_actions(batch, rng, out)
    evs = np.empty(10)
    counts = {"bid": 0, "eat": 0, "forced": 0}
    for b, s in enumerate(states):
        seat = s.current
        decision = decision_from_state(game, s)
        policy = GreedyPolicy(game)
        policy.rng = RecordingGenerator(b)
        expected = policy.act(decision)
        if not policy.rng.drawn:  # forced move or eat decision: no sampling on either side
            counts["eat" if s.phase == EAT else "forced"] += 1
            assert out[b] == expected, (b, s.phase)
            assert rng[b] == before[b]
            continue
        counts["bid"] += 1
        assert s.phase == BID and rng[b] != before[b]
        draws = python_draws(decision.info_state, seat, n, policy.rng.drawn[0])
        assert F._greedy_bid(batch, b, seat, n, draws, draws.shape[1], CARD_COST, evs) == expected
        assert out[b] == expected or decision.action_mask[out[b]]  # its own draws: a legal bid
        policy.rng = RecordingGenerator(b)
        want = bid_values(game, decision.info_state, seat, policy.rng)
        hand = [v for v in range(1, 11) if s.hands[seat][v - 1] > 0]
        assert sorted(want) == hand and all(evs[v - 1] == want[v] for v in hand), (b, want, evs)
        assert all(evs[v - 1] == -np.inf for v in range(1, 11) if v not in hand)
    assert min(counts.values()) > 0, counts


def test_compiled_draws_converge_to_the_python_evs():
    """The compiled sampler draws the other bids without replacement from the seat's hidden pool, uniformly: with
    20,000 samples each, every compiled EV is within 0.04 of the Python one (about 4 standard errors)."""
    n = 4
    game = BoaringGame(num_players=n)
    fast = BoaringBatched(num_players=n)
    states = [s for s in positions(game, 3, games=1, every=3) if s.phase == BID][:25]
    batch = batch_of(fast, states)
    samples = 20_000
    draws = np.empty((samples, n - 1), dtype=np.int64)
    pool = np.empty(70, dtype=np.int64)
    counts = np.empty(10, dtype=np.int64)
    evs = np.empty(10)
    rng = seed_states(7, 1)
    worst = 0.0
    for b, s in enumerate(states):
        seat = s.current
        F.hidden_counts_row(batch, fast.tables, b, seat, counts)
        assert counts.tolist() == hidden_counts(game.information_state(s, seat), seat)
        kk = F._greedy_draws(counts, n - 1, samples, rng, 0, pool, draws)
        assert kk == n - 1
        for value in range(1, 11):  # without replacement: never more copies of a value than the pool holds
            assert ((draws == value).sum(axis=1) <= counts[value - 1]).all()
        F._greedy_bid(batch, b, seat, n, draws, kk, CARD_COST, evs)
        want = bid_values(game, game.information_state(s, seat), seat, np.random.default_rng(b), samples=samples)
        worst = max(worst, max(abs(evs[v - 1] - e) for v, e in want.items()))
    assert worst < 0.04, worst


def test_move_distribution_matches_the_python_greedy():
    """Over 120 bid positions, 24 independent decisions each: the compiled greedy's move distribution is as close
    to the Python greedy's as two independent Python samples are to each other (total variation distance)."""
    n = 4
    game = BoaringGame(num_players=n)
    fast = BoaringBatched(num_players=n)
    states = [s for s in positions(game, 5, games=4, every=2) if s.phase == BID and sum(s.hands[s.current]) > 1]
    states = states[:120]
    reps = 24
    batch = fast.take(batch_of(fast, states), np.repeat(np.arange(len(states)), reps))
    out = np.empty(len(states) * reps, dtype=np.int64)
    fast.greedy_actions(batch, seed_states(11, out.size), out)
    compiled = out.reshape(len(states), reps)

    def python(seed: int) -> np.ndarray:
        policy = GreedyPolicy(game, seed=seed)
        return np.array([[policy.act(decision_from_state(game, s)) for _ in range(reps)] for s in states])

    first, second = python(1), python(2)

    def tv(x: np.ndarray, y: np.ndarray) -> float:
        return float(
            np.mean(
                [
                    0.5 * np.abs(np.bincount(a, minlength=14) - np.bincount(c, minlength=14)).sum() / reps
                    for a, c in zip(x, y)
                ]
            )
        )

    baseline, got = tv(first, second), tv(compiled, first)
    assert got < baseline + 0.03, (got, baseline)
    assert (compiled != compiled[:, :1]).any()  # the draws matter: not one fixed move per position


def test_greedy_actions_rows_seeded_independent_and_checked():
    """Same generators, same moves; a row's move depends on its own state and generator only; finished rows -1;
    bad buffers raise and change nothing; the engine says it has the method, the base class does not."""
    n = 5
    fast = BoaringBatched(num_players=n)
    batch = fast.new_state(40)
    batch.rng[:] = seed_states(1, 40)
    fast.reset_rows(batch, np.arange(40))
    rng = seed_states(2, 40)
    a, b = np.empty(40, dtype=np.int64), np.empty(40, dtype=np.int64)
    r1, r2 = rng.copy(), rng.copy()
    fast.greedy_actions(batch, r1, a)
    fast.greedy_actions(batch, r2, b)
    assert np.array_equal(a, b) and np.array_equal(r1, r2) and not np.array_equal(r1, rng)
    alone = np.empty(1, dtype=np.int64)
    one = rng[[17]].copy()
    fast.greedy_actions(fast.take(batch, np.array([17])), one, alone)
    assert alone[0] == a[17] and one[0] == r1[17]
    mask = np.zeros((40, fast.num_actions), dtype=bool)
    fast.legal_mask(batch, mask)
    assert mask[np.arange(40), a].all()
    batch.phase[3], batch.current[3] = OVER, TERMINAL
    fast.greedy_actions(batch, rng.copy(), a)
    assert a[3] == -1
    kept = rng.copy()
    for bad_rng, bad_out in ((rng.astype(np.int64), b), (rng[:5], b), (rng, b.astype(np.int32))):
        with pytest.raises(ValueError, match="greedy_actions needs"):
            fast.greedy_actions(batch, bad_rng, bad_out)
    assert np.array_equal(rng, kept)
    assert (
        fast.has_greedy_actions
        and not BatchedGame.has_greedy_actions
        and fast.greedy_samples == SAMPLES
        and fast.greedy_card_cost == CARD_COST
    )

    class Without(BoaringBatched):
        greedy_actions = BatchedGame.greedy_actions
        has_greedy_actions = False

    plain = Without(num_players=n)
    assert not plain.has_greedy_actions
    with pytest.raises(NotImplementedError, match="no compiled greedy"):
        plain.greedy_actions(batch, rng, a)


def test_the_compiled_greedy_has_the_python_greedys_parameters():
    from envs.boaring import baselines
    from envs.boaring.fast import BoaringBatched

    assert BoaringBatched.greedy_samples == baselines.SAMPLES
    assert BoaringBatched.greedy_card_cost == baselines.CARD_COST

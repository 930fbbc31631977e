"""Network-pruned search (``training/alphazero/guided.py``, spec ``guided:PATH:K:N``): the compiled search baselines of
Battle Sheep and Bestiarium restricted at the root to given moves, and the policy that hands them a network's
``K`` most likely moves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import envs
from envs.battle_sheep.baselines import move_candidates
from envs.battle_sheep.rules import MOVE
from envs.common.game import TERMINAL
from envs.common.policies import decision_from_state, make_baseline
from training.alphazero.guided import GuidedSearchError, GuidedSearchPolicy, parse_guided_spec
from training.arena.players import UnknownPolicyError, make_policy
from training.arena.tournament import play_game
from training.checkpoint import CheckpointError

ROOT = Path(__file__).resolve().parents[2]
SHEEP = ROOT / "checkpoints" / "battle_sheep" / "policy.pt"
SHEEP_HEX = ROOT / "checkpoints" / "battle_sheep" / "policy_ppo.pt"
"""A HexNet: its scores put each row's legal actions in columns of their own (``CellColumns``)."""
BESTIARIUM = ROOT / "checkpoints" / "bestiarium" / "policy.pt"


def positions(game_name: str, count: int, seed: int, keep=lambda game, state: True) -> list:
    """``count`` decisions with more than one legal action from random games."""
    game = envs.make_game(game_name)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.initial_state(rng)
        while game.current_player(state) != TERMINAL and not game.is_truncated(state) and len(out) < count:
            decision = decision_from_state(game, state)
            legal = decision.legal_actions()
            if legal.size > 3 and keep(game, state):
                out.append(decision)
            game.apply(state, int(rng.choice(legal)), rng)
    return out


def test_spec_parsing():
    assert parse_guided_spec("a/b.pt") == ("a/b.pt", None, None)
    assert parse_guided_spec("a/b.pt:16") == ("a/b.pt", 16, None)
    assert parse_guided_spec("a/b.pt:16:400") == ("a/b.pt", 16, 400)
    assert parse_guided_spec("c:/x/b.pt:8:40") == ("c:/x/b.pt", 8, 40)


def test_battle_sheep_search_keeps_to_the_given_root_moves():
    """The root's children are the given moves, also moves ``move_candidates`` leaves out (a split count other
    than 1, half or all but one); no other root child gets a visit."""
    search = make_baseline("battle_sheep", "search:120", seed=0)
    decisions = positions("battle_sheep", 12, seed=1, keep=lambda game, state: state.phase == MOVE)
    outside = 0
    for decision in decisions:
        legal = decision.legal_actions()
        candidates = set(move_candidates(decision.game, decision.info_state))
        others = [int(a) for a in legal if int(a) not in candidates]
        given = np.array((others[:1] + [int(a) for a in legal if int(a) in candidates][:2]), dtype=np.int64)
        outside += bool(others)
        visits = np.zeros(decision.game.num_actions, dtype=np.int64)
        action = search.compiled(decision.info_state, np.random.default_rng(7), given, 120, visits)
        assert action in given
        assert set(np.flatnonzero(visits)) == set(given.tolist())
        assert visits.sum() == 120
        single = search.act_among(decision, given[:1], budget=30)
        assert single == given[0]
    assert outside > 0  # some positions tried a move outside the candidates
    with pytest.raises(ValueError, match="root_actions"):  # illegal or repeated root actions are refused
        search.compiled(
            decisions[0].info_state,
            np.random.default_rng(0),
            root_actions=np.zeros(3 * search.compiled.engine.num_cells + 1, dtype=np.int64),
        )


def test_bestiarium_search_keeps_to_the_given_root_moves():
    search = make_baseline("bestiarium", "search", seed=0)
    for decision in positions("bestiarium", 12, seed=2):
        legal = decision.legal_actions()
        given = legal[[0, legal.size // 2, legal.size - 1]]
        for _ in range(3):
            assert search.act_among(decision, given, budget=20) in given
        assert search.act_among(decision, given[1:2], budget=5) == given[1]


@pytest.mark.parametrize("checkpoint", [SHEEP, SHEEP_HEX], ids=["convnet", "hexnet"])
def test_guided_policy_ranks_by_the_network_and_plays_among_its_moves(checkpoint):
    policy = make_policy(f"guided:{checkpoint}:4:60", "battle_sheep", seed=3)
    assert isinstance(policy, GuidedSearchPolicy) and policy.name == f"guided4x60:{checkpoint.stem}"
    assert (policy.top_k, policy.budget) == (4, 60)
    for decision in positions("battle_sheep", 8, seed=4, keep=lambda game, state: state.phase == MOVE):
        moves = policy.root_moves(decision)
        probs = policy.net_policy.action_probs(decision)
        legal = decision.legal_actions()
        best = np.sort(probs[legal])[::-1][:4]
        np.testing.assert_allclose(probs[moves], best, rtol=1e-4)  # the 4 most likely, most likely first
        assert policy.act(decision) in moves


def test_guided_games_are_legal_and_repeat_with_the_seed():
    specs = [f"guided:{BESTIARIUM}:6:12", "random"]
    record = play_game("bestiarium", {}, specs, seed=5)
    again = play_game("bestiarium", {}, specs, seed=5)
    assert record.actions == again.actions  # play_game checks every move against the mask
    assert sorted(record.returns) == [-1.0, 1.0]


def test_guided_specs_refuse_what_they_cannot_do():
    with pytest.raises(UnknownPolicyError, match="does not exist"):
        make_policy("guided:no/such/policy.pt:4:10", "battle_sheep")
    with pytest.raises(UnknownPolicyError, match="K.* from 1 to 1,000, not '0'"):  # refused as it is parsed
        make_policy(f"guided:{SHEEP}:0:10", "battle_sheep")
    boaring = ROOT / "checkpoints" / "boaring" / "policy.pt"
    with pytest.raises(GuidedSearchError, match="boaring has no guided: defaults; give both"):
        make_policy(f"guided:{boaring}", "boaring")
    with pytest.raises(CheckpointError):
        make_policy(f"guided:{BESTIARIUM}", "battle_sheep")


def test_a_game_without_guided_defaults_is_guided_with_explicit_k_and_n():
    """Boaring's descriptor has no guided: defaults, but its compiled search restricts its root like any other."""
    policy = make_policy(f"guided:{ROOT / 'checkpoints' / 'boaring' / 'policy.pt'}:2:8", "boaring", seed=0)
    for decision in positions("boaring", 6, seed=2):
        top = policy.root_moves(decision)
        assert top.size == 2 and policy.act(decision) in top


def test_beasty_borders_search_keeps_to_the_given_root_moves():
    search = make_baseline("beasty_borders", "search:40", seed=0)
    for decision in positions("beasty_borders", 10, seed=6):
        legal = decision.legal_actions()  # more than three: all four
        visits = np.zeros(decision.game.num_actions, dtype=np.int64)
        action = search.compiled(decision.info_state, np.random.default_rng(11), legal[1:3], 40, visits)
        assert action in legal[1:3] and set(np.flatnonzero(visits)) == set(legal[1:3].tolist())
        assert search.act_among(decision, legal[3:], budget=5) == legal[3]


def test_ranking_agreement_counts_shares_that_grow_with_k():
    from lab.ranking_agreement import KS, agreement

    shares = agreement("bestiarium", str(BESTIARIUM), "search:20", positions=9, seed=1)
    values = [shares[k] for k in KS]
    assert all(0.0 <= v <= 1.0 for v in values) and values == sorted(values)
    assert all(abs(v * 9 - round(v * 9)) < 1e-9 for v in values)  # shares of nine positions


def test_search_ranked_cut_plays_legal_games_among_its_ranked_moves():
    from lab.ranking_agreement import SearchRankedCut, cut_ceiling

    cut = SearchRankedCut(seed=0, top_k=3, ranker_budget=60, budget=30)
    for decision in positions("battle_sheep", 4, seed=8, keep=lambda game, state: state.phase == MOVE):
        assert cut.act(decision) in decision.legal_actions()
    score = cut_ceiling(games=2, seed=1, top_k=3, ranker_budget=40, budget=20)  # play_game checks every move
    assert score in (0.0, 0.25, 0.5, 0.75, 1.0)

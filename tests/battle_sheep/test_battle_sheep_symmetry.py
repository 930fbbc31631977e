"""Battle Sheep's symmetries (the 12 rotations and reflections of the canvas, move phase) and the policies that
average over them (``sym:`` checkpoints)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import envs
from envs.battle_sheep.rules import MOVE, BattleSheepGame, BattleSheepState
from envs.common.game import Symmetry
from envs.common.policies import decision_from_state
from training.arena.players import UnknownPolicyError, make_policy
from training.arena.tournament import play_game
from training.checkpoint import CheckpointError, load_policy

CHECKPOINT = Path(__file__).resolve().parents[2] / "checkpoints" / "battle_sheep" / "policy.pt"


def _cell_map(game: BattleSheepGame, sym: Symmetry) -> np.ndarray:
    base = game.codec.stack_base
    return sym.actions[base : base + game.grid.num_cells] - base


def _turned(game: BattleSheepGame, state: BattleSheepState, sym: Symmetry) -> BattleSheepState:
    """``state`` with every cell moved by the symmetry (built by hand, independently of ``Symmetry``'s maps)."""
    cell_map = _cell_map(game, sym)
    out = state.clone()
    for c in range(game.grid.num_cells):
        out.cells[cell_map[c]] = state.cells[c]
        out.heights[cell_map[c]] = state.heights[c]
    out.stacks = [[int(cell_map[c]) for c in stack] for stack in state.stacks]
    out.border = tuple(int(cell_map[c]) for c in state.border)
    out.pasture = [int(cell_map[c]) for c in state.pasture]
    out._moves = None
    return out


def _to_move_phase(game: BattleSheepGame, rng: np.random.Generator) -> BattleSheepState:
    state = game.initial_state(rng)
    while state.phase != MOVE:
        game.apply(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
    return state


def test_symmetries_exist_in_the_move_phase_only_identity_first():
    game = BattleSheepGame()
    rng = np.random.default_rng(0)
    state = game.initial_state(rng)
    assert game.symmetries(state) == ()
    state = _to_move_phase(game, rng)
    syms = game.symmetries(state)
    assert len(syms) == 12
    assert np.array_equal(syms[0].actions, np.arange(game.num_actions))
    assert np.array_equal(syms[0].observation_source, np.arange(syms[0].observation_source.size))
    for sym in syms:
        assert np.array_equal(np.sort(sym.actions), np.arange(game.num_actions))
        assert np.array_equal(np.sort(sym.observation_source), np.arange(sym.observation_source.size))
    assert len({tuple(_cell_map(game, s)) for s in syms}) == 12, "twelve different maps of the canvas"


@pytest.mark.parametrize("num_players", [2, 4])
def test_a_turned_position_is_the_position_turned(num_players: int):
    """Observation (every seat) and mask of the hand-turned position are the symmetry's maps of the original's,
    and the turned game, played with the turned moves, stays the turned game to the end (same scores)."""
    game = BattleSheepGame(num_players=num_players)
    for seed in range(2):
        rng = np.random.default_rng(seed)
        state = _to_move_phase(game, rng)
        for sym in game.symmetries(state)[1:]:
            original, turned = state.clone(), _turned(game, state, sym)
            while game.current_player(original) >= 0:
                for seat in range(num_players):
                    assert np.array_equal(
                        game.observation(turned, seat), sym.observation(game.observation(original, seat))
                    )
                mask = game.legal_mask(original)
                assert np.array_equal(game.legal_mask(turned), sym.mask(mask))
                action = int(rng.choice(np.flatnonzero(mask)))
                game.apply(original, action)
                game.apply(turned, int(sym.actions[action]))
            assert game.current_player(turned) < 0
            assert np.array_equal(game.scores(turned), game.scores(original))


def test_the_averaged_policy_is_equivariant_and_plain_outside_the_move_phase():
    game = BattleSheepGame()
    plain = load_policy(CHECKPOINT, "battle_sheep")
    averaged = load_policy(CHECKPOINT, "battle_sheep", symmetric=True)
    assert averaged.name.startswith("ppo-sym:")
    rng = np.random.default_rng(3)
    state = game.initial_state(rng)
    build = decision_from_state(game, state)
    assert np.array_equal(averaged.action_probs(build), plain.action_probs(build))
    state = _to_move_phase(game, rng)
    probs = averaged.action_probs(decision_from_state(game, state))
    assert probs.sum() == pytest.approx(1.0, abs=1e-5)
    assert np.all(probs[game.legal_mask(state) == 0] == 0)
    assert not np.allclose(probs, plain.action_probs(decision_from_state(game, state)), atol=1e-4)
    for sym in game.symmetries(state)[1:]:
        turned = averaged.action_probs(decision_from_state(game, _turned(game, state, sym)))
        np.testing.assert_allclose(turned[sym.actions], probs, atol=1e-5)


def test_sym_spec_plays_legal_games_and_bad_specs_are_clear_errors():
    policy = make_policy(f"sym:{CHECKPOINT}", "battle_sheep", seed=1)
    record = play_game(
        "battle_sheep", {}, ["sym", "random"], seed=4, policies=[policy, make_policy("random", "battle_sheep", seed=2)]
    )
    assert sorted(record.returns) == [-1.0, 1.0] or record.returns == [0.0, 0.0]
    with pytest.raises(UnknownPolicyError, match="does not exist"):
        make_policy("sym:no/such/policy.pt", "battle_sheep")
    other = CHECKPOINT.parents[1] / "beasty_borders" / "policy.pt"
    with pytest.raises(CheckpointError, match="no symmetries"):
        make_policy(f"sym:{other}", "beasty_borders")
    assert not envs.make_game("beasty_borders").has_symmetries

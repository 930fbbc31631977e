"""``sample:PATH[:T]``: a checkpoint's network sampled at a temperature (a policy that does not always play one line
in a game without chance, so an exploiter cannot learn a single refutation)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import envs
from envs.common.game import TERMINAL
from envs.common.policies import decision_from_state
from training.arena.players import UnknownPolicyError, make_policy

ROOT = Path(__file__).resolve().parents[2]
CHECKPOINT = ROOT / "checkpoints" / "beasty_borders" / "policy.pt"


def decisions(count: int) -> list:
    """Positions of random Beasty Borders games with at least two legal actions."""
    game = envs.make_game("beasty_borders")
    rng = np.random.default_rng(0)
    out = []
    while len(out) < count:
        state = game.initial_state(rng)
        while game.current_player(state) != TERMINAL and not game.is_truncated(state) and len(out) < count:
            decision = decision_from_state(game, state)
            if decision.legal_actions().size > 1:
                out.append(decision)
            legal = game.legal_actions(state)
            game.apply(state, int(legal[rng.integers(len(legal))]), rng)
    return out


def test_sampled_policy_is_seeded_legal_and_tempered():
    found = decisions(40)
    first = make_policy(f"sample:{CHECKPOINT}", "beasty_borders", seed=3)
    again = make_policy(f"sample:{CHECKPOINT}", "beasty_borders", seed=3)
    picks = [first.act(d) for d in found]
    assert picks == [again.act(d) for d in found]  # same seed, same draws
    assert all(d.action_mask[a] == 1 for d, a in zip(found, picks))
    argmax = make_policy(str(CHECKPOINT), "beasty_borders")
    modes = [argmax.act(d) for d in found]
    assert picks != modes  # it samples: over 40 decisions some draw is not the argmax
    cold = make_policy(f"sample:{CHECKPOINT}:0.01", "beasty_borders", seed=3)
    assert [cold.act(d) for d in found] == modes  # a temperature near 0 plays the argmax
    hot = make_policy(f"sample:{CHECKPOINT}:1000", "beasty_borders", seed=3)
    hot_picks = [hot.act(d) for d in found]
    assert all(d.action_mask[a] == 1 for d, a in zip(found, hot_picks))
    assert sum(a != m for a, m in zip(hot_picks, modes)) > sum(a != m for a, m in zip(picks, modes))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("sample:no/such/policy.pt", "does not exist"),
        (f"sample:{CHECKPOINT}:hot", "is not a number"),
        (f"sample:{CHECKPOINT}:0", "above 0 and finite"),
        (f"sample:{CHECKPOINT}:-1", "above 0 and finite"),
        (f"sample:{CHECKPOINT}:inf", "above 0 and finite"),
        (f"sample:{CHECKPOINT}:nan", "above 0 and finite"),
    ],
)
def test_bad_sample_specs_are_clear_errors(spec: str, message: str):
    with pytest.raises(UnknownPolicyError, match=message):
        make_policy(spec, "beasty_borders")

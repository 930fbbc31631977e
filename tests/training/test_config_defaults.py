"""Where a run's defaults come from (``training/config.py``): the dataclass, the algorithm's shared departures
(:data:`~training.config.ALPHAZERO_DEFAULTS`) and each game's descriptor, each value written once."""

from __future__ import annotations

import dataclasses

import pytest

import envs
from training.config import ALPHAZERO_DEFAULTS, TrainConfig, game_defaults, make_config

FIELD_DEFAULTS = {f.name: f.default for f in dataclasses.fields(TrainConfig) if f.default is not dataclasses.MISSING}


def test_the_shared_alphazero_defaults_depart_from_the_dataclass():
    assert ALPHAZERO_DEFAULTS and set(ALPHAZERO_DEFAULTS) <= set(FIELD_DEFAULTS)
    assert all(FIELD_DEFAULTS[k] != v for k, v in ALPHAZERO_DEFAULTS.items())


@pytest.mark.parametrize("game", envs.GAMES)
def test_a_descriptor_holds_only_what_differs_for_its_game(game):
    """No entry of ``alphazero_defaults`` repeats the value the shared AlphaZero defaults (or the dataclass, for a
    field they leave alone) already give."""
    info = envs.game_info(game)
    for name, value in (info.alphazero_defaults or {}).items():
        before = ALPHAZERO_DEFAULTS.get(name, FIELD_DEFAULTS.get(name))
        assert before != value, f"{game} alphazero_defaults[{name!r}] repeats the default it would have anyway"


@pytest.mark.parametrize("game", envs.GAMES)
def test_an_alphazero_config_starts_from_the_shared_defaults(game):
    config = make_config(game, algo="alphazero")
    own = envs.game_info(game).alphazero_defaults or {}
    for name, value in ALPHAZERO_DEFAULTS.items():
        assert getattr(config, name) == own.get(name, value)
    assert game_defaults(game, "alphazero") == {**ALPHAZERO_DEFAULTS, **own}
    assert game_defaults(game) == dict(envs.game_info(game).ppo_defaults)

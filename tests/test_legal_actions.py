"""``Game.legal_actions`` keeps its promise for every game and option set: the legal ids, ascending, exactly the
ones ``legal_mask`` marks (search and the baselines rely on the order)."""

import numpy as np
import pytest

import envs
from envs.common.testing import option_sets, random_playout

CASES = [(game, options) for game in envs.GAMES for options in option_sets(game)]


@pytest.mark.parametrize(
    "game_id, options", CASES, ids=[f"{g}-" + "-".join(str(v) for v in o.values()) for g, o in CASES]
)
def test_legal_actions_are_ascending_and_equal_the_mask(game_id, options):
    game = envs.make_game(game_id, **options)
    checked = [0]

    def check(state):
        legal = game.legal_actions(state)
        assert legal == sorted(legal), f"not ascending: {legal}"
        assert legal == np.flatnonzero(game.legal_mask(state)).tolist()
        checked[0] += 1

    for seed in range(3):
        random_playout(game, np.random.default_rng(seed), on_state=check)
    assert checked[0] > 3

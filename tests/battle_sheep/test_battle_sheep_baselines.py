"""Battle Sheep baselines: legal, reproducible, and greedy takes the obviously best move."""

from envs.battle_sheep.baselines import GreedyPolicy, search_policy
from envs.battle_sheep.render import board_from_text
from envs.battle_sheep.rules import BattleSheepGame
from envs.common.policies import decision_from_state
from training.arena.tournament import play_game


def test_baselines_play_legal_reproducible_games():
    game = BattleSheepGame(num_players=3, pasture="random")
    a = play_game("battle_sheep", {"num_players": 3, "pasture": "random"}, ["greedy", "search:30", "random"], seed=2)
    b = play_game("battle_sheep", {"num_players": 3, "pasture": "random"}, ["greedy", "search:30", "random"], seed=2)
    assert a.actions == b.actions and len(a.actions) > 10  # play_game checks every action against the mask
    assert game.num_players == 3


def test_greedy_keeps_its_sheep_alive():
    game = BattleSheepGame()
    # A's stack of 4 can go east into the open field or north-west into a dead end of one cell.
    state = board_from_text(
        game,
        """
    _  .  _  _  _  _
      A4  .  .  .  .  .
    _  _  _  _  _  B3
    """,
    )
    decision = decision_from_state(game, state)
    action = GreedyPolicy(game, seed=0).act(decision)
    kind, cell, direction, count = game.codec.decode(action)
    assert kind == "move" and direction == 0  # east: the sheep sent into the dead end would be lost


def test_search_finds_the_winning_move():
    game = BattleSheepGame()
    # A to move: east blocks B's only stack and wins 2-1; west lets B answer and draws 2-2 (herds 2-2).
    state = board_from_text(
        game,
        """
    .  A2  .  B2
    """,
    )
    decision = decision_from_state(game, state)
    policy = search_policy(game, seed=0, budget=100)
    action = policy.act(decision)
    kind, cell, direction, count = game.codec.decode(action)
    assert (kind, direction) == ("move", 0)
    state2 = state.clone()
    game.apply(state2, action)
    assert game.returns(state2)[0] == 1.0
    assert search_policy(game, seed=0, budget=100).act(decision) == action  # same seed, same decision

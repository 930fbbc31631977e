"""OpenSpiel's algorithms on the Barnyard games: the numbers in docs/openspiel.md.

    python examples/openspiel_strength.py mcts GAME GAMES SIMULATIONS   # MCTSBot vs uniform random, seats alternating
    python examples/openspiel_strength.py mccfr ITERATIONS              # outcome-sampling MCCFR, 2-player Boaring
    python examples/openspiel_strength.py ismcts GAMES SIMULATIONS      # IS-MCTS vs uniform random, 2-player Boaring
    python examples/openspiel_strength.py infostate GAMES               # information-state string sizes, 2p Boaring

Bestiarium is measured on ``board_size=5``. Needs the openspiel extra (``pip install -e ".[openspiel]"``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts, outcome_sampling_mccfr
from open_spiel.python.bots.uniform_random import UniformRandomBot

import envs.openspiel as bridge


def mcts_vs_random(game: str, games: int, simulations: int, seed: int = 0) -> str:
    """MCTSBot (uct_c=2, random rollouts) against a uniform random bot; one line of results."""
    options = {"board_size": 5} if game == "bestiarium" else {}
    loaded = bridge.load_game(game, **options)
    rs = np.random.RandomState(seed)
    wins = draws = 0
    start = time.perf_counter()
    for i in range(games):
        seat = i % 2
        bot = mcts.MCTSBot(
            loaded,
            uct_c=2.0,
            max_simulations=simulations,
            evaluator=mcts.RandomRolloutEvaluator(1, rs),
            random_state=rs,
        )
        bots = [bot, UniformRandomBot(1, rs)] if seat == 0 else [UniformRandomBot(0, rs), bot]
        returns = pyspiel.evaluate_bots(loaded.new_initial_state(), bots, seed + i)
        wins += returns[seat] > 0
        draws += returns[seat] == 0
    per_game = (time.perf_counter() - start) / games
    return (
        f"MCTSBot ({simulations} simulations) vs uniform random on {game} {options or ''}: {wins} wins, "
        f"{draws} draws of {games}, {per_game:.1f} s/game"
    )


def mccfr(iterations: int) -> str:
    """Outcome-sampling MCCFR on turn-based 2-player Boaring; one line of results."""
    game = pyspiel.convert_to_turn_based(bridge.load_game("boaring", num_players=2))
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    start = time.perf_counter()
    for _ in range(iterations):
        solver.iteration()
    seconds = time.perf_counter() - start
    return (
        f"outcome-sampling MCCFR on 2-player Boaring: {iterations} iterations in {seconds:.1f} s, "
        f"{len(solver._infostates)} information states visited, "
        f"{sum(len(key) for key in solver._infostates) / 1e6:.1f} MB of information-state keys"
    )


def ismcts_vs_random(games: int, simulations: int, seed: int = 0) -> str:
    """IS-MCTS (uct_c=2, random rollouts, a fresh deal of the hidden cards per simulation) against a uniform
    random bot on 2-player Boaring (barnyard_boaring_turn_based), seats alternating; one line of results."""
    game = bridge.load_game("boaring_turn_based", num_players=2)
    rs = np.random.RandomState(seed)
    wins = draws = 0
    start = time.perf_counter()
    for i in range(games):
        seat = i % 2
        bot = ismcts.ISMCTSBot(
            game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0, max_simulations=simulations, random_state=rs
        )
        bots = [bot, UniformRandomBot(1, rs)] if seat == 0 else [UniformRandomBot(0, rs), bot]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + i)
        wins += returns[seat] > 0
        draws += returns[seat] == 0
    per_game = (time.perf_counter() - start) / games
    return (
        f"ISMCTSBot ({simulations} simulations) vs uniform random on 2-player Boaring: {wins} wins, {draws} "
        f"draws of {games}, {per_game:.1f} s/game"
    )


def infostate_sizes(games: int, seed: int = 0) -> str:
    """Seat 0's information-state string at every decision node of random 2-player Boaring games; one line."""
    game = bridge.load_game("boaring", num_players=2)
    rng = np.random.default_rng(seed)
    sizes, ends = [], []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.integers(len(state.chance_outcomes()))))
                continue
            sizes.append(len(state.information_state_string(0)))
            if state.is_simultaneous_node():
                state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(2)])
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        ends.append(len(state.information_state_string(0)))
    return (
        f"information_state_string(0), 2-player Boaring, {games} random games: {np.mean(sizes):.0f} characters "
        f"on average over {len(sizes)} decision nodes, {np.mean(ends):.0f} at the end"
    )


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and print one result line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    m = sub.add_parser("mcts")
    m.add_argument("game", choices=sorted(g for g in bridge.GAME_NAMES if not g.startswith("boaring")))
    m.add_argument("games", type=int)
    m.add_argument("simulations", type=int)
    c = sub.add_parser("mccfr")
    c.add_argument("iterations", type=int)
    i = sub.add_parser("ismcts")
    i.add_argument("games", type=int)
    i.add_argument("simulations", type=int)
    s = sub.add_parser("infostate")
    s.add_argument("games", type=int)
    args = parser.parse_args(argv)
    if args.what == "infostate":
        print(infostate_sizes(args.games))
    elif args.what == "mcts":
        print(mcts_vs_random(args.game, args.games, args.simulations))
    elif args.what == "ismcts":
        print(ismcts_vs_random(args.games, args.simulations))
    else:
        print(mccfr(args.iterations))


if __name__ == "__main__":
    main()

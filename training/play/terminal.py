"""Play against a policy in the terminal, or watch two policies play.

``python -m training play --game battle_sheep [--opponent random|greedy|search|CHECKPOINT|mcts:CHECKPOINT:N]
[--seat 0]``
``python -m training play --game bestiarium --watch --policies greedy search``

Moves are typed in the game's notation (``help`` lists the legal moves with their notation, ``quit`` stops);
the board is redrawn after every move; a mistyped or illegal move gets a message and another try. A human sees
what their seat may see (in Boaring: their own hand and bid, the public table, other bids only once the rules
reveal them); watching bots shows the spectator's view (in Boaring every hand, labelled so). Every game can be
saved with ``--record FILE`` and replayed with ``python -m training replay FILE``. Without ``--seed`` a game is dealt
from the system's entropy, as on the web page, and its seed is printed when it ends.
"""

from __future__ import annotations

import argparse
import secrets
import time
from collections.abc import Callable

import numpy as np

import envs
from envs.common.game import TERMINAL, IllegalActionError
from envs.common.policies import Policy, decision_from_state
from training.arena.harness import Forfeit, forfeit_returns, take_transcript
from training.arena.players import make_policy
from training.arena.records import save_records
from training.arena.tournament import GameRecord
from training.cli_errors import MAX_SEED, check_output_file, check_seed, command_errors

HUMAN = "human"
MAX_DELAY = 60.0
"""The longest ``--delay`` between moves, in seconds."""


def legal_moves_text(game, state) -> str:
    """The legal moves in notation, comma-separated (long lists shortened)."""
    moves = [game.action_to_str(state, a) for a in game.legal_actions(state)]
    text = ", ".join(moves[:60])
    return text + (f", ... ({len(moves)} in all)" if len(moves) > 60 else "")


def ask_human(game, state, read: Callable[[str], str], write: Callable[[str], None]) -> int | None:
    """Prompt until the human types a legal move; ``None`` if they quit."""
    while True:
        try:
            text = read("your move (help, quit): ").strip()
        except EOFError:
            return None
        if text.lower() in ("quit", "exit", "q"):
            return None
        if text.lower() in ("help", "?", ""):
            write("legal moves: " + legal_moves_text(game, state))
            continue
        try:
            action = game.str_to_action(state, text)
        except IllegalActionError as err:
            write(f"not understood: {err}")
            continue
        if not game.legal_mask(state)[action]:
            write(f"illegal here: {text!r}. Type 'help' for the legal moves.")
            continue
        return action


def play(
    game_name: str,
    options: dict,
    seats: list[str],
    seed: int = 0,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    delay: float = 0.0,
) -> GameRecord | None:
    """Play one game; seat specs are ``"human"`` or policy specs. Returns the record, or None if quit."""
    game = envs.make_game(game_name, **options)
    if len(seats) != game.num_players:
        raise ValueError(f"{game_name} with these options has {game.num_players} seats, got {len(seats)} players")
    policies: list[Policy | None] = [
        None if spec == HUMAN else make_policy(spec, game_name, options, seed=seed * 101 + i)
        for i, spec in enumerate(seats)
    ]
    rng = np.random.default_rng(seed)
    state = game.initial_state(rng)
    record = GameRecord(game=game_name, options=dict(options), seed=seed, seats=list(seats))
    humans = [i for i, spec in enumerate(seats) if spec == HUMAN]
    # The screen: with a human at the table, what that human's seat may see (with several, the one who acts
    # next, else the last one who did); watching bots only, the spectator's view.
    viewer: int | None = humans[0] if humans else None
    write(game.render_for(state, viewer))
    while game.current_player(state) != TERMINAL and not game.is_truncated(state):
        seat = game.current_player(state)
        policy = policies[seat]
        if policy is None:
            if seat != viewer:
                viewer = seat
                write(f"player_{seat}'s turn: their view")
                write(game.render_for(state, viewer))
            action = ask_human(game, state, read, write)
            if action is None:
                write("game abandoned")
                return None
        else:
            try:
                action = int(policy.act(decision_from_state(game, state, seat)))
            except Forfeit as forfeit:
                write(f"player_{seat} ({seats[seat]}) forfeits: {forfeit.reason}")
                record.forfeit = seat
                break
            finally:
                entry = take_transcript(policy, len(record.actions))
                if entry is not None:
                    record.transcripts.append(entry)
        write(f"player_{seat} ({seats[seat]}): {game.action_to_str_for(state, action, viewer)}")
        game.apply(state, action, rng)
        record.actions.append(action)
        write(game.render_for(state, viewer))
        if delay:
            time.sleep(delay)
    if record.forfeit is None:
        record.returns = [float(x) for x in game.returns(state)]
    else:
        record.returns = forfeit_returns(game.num_players, record.forfeit)
    record.scores = [float(x) for x in game.scores(state)]
    write("result: " + ", ".join(f"player_{i} ({s}) {r:+.2f}" for i, (s, r) in enumerate(zip(seats, record.returns))))
    return record


def main(argv: list[str] | None = None) -> None:
    """``barnyard play``: what cannot work (a seed, a delay, a --record path, a policy) is refused before the board
    is drawn, in one line; Ctrl-C at the prompt ends with exit status 130."""
    from envs.common.options import parse_options

    parser = argparse.ArgumentParser(
        prog="python -m training play", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", required=True, help=f"one of {', '.join(envs.GAMES)}")
    parser.add_argument(
        "--opponent",
        default="greedy",
        help="random, greedy, search[:BUDGET], a checkpoint path (the network alone), agent:PATH (the checkpoint "
        "as it declares it is played, e.g. sampled: barnyard declare), sample:PATH[:T], mcts:PATH:N "
        "(the network-guided search, N simulations), guided:PATH:K:N (the compiled search "
        "over the network's K most likely moves) or llm:MODEL@URL[,OPTION=VALUE...] (a language model: "
        "docs/llm.md)",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 moves first)")
    parser.add_argument("--watch", action="store_true", help="watch policies play instead of playing")
    parser.add_argument("--policies", nargs="+", help="with --watch: one spec per seat (default: the opponent)")
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="deal this game (default: a seed drawn from the system's entropy, printed when the game ends)",
    )
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to pause after each move (0 to 60)")
    parser.add_argument("--record", help="save the game as a JSON record here")
    parser.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    if args.game not in envs.GAMES:
        parser.error(f"unknown game {args.game!r}; available: {', '.join(envs.GAMES)}")
    with command_errors():
        seed = secrets.randbelow(MAX_SEED + 1) if args.seed is None else check_seed(args.seed)
        if not 0.0 <= args.delay <= MAX_DELAY:
            raise ValueError(f"--delay {args.delay}: give seconds from 0 to {MAX_DELAY:g}")
        if args.record:
            check_output_file(args.record, "--record")
        options = parse_options(args.env_option, args.game)
        n = envs.make_game(args.game, **options).num_players
        if args.watch:
            seats = args.policies or [args.opponent] * n
            if len(seats) == 1:
                seats = seats * n
        else:
            if not 0 <= args.seat < n:
                parser.error(f"--seat must be 0..{n - 1}")
            seats = [args.opponent] * n
            seats[args.seat] = HUMAN
        record = play(args.game, options, seats, seed, delay=args.delay)
        if args.seed is None:
            print(f"seed {seed}: --seed {seed} deals this game again")
        if record is not None and args.record:
            print(f"saved {save_records([record], args.record)}")

"""Game records: save any tournament or played game as JSON (game, options, seed, actions) and replay it exactly.

A record may also hold ``forfeit`` (the seat that gave the game up: it ended there, its ``returns`` say so) and
``transcripts`` (a language-model seat's prompts, replies and outcomes, one per decision: ``llm:``).

A record replays through the engine alone: ``state = initial_state(default_rng(seed))`` and then every action is
applied with that same generator, which is how :func:`training.arena.tournament.play_game` and ``python -m training
play`` run their games. ``python -m training replay FILE [--gif out.gif]`` shows or animates one.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

import envs
from envs.common.game import Game
from training.cli_errors import command_errors

RECORD_FORMAT = "barnyard-record-1"


class RecordError(ValueError):
    """A record file that is damaged or does not replay under the rules."""


def record_to_json(record: Any) -> dict[str, Any]:
    """A :class:`training.arena.tournament.GameRecord` (or a dict with the same fields) as a JSON-safe dict."""
    data = asdict(record) if not isinstance(record, dict) else dict(record)
    data["format"] = RECORD_FORMAT
    return data


def save_records(records: list[Any], path: str | Path) -> Path:
    """Write one record (a list of one) or many as a JSON file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([record_to_json(r) for r in records], indent=1))
    return path


def load_records(path: str | Path) -> list[dict[str, Any]]:
    """Read a record file written by :func:`save_records`; raises :class:`RecordError` if it is not one."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise RecordError(f"cannot read game record {path}: {err}") from err
    return parse_records(data, str(path))


def parse_records(data: Any, source: str = "the data") -> list[dict[str, Any]]:
    """The records of a parsed record file (one record or a list); :class:`RecordError` if it is not one."""
    if isinstance(data, dict):
        data = [data]
    if (
        not isinstance(data, list)
        or not data
        or not all(isinstance(d, dict) and d.get("format") == RECORD_FORMAT for d in data)
    ):
        raise RecordError(f"{source} is not a Barnyard game record file")
    return data


def replay(record: dict[str, Any], game: Game | None = None) -> Iterator[tuple[Game, Any, int | None]]:
    """Yield ``(game, state, action_just_played)`` for the start and after every action of a record. ``game``: the
    record's engine, already built (with the record's game and options), instead of a new one."""
    try:
        game_name, options, seed, actions = record["game"], record["options"], record["seed"], record["actions"]
        if game is None:
            game = envs.make_game(game_name, **options)
    except (KeyError, TypeError) as err:
        raise RecordError(f"damaged game record: {err!r}") from err
    rng = np.random.default_rng(seed)
    state = game.initial_state(rng)
    yield game, state, None
    for ply, action in enumerate(actions):
        try:
            game.apply(state, int(action), rng)
        except ValueError as err:
            raise RecordError(f"record does not replay: ply {ply}: {err}") from err
        yield game, state, int(action)


def write_gif(record: dict[str, Any], path: str | Path, frame_ms: int = 400) -> int:
    """Animate a record with the game's rgb_array renderer; returns the number of frames."""
    from PIL import Image

    frames = [game.render_rgb(state) for game, state, _ in replay(record)]
    height = max(f.shape[0] for f in frames)
    width = max(f.shape[1] for f in frames)
    images = []
    for f in frames:
        canvas = np.full((height, width, 3), 250, dtype=np.uint8)
        canvas[: f.shape[0], : f.shape[1]] = f
        images.append(Image.fromarray(canvas))
    images[0].save(path, save_all=True, append_images=images[1:], duration=frame_ms, loop=0)
    return len(images)


def main(argv: list[str] | None = None) -> None:
    """``python -m training replay FILE [--index I] [--gif OUT]``."""
    parser = argparse.ArgumentParser(
        prog="python -m training replay", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file")
    parser.add_argument("--index", type=int, default=0, help="which game of the file (default: the first)")
    parser.add_argument("--gif", help="write an animation here instead of printing the moves")
    parser.add_argument("--frame-ms", type=int, default=400)
    args = parser.parse_args(argv)
    with command_errors():
        records = load_records(args.file)
        if not 0 <= args.index < len(records):
            raise RecordError(f"{args.file} holds {len(records)} games; --index {args.index} is out of range")
        record = records[args.index]
        if args.gif:
            n = write_gif(record, args.gif, args.frame_ms)
            print(f"wrote {args.gif} ({n} frames)")
            return
        before = None
        for game, state, action in replay(record):
            if action is not None:
                print(f"player_{game.current_player(before)}: {game.action_to_str(before, action)}")
            before = game.clone(state)
        print(game.render_ansi(state))
        forfeit = record.get("forfeit")
        if isinstance(forfeit, int) and not isinstance(forfeit, bool):
            print(f"player_{forfeit} forfeited at ply {len(record['actions'])}")
            print("returns:", [float(x) for x in record.get("returns", [])])
        else:
            print("returns:", [float(x) for x in game.returns(state)])

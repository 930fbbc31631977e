"""What every ``barnyard`` command does with a user's mistake: one line, ``error: ...``, exit status 2, no
traceback (:func:`command_errors` around a command's work); and the checks made before any game is played (a seed
in range, an output folder or file that can be written), so that a mistake costs nothing and no result is lost.

Shared: the commands (``training.cli``), the arena's and play's commands and the measurements import it; it imports
nothing of the project.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

MAX_SEED = 2**32 - 1
"""The largest ``--seed`` a command takes: every game seed derived from it (``seed * 1_000_003 + game``) stays a
whole number a record holds and the web page replays."""


class CommandError(SystemExit):
    """A command refused: exit status 2 (argparse's for a bad command line), its message ``error: ...`` already
    written to stderr by :func:`fail`; ``str()`` is that line."""

    def __init__(self, message: str) -> None:
        super().__init__(f"error: {message}")
        self.code = 2


def fail(message: str) -> NoReturn:
    """Refuse the command with one line, ``error: MESSAGE`` on stderr, and exit status 2: no traceback."""
    print(f"error: {message}", file=sys.stderr)
    raise CommandError(message)


@contextlib.contextmanager
def command_errors(*kinds: type[BaseException]) -> Iterator[None]:
    """Run a command's work so that what a user can cause ends in :func:`fail`: a ``ValueError`` (a bad spec,
    option, ladder or record: each names what is wrong), an ``OSError`` (a file that cannot be read or written),
    and ``kinds`` (e.g. the harness's ``PolicyError``). Ctrl-C ends the command with exit status 130 and no
    traceback."""
    expected: tuple[type[BaseException], ...] = (ValueError, OSError, *kinds)
    try:
        yield
    except KeyboardInterrupt:
        print(file=sys.stderr)
        raise SystemExit(130) from None
    except CommandError:
        raise
    except expected as err:
        fail(str(err) or type(err).__name__)


def check_seed(seed: int, option: str = "--seed") -> int:
    """``seed`` if it is one a command can play (0 to :data:`MAX_SEED`); ValueError naming ``option`` otherwise."""
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"{option} {seed}: give a whole number from 0 to {MAX_SEED}")
    return seed


def _folder_problem(folder: Path) -> str | None:
    """Why files cannot be written in ``folder`` (made where it is missing), or None if they can."""
    existing = next((p for p in (folder, *folder.parents) if p.exists()), Path("."))
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is a folder this user cannot write in"
    return None


def check_output_folder(path: str | Path, option: str = "--out") -> Path:
    """``path`` as a Path if the folder is there or can be made, and written in: checked before any game is played,
    since a folder that cannot be written loses every result at the end. Nothing is created (the results make it).
    ValueError naming ``option`` otherwise."""
    problem = _folder_problem(Path(path))
    if problem:
        raise ValueError(f"{option} {path}: {problem}")
    return Path(path)


def check_output_file(path: str | Path, option: str) -> Path:
    """``path`` as a Path if that file can be written (its folder made): checked before any game is played.
    ValueError naming ``option`` otherwise."""
    file = Path(path)
    problem = _folder_problem(file.parent)
    if file.is_dir():
        problem = "is a folder, not a file"
    elif file.exists() and not os.access(file, os.W_OK):
        problem = "the file cannot be written"
    if problem:
        raise ValueError(f"{option} {path}: {problem}")
    return file

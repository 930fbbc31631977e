"""Reading a checkpoint's two files (weights ``.pt``, sidecar ``.json``): the one bounded loader every command and
the web app go through (:mod:`training.checkpoint` builds networks and policies on top of it).

:func:`read_bounded` reads regular files only: a FIFO would hold the reader until some writer appears, a device
such as ``/dev/zero`` never ends, a directory is no checkpoint. The size cap (:data:`MAX_WEIGHTS_BYTES`,
:data:`MAX_SIDECAR_BYTES`) is checked with ``os.stat`` before anything is read, and the read cannot go past it.
With ``folders`` (the web app's served folders), the file must lie inside one of them both as named and once every
link is followed (:func:`inside`). :func:`check_files` makes the same checks from ``os.stat`` alone. Also how a
sidecar declares its checkpoint is played (:func:`declared_spec`, spec ``agent:PATH``). No torch here: the web
app's catalogue and seat checks read sidecars without it, and a command refuses a bad file before importing torch.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from training.specs import PolicySpecError, check_play

FORMAT = 1
"""The checkpoint format written and read (the ``format`` field of both files)."""
MAX_WEIGHTS_BYTES = 256 * 2**20
"""Largest weights file read, bytes (the shipped networks are 0.2-0.9 MB; a 64-million-parameter network fits)."""
MAX_SIDECAR_BYTES = 2**20
"""Largest sidecar read, bytes (the shipped ones are about 2.5 KB)."""


class CheckpointError(ValueError):
    """A checkpoint that cannot be used here: another game, other options or spaces, a damaged file, or a file that
    is not one the loader reads (not a regular file, over its size cap, outside the served folders)."""


def checkpoint_paths(path: str | Path) -> tuple[Path, Path]:
    """(weights, sidecar) for a path to either file or to their common stem."""
    path = Path(path)
    if path.suffix in (".pt", ".json"):
        path = path.with_suffix("")
    return path.with_suffix(".pt"), path.with_suffix(".json")


def inside(path: str | Path, folders: Sequence[Path]) -> bool:
    """Whether ``path`` lies under one of ``folders`` both as named (made absolute, ``..`` taken as written) and as
    the file it reaches once every link is followed: a link under a folder that points out of them is outside."""
    try:
        named = Path(os.path.abspath(path))
        real = Path(path).resolve()
        named_ok = any(named.is_relative_to(os.path.abspath(f)) or named.is_relative_to(f.resolve()) for f in folders)
        return named_ok and any(real.is_relative_to(f.resolve()) for f in folders)
    except (OSError, ValueError, RuntimeError):
        return False


def _refuse_unless_regular(info: os.stat_result, path: Path, limit: int, what: str) -> None:
    if not stat.S_ISREG(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file (a pipe, device or socket)"
        raise CheckpointError(f"{what} {path} is {kind}: a checkpoint is two regular files")
    if info.st_size > limit:
        raise CheckpointError(f"{what} {path} is {info.st_size:,} bytes, over the {limit:,} read at most")


def _checked(path: Path, limit: int, what: str, folders: Sequence[Path] | None) -> Path:
    """The file to open for ``path``: checked inside ``folders`` (then its real path, no link followed from there)
    and, with ``os.stat``, a regular file of at most ``limit`` bytes; :class:`CheckpointError` otherwise."""
    target = path
    if folders is not None:
        if not inside(path, folders):
            raise CheckpointError(f"{what} {path} is not under the served checkpoint folders")
        target = path.resolve()
    try:
        _refuse_unless_regular(os.stat(target), path, limit, what)
    except FileNotFoundError:
        raise CheckpointError(f"{what} {path} is missing") from None
    except OSError as err:
        raise CheckpointError(f"{what} {path} cannot be read: {err.strerror or err}") from None
    return target


def read_bounded(path: str | Path, limit: int, what: str, folders: Sequence[Path] | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; :class:`CheckpointError` (``what`` names
    the file in the message) for a missing file, anything but a regular file, a file over ``limit`` or, with
    ``folders``, a file outside them (:func:`inside`). Nothing is read before these checks; the file is opened
    without blocking and checked again once open (the file read is the one checked)."""
    path = Path(path)
    target = _checked(path, limit, what, folders)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if folders is not None:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags)
    except OSError as err:
        raise CheckpointError(f"{what} {path} cannot be read: {err.strerror or err}") from None
    with open(fd, "rb") as f:
        info = os.fstat(f.fileno())
        _refuse_unless_regular(info, path, limit, what)
        data = f.read(info.st_size + 1)
    if len(data) > info.st_size:
        raise CheckpointError(f"{what} {path} grew while it was read")
    return data


def check_files(path: str | Path, folders: Sequence[Path] | None = None) -> None:
    """Both files of the checkpoint at ``path`` pass :func:`read_bounded`'s checks, from ``os.stat`` alone (nothing
    is read or imported): a command refuses a FIFO, a device, a directory, an oversized file or, with ``folders``, a
    file outside them before it imports torch. :class:`CheckpointError` otherwise."""
    weights, sidecar = checkpoint_paths(path)
    _checked(sidecar, MAX_SIDECAR_BYTES, "checkpoint sidecar", folders)
    _checked(weights, MAX_WEIGHTS_BYTES, "checkpoint weights file", folders)


def read_sidecar(path: str | Path, folders: Sequence[Path] | None = None) -> dict[str, Any]:
    """The JSON sidecar of a checkpoint (``path``: either file or their stem), read by :func:`read_bounded`
    (at most :data:`MAX_SIDECAR_BYTES`; with ``folders``, only inside them); :class:`CheckpointError` if it is
    missing, damaged or not a sidecar."""
    _, sidecar = checkpoint_paths(path)
    raw = read_bounded(sidecar, MAX_SIDECAR_BYTES, "checkpoint sidecar", folders)
    try:
        meta = json.loads(raw)
    except (ValueError, RecursionError) as err:  # not UTF-8, not JSON, a number of 5,000 digits, too deep
        raise CheckpointError(f"checkpoint sidecar {sidecar} is damaged: {err}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"{sidecar} is not a Barnyard checkpoint sidecar (format {FORMAT})")
    return meta


def checked_play(play: Any, path: str | Path) -> str:
    """``play`` if it is a :data:`training.specs.PLAY_KINDS` entry whose arguments are within their caps
    (:func:`training.specs.check_play`), else :class:`CheckpointError` naming the sidecar."""
    try:
        return check_play(play)
    except PolicySpecError as err:
        raise CheckpointError(f"{checkpoint_paths(path)[1]}: {err}") from None


def play_spec(path: str | Path, play: str) -> str:
    """The spec that plays the checkpoint at ``path`` as ``play`` (``sample:1`` -> ``sample:PATH:1``)."""
    kind, _, args = play.partition(":")
    if kind == "network":
        return str(path)
    return f"{kind}:{path}" + (f":{args}" if args else "")


def declared_play(path: str | Path, folders: Sequence[Path] | None = None) -> str:
    """The ``play`` entry of a checkpoint's sidecar (``network`` where it declares none), checked against
    :data:`training.specs.PLAY_KINDS` and the caps (:class:`CheckpointError` otherwise). ``folders``: as
    :func:`read_bounded`'s."""
    return checked_play(read_sidecar(path, folders).get("play", "network"), path)


def declared_spec(path: str | Path, folders: Sequence[Path] | None = None) -> str:
    """The policy spec a checkpoint is played by (spec ``agent:PATH``): its declared ``play`` with ``path``
    put in (``sample:1`` -> ``sample:PATH:1``; ``network`` -> ``PATH``)."""
    return play_spec(path, declared_play(path, folders))

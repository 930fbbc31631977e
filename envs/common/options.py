"""A game's options, declared once: :class:`Option` per option, an :class:`OptionTable` per game.

Each game declares ``OPTIONS`` near the top of ``envs/<game>/rules.py``; it is the only place an option's default or
allowed values are written. Everything that needs to know a game's options reads that table: both engines (the rule
engine's ``Game.__init__(**options)`` reads its options through :meth:`OptionTable.check`, and the batched engine,
``BatchedGame.__init__(**options)``, builds that rule engine from the same options), :func:`envs.make_game`, the
``key=value`` parsing of the command lines (:func:`parse_options`), the web app's new-game form
(:meth:`OptionTable.form`), the OpenSpiel game parameters (``envs.openspiel``) and the options sections of the spec
pages (``env.py``) and of ``RULES.md``, which are generated from it (:func:`write_docs`;
``python -m envs.common.options`` rewrites them, ``--check`` says whether they are current).
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from envs.common.game import ConfigError


class UnknownOptionError(ConfigError, TypeError):
    """An option the game does not have (a :class:`ConfigError`, and a ``TypeError`` like any unexpected keyword
    argument)."""


@dataclass(frozen=True)
class Option:
    """One option of a game: its name, type, default, allowed values and a line of help.

    Allowed values are either ``choices`` or the integer range ``low..high`` (inclusive). A ``None`` default means
    the engine chooses (``default_text`` says how); ``None`` is then always accepted.
    """

    name: str
    type: type
    """``int``, ``str``, ``float`` or ``bool``."""
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    low: int | None = None
    high: int | None = None
    default_text: str = ""
    """What a ``None`` default means (e.g. "11, 13, 15 for 2, 3, 4 players")."""
    label: str = ""
    """The web form's short label (default: the name with spaces)."""
    in_form: bool = True
    """Whether the web app's new-game form offers it."""

    def __post_init__(self) -> None:
        if (self.choices is None) == (self.low is None or self.high is None):
            raise ValueError(f"option {self.name}: give either choices or low and high")
        if self.default is None and not self.default_text:
            raise ValueError(f"option {self.name}: a None default needs default_text")
        if self.default is not None:
            self.check(self.default)

    # ----- values --------------------------------------------------------------------------------------------
    def allowed_text(self) -> str:
        """What the error messages say is allowed."""
        if self.choices is not None:
            return ", ".join(repr(c) for c in self.choices)
        return f"an integer from {self.low} to {self.high}"

    def values(self) -> list[Any]:
        """Every allowed value, in order (the choices, or the range)."""
        if self.choices is not None:
            return list(self.choices)
        assert self.low is not None and self.high is not None
        return list(range(self.low, self.high + 1))

    def _fail(self, value: Any) -> ConfigError:
        return ConfigError(f"{self.name}={value!r} is not valid; allowed: {self.allowed_text()}")

    def check(self, value: Any) -> Any:
        """``value`` as the engine stores it (numpy integers become ``int``); :class:`ConfigError` naming what is
        allowed for anything else. ``None`` passes where the default is ``None``."""
        if value is None and self.default is None:
            return None
        if self.type is int:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise self._fail(value)
            value = int(value)
        elif not isinstance(value, self.type) or (self.type is not bool and isinstance(value, bool)):
            raise self._fail(value)
        if self.choices is not None:
            if value not in self.choices:
                raise self._fail(value)
        elif not self.low <= value <= self.high:
            raise self._fail(value)
        return value

    def parse(self, text: str) -> Any:
        """A command line's ``text`` as this option's type (checked as :meth:`check` does): ``num_players=3`` is
        the integer 3; ``none`` is ``None`` where the default is ``None``."""
        text = text.strip()
        if self.default is None and text.lower() in ("none", "null"):
            return None
        value: Any = text
        if self.type is int:
            try:
                value = int(text)
            except ValueError:
                raise self._fail(text) from None
        elif self.type is float:
            try:
                value = float(text)
            except ValueError:
                raise self._fail(text) from None
        elif self.type is bool:
            low = text.lower()
            if low not in ("true", "false", "1", "0"):
                raise self._fail(text)
            value = low in ("true", "1")
        return self.check(value)

    # ----- documentation -------------------------------------------------------------------------------------
    def values_markdown(self) -> str:
        if self.choices is not None:
            return ", ".join(_md(c) for c in self.choices)
        return f"{self.low} .. {self.high}"

    def default_markdown(self) -> str:
        return self.default_text if self.default is None else _md(self.default)


def _literal(value: Any) -> str:
    """A value as the docs write it: ``"build"`` for strings, ``6`` for numbers."""
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _md(value: Any) -> str:
    """A value in a markdown table: strings as code (`` `"build"` ``), numbers plain."""
    return f"`{_literal(value)}`" if isinstance(value, str) else _literal(value)


class OptionTable:
    """The options of one game, in order."""

    def __init__(self, *options: Option):
        self._options = {o.name: o for o in options}
        if len(self._options) != len(options):
            raise ValueError("option names must be unique")

    def __iter__(self) -> Iterator[Option]:
        return iter(self._options.values())

    def __len__(self) -> int:
        return len(self._options)

    def __contains__(self, name: object) -> bool:
        return name in self._options

    def __getitem__(self, name: str) -> Option:
        return self._options[name]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._options)

    def defaults(self) -> dict[str, Any]:
        """Every option at its default."""
        return {o.name: o.default for o in self}

    def check_names(self, options: Mapping[str, Any], game: str = "this game") -> None:
        """:class:`UnknownOptionError` for an option the table does not have, naming the ones it has."""
        for name in options:
            if name not in self._options:
                raise UnknownOptionError(
                    f"{game} has no option {name!r}; its options: {', '.join(self.names) or 'none'}"
                )

    def check(
        self, options: Mapping[str, Any], game: str = "this game", unchecked: Sequence[str] = ()
    ) -> dict[str, Any]:
        """Every option, checked (:meth:`Option.check`), defaults filled in: what an engine's ``__init__(**options)``
        reads its options from. The options named in ``unchecked`` get their default but are passed as given: their
        allowed range depends on another option, and the engine checks them itself."""
        self.check_names(options, game)
        return {
            o.name: options.get(o.name, o.default) if o.name in unchecked else o.check(options.get(o.name, o.default))
            for o in self
        }

    def form(self) -> list[dict[str, Any]]:
        """The web app's new-game form: ``{"name", "label", "choices", "default"}`` per offered option."""
        return [
            {"name": o.name, "label": o.label or o.name.replace("_", " "), "choices": o.values(), "default": o.default}
            for o in self
            if o.in_form
        ]

    def markdown(self) -> str:
        """The options as a markdown table (RULES.md's and the spec page's section)."""
        rows = ["| option | values | default | meaning |", "|---|---|---|---|"]
        for o in self:
            rows.append(f"| `{o.name}` | {o.values_markdown()} | {o.default_markdown()} | {o.help} |")
        return "\n".join(rows)


# ----- command lines -------------------------------------------------------------------------------------------
def parse_options(pairs: Sequence[str], game: str | OptionTable | None = None) -> dict[str, Any]:
    """``key=value`` strings (``--env-option`` and the like) to options. With a game (its id, or its table), each key
    must be one of its options and each value is read as that option's type and checked (:class:`ConfigError`
    otherwise: the message says what is allowed); without one, values are read as JSON where they parse (numbers),
    else kept as strings."""
    table: OptionTable | None
    if isinstance(game, str):
        import envs

        table, name = envs.game_options(game), game
    else:
        table, name = game, "this game"
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ConfigError(f"option {pair!r} must look like key=value")
        key, value = pair.split("=", 1)
        key = key.strip()
        if table is None:
            try:
                out[key] = json.loads(value)
            except json.JSONDecodeError:
                out[key] = value
        else:
            table.check_names({key: None}, name)
            out[key] = table[key].parse(value)
    return out


# ----- generated documentation ---------------------------------------------------------------------------------
BEGIN = "<!-- options: generated from OPTIONS in rules.py by `python -m envs.common.options`; do not edit -->"
END = "<!-- end of options -->"
DOC_BEGIN = ".. options: generated from OPTIONS in rules.py by ``python -m envs.common.options``; do not edit"
DOC_END = ".. end of options"
LINE_WIDTH = 120
"""The project's line length (ruff's ``line-length`` in pyproject.toml): generated docstring lines stay within it."""


def docstring_section(table: OptionTable, indent: str = "    ") -> str:
    """The spec page's (``env.py`` docstring's) options lines, one entry per option plus ``render_mode``, wrapped
    at the project's line length."""
    entries = []
    for o in table:
        if o.choices is not None:
            values = " | ".join(f"``{_literal(c)}``" for c in o.choices)
        else:
            values = f"{o.low} .. {o.high}"
        default = o.default_text if o.default is None else f"``{_literal(o.default)}``"
        entries.append(f"``{o.name}``: {values}; default {default}. {o.help}")
    from envs.common.aec import BarnyardAECEnv  # render_mode is an option of the env, not of the engine

    modes = " | ".join(f'``"{m}"``' for m in BarnyardAECEnv.metadata["render_modes"])
    entries.append(f"``render_mode`` (the env only): ``None`` (default) | {modes}.")
    lines = [indent + DOC_BEGIN]
    for entry in entries:
        lines += textwrap.wrap(
            entry,
            width=LINE_WIDTH,
            initial_indent=indent,
            subsequent_indent=indent + "    ",
            break_long_words=False,
            break_on_hyphens=False,
        )
    lines.append(indent + DOC_END)
    return "\n".join(lines)


def _replace_between(text: str, begin: str, end: str, body: str, where: str) -> str:
    pattern = re.compile(r"[ \t]*" + re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    found = pattern.findall(text)
    if len(found) != 1:
        raise ValueError(f"{where}: expected one generated options block, found {len(found)}")
    return pattern.sub(lambda _: body, text)


def render_docs(game_dir: Path, table: OptionTable) -> dict[Path, str]:
    """The text ``RULES.md`` and ``env.py`` of one game folder should have: their options blocks generated from
    ``table``, the rest as it is."""
    rules_md = game_dir / "RULES.md"
    env_py = game_dir / "env.py"
    md = rules_md.read_text()
    md = _replace_between(md, BEGIN, END, f"{BEGIN}\n{table.markdown()}\n{END}", str(rules_md))
    py = env_py.read_text()
    py = _replace_between(py, DOC_BEGIN, DOC_END, docstring_section(table), str(env_py))
    return {rules_md: md, env_py: py}


def stale_docs(tables: Mapping[Path, OptionTable], write: bool = False) -> list[Path]:
    """The files of the game folders (``tables``: each folder's options table) whose options blocks differ from
    the tables (rewritten when ``write``)."""
    stale = []
    for game_dir, table in tables.items():
        for path, text in render_docs(game_dir, table).items():
            if path.read_text() != text:
                stale.append(path)
                if write:
                    path.write_text(text)
    return stale


def game_tables() -> dict[Path, OptionTable]:
    """Every registered game's folder (``GameInfo.folder``: ``envs/<game>``, or wherever a game registered from
    outside lives) with its options table."""
    import envs

    return {envs.game_info(g).folder: envs.game_options(g) for g in envs.GAMES}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m envs.common.options [--check]``: rewrite (or check) every registered game's generated options
    blocks (a game registered from outside the package too, when ``BARNYARD_GAMES`` names it)."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--check", action="store_true", help="only say which files are stale (exit status 1)")
    args = parser.parse_args(argv)
    stale = stale_docs(game_tables(), write=not args.check)
    for path in stale:
        print(("stale: " if args.check else "rewrote: ") + str(path))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())

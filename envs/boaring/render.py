"""Boaring on screen and on paper: the text picture (a seat's view or the spectator's), the picture, the JSON
snapshots and the table data the web page draws (``training/play/web``). Hand-made positions and the books a
snapshot must balance are the rules' (``rules.make_state``, ``rules.check_consistent``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from envs.boaring.actions import (
    ANIMAL_NAMES,
    BID,
    LIVED,
    OVER,
    PHASE_NAMES,
    UNKNOWN,
)
from envs.boaring.kernels import STATE
from envs.boaring.rules import BoaringGame, BoaringState, check_consistent
from envs.common.render import BACKGROUND, INK, PLAYER_COLORS, font

_JSON_ORDER = sorted(STATE.reference_fields, key=lambda f: len(f.shape))
"""The snapshots' key order since the first: the declared fields (``kernels.STATE``), the numbers first, then the
lists, then the tables (a stable sort: each group in declaration order)."""


def state_to_json(game: BoaringGame, state: BoaringState) -> dict[str, Any]:
    """Every field of the state as plain ints and lists (hidden information included; the declaration's JSON
    form, ``kernels.STATE``)."""
    data = STATE.to_json(state)
    return {f.name: data[f.name] for f in _JSON_ORDER}


def state_from_json(game: BoaringGame, data: dict[str, Any]) -> BoaringState:
    """Inverse of :func:`state_to_json`: the declaration checks the fields, their shapes and their dtypes'
    ranges, ``rules.check_consistent`` the card values and that no card or animal is lost."""
    state = game.blank_state()
    STATE.from_json(data, state, {"players": game.num_players})
    check_consistent(game, state)
    return state


def render_lines(game: BoaringGame, state: BoaringState, observer: int | None = None) -> list[str]:
    """The text picture, line by line: a line saying whose view it is, the round, one line per player, the
    table. ``observer=None``: the spectator view, every hand and face-down card shown. A seat: what that
    seat's observation holds (its own hand and bid, the public table, other hands by size only, other
    face-down bids as ``??``), drawn from :meth:`information_state`."""
    n = game.num_players
    if observer is None:
        lines = ["spectator view: every hand and face-down card shown"]
    else:
        lines = [f"player_{observer}'s view: other hands and face-down cards hidden"]
        state = game.information_state(state, observer)
    if state.phase == OVER:
        lines.append(
            f"Boaring - game over after {state.rounds} rounds; winners: "
            + ", ".join(f"p{s}" for s in game.winners(state))
        )
    else:
        need = state.requirement * n
        lines.append(
            f"Boaring - round {state.rounds + 1}, active p{state.active}, phase {PHASE_NAMES[state.phase]}"
            f": {ANIMAL_NAMES[state.animal]} needs {state.requirement} x {n} = {need}"
        )
    scores = game.scores(state)
    for s in range(n):
        if UNKNOWN in state.hands[s]:
            hand = "?" * bool(state.hand_size[s])
        else:
            hand = " ".join(f"{i + 1}x{c}" if c > 1 else f"{i + 1}" for i, c in enumerate(state.hands[s]) if c)
        sav, grave = state.savanna[s], state.graveyard[s]
        mark = "*" if s == state.current else " "
        p = state.pending[s]
        bid = "  " if p == 0 else ("??" if p == UNKNOWN else f"{p:2d}")
        lines.append(
            f"{mark}p{s} [{bid}] savanna B{sav[0]} H{sav[1]} L{sav[2]}  grave B{grave[0]} H{grave[1]} "
            f"L{grave[2]}  score {int(scores[s]):3d}  hand({state.hand_size[s]}): {hand}"
        )
    disc = " ".join(f"{i + 1}:{c}" for i, c in enumerate(state.discard))
    left = state.animals_left
    lines.append(
        f"discard {disc} | pile {len(state.food_pile)} | deck B{left[0]} H{left[1]} L{left[2]} | "
        f"eaten B{state.eaten[0]} H{state.eaten[1]} L{state.eaten[2]}"
    )
    if state.last_animal >= 0:
        total = sum(state.last_played)
        fate = "lived, to the savanna of" if state.last_outcome == LIVED else "died, to the graveyard of"
        played = " ".join(f"p{s}:{v}" for s, v in enumerate(state.last_played))
        lines.append(
            f"last reveal {played} = {total} vs {state.last_requirement * n}: "
            f"{ANIMAL_NAMES[state.last_animal]} {fate} p{state.last_receiver}"
        )
    return lines


def render_for(game: BoaringGame, state: BoaringState, observer: int | None, mode: str = "ansi") -> str | np.ndarray:
    """The picture ``observer`` may see (:meth:`render_lines`); ``None``: the spectator view."""
    game.check_render_request(observer, mode)
    lines = render_lines(game, state, None if observer is None else int(observer))
    return lines_to_rgb(game, lines) if mode == "rgb_array" else "\n".join(lines) + "\n"


def lines_to_rgb(game: BoaringGame, lines: list[str]) -> np.ndarray:
    """``lines`` (from :meth:`render_lines`) drawn as text, each player's line marked by a colour swatch."""
    fnt = font()
    line_h, margin, swatch = 14, 6, 12
    width = max(int(fnt.getlength(s)) for s in lines) + 3 * margin + swatch
    img = Image.new("RGB", (width, line_h * len(lines) + 2 * margin), BACKGROUND)
    draw = ImageDraw.Draw(img)
    for k, line in enumerate(lines):
        y = margin + k * line_h
        if 2 <= k <= game.num_players + 1:  # after the view line and the round line
            draw.rectangle([margin, y, margin + swatch - 2, y + swatch - 2], fill=PLAYER_COLORS[k - 2])
        draw.text((2 * margin + swatch, y), line, fill=INK, font=fnt)
    return np.asarray(img, dtype=np.uint8)


def render_ansi(game: BoaringGame, state: BoaringState) -> str:
    """A text picture of the position: the spectator view (every hand shown, and labelled so)."""
    return "\n".join(render_lines(game, state)) + "\n"


def render_rgb(game: BoaringGame, state: BoaringState) -> np.ndarray:
    """The spectator view's text picture with each player's line marked by a colour swatch."""
    return lines_to_rgb(game, render_lines(game, state))


def action_to_str_for(game: BoaringGame, state: BoaringState, action: int, observer: int | None) -> str:
    """A bid is laid face down: another seat sees only that the mover committed a card ("The cards are turned
    at the same time"; the reveal shows them all). Eat decisions are public."""
    mover = game.current_player(state)
    if state.phase == BID and observer is not None and observer != mover:
        return "lays a food card face down"
    return game.action_to_str(state, action)


# ----- the web page's table ----------------------------------------------------------------------------------------
def seat_names(game: BoaringGame) -> list[str]:
    """A short name per seat, shown beside ``player_i``."""
    return [f"p{i}" for i in range(game.num_players)]


def board_data(game: BoaringGame, view_state: BoaringState) -> dict[str, Any]:
    """The table the web page draws from ``view_state`` (an information state for a player: hidden hands and bids
    are None): every player's hand, committed card, savanna, graveyard and score, the animal and food card on the
    table, the last reveal, and the piles."""
    data = state_to_json(game, view_state)
    n = game.num_players
    phase = PHASE_NAMES[data["phase"]]
    players = []
    for s in range(n):
        hand = data["hands"][s]
        pending = data["pending"][s]
        players.append(
            {
                "hand": None if min(hand) < 0 else hand,  # counts per value 1..10, None if hidden
                "hand_size": data["hand_size"][s],
                "committed": phase == "bid" and pending != 0,
                "pending": pending if pending > 0 and phase == "bid" else None,  # hidden: -1 -> None
                "savanna": data["savanna"][s],
                "graveyard": data["graveyard"][s],
                "score": 2 * sum(data["savanna"][s]) - sum(data["graveyard"][s]),
            }
        )
    last = None
    if data["last_animal"] >= 0:
        last = {
            "played": data["last_played"],
            "animal": ANIMAL_NAMES[data["last_animal"]],
            "requirement": data["last_requirement"],
            "needed": data["last_requirement"] * n,
            "fed": sum(data["last_played"]),
            "outcome": ("", "lived", "died")[data["last_outcome"]],
            "receiver": data["last_receiver"],
        }
    return {
        "kind": "boaring",
        "num_players": n,
        "phase": phase,
        "active": data["active"],
        "current": data["current"],
        "eater": data["eater"],
        "animal": ANIMAL_NAMES[data["animal"]] if data["animal"] >= 0 else None,
        "requirement": data["requirement"],
        "needed": data["requirement"] * n,
        "players": players,
        "last": last,
        "rounds": data["rounds"],
        "discard": data["discard"],
        "food_pile": len(data["food_pile"]),
        "animals_left": data["animals_left"],
        "eaten": data["eaten"],
    }


def move_data(
    game: BoaringGame, view_state: BoaringState, board: dict[str, Any], action: int, text: str
) -> dict[str, Any]:
    """One legal move for the page, from the codec: a food card to play, not eating, or what to eat from whose
    graveyard (hyena: the eater's own) or savanna (lion: the seat ``offset`` after the eater)."""
    kind, a, b = game.codec.decode(action)
    if kind == "play":
        return {"id": action, "text": text, "kind": "play", "value": a}
    if kind == "no_eat":
        return {"id": action, "text": text, "kind": "no_eat"}
    eater, n = board["eater"], board["num_players"]
    if kind == "hyena":
        return {"id": action, "text": text, "kind": "eat", "where": "graveyard", "owner": eater, "type": a}
    return {"id": action, "text": text, "kind": "eat", "where": "savanna", "owner": (eater + a) % n, "type": b}


def hidden_from(game: BoaringGame, view_before: BoaringState, actor: int, action: int, viewer: int | None) -> bool:
    """Whether ``viewer`` may not learn ``actor``'s ``action``: another seat's food card, laid face down."""
    return viewer is not None and viewer != actor and game.codec.decode(action)[0] == "play"


def hidden_text(game: BoaringGame, view_before: BoaringState, actor: int, action: int) -> str:
    """Log text of a food card the viewer may not see (built without looking at the card)."""
    return "plays a food card face down"


def result_note(game: BoaringGame, final_state: BoaringState) -> str | None:
    """How a finished game was decided, beyond the score: nothing to add here."""
    return None


def events(game: BoaringGame, before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    """The reveal, as a log line: when the last food card of a bid is in, every card is turned at once."""
    last = after["last"]
    if (
        before is None
        or last is None
        or before["phase"] != "bid"
        or (after["phase"] == "bid" and after["rounds"] == before["rounds"])
    ):
        return []
    cards = ", ".join(f"p{s} {v}" for s, v in enumerate(last["played"]))
    fate = (
        f"lives and goes to p{last['receiver']}"
        if last["outcome"] == "lived"
        else f"dies and goes to p{last['receiver']}'s graveyard"
    )
    return [f"reveal: {cards}; {last['fed']} food for {last['needed']} needed: the {last['animal']} {fate}"]

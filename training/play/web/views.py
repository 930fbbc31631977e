"""What the web page is sent about a position: the board as JSON, the legal moves with click geometry, log text.

Everything here reads a *view state*: ``game.information_state(state, seat)`` for a player's seat (hidden parts
already replaced by placeholders), or the full state for the spectator view. The board JSON is built from
``game.state_to_json(view_state)`` (plus fixed geometry from the game's options), so a player's page can only be
sent what that seat may know. The legal moves come with their notation (``game.action_to_str``) and enough
geometry for the page to map clicks to them: the page never decides legality itself.

One :class:`GameView` per game; :func:`view_for` picks it. No web framework is imported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from envs import game_options
from envs.common.game import Game
from envs.common.hexgrid import DIRECTION_NAMES, DIRECTIONS, HexGrid

Json = dict[str, Any]


class GameView:
    """The page's picture of one game: board JSON, moves with geometry, log lines, seat names, option form."""

    game_name = ""
    title = ""
    hidden_information = False
    """Whether a player's view differs from the spectator's (hidden hands)."""
    options_form: list[Json] = []
    """The new-game form: ``{"name", "label", "choices", "default"}`` per option, from the game's options table
    (``OPTIONS`` in ``envs/<game>/rules.py``; the engine checks values)."""
    browser_test_options: Json = {}

    def seat_names(self, game: Game) -> list[str]:
        """A short name per seat (colour, side) shown beside ``player_i``."""
        return [f"player {i}" for i in range(game.num_players)]

    def board(self, game: Game, view_state: Any, viewer: int | None) -> Json:
        """The board JSON of ``view_state`` (an information state for a player, the full state for a spectator)."""
        raise NotImplementedError

    def move(self, game: Game, view_state: Any, board: Json, action: int, text: str) -> Json:
        """One legal move for the page: ``{"id", "text", "kind", ...geometry}``."""
        return {"id": action, "text": text, "kind": "button"}

    def moves(self, game: Game, view_state: Any, board: Json, legal: Sequence[int]) -> list[Json]:
        return [self.move(game, view_state, board, a, game.action_to_str(view_state, a)) for a in legal]

    def hidden_from(self, game: Game, view_before: Any, actor: int, action: int, viewer: int | None) -> bool:
        """Whether ``viewer`` may not learn ``action`` (by ``actor``) when it is played."""
        return False

    def hidden_text(self, game: Game, view_before: Any, actor: int, action: int) -> str:
        """Log text of a move that the viewer may not see (built without looking at the move)."""
        return "moves (hidden)"

    def result_note(self, game: Game, final_state: Any) -> str | None:
        """A sentence on how the finished game was decided (a tie-break), or None."""
        return None

    def events(self, game: Game, public_before: Json | None, public_after: Json) -> list[str]:
        """Public events between two positions (a reveal, a die roll), as log lines; ``public_before`` is None at
        the start. Both arguments are :meth:`board` JSON of one viewer, so nothing hidden from it can get in."""
        return []


@lru_cache(maxsize=16)
def _hex_grid(radius: int) -> HexGrid:
    """The hexagon of cells in the engines' cell order (shared: read only)."""
    return HexGrid(radius)


# ----- Battle Sheep -------------------------------------------------------------------------------------------------
class BattleSheepView(GameView):
    """Hex pastures with stacks. Cells are axial ``(q, r)`` on the canvas of ``state_to_json``'s cell order."""

    game_name = "battle_sheep"
    title = "Battle Sheep"
    options_form = game_options("battle_sheep").form()
    browser_test_options = {"num_players": 2}
    LETTERS = "ABCD"

    def seat_names(self, game: Game) -> list[str]:
        return [f"{self.LETTERS[i]}" for i in range(game.num_players)]

    def result_note(self, game: Game, final_state: Any) -> str | None:
        """Which rule decided: the player who could not move (splits), or the largest herd among the players tied
        on pastures (RULES.md: most pastures; tie: largest herd; still tied: shared)."""
        if game.options().get("end_rule") == "splits":
            return f"player_{final_state.to_move} could not move, and loses."
        keys = [game.rank_key(final_state, s) for s in range(game.num_players)]
        top = max(k[0] for k in keys)
        tied = [s for s, k in enumerate(keys) if k[0] == top]
        if len(tied) < 2:
            return None
        herds = ", ".join(f"player_{s} {keys[s][1]}" for s in tied)
        best = max(keys[s][1] for s in tied)
        if sum(keys[s][1] == best for s in tied) > 1:
            return f"Tied on pastures ({top}) and on the largest herd ({herds}): shared."
        return f"Tied on pastures ({top}): the largest herd decided ({herds})."

    def board(self, game: Game, view_state: Any, viewer: int | None) -> Json:
        data = game.state_to_json(view_state)
        grid = _hex_grid(game.options()["canvas_radius"])
        cells = []
        owner_at: dict[tuple[int, int], int] = {}
        for i, owner in enumerate(data["cells"]):
            if owner == -2:  # not pasture
                continue
            q, r = grid.coords[i]
            cells.append([q, r, owner, data["heights"][i] if owner >= 0 else 0])
            owner_at[(q, r)] = owner
        n = game.num_players
        pastures = [sum(1 for o in owner_at.values() if o == s) for s in range(n)]
        herds = [_largest_group([c for c, o in owner_at.items() if o == s]) for s in range(n)]
        return {
            "kind": "battle_sheep",
            "radius": grid.radius,
            "phase": data["phase"],
            "to_move": data["to_move"],
            "cells": cells,
            "tiles_left": data["tiles_left"],
            "can_move": data["can_move"],
            "pastures": pastures,
            "herds": herds,
            "directions": list(DIRECTION_NAMES),
            "direction_vectors": [list(d) for d in DIRECTIONS],
        }

    def move(self, game: Game, view_state: Any, board: Json, action: int, text: str) -> Json:
        from envs.battle_sheep.actions import MOVE_RE, STACK_RE, TILE_RE

        if m := TILE_RE.match(text):
            q, r, o = int(m.group(1)), int(m.group(2)), int(m.group(3))
            # RULES.md: tile = a, a + dir[o], a + dir[o - 1], a + dir[o + 1]
            cells = [[q, r]] + [[q + DIRECTIONS[d][0], r + DIRECTIONS[d][1]] for d in (o, (o - 1) % 6, (o + 1) % 6)]
            return {"id": action, "text": text, "kind": "tile", "cells": cells}
        if m := STACK_RE.match(text):
            return {"id": action, "text": text, "kind": "stack", "cell": [int(m.group(1)), int(m.group(2))]}
        if m := MOVE_RE.match(text):
            q, r = int(m.group(1)), int(m.group(2))
            d = DIRECTION_NAMES.index(m.group(3).upper())
            return {
                "id": action,
                "text": text,
                "kind": "move",
                "from": [q, r],
                "dir": d,
                "to": _slide(board, q, r, d),
                "count": int(m.group(4)),
            }
        raise ValueError(f"unexpected Battle Sheep notation {text!r}")


def _largest_group(cells: list[tuple[int, int]]) -> int:
    """Size of the largest edge-connected group of hex cells."""
    left = set(cells)
    best = 0
    while left:
        stack = [left.pop()]
        size = 0
        while stack:
            q, r = stack.pop()
            size += 1
            for dq, dr in DIRECTIONS:
                c = (q + dq, r + dr)
                if c in left:
                    left.remove(c)
                    stack.append(c)
        best = max(best, size)
    return best


def _slide(board: Json, q: int, r: int, d: int) -> list[int]:
    """Where sheep from (q, r) sliding in direction d stop: the last free pasture cell before anything else."""
    free = {(c[0], c[1]) for c in board["cells"] if c[2] == -1}
    dq, dr = DIRECTIONS[d]
    while (q + dq, r + dr) in free:
        q, r = q + dq, r + dr
    return [q, r]


# ----- Bestiarium ---------------------------------------------------------------------------------------------------
class BestiariumView(GameView):
    """The hexhex board with its creatures (connected stones of one colour), sizes and the scoring cascade."""

    game_name = "bestiarium"
    title = "Bestiarium"
    options_form = game_options("bestiarium").form()
    browser_test_options = {"board_size": 5}

    def seat_names(self, game: Game) -> list[str]:
        return ["Black", "White"]

    def board(self, game: Game, view_state: Any, viewer: int | None) -> Json:
        from envs.bestiarium.actions import cell_names

        data = game.state_to_json(view_state)
        grid = _hex_grid(game.options()["board_size"] - 1)
        names = cell_names(grid)
        stones = [".XO".index(ch) - 1 for ch in data["board"]]
        creature = [-1] * grid.num_cells
        sizes: list[int] = []
        for start in range(grid.num_cells):
            if stones[start] < 0 or creature[start] >= 0:
                continue
            cid = len(sizes)
            creature[start] = cid
            stack, members = [start], 0
            while stack:
                c = stack.pop()
                members += 1
                for j in grid.neighbor_lists[c]:
                    if stones[j] == stones[start] and creature[j] < 0:
                        creature[j] = cid
                        stack.append(j)
            sizes.append(members)
        chain = set(data["chain"])
        cells = [
            {
                "q": q,
                "r": r,
                "name": names[i],
                "stone": stones[i],
                "creature": creature[i],
                "size": sizes[creature[i]] if creature[i] >= 0 else 0,
                "chain": i in chain,
            }
            for i, (q, r) in enumerate(grid.coords)
        ]
        cascade = [list(row) for row in game.cascade(view_state) if row[1] or row[2]]
        return {
            "kind": "bestiarium",
            "radius": grid.radius,
            "cells": cells,
            "phase": data["phase"],
            "to_move": data["to_move"],
            "passes": data["passes"],
            "first_passer": data["first_passer"],
            "plies": data["plies"],
            "over": data["over"],
            "cascade": cascade,
        }

    def move(self, game: Game, view_state: Any, board: Json, action: int, text: str) -> Json:
        cells = board["cells"]
        if action < len(cells):  # RULES.md: ids 0..N-1 are cells, N is pass
            c = cells[action]
            return {"id": action, "text": text, "kind": "cell", "cell": action, "q": c["q"], "r": c["r"]}
        return {"id": action, "text": text, "kind": "pass"}


# ----- Beasty Borders -----------------------------------------------------------------------------------------------
class BeastyBordersView(GameView):
    """The tile landscape with its lakes, animals, markers, the steps-marker and the die (and the bidding row)."""

    game_name = "beasty_borders"
    title = "Beasty Borders"
    options_form = game_options("beasty_borders").form()
    browser_test_options = {"variant": "main"}

    def seat_names(self, game: Game) -> list[str]:
        return ["farm", "wild"]

    def board(self, game: Game, view_state: Any, viewer: int | None) -> Json:
        from envs.beasty_borders.actions import BIDDING_ROW, ROW_OWNER, SEAT_LETTERS

        data = game.state_to_json(view_state)
        rows = data["board"]
        over = game.current_player(view_state) < 0
        cols = len(rows[0])
        tiles_wide = 3  # both variants lay their tiles 3 wide (RULES.md)
        slot = data["tiles"].index(0)  # tile 0 carries the signpost on its top-left space
        signpost = [2 * (slot // tiles_wide), 3 * (slot % tiles_wide)]
        num_types = len(data["remaining"][0])
        reach = [] if over else [list(divmod(game.target_cell(view_state, k), cols)) for k in range(1, 9)]
        board = {
            "kind": "beasty_borders",
            "rows": rows,
            "tile_size": [2, 3],
            "tiles": data["tiles"],
            "signpost": signpost,
            "marker": None if over else list(divmod(data["pos"], cols)),
            "roll": None if over else data["roll"],
            "roller": data["roller"],
            "phase": ("roller", "responder")[data["phase"]],
            "reach": reach,
            "letters": [SEAT_LETTERS[s][:num_types] for s in range(2)],
            "remaining": data["remaining"],
            "placed": data["placed"],
            "vp": [int(v) for v in game.scores(view_state)],
            "row": None,
            "choice": None,
        }
        if data["row"] is not None:
            board["row"] = [
                {"value": i + 1, "letter": BIDDING_ROW[i], "owner": ROW_OWNER[i], "present": bit == "1"}
                for i, bit in enumerate(data["row"])
            ]
            board["choice"] = None if data["choice"] < 0 else data["choice"] + 1
        return board

    def move(self, game: Game, view_state: Any, board: Json, action: int, text: str) -> Json:
        if text == "pass":
            return {"id": action, "text": text, "kind": "pass"}
        if board["row"] is not None:  # variant: point at the figure of value action + 1
            return {"id": action, "text": text, "kind": "figure", "value": action + 1}
        return {"id": action, "text": text, "kind": "type", "type": action}

    def events(self, game: Game, public_before: Json | None, public_after: Json) -> list[str]:
        """A die roll: every turn starts with one (the marker moves at once)."""
        if public_after["roll"] is None or public_after["phase"] != "roller":
            return []
        if (
            public_before is not None
            and public_before["marker"] == public_after["marker"]
            and public_before["rows"] == public_after["rows"]
        ):
            return []
        r, c = public_after["marker"]
        side = ("farm", "wild")[public_after["roller"]]
        return [f"{side} rolls {public_after['roll']}: the steps-marker moves to {'abcdef'[r]}{c + 1}"]


# ----- Boaring ------------------------------------------------------------------------------------------------------
class BoaringView(GameView):
    """Hands, the table (animal and food card, committed cards) and every player's savanna and graveyard."""

    game_name = "boaring"
    title = "Boaring"
    hidden_information = True
    options_form = game_options("boaring").form()
    browser_test_options = {"num_players": 2}
    ANIMALS = ("boar", "hyena", "lion")

    def seat_names(self, game: Game) -> list[str]:
        return [f"p{i}" for i in range(game.num_players)]

    def board(self, game: Game, view_state: Any, viewer: int | None) -> Json:
        data = game.state_to_json(view_state)
        n = game.num_players
        phase = ("bid", "eat", "over")[data["phase"]]
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
                "animal": self.ANIMALS[data["last_animal"]],
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
            "animal": self.ANIMALS[data["animal"]] if data["animal"] >= 0 else None,
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

    def move(self, game: Game, view_state: Any, board: Json, action: int, text: str) -> Json:
        from envs.boaring.actions import decode

        kind, a, b = decode(action)
        if kind == "play":
            return {"id": action, "text": text, "kind": "play", "value": a}
        if kind == "no_eat":
            return {"id": action, "text": text, "kind": "no_eat"}
        eater, n = board["eater"], board["num_players"]
        if kind == "hyena":
            return {"id": action, "text": text, "kind": "eat", "where": "graveyard", "owner": eater, "type": a}
        return {"id": action, "text": text, "kind": "eat", "where": "savanna", "owner": (eater + a) % n, "type": b}

    def hidden_from(self, game: Game, view_before: Any, actor: int, action: int, viewer: int | None) -> bool:
        return viewer is not None and viewer != actor and action < 10  # another seat's face-down food card

    def hidden_text(self, game: Game, view_before: Any, actor: int, action: int) -> str:
        return "plays a food card face down"

    def events(self, game: Game, public_before: Json | None, public_after: Json) -> list[str]:
        """The reveal: when the last food card of a bid is in, every card is turned at once."""
        last = public_after["last"]
        if (
            public_before is None
            or last is None
            or public_before["phase"] != "bid"
            or (public_after["phase"] == "bid" and public_after["rounds"] == public_before["rounds"])
        ):
            return []
        cards = ", ".join(f"p{s} {v}" for s, v in enumerate(last["played"]))
        fate = (
            f"lives and goes to p{last['receiver']}"
            if last["outcome"] == "lived"
            else f"dies and goes to p{last['receiver']}'s graveyard"
        )
        return [f"reveal: {cards}; {last['fed']} food for {last['needed']} needed: the {last['animal']} {fate}"]


VIEWS: dict[str, GameView] = {
    v.game_name: v for v in (BattleSheepView(), BestiariumView(), BeastyBordersView(), BoaringView())
}


def view_for(game_name: str) -> GameView:
    """The :class:`GameView` of a game id (``ValueError`` for an unknown one)."""
    try:
        return VIEWS[game_name]
    except KeyError:
        raise ValueError(f"unknown game {game_name!r}; available: {', '.join(VIEWS)}") from None

"""What the web page is sent about a position: the board as JSON, the legal moves with click geometry, log text.

Everything here reads a *view state*: ``game.information_state(state, seat)`` for a player's seat (hidden parts
already replaced by placeholders), or the full state for the spectator view. What is sent is built by the game's own
``envs/<game>/render.py`` (``board_data`` from ``game.state_to_json(view_state)`` and the game's geometry, so a
player's page can only be sent what that seat may know; ``move_data`` from the codec's ``decode``), so this module
holds no rules and parses no notation. The legal moves come with their notation (``game.action_to_str``) and enough
geometry for the page to map clicks to them: the page never decides legality itself.

One :class:`GameView` per game, made from the game's descriptor (``GameInfo``: title, hidden information, the
drawing the page uses) and its options table (the new-game form); :func:`view_for` gives it. No web framework is
imported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import envs
from envs.common.game import Game

Json = dict[str, Any]


BOARDS = Path(__file__).resolve().parent / "static" / "js" / "boards"
"""The page's board drawings, one module per drawing (``<name>.js``); a game without one gets ``generic.js``."""


class GameView:
    """The page's picture of one game: board JSON, moves with geometry, log lines, seat names, option form. Every
    game has the same view; what differs is read from its descriptor and built by its ``render.py``."""

    def __init__(self, game_name: str):
        info = envs.game_info(game_name)
        self.game_name = game_name
        self.title = info.title
        self.hidden_information = info.hidden_information
        """Whether a player's view differs from the spectator's (hidden hands)."""
        self.options_form: list[Json] = envs.game_options(game_name).form()
        """The new-game form: ``{"name", "label", "choices", "default"}`` per option, from the game's options
        table (the engine checks values)."""
        self.browser_test_options: Json = dict(info.web_test_options)
        drawing = info.web_board
        self.drawing: str | None = (
            drawing if drawing and drawing.isidentifier() and (BOARDS / f"{drawing}.js").is_file() else None
        )
        """The page's board drawing (``static/js/boards/<drawing>.js``), or None: the generic one (the board's
        ``text`` and the legal moves as buttons)."""
        self.render: Any = info.room("render")
        """The game's ``render.py``: everything this view sends is built there."""

    def seat_names(self, game: Game) -> list[str]:
        """A short name per seat (colour, side) shown beside ``player_i``."""
        return self.render.seat_names(game)

    def board(self, game: Game, view_state: Any, viewer: int | None) -> Json:
        """The board JSON of ``view_state`` (an information state for a player, the full state for a spectator)."""
        return self.render.board_data(game, view_state)

    def move(self, game: Game, view_state: Any, board: Json, action: int, text: str) -> Json:
        """One legal move for the page: ``{"id", "text", "kind", ...geometry}``."""
        return self.render.move_data(game, view_state, board, action, text)

    def moves(self, game: Game, view_state: Any, board: Json, legal: Sequence[int]) -> list[Json]:
        return [self.move(game, view_state, board, a, game.action_to_str(view_state, a)) for a in legal]

    def hidden_from(self, game: Game, view_before: Any, actor: int, action: int, viewer: int | None) -> bool:
        """Whether ``viewer`` may not learn ``action`` (by ``actor``) when it is played."""
        return self.render.hidden_from(game, view_before, actor, action, viewer)

    def hidden_text(self, game: Game, view_before: Any, actor: int, action: int) -> str:
        """Log text of a move that the viewer may not see (built without looking at the move)."""
        return self.render.hidden_text(game, view_before, actor, action)

    def result_note(self, game: Game, final_state: Any) -> str | None:
        """A sentence on how the finished game was decided (a tie-break), or None."""
        return self.render.result_note(game, final_state)

    def events(self, game: Game, public_before: Json | None, public_after: Json) -> list[str]:
        """Public events between two positions (a reveal, a die roll), as log lines; ``public_before`` is None at
        the start. Both arguments are :meth:`board` JSON of one viewer, so nothing hidden from it can get in."""
        return self.render.events(game, public_before, public_after)


@cache
def view_for(game_name: str) -> GameView:
    """The :class:`GameView` of a registered game id (``ValueError`` naming the games for an unknown one)."""
    return GameView(game_name)

"""What the web page is sent about a position: the board as JSON, the legal moves with click geometry, log text.

Everything here reads a *view state*: ``game.information_state(state, seat)`` for a player's seat (hidden parts
already replaced by placeholders), or the full state for the spectator view. What is sent is built by the game's own
``envs/<game>/render.py`` (``board_data`` from ``game.state_to_json(view_state)`` and the game's geometry, so a
player's page can only be sent what that seat may know; ``move_data`` from the codec's ``decode``), so this module
holds no rules and parses no notation. The legal moves come with their notation (``game.action_to_str``) and enough
geometry for the page to map clicks to them: the page never decides legality itself.

One :class:`GameView` per game (title, the new-game form); :func:`view_for` picks it. No web framework is imported
here.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from envs import game_options
from envs.common.game import Game

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

    @property
    def render(self) -> Any:
        """The game's ``envs/<game>/render.py``: everything this view sends is built there."""
        return importlib.import_module(f"envs.{self.game_name}.render")

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


# ----- Battle Sheep -------------------------------------------------------------------------------------------------
class BattleSheepView(GameView):
    """Hex pastures with stacks, axial ``(q, r)`` cells: ``envs/battle_sheep/render.py``."""

    game_name = "battle_sheep"
    title = "Battle Sheep"
    options_form = game_options("battle_sheep").form()
    browser_test_options = {"num_players": 2}


# ----- Bestiarium ---------------------------------------------------------------------------------------------------
class BestiariumView(GameView):
    """The hexhex board with its creatures (connected stones of one colour), sizes and the scoring cascade:
    ``envs/bestiarium/render.py``."""

    game_name = "bestiarium"
    title = "Bestiarium"
    options_form = game_options("bestiarium").form()
    browser_test_options = {"board_size": 5}


# ----- Beasty Borders -----------------------------------------------------------------------------------------------
class BeastyBordersView(GameView):
    """The tile landscape with its lakes, animals, markers, the steps-marker and the die (and the bidding row):
    ``envs/beasty_borders/render.py``."""

    game_name = "beasty_borders"
    title = "Beasty Borders"
    options_form = game_options("beasty_borders").form()
    browser_test_options = {"variant": "main"}


# ----- Boaring ------------------------------------------------------------------------------------------------------
class BoaringView(GameView):
    """Hands, the table (animal and food card, committed cards) and every player's savanna and graveyard:
    ``envs/boaring/render.py``."""

    game_name = "boaring"
    title = "Boaring"
    hidden_information = True
    options_form = game_options("boaring").form()
    browser_test_options = {"num_players": 2}


VIEWS: dict[str, GameView] = {
    v.game_name: v for v in (BattleSheepView(), BestiariumView(), BeastyBordersView(), BoaringView())
}


def view_for(game_name: str) -> GameView:
    """The :class:`GameView` of a game id (``ValueError`` for an unknown one)."""
    try:
        return VIEWS[game_name]
    except KeyError:
        raise ValueError(f"unknown game {game_name!r}; available: {', '.join(VIEWS)}") from None

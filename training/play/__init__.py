"""Playing the games with people: against a policy or watching policies play, in the terminal or in a browser.

* ``terminal`` - ``barnyard play``: moves typed in the game's notation, the board redrawn after each;
* ``web`` - ``barnyard serve``: a local web app to play, watch, replay saved games and read tournament results
  (``web/app.py`` on Starlette, ``web/sessions.py``, ``web/views.py``, the page in ``web/static/``);
* ``mcp_server`` - ``barnyard mcp``: the games as an MCP tool server for language-model agents (stdio or HTTP),
  over ``mcp_games`` (the games and their seats' tokens, no MCP in there).

May import: the shared top-level modules and :mod:`training.arena` (policies by name, game records). Nothing
else in ``training`` imports it.
"""

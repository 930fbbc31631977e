"""A local web app to play against the policies, watch them play, replay saved games and read tournaments.

``python -m training serve`` (``serve.py``) runs ``app.py`` (Starlette on uvicorn, the ``[web]`` extra); the games
live in ``sessions.py``; ``views.py`` turns positions into the JSON each page draws as SVG (``static/``).
"""

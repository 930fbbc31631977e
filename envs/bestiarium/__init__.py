"""Bestiarium: hexhex creatures that eat and grow (engine in ``rules.py``, AEC env in ``env.py``)."""

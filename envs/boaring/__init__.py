"""Boaring: a 2-10 player card game with simultaneous hidden food bids."""

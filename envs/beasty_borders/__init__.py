"""Beasty Borders: dice, place-or-pass and group scoring on a tiled landscape."""

"""Drawing helpers shared by the ``rgb_array`` renderers (Pillow underneath; every helper returns HxWx3 uint8)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from envs.common.hexgrid import HexGrid

RGB = tuple[int, int, int]

PLAYER_COLORS: tuple[RGB, ...] = (
    (220, 50, 47),  # red
    (38, 139, 210),  # blue
    (240, 200, 40),  # yellow
    (133, 153, 0),  # olive
    (211, 54, 130),  # magenta
    (42, 161, 152),  # cyan
    (203, 75, 22),  # orange
    (108, 113, 196),  # violet
    (90, 90, 90),  # grey
    (160, 110, 60),  # brown
)
"""Colour of seat i (up to 10 seats)."""

BACKGROUND: RGB = (250, 248, 240)
GRASS: RGB = (130, 190, 90)
WATER: RGB = (90, 150, 220)
EMPTY: RGB = (225, 225, 215)
INK: RGB = (20, 20, 20)
WHITE: RGB = (255, 255, 255)


def font() -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's built-in font (no font files needed)."""
    return ImageFont.load_default()


def text_color_on(fill: RGB) -> RGB:
    """Black or white, whichever reads better on ``fill``."""
    return INK if (0.299 * fill[0] + 0.587 * fill[1] + 0.114 * fill[2]) > 140 else WHITE


def hex_board(
    grid: HexGrid,
    cells: Sequence[int],
    fills: Sequence[RGB],
    labels: Sequence[str] | None = None,
    size: float = 18.0,
    margin: int = 10,
    outline: RGB = (60, 60, 60),
) -> np.ndarray:
    """Draw the given cells of ``grid`` as pointy-top hexes, cropped to their bounding box.

    ``fills[k]`` and ``labels[k]`` belong to ``cells[k]``; other cells are not drawn.
    """
    if not cells:
        return np.full((2 * margin + 1, 2 * margin + 1, 3), BACKGROUND, dtype=np.uint8)
    centers = [grid.pixel_center(c, size) for c in cells]
    half_w = size * math.sqrt(3) / 2
    min_x = min(x for x, _ in centers) - half_w
    min_y = min(y for _, y in centers) - size
    max_x = max(x for x, _ in centers) + half_w
    max_y = max(y for _, y in centers) + size
    width = int(math.ceil(max_x - min_x)) + 2 * margin
    height = int(math.ceil(max_y - min_y)) + 2 * margin
    img = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(img)
    fnt = font()
    for k, (cx, cy) in enumerate(centers):
        x0 = cx - min_x + margin
        y0 = cy - min_y + margin
        corners = [
            (x0 + size * math.cos(math.radians(60 * i - 30)), y0 + size * math.sin(math.radians(60 * i - 30)))
            for i in range(6)
        ]
        draw.polygon(corners, fill=fills[k], outline=outline)
        if labels is not None and labels[k]:
            draw.text((x0, y0), labels[k], fill=text_color_on(fills[k]), font=fnt, anchor="mm")
    return np.asarray(img, dtype=np.uint8)


def square_board(
    fills: Sequence[Sequence[RGB]],
    labels: Sequence[Sequence[str]] | None = None,
    cell: int = 28,
    margin: int = 8,
    highlight: tuple[int, int] | None = None,
) -> np.ndarray:
    """Draw a rows x cols grid of coloured squares with optional labels and one highlighted square."""
    rows, cols = len(fills), len(fills[0])
    img = Image.new("RGB", (cols * cell + 2 * margin, rows * cell + 2 * margin), BACKGROUND)
    draw = ImageDraw.Draw(img)
    fnt = font()
    for r in range(rows):
        for c in range(cols):
            x0, y0 = margin + c * cell, margin + r * cell
            draw.rectangle([x0, y0, x0 + cell - 1, y0 + cell - 1], fill=fills[r][c], outline=(60, 60, 60))
            if labels is not None and labels[r][c]:
                draw.text(
                    (x0 + cell / 2, y0 + cell / 2), labels[r][c], fill=text_color_on(fills[r][c]), font=fnt, anchor="mm"
                )
    if highlight is not None:
        r, c = highlight
        x0, y0 = margin + c * cell, margin + r * cell
        draw.rectangle([x0 - 1, y0 - 1, x0 + cell, y0 + cell], outline=(0, 0, 0), width=3)
    return np.asarray(img, dtype=np.uint8)


def text_panel(lines: Sequence[str], width: int | None = None, line_height: int = 14, margin: int = 6) -> np.ndarray:
    """Lines of text on the background colour."""
    fnt = font()
    if width is None:
        width = max([int(fnt.getlength(s)) for s in lines] + [10]) + 2 * margin
    img = Image.new("RGB", (width, line_height * max(1, len(lines)) + 2 * margin), BACKGROUND)
    draw = ImageDraw.Draw(img)
    for k, line in enumerate(lines):
        draw.text((margin, margin + k * line_height), line, fill=INK, font=fnt)
    return np.asarray(img, dtype=np.uint8)


def stack_vertical(images: Sequence[np.ndarray]) -> np.ndarray:
    """Stack images top to bottom, padding narrower ones on the right with the background colour."""
    width = max(im.shape[1] for im in images)
    padded = []
    for im in images:
        if im.shape[1] < width:
            pad = np.empty((im.shape[0], width - im.shape[1], 3), dtype=np.uint8)
            pad[:] = BACKGROUND
            im = np.concatenate([im, pad], axis=1)
        padded.append(im)
    return np.ascontiguousarray(np.concatenate(padded, axis=0))

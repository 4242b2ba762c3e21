"""Shared fixtures: built games are cached per test session (building Leduc-5 takes ~1 s)."""

from __future__ import annotations

import functools

from solver import Game, make_game


@functools.cache
def game(name: str) -> Game:
    return make_game(name)

"""Hand histories written out in PHH, for the tests that replay them, change a line or fuzz them."""

from __future__ import annotations

HEADS_UP_STUD = """\
variant = "F7S"
antes = [0, 0]
bring_in = 1
small_bet = 2
big_bet = 4
starting_stacks = [100, 100]
actions = [
  "d dh p1 AhKhQh", "d dh p2 2c3d4s", "p2 pb", "p1 cc",
  "d dh p1 Jh", "d dh p2 5c", "p1 cc", "p2 cc",
  "d dh p1 9h", "d dh p2 7d", "p1 cc", "p2 cc",
  "d dh p1 8h", "d dh p2 8s", "p1 cc", "p2 cc",
  "d dh p1 7h", "d dh p2 9c", "p1 cc", "p2 cc",
  "p1 sm AhKhQhJh9h8h7h", "p2 sm",
]
"""
"""Seven Card Stud heads-up: p2 brings in for 1, p1 calls, every later street is checked, and p1's
hearts win (stacks 101 and 99)."""

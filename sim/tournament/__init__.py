"""Tournaments in simulation: the accelerated driver and what it needs around the director.

``view`` builds a live bot's View from the engine, ``profiles`` says who plays and how long each
thing takes, ``accelerated`` runs a whole tournament on a virtual clock in one process, and
``summary`` turns the director's record into ``tournament.json``.
"""

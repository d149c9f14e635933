"""Simulations and tournaments: many games between bots, on all cores."""

"""ttr — Ticket to Ride: an exact, fast rules engine (USA, Europe, Nordic Countries, Märklin), bots,
simulations, a multiplayer web server and reinforcement-learning environments."""

from .editions import get_edition
from .engine import Action, Game, IllegalAction, PlayerView

__version__ = "0.1.0"
__all__ = ["Action", "Game", "IllegalAction", "PlayerView", "__version__", "get_edition"]

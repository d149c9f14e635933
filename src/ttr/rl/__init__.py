"""Reinforcement-learning environments (optional extra ``ttr[rl]``: numpy, gymnasium, pettingzoo).

* ``ticket_to_ride_v0`` — PettingZoo AEC env, every seat an agent (``ticket_to_ride_v0.env(...)``);
* ``ticket_to_ride_v0.parallel_env(...)`` — the same as a PettingZoo ParallelEnv; ``state()`` for critics;
* ``TicketToRideEnv`` — Gymnasium env, one learning seat against bots, policies or an ``OpponentPool``;
  importing this package registers ``ttr/TicketToRide-<edition>-v0`` for every built-in edition;
* ``selfplay`` — opponent pools for self-play (Gymnasium and AEC), snapshots of SB3 learners;
* ``policies`` — loading a POLICY for ``ttr rl-eval``.

The action space, the observation and the rewards are documented in docs/rl.md.
"""

from __future__ import annotations

import gymnasium

from ..editions import BUILTIN
from . import ticket_to_ride_v0
from .actions import ACTION_SPACE_VERSION, ActionCodec, IllegalActionIndex, codec_for
from .gym_env import TicketToRideEnv
from .observation import OBSERVATION_VERSION, ObservationEncoder, ObservationLayout
from .opponents import OpponentPool
from .render import RenderError
from .ticket_to_ride_v0 import TicketToRideAEC

GYM_IDS = {edition: f"ttr/TicketToRide-{edition}-v0" for edition in BUILTIN}

for _edition, _id in GYM_IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point="ttr.rl.gym_env:TicketToRideEnv", kwargs={"edition": _edition})

__all__ = [
    "ACTION_SPACE_VERSION",
    "GYM_IDS",
    "OBSERVATION_VERSION",
    "ActionCodec",
    "IllegalActionIndex",
    "ObservationEncoder",
    "ObservationLayout",
    "OpponentPool",
    "RenderError",
    "TicketToRideAEC",
    "TicketToRideEnv",
    "codec_for",
    "ticket_to_ride_v0",
]

"""What both environments share: the per-edition spaces, the action lookup and the final rewards."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from ..editions import Edition, get_edition, per_edition
from ..engine import Action, Game, PlayerView, edition_with_options
from .actions import ActionCodec, IllegalActionIndex
from .observation import ObservationLayout
from .seatview import SeatView

REWARDS = ("margin", "win")


@per_edition
def layout_for(edition: Edition) -> ObservationLayout:
    return ObservationLayout(edition)


def resolve_edition(edition: Edition | str, options: dict[str, Any] | None) -> tuple[Edition, Edition]:
    """(base edition, edition with the rule options applied)."""
    base = get_edition(edition) if isinstance(edition, str) else edition
    return base, edition_with_options(base, options)


def make_spaces(codec: ActionCodec, layout: ObservationLayout) -> tuple[spaces.Dict, spaces.Discrete]:
    obs = spaces.Dict(
        {
            "observation": spaces.Box(layout.low, layout.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(codec.size,), dtype=np.int8),
        }
    )
    return obs, spaces.Discrete(codec.size)


def final_rewards(result: dict[str, Any], mode: str) -> list[float]:
    """Per player, from ``Game.result()``: ``margin`` = own total minus the best other total;
    ``win`` = +1 sole winner, 0 shared first place, -1 otherwise."""
    res = result
    totals = [x["total"] for x in res["players"]]
    if mode == "margin":
        return [float(t - max(totals[:p] + totals[p + 1 :])) for p, t in enumerate(totals)]
    winners = res["winners"]
    return [(1.0 if len(winners) == 1 else 0.0) if p in winners else -1.0 for p in range(len(totals))]


def check_reward_mode(mode: str) -> str:
    if mode not in REWARDS:
        raise ValueError(f"unknown reward {mode!r} (known: {', '.join(REWARDS)})")
    return mode


def check_render_mode(mode: str | None, metadata: dict[str, Any]) -> str | None:
    if mode is not None and mode not in metadata["render_modes"]:
        raise ValueError(f"render_mode must be one of {metadata['render_modes']} or None")
    return mode


def result_info(result: dict[str, Any]) -> dict[str, Any]:
    """The final ``info["result"]`` of both environments: totals and winners (copies, not the game's lists)."""
    return {"scores": [x["total"] for x in result["players"]], "winners": result["winners"][:]}


def pick(codec: ActionCodec, table: dict[int, Action], action: Any, game: Game, who: str) -> Action:
    """The engine action for an index, or IllegalActionIndex saying why not."""
    try:
        i = operator.index(action)
    except TypeError:
        raise IllegalActionIndex(f"an action is an integer index in [0, {codec.size}), got {action!r}") from None
    a = table.get(i)
    if a is not None:
        return a
    if not 0 <= i < codec.size:
        raise IllegalActionIndex(f"action index {i} is outside the action space [0, {codec.size})")
    raise IllegalActionIndex(
        f"action {i} ({codec.describe(i)}) is not legal for {who} now (phase {game.phase}); "
        f"{len(table)} action(s) are legal: choose an index where action_mask is 1"
    )


def pick_legal(codec: ActionCodec, legal: tuple[list[int], Sequence[Action]], action: Any, game: Game, who: str) -> Action:
    """``pick`` over the aligned legal indices and actions of ``codec.legal_mask``: the usual case, an int index
    that is legal, is found without building a table; anything else gets pick()'s checks and error."""
    kind = type(action)
    if kind is int or kind is np.int64:
        indices, actions = legal
        try:
            return actions[indices.index(action if kind is int else int(action))]
        except ValueError:
            pass
    return pick(codec, dict(zip(*legal, strict=True)), action, game, who)


def mask_from(indices: Iterable[int], size: int) -> np.ndarray:
    """A new int8 mask with 1 at `indices` (a table's keys, or a list; a bytearray filled in Python: cheaper than
    numpy fancy indexing for the dozen or so legal actions of a typical turn)."""
    mask = bytearray(size)
    for i in indices:
        mask[i] = 1
    return np.frombuffer(mask, dtype=np.int8)


def legal_table(codec: ActionCodec, game: Game, view: PlayerView | SeatView | None) -> dict[int, Action]:
    """Index -> action for the player to move (`view` is that player's view or ``SeatView``; None: a
    ``SeatView`` made here)."""
    if view is None:
        view = SeatView(game, game.current)
    return codec.legal_table(game.legal_actions(), view)


def render_text(game: Game) -> str:
    """A short text summary (the ``ansi`` render mode)."""
    v = game.view(None)
    lines = [f"{game.edition.name} turn {game.turn} phase {game.phase} player to move {game.current}"]
    for p in range(game.n):
        lines.append(
            f"  player {p}: score {v.scores[p]} trains {v.trains[p]} cards {v.hand_sizes[p]} "
            f"tickets {v.ticket_counts[p]} routes {sum(1 for o in v.route_owner if o == p)}"
        )
    return "\n".join(lines) + "\n"

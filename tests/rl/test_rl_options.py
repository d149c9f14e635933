"""Gymnasium env options for research: players, max_turns truncation, per-step reward parts."""

from __future__ import annotations

import numpy as np
import pytest

from ttr.rl import TicketToRideEnv


def play(env: TicketToRideEnv, seed: int) -> tuple[list[dict], dict, bool, bool]:
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    infos = []
    while True:
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        infos.append(info)
        if term or trunc:
            return infos, info, term, trunc


def test_players_kwarg_fills_every_seat_with_one_opponent_kind() -> None:
    env = TicketToRideEnv("usa", players=4, opponents="random")
    assert env.players == 4 and env.opponents == ("random",) * 3
    _, info = env.reset(seed=0)
    assert info["opponents"] == ["random"] * 3 and env.game.n == 4
    assert TicketToRideEnv("usa", players=3, opponents=("easy", "random")).players == 3
    with pytest.raises(ValueError, match="players=4 but 2 opponent"):
        TicketToRideEnv("usa", players=4, opponents=("easy", "random"))
    with pytest.raises(ValueError, match="2-3 players"):
        TicketToRideEnv("nordic", players=4)


@pytest.mark.parametrize("edition", ["usa", "europe", "marklin"])
def test_reward_parts_add_up_to_the_final_total(edition: str) -> None:
    env = TicketToRideEnv(edition, opponents=("random", "random"), seat="random")
    infos, _, term, trunc = play(env, seed=3)
    assert term and not trunc
    seat = env.seat
    total = env.game.result()["players"][seat]
    summed = {k: sum(i["reward_parts"][k] for i in infos) for k in ("routes", "tickets", "longest_path", "other")}
    assert sum(summed.values()) == total["total"]
    assert summed["routes"] == total["route_points"] + total["merchandise"]
    assert summed["tickets"] == total["ticket_points"] and summed["longest_path"] == total["longest_path_bonus"]
    assert all(i["reward_parts"]["tickets"] == 0 for i in infos[:-1])  # scored at the end only
    assert any(i["reward_parts"]["routes"] > 0 for i in infos)


def test_max_turns_truncates() -> None:
    env = TicketToRideEnv("usa", max_turns=20)
    infos, last, term, trunc = play(env, seed=1)
    assert trunc and not term and last["turn"] >= 20 and all(i["turn"] < 20 for i in infos[:-1])
    assert "result" not in last and not env.game.is_over
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(ValueError, match="max_turns"):
        TicketToRideEnv("usa", max_turns=0)

"""Observations, masks and rewards of seeded random games are pinned: a SHA-256 digest per edition and
player count, recorded with the code before the speed work of issue 19 (commit 82ddcd4). Any change to
the encoder, the mask or the env's step path that alters a single value of a single step fails here
(the reference-encoder tests in test_rl_fast_obs.py check *what* the values are; this checks that they
did not move)."""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from ttr.rl import ticket_to_ride_v0

PINNED: dict[tuple[str, int, str], str] = {
    ("usa", 2, "dict"): "1c7cfeea64d0f39578115bd2a04aad28803b061040a60e51d44215ec31709380",
    ("usa", 2, "flat"): "1f698135304776ecb42608d5b45500e79970de24d9bd7aaf377b80db9658e008",
    ("usa", 4, "dict"): "2d7bf999ce3f3130439b5f0ecdcc59333492fd9c2ac5938d5b71ec9d1be0c81c",
    ("usa", 4, "flat"): "c6747535b2ab5e7007ca69dcdf5136cf1400505009c9328a9e5c8304e1adbc91",
    ("europe", 2, "dict"): "af4bd177d867373a9ad621bf6e8ea654db623dd826d4279e322a109693c38922",
    ("europe", 2, "flat"): "28e6c0772ad8c33978de098bdce7b6e313915459d2343f8952997f73bb6eb64e",
    ("europe", 4, "dict"): "bc1cfcb5e1bc87fe32c93c38e3fbdd60bc82fd8cb05a0e366d6a581c5559943a",
    ("europe", 4, "flat"): "273aeee737ef6a0354774da6c4a1395829797f85019a6ce996de7bb9d2d635a1",
    ("nordic", 2, "dict"): "40e22aa7b30b4de797e4388e8163842425ca44b73ad76d2b3d01a22e99c8f224",
    ("nordic", 2, "flat"): "40de9719dc494e38ad1636e1e168f18f5218ae8962f1c7cc4d2909aa5378fc4a",
    ("nordic", 3, "dict"): "48c197171f2bb31911d21c345f709dd8c677df8d39f30b006968ebb50417b27b",
    ("nordic", 3, "flat"): "425c00675269c8245629faa0f3d91a1518d14bd4689e7019a4b71ee30540e3b3",
    ("marklin", 2, "dict"): "643a2834a4cb9bee2d4c624e79a1e524cb75105d2178f2ce9b0b5890a8819997",
    ("marklin", 2, "flat"): "fc397cf67bbc832646d71b357c1bff6825bee2c4b95f0307bcaa4b6e9809bd87",
    ("marklin", 4, "dict"): "2914f5d5931617ac2e95476e1006fffffaa943b52c05eadc87de8c2a4424c7a3",
    ("marklin", 4, "flat"): "6939f583e7b3ec5889d88d9f999faef4268f7da0c786a6fa990d1f774d04e18e",
}
PINNED_GYM: dict[tuple[str, str], str] = {
    ("usa", "dict"): "6386a1e3427e9eb3adf91ae4b75401a693e9f92162647f2a750e14aee5fe7956",
    ("usa", "flat"): "19f4d73658d1bf5e68513e08d32dffcd1f4a66ee079a713a839cb120e738cabc",
    ("europe", "dict"): "a735f6d05d6d6d495a241672d749eac960c1da92e05dee8329df3404dade99f0",
    ("europe", "flat"): "54e3245c63d65713599941b7e02a731852e87ea0d4ab903780f79d54b4f20d24",
    ("nordic", "dict"): "c4e6598a57e975c79db8050b0b0151c57b0518cd64b492d8839973dece6f4207",
    ("nordic", "flat"): "ee60fd6cfc31336092111a379828f6ec590fb96fbc6d45ef2bc3704a0fac4554",
    ("marklin", "dict"): "9e3708f5c09e35952a81e4bbd4ad6e90735e33f7dbfc53a60e89378ad825bcfa",
    ("marklin", "flat"): "2d2aad9015e2a05fd40cb2a9a411af6e72daa187d6e95bb9ef46d3abdc6a9756",
}


def digest(edition: str, players: int, observation: str, games: int = 3) -> str:
    """Random masked play on the raw AEC env (every step of every agent, the last() of each), hashed."""
    env = ticket_to_ride_v0.raw_env(edition=edition, players=players, observation=observation)
    h = hashlib.sha256()
    rng = random.Random(1234)
    for game in range(games):
        env.reset(seed=100 + game)
        while env.agents:
            obs, reward, term, trunc, info = env.last()
            if observation == "flat":
                vec, mask = obs, info["action_mask"]
            else:
                vec, mask = obs["observation"], obs["action_mask"]
            h.update(np.ascontiguousarray(vec, dtype=np.float32).tobytes())
            h.update(np.ascontiguousarray(mask, dtype=np.int8).tobytes())
            h.update(repr((env.agent_selection, float(reward), bool(term), bool(trunc))).encode())
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.randrange(len(legal))]))
        if rng.random() < 0.5:  # an agent observed out of turn (all-zero mask) now and then
            env.reset(seed=200 + game)
            other = env.possible_agents[-1]
            h.update(env.observe(other)["observation"].tobytes() if observation == "dict" else env.observe(other).tobytes())
    return h.hexdigest()


def gym_digest(edition: str, observation: str, games: int = 3) -> str:
    """The same for the Gymnasium env (2 players, one ``random`` opponent): observation, mask, reward."""
    from ttr.rl import TicketToRideEnv

    env = TicketToRideEnv(edition, opponents=("random",), observation=observation)
    h = hashlib.sha256()
    rng = random.Random(99)
    for game in range(games):
        obs, info = env.reset(seed=300 + game)
        done = False
        while True:
            vec = obs if observation == "flat" else obs["observation"]
            h.update(np.ascontiguousarray(vec, dtype=np.float32).tobytes())
            h.update(np.ascontiguousarray(info["action_mask"], dtype=np.int8).tobytes())
            if done:
                break
            legal = np.flatnonzero(info["action_mask"])
            obs, reward, term, trunc, info = env.step(int(legal[rng.randrange(len(legal))]))
            h.update(repr((float(reward), bool(term), bool(trunc))).encode())
            done = term or trunc
    return h.hexdigest()


@pytest.mark.parametrize(("edition", "observation"), sorted(PINNED_GYM))
def test_gym_encodings_unchanged_on_seeded_games(edition: str, observation: str) -> None:
    assert gym_digest(edition, observation) == PINNED_GYM[(edition, observation)]


@pytest.mark.parametrize(("edition", "players", "observation"), sorted(PINNED))
def test_encodings_unchanged_on_seeded_games(edition: str, players: int, observation: str) -> None:
    assert digest(edition, players, observation) == PINNED[(edition, players, observation)]


if __name__ == "__main__":  # print the table (run with the code whose encodings are to be pinned)
    for ed, ns in {"usa": (2, 4), "europe": (2, 4), "nordic": (2, 3), "marklin": (2, 4)}.items():
        for n in ns:
            for mode in ("dict", "flat"):
                print(f"    ({ed!r}, {n}, {mode!r}): {digest(ed, n, mode)!r},")
    for ed in ("usa", "europe", "nordic", "marklin"):
        for mode in ("dict", "flat"):
            print(f"    ({ed!r}, {mode!r}): {gym_digest(ed, mode)!r},")

"""The golden playthroughs: every committed file must replay exactly, step by step.

A failure here means the engine now plays differently from the committed files: a different legal
action list or order, different views, events, positions or scores. If that is deliberate (a rule
fix), regenerate with ``python tools/golden.py`` and say so in the commit; if not, it is a regression
that would also break stored games (the server replays records for undo and the replay viewer).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ttr.sim.golden import GOLDEN_FORMAT, GOLDEN_GAMES, digest, dumps, file_name, playthrough

HERE = Path(__file__).parent


@pytest.mark.parametrize(("edition", "players"), GOLDEN_GAMES, ids=[f"{e}-{n}p" for e, n in GOLDEN_GAMES])
def test_playthrough_matches_golden_file(edition: str, players: int) -> None:
    expected = (HERE / file_name(edition, players)).read_text(encoding="utf-8").splitlines()
    header = json.loads(expected[0])
    assert header["golden_format"] == GOLDEN_FORMAT
    produced = playthrough(edition, players, header["seed"])
    n = 0
    for n, (want, line) in enumerate(zip(expected, produced, strict=False)):
        got = dumps(line)
        if got != want:
            fields = json.loads(want)
            diff = {k: (fields.get(k), line.get(k)) for k in set(fields) | set(line) if fields.get(k) != line.get(k)}
            pytest.fail(f"{file_name(edition, players)} line {n + 1} differs: {diff}")
    assert n + 1 == len(expected), f"the game ended after {n + 1} lines, the file has {len(expected)}"
    assert next(produced, None) is None, "the game goes on past the end of the golden file"


def test_every_edition_and_player_count_is_covered() -> None:
    assert {e for e, _ in GOLDEN_GAMES} == {"usa", "europe", "nordic", "marklin"}
    assert sorted(p.name for p in HERE.glob("*.jsonl")) == sorted(file_name(e, n) for e, n in GOLDEN_GAMES)


def test_digest_is_order_insensitive_for_keys_but_not_lists() -> None:
    assert digest({"a": 1, "b": [1, 2]}) == digest({"b": [1, 2], "a": 1})
    assert digest([1, 2]) != digest([2, 1])

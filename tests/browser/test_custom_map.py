"""A custom map from the lobby: a broken file is refused with its reason, a good one is previewed, played with a
bot to the final scores, and its record carries the map."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from browser_helpers import Server, finish_setup_in_ui, play_to_the_end, wait_ready

from ttr.editions import get_edition


def short_usa() -> dict[str, Any]:
    raw = json.loads(json.dumps(get_edition("usa").raw))
    raw["id"], raw["name"] = "usa-short", "Short USA"
    raw["rules"]["trains"] = 12
    return raw


def test_upload_preview_and_play_a_custom_map(server: Server, new_page: Any, tmp_path: Path) -> None:
    bad, good = tmp_path / "bad.json", tmp_path / "short.json"
    broken = short_usa()
    broken["routes"][0]["b"] = "omha"
    bad.write_text(json.dumps(broken), encoding="utf-8")
    good.write_text(json.dumps(short_usa()), encoding="utf-8")

    page = new_page()
    page.goto(server.base + "/")
    wait_ready(page)
    page.fill("#player-name", "Ana")
    page.set_input_files("#map-file", str(bad))
    page.wait_for_selector("#map-error")
    assert "uploaded map: routes[0] ('atlanta-charleston'): unknown city 'omha'" in page.inner_text("#map-error")
    assert page.locator("#map-preview").count() == 0

    page.set_input_files("#map-file", str(good))
    page.wait_for_selector("#map-preview svg")
    assert page.locator("#map-error").count() == 0
    assert "Short USA: 2–5 players" in page.inner_text("#map-preview-facts")
    chosen = page.locator(".edition-card.chosen")
    assert chosen.get_attribute("data-edition").startswith("map-") and "Short USA" in chosen.inner_text()

    page.click("#create-game")
    page.wait_for_url(lambda u: "/play/" in u)
    wait_ready(page)
    assert "Short USA" in page.inner_text(".game-title")
    gid = re.search(r"/play/([^?/#]+)", page.url).group(1)
    token = page.evaluate("(gid) => sessionStorage.getItem(`ttr.token.${gid}`)", gid)
    finish_setup_in_ui(page)
    final = play_to_the_end(server, gid, token)
    assert [p["trains"] <= 12 for p in final["view"]["public"]] == [True, True]
    page.wait_for_selector("#final-scores")
    record = server.api("GET", f"/api/games/{gid}/record")
    assert record["map"] == short_usa()
    assert record["result"]["winners"] == final["view"]["result"]["winners"]

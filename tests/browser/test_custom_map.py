"""A custom map from the lobby: a broken file is refused with its reason, a good one is previewed, played with a
bot to the final scores, and its record carries the map."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from browser_helpers import Server, finish_setup_in_ui, play_to_the_end, score_sheet, wait_ready

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
    score_sheet(page)
    record = server.api("GET", f"/api/games/{gid}/record")
    assert record["map"] == short_usa()
    assert record["result"]["winners"] == final["view"]["result"]["winners"]


def test_edit_a_map_validated_live_and_exported(server: Server, new_page: Any) -> None:
    usa = get_edition("usa").raw
    page = new_page()
    page.goto(server.base + "/")
    wait_ready(page)
    page.click("#edit-map")  # starts from the chosen edition, USA
    page.wait_for_selector("#editor-status[data-state='ok']")
    assert page.inner_text("#editor-status") == "valid"
    assert page.locator("#editor-preview svg").count() == 1
    route = usa["routes"][0]
    assert page.get_attribute("#route-length-0", "aria-label") == f"Length of {route['id']}"

    page.fill("#route-length-0", "99")  # longer than any route may be: the server's reason is shown
    page.wait_for_selector("#editor-status[data-state='error']")
    error = page.inner_text("#editor-status")
    assert "routes[0]" in error and route["id"] in error and "99" in error, error
    assert page.is_disabled("#editor-play")

    new_length = route["length"] % 6 + 1
    page.fill("#route-length-0", str(new_length))
    page.fill("#ticket-points-1", "33")
    page.fill("[data-rule='trains']", "30")
    page.wait_for_selector("#editor-status[data-state='ok']")
    with page.expect_download() as info:
        page.click("#editor-export")
    download = info.value
    assert download.suggested_filename == "usa-edited.json"
    exported = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    expected = json.loads(json.dumps(usa))
    expected["id"], expected["name"] = "usa-edited", "USA (edited)"
    expected["routes"][0]["length"] = new_length
    expected["tickets"][1]["points"] = 33
    expected["rules"]["trains"] = 30
    assert exported == expected

    page.click("#editor-play")  # a game on the edited map, as an uploaded one
    page.wait_for_url(lambda u: "/play/" in u)
    wait_ready(page)
    assert "USA (edited)" in page.inner_text(".game-title")
    gid = re.search(r"/play/([^?/#]+)", page.url).group(1)
    assert server.api("GET", f"/api/games/{gid}/map")["routes"][0]["length"] == new_length

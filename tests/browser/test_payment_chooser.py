"""The payment chooser (issue 15, point 2): pick a colour, then adjust locomotives (and Nordic's 3-for-1
sets); every option readable as text in four languages; the payment shown first keeps the most valuable
cards (docs/client.md, "Paying"); the confirm button inside the window at 1366×768 and 390×844; only the
server's payments, and every one of them reachable; "claim without confirming" remembered; the Märklin note
on spending both +4 locomotives."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import screenshot_path
from crafted import (
    Table,
    my_turn_position,
    reach_all_payments_js,
    route_point,
    table_fixture,
    with_deck_top,
    with_hand,
    with_tickets,
)

from ttr.engine import Action, Game

VARIED = {"red": 3, "orange": 2, "yellow": 1, "green": 4, "blue": 3, "purple": 2, "white": 1, "black": 2, "locomotive": 3}


table = table_fixture()


@pytest.fixture(autouse=True)
def fresh(table: Table) -> Iterator[None]:
    if table.page.url.startswith(table.server.base):  # every test starts with the preferences unset
        table.page.evaluate("() => { localStorage.removeItem('ttr.quickClaim'); localStorage.removeItem('ttr.lang'); }")
    yield
    table.check()


def claims(game: Game, route: str) -> list[dict[str, int]]:
    return [a.to_json()["cards"] for a in game.legal_actions() if a.type == "claim" and a.route == route]


def open_claim(table: Table, route: str) -> Any:
    page = table.page
    page.mouse.click(*route_point(page, route))
    page.wait_for_selector("#claim-sheet")
    return page


def summary(page: Any) -> tuple[str, dict[str, int]]:
    el = page.locator("#pay-summary")
    return el.locator(".pay-text").inner_text(), json.loads(el.get_attribute("data-payment"))


def inside_window(table: Table, selector: str) -> dict[str, float]:
    box = table.page.locator(selector).bounding_box()
    w, h = table.size
    assert box is not None and box["width"] > 0, selector
    assert box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= w + 0.5 and box["y"] + box["height"] <= h + 0.5, (
        f"{selector} at {table.size} is not inside the window: {box}"
    )
    return box


WALK_JS = """() => {
  const seen = [];
  const read = () => seen.push(JSON.parse(document.querySelector('#pay-summary').dataset.payment));
  const button = (sel) => document.querySelector(`#sheet .pay-stepper[data-axis='wild'] ${sel}`);
  const colours = document.querySelectorAll('#sheet .pay-colour').length;
  for (let i = 0; i < Math.max(1, colours); i++) {
    if (colours) document.querySelectorAll('#sheet .pay-colour')[i].click();
    while (button('.pay-less') && !button('.pay-less').disabled) button('.pay-less').click();
    read();
    while (button('.pay-more') && !button('.pay-more').disabled) { button('.pay-more').click(); read(); }
  }
  return seen;
}"""


def walk(page: Any) -> list[dict[str, int]]:
    """Every payment the colour buttons and the locomotive stepper lead to: for each colour, − to the end,
    then + to the end (real clicks on the buttons, done in the page to keep the test fast)."""
    return page.evaluate(WALK_JS)


def assert_all_reachable(table: Table, game: Game) -> None:
    res = table.show(game).evaluate(reach_all_payments_js())
    assert res["lists"] > 10 and res["missing"] == [], res


def test_a_gray_tunnel_with_a_varied_hand(table: Table) -> None:
    """Paris–Zürich (Europe, gray tunnel of 3) with nine kinds of cards: 18 payments, chosen in a few clicks."""
    game = with_tickets(with_hand(my_turn_position("europe", 2, 2), 0, VARIED), 0, [])
    legal = claims(game, "paris-zurich")
    assert len(legal) >= 16
    page = table.show(game)
    open_claim(table, "paris-zurich")
    assert page.evaluate("() => !!document.activeElement.closest('#claim-sheet')")  # the keyboard goes on in the dialog
    # The payment shown first: 3 cards, no locomotive, from the colour held most (green, 4 of them).
    assert summary(page) == ("3 green", {"green": 3})
    assert page.locator("#sheet .pay-colour[aria-pressed='true']").inner_text().startswith("Green")
    # Every colour button is a word, not only a colour chip.
    names = page.locator("#sheet .pay-colour").all_inner_texts()
    assert [n.split("×")[0].strip() for n in names] == ["Red", "Orange", "Yellow", "Green", "Blue", "Purple", "White", "Black"]
    page.click("#sheet .pay-more")
    assert summary(page) == ("2 green + 1 locomotive", {"green": 2, "locomotive": 1})
    page.screenshot(path=str(screenshot_path(f"payment-chooser-europe-{table.name}.png")))  # type: ignore[attr-defined]
    page.click("#sheet .pay-more")
    page.click("#sheet .pay-more")
    assert summary(page) == ("3 locomotives", {"locomotive": 3})
    assert page.locator("#sheet .pay-more").is_disabled()
    # The confirm button is in the window without scrolling; so is the whole dialog.
    confirm = inside_window(table, "#confirm-claim")
    inside_window(table, "#sheet")
    height = page.locator("#sheet").bounding_box()["height"]  # type: ignore[index]
    bottom = confirm["y"] + confirm["height"]
    print(f"\n{table.size}: claim dialog {height:.0f} px high, confirm button at y={confirm['y']:.0f}..{bottom:.0f}")
    # Exactly the server's payments can be reached, each once.
    reached = {json.dumps(p, sort_keys=True) for p in walk(page)}
    assert reached == {json.dumps(p, sort_keys=True) for p in legal} and len(reached) == len(legal)
    page.locator("#sheet .pay-colour", has_text="Blue").click()
    page.click("#sheet .pay-more")
    assert summary(page)[0] == "2 blue + 1 locomotive"
    page.click("#confirm-claim")
    sent = table.posted()[0]
    assert sent == {"type": "claim", "route": "paris-zurich", "cards": {"blue": 2, "locomotive": 1}}
    assert sent["cards"] in legal


def test_the_words_in_four_languages(table: Table) -> None:
    game = with_tickets(with_hand(my_turn_position("europe", 2, 2), 0, VARIED), 0, [])
    page = table.show(game)
    open_claim(table, "paris-zurich")
    page.click("#sheet .pay-more")
    expected = {
        "pt": ("2 verdes + 1 locomotiva", "Verde"),
        "es": ("2 verdes + 1 locomotora", "Verde"),
        "it": ("2 verdi + 1 locomotiva", "Verde"),
        "en": ("2 green + 1 locomotive", "Green"),
    }
    for lang, (text, colour) in expected.items():
        page.select_option("#lang-select", lang)
        page.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)
        assert summary(page)[0] == text
        assert page.locator("#sheet .pay-colour[aria-pressed='true']").inner_text().startswith(colour)
        inside_window(table, "#confirm-claim")


def test_tickets_needs_keep_their_colours(table: Table) -> None:
    """Between two colours held equally, the one the player's unfinished tickets need is kept."""
    base = my_turn_position("europe", 2, 2)
    page = table.show(base)
    needs = page.evaluate(
        "async () => { const P = await import('/static/js/payment.js'); const g = window.ttrGame;"
        " return P.ticketNeeds(g.map, g.view, g.mySeat); }"
    )
    colours = ["red", "orange", "yellow", "green", "blue", "purple", "white", "black"]
    needed = max(colours, key=lambda c: needs.get(c, 0))
    other = min(colours, key=lambda c: needs.get(c, 0))
    assert needs.get(needed, 0) >= 2 and needs.get(other, 0) <= 1, needs
    game = with_hand(base, 0, {needed: 3, other: 3})
    route = next(
        r.id
        for r in game.edition.routes
        if r.colour < 0 and r.length == 2 and not r.tunnel and not r.ferry and len(claims(game, r.id)) == 2
    )
    table.show(game)
    open_claim(table, route)
    assert summary(page)[1] == {other: 2}, f"tickets need {needs}; {other} should pay, {needed} be kept"


def test_tunnel_and_station_payments_use_the_chooser(table: Table) -> None:
    game = with_hand(my_turn_position("europe", 3, 2), 0, VARIED)
    page = table.show(game)
    page.click("#build-station")
    page.wait_for_selector("#station-pick-sheet")
    city = page.evaluate("() => document.querySelector('g.city.pickable').dataset.city")
    page.locator(f'g.city[data-city="{city}"] .city-dot').click(force=True)
    page.wait_for_selector("#station-sheet")
    legal = [a.to_json()["cards"] for a in game.legal_actions() if a.type == "build_station" and a.city == city]
    assert summary(page)[1] in legal and sum(summary(page)[1].values()) == 1
    inside_window(table, "#confirm-station")
    page.click("#sheet-cancel")
    # A tunnel: 2 green played, a locomotive and a green turned over: 2 more, green or locomotives.
    game = with_deck_top(with_hand(my_turn_position("europe", 2, 2), 0, VARIED), ["locomotive", "green", "red"])
    game.step(Action.from_json({"type": "claim", "route": "paris-zurich", "cards": {"green": 3}}))
    pays = [a.to_json()["cards"] for a in game.legal_actions() if a.type == "tunnel_pay"]
    table.show(game)
    page.wait_for_selector("#tunnel-sheet")
    assert summary(page) == ("1 green + 1 locomotive", {"green": 1, "locomotive": 1})
    assert {json.dumps(p, sort_keys=True) for p in walk(page)} == {json.dumps(p, sort_keys=True) for p in pays}
    for sel in ("#tunnel-pay", "#tunnel-decline", "#pay-summary"):
        inside_window(table, sel)
    page.click("#tunnel-pay")
    assert table.posted()[-1]["type"] == "tunnel_pay" and table.posted()[-1]["cards"] in pays


def test_every_payment_reachable_europe(table: Table) -> None:
    assert_all_reachable(table, with_hand(my_turn_position("europe", 3, 4), 0, VARIED))


def test_nordic_ferry_sets_and_every_payment_reachable(table: Table) -> None:
    """A Nordic ferry: the locomotive it needs, or 3 cards instead (a second stepper). Default: fewest cards."""
    game = with_tickets(with_hand(my_turn_position("nordic", 2, 2), 0, {"blue": 5, "red": 3, "green": 3, "locomotive": 1}), 0, [])
    route = "stockholm-turku"  # blue, 3 spaces, one ferry locomotive
    legal = claims(game, route)
    page = table.show(game)
    open_claim(table, route)
    text, cards = summary(page)
    assert cards == {"blue": 2, "locomotive": 1} and text == "2 blue + 1 locomotive"
    sets = page.locator("#sheet .pay-stepper[data-axis='sets']")
    assert sets.locator(".pay-label").inner_text() == "Ferry locomotives replaced by 3 cards"
    sets.locator(".pay-more").click()
    text, cards = summary(page)
    assert "locomotive" not in cards and sum(cards.values()) == 5 and cards in legal
    assert sets.locator(".pay-value").inner_text() == "1"
    inside_window(table, "#confirm-claim")
    # Every list of payments in this position (each claim, each tunnel, each station) is reachable in full.
    for g in (game, with_hand(my_turn_position("nordic", 2, 3), 0, VARIED | {"locomotive": 6})):
        assert_all_reachable(table, g)


def test_marklin_both_plus4_note(table: Table) -> None:
    game = with_hand(my_turn_position("marklin", 2, 2), 0, {"orange": 2, "locomotive_plus4": 2})
    route = "augsburg-nurnberg"  # orange, 4 spaces
    assert claims(game, route) == [{"orange": 2, "locomotive_plus4": 2}]
    page = table.show(game)
    open_claim(table, route)
    assert page.locator("#pay-summary").inner_text().startswith("The only way to pay:")
    assert summary(page)[0] == "2 orange + 2 +4 locomotives"
    assert page.locator("#pay-plus4-note").inner_text() == "This uses both of your +4 locomotives."
    inside_window(table, "#pay-plus4-note")
    inside_window(table, "#confirm-claim")
    if table.name == "phone":  # type: ignore[attr-defined]
        page.screenshot(path=str(screenshot_path("payment-marklin-plus4-phone.png")))
    assert_all_reachable(table, with_hand(my_turn_position("marklin", 3, 4), 0, VARIED | {"locomotive_plus4": 3}))


def test_claim_without_confirming_when_one_payment(table: Table) -> None:
    game = with_hand(my_turn_position("usa", 2, 2), 0, {"red": 2, "blue": 1})
    one = next(r.id for r in game.edition.routes if len(claims(game, r.id)) == 1 and r.colour >= 0)
    several = next(r.id for r in game.edition.routes if len(claims(game, r.id)) > 1)
    page = table.show(game)
    assert page.evaluate("() => localStorage.getItem('ttr.quickClaim')") is None
    open_claim(table, one)  # off by default: the dialog asks
    assert not page.locator("#quick-claim").is_checked()
    page.check("#quick-claim")
    assert page.evaluate("() => localStorage.getItem('ttr.quickClaim')") == "1"
    page.click("#sheet-cancel")
    table.show(game, reload=True)  # remembered across visits
    page.mouse.click(*route_point(page, one))
    sent = table.posted()
    assert sent == [{"type": "claim", "route": one, "cards": claims(game, one)[0]}]
    assert page.locator("#claim-sheet").count() == 0
    table.show(game)
    open_claim(table, several)  # several ways to pay: still asked
    assert page.locator("#quick-claim").is_checked()
    page.uncheck("#quick-claim")
    assert page.evaluate("() => localStorage.getItem('ttr.quickClaim')") == "0"
    assert_all_reachable(table, with_hand(my_turn_position("usa", 3, 4), 0, VARIED))

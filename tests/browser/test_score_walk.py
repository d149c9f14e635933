"""The end-of-game scoring walk-through (issue 15, animations) and the phone's wording and labels (point 5), at
1366×768 and 390×844 (a touch phone context).

The walk: a finished 3-player USA game arrives as a server update; every step the page shows (the caption, the line
added to the list, the map's lit cities and drawn path) is recorded in the page as it happens, and compared with the
engine's own result: each player's tickets in order with +points / −points, the path of each completed ticket as the
engine reports it, the longest-path bonus on the engine's longest path, each marker ending on the engine's total.
Skip (the button, and Escape) ends it at once; "Reduce motion" shows the score sheet without it. Frames
(requestAnimationFrame) and long tasks (PerformanceObserver) are sampled while it plays: artifacts/score-walk.json.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import ARTIFACTS, engine_state, fake_summary, play_until, screenshot_path
from crafted import Table, my_turn_position, setup_position, table_fixture

from ttr.engine import Game

table = table_fixture()
FIGURES: dict[str, Any] = {}


@pytest.fixture(autouse=True)
def no_page_errors(table: Table) -> Iterator[None]:
    yield
    table.check()


def finished() -> Game:
    game = play_until("usa", 3, 5, lambda g, legal: g.is_over)
    assert game is not None and game.is_over
    return game


def deliver(table: Table, game: Game) -> dict[str, Any]:
    """`game` (as seat 0 sees it) arrives as a server update with its game_over event; returns the state sent."""
    summary = fake_summary("crafted", "usa", game.n, over=True)
    state = engine_state(game, 0, summary)
    table.seq += 2
    state["seq"] = summary["seq"] = table.seq
    over = {"seq": table.seq, "event": {"type": "game_over", "player": None}}
    table.page.evaluate("(m) => window.ttrGame.onUpdate(m)", {"events": [over], "state": state})
    return state


# Record, in the page, what every step of the walk shows when it is added, and sample frames and long tasks.
WATCH = """(stepMs) => {
  const g = window.ttrGame;
  g.walked = false; g.finalDismissed = false; g.walkStepMs = stepMs;
  sessionStorage.clear();
  const w = { steps: [], frames: [], long: [], sawWalk: false, t0: performance.now() };
  w.obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) w.long.push([e.startTime, e.duration]); });
  w.obs.observe({ type: 'longtask' });
  w.mo = new MutationObserver(() => {
    if (document.querySelector('#score-walk')) w.sawWalk = true;
    const items = document.querySelectorAll('#walk-steps li');
    while (w.steps.length < items.length) {
      const li = items[w.steps.length];
      const layer = document.querySelector('.walk-layer');
      w.steps.push({ player: +li.dataset.player, kind: li.dataset.kind, ticket: li.dataset.ticket || null,
        points: +li.dataset.points, text: li.textContent, caption: document.querySelector('#walk-caption').textContent,
        drawn: [...document.querySelectorAll('.walk-layer .walk-path')].map((p) => p.dataset.route).sort(),
        lit: [...document.querySelectorAll('.walk-layer .walk-city')].map((c) => c.dataset.city).sort(),
        layerVB: !!layer && layer.getAttribute('viewBox') === document.querySelector('.board-svg').getAttribute('viewBox'),
        at: performance.now() });
    }
  });
  w.mo.observe(document.body, { childList: true, subtree: true });
  let last = performance.now();
  const tick = (t) => { w.frames.push([t, t - last]); last = t; if (!w.stop) requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  window.ttrWalkWatch = w;
}"""
DONE = """() => {
  const w = window.ttrWalkWatch; w.stop = true; w.obs.disconnect(); w.mo.disconnect();
  const walk = window.ttrGame.lastWalk;
  // from the first step to the last one's end (the update's render before, and the score sheet's after, are not the walk)
  const n = w.steps.length;
  const a0 = n ? w.steps[0].at - 5 : w.t0, a1 = n ? w.steps[n - 1].at + window.ttrGame.walkStepMs : w.t0;
  return { steps: w.steps, frames: w.frames.filter(([t]) => t >= a0 && t < a1).map(([, d]) => d),
           long: w.long.filter(([s]) => s >= a0 && s < a1), sawWalk: w.sawWalk,
           before: w.long.filter(([s]) => s < a0).map(([s, d]) => Math.round(d)), walk_ms: a1 - a0,
           shown: walk ? walk.shown : null, skipped: walk ? !!walk.skipped : null,
           sheet: !!document.querySelector('#final-scores') && !document.querySelector('#final').hidden,
           walkGone: !document.querySelector('#score-walk') && document.querySelector('#walk').hidden };
}"""


def test_scoring_walk_through(table: Table) -> None:
    page = table.show(my_turn_position("usa", 3, 5))
    page.evaluate("() => localStorage.setItem('ttr.reduceMotion', '0')")
    game = finished()
    result = game.result()
    report = [game.ticket_report(p) for p in range(game.n)]
    name = f"{table.size[0]}x{table.size[1]}"

    # the whole walk, at a quicker pace than a player's (150 ms a step instead of 1100: the CI time budget)
    page.evaluate(WATCH, 150)
    deliver(table, game)
    page.wait_for_selector("#score-walk")
    page.wait_for_function("() => document.querySelectorAll('.walk-layer .walk-path').length > 0")  # a ticket's path
    page.screenshot(path=str(screenshot_path(f"score-walk-usa-{name}.png")))
    box = page.evaluate(
        "() => { const r = document.querySelector('#walk').getBoundingClientRect(); return [r.left, r.right, r.bottom]; }"
    )
    assert box[0] >= 0 and box[1] <= table.size[0] + 0.5 and box[2] <= table.size[1] + 0.5  # inside the window
    page.wait_for_function("() => !!window.ttrGame.lastWalk", timeout=60000)
    m = page.evaluate(DONE)
    assert m["sheet"] and m["walkGone"] and m["skipped"] is False
    # every ticket of every player, in order, with the engine's verdict and points, and its path on the map
    expect = []
    for res in result["players"]:
        paths = {x["id"]: x["path"] for x in report[res["player"]]}
        for tk in res["tickets"]:
            won = tk["completed"]
            expect.append(
                (
                    "ticket",
                    res["player"],
                    tk["id"],
                    tk["points"] if won else -tk["points"],
                    sorted(paths[tk["id"]]) if won else [],
                )
            )
    tickets = [(s["kind"], s["player"], s["ticket"], s["points"], s["drawn"]) for s in m["steps"] if s["kind"] == "ticket"]
    assert tickets == expect
    ed = game.edition
    for s in m["steps"]:
        if s["kind"] == "ticket":
            tk = ed.tickets[ed.ticket_index[s["ticket"]]]
            assert set(s["lit"]) == {tk.a, tk.b} and s["layerVB"]  # the ticket's two cities ringed, on the board's view
            sign = f"+{s['points']}" if s["points"] > 0 else f"−{-s['points']}"
            assert s["caption"].endswith(sign) and s["text"].strip().endswith(sign)
    bonus = [(s["player"], s["points"], s["drawn"]) for s in m["steps"] if s["kind"] == "longest"]
    longest = [(x["player"], x["longest_path_bonus"], sorted(x["longest_path_routes"])) for x in result["players"]]
    assert bonus == [x for x in longest if x[1]]
    assert bonus  # USA: someone gets the 10 points
    # each marker's way ends on the engine's total; the sheet then shows the same totals
    last = {}
    for s in m["shown"]:
        last[s["player"]] = s["score"]
    assert last == {x["player"]: x["total"] for x in result["players"]}
    totals = [int(x) for x in page.locator("#final-scores tr.total td").all_inner_texts()]
    ranked = sorted(result["players"], key=lambda x: (x["rank"], x["player"]))
    assert totals == [x["total"] for x in ranked]

    f = sorted(m["frames"])
    idle = page.evaluate("""async () => { const l = []; const o = new PerformanceObserver((x) => l.push(...x.getEntries()));
        o.observe({ type: 'longtask' }); await new Promise((r) => setTimeout(r, 700)); o.disconnect(); return l.length; }""")
    FIGURES[f"walk {name}"] = {
        "steps": len(m["steps"]),
        "frames": len(f),
        "median_ms": round(statistics.median(f), 1),
        "p95_ms": round(f[int(0.95 * (len(f) - 1))], 1),
        "max_ms": round(f[-1], 1),
        "walk_ms": round(m["walk_ms"]),
        "long_tasks": [round(d) for _, d in m["long"]],
        "long_tasks_before_first_step": m["before"],
        "long_tasks_idle_700ms_after": idle,
    }
    (ARTIFACTS / "score-walk.json").write_text(json.dumps(FIGURES, indent=1))
    print("walk frames:", FIGURES[f"walk {name}"])
    # 60 fps is not asked of this shared machine (docs/client.md); a walk stalled by its own work would show here
    assert statistics.median(f) < 40, FIGURES
    assert all(d < 250 for _, d in m["long"]) or idle > 0, FIGURES

    # Skip: the button, then Escape, at a slow pace: the sheet at once, no step after it
    for how in ("button", "escape"):
        page.evaluate(WATCH, 700)
        deliver(table, game)
        page.wait_for_function("() => window.ttrWalkWatch.steps.length >= 1")
        if how == "button":
            page.click("#walk-skip")
        else:
            page.keyboard.press("Escape")
        gone = page.evaluate("() => [!document.querySelector('#score-walk'), !!document.querySelector('#final-scores')]")
        assert gone == [True, True], how  # in the same task as the click / key
        n = page.evaluate("() => window.ttrWalkWatch.steps.length")
        page.wait_for_timeout(800)  # a step would have come by now
        m = page.evaluate(DONE)
        assert m["skipped"] is True and len(m["steps"]) == n and m["sheet"], how

    # Reduce motion: the score sheet straight away, never the walk
    page.check("#motion-toggle")
    page.evaluate(WATCH, 250)
    deliver(table, game)
    page.wait_for_selector("#final-scores")
    m = page.evaluate(DONE)
    assert m["sawWalk"] is False and m["steps"] == [] and m["sheet"]
    page.uncheck("#motion-toggle")
    page.evaluate("() => localStorage.removeItem('ttr.reduceMotion')")


def test_phone_wording_and_top_bar_labels(table: Table) -> None:
    page = table.show(setup_position("usa", 2, 3))
    page.wait_for_selector("#keep-sheet")
    note = page.inner_text("#keep-sheet .sheet-note")
    touch = page.evaluate("() => matchMedia('(hover: none), (pointer: coarse)').matches")
    if table.size[0] < 600:  # a phone context (has_touch, is_mobile): tap wording
        assert touch and "Tap a ticket" in note and "Hover" not in note, note
    else:
        assert not touch and "Hover a ticket" in note, note
    # every switch of the top bar has a visible text label inside the window, nothing overlapping
    boxes = page.evaluate("""() => [...document.querySelectorAll(
        '.topbar .brand-mark, .topbar .switch, .topbar .sound-toggle, .topbar .lang-picker select')].map((e) => {
        const r = e.getBoundingClientRect();
        const label = e.matches('.switch') ? e.querySelector('span')
          : e.matches('.sound-toggle') ? e.querySelector('.sound-label') : null;
        const cs = label ? getComputedStyle(label) : null;
        const lr = label ? label.getBoundingClientRect() : null;
        return { cls: e.className, left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                 label: label ? label.textContent.trim() : null, labelW: lr ? lr.width : null, labelH: lr ? lr.height : null,
                 shown: cs ? cs.display !== 'none' && cs.visibility !== 'hidden' : null }; })""")
    switches = [b for b in boxes if b["label"] is not None]
    assert len(switches) == 3, boxes  # colour-blind, reduce motion, sound
    for b in switches:
        assert b["label"] and b["shown"] and b["labelW"] >= 12 and b["labelH"] >= 8, b
    for b in boxes:
        assert b["left"] >= 0 and b["right"] <= table.size[0] + 0.5 and b["bottom"] <= 48.5, b
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert min(a["right"], b["right"]) - max(a["left"], b["left"]) <= 0.5, (a, b)
    size = f"{table.size[0]}x{table.size[1]}"
    FIGURES[f"top bar {size}"] = [{k: (round(v) if isinstance(v, float) else v) for k, v in b.items()} for b in boxes]
    (ARTIFACTS / "score-walk.json").write_text(json.dumps(FIGURES, indent=1))
    page.screenshot(path=str(screenshot_path(f"topbar-{size}.png")), clip={"x": 0, "y": 0, "width": table.size[0], "height": 60})

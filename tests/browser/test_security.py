"""The browser under the server's Content-Security-Policy: /docs renders from the package's own Swagger UI with
no other site reachable, and a join link's seat token leaves the address bar once the page has loaded while a
reload keeps the seat. (The `new_page` fixture fails a test on any console error: a CSP violation is one.)"""

from __future__ import annotations

from typing import Any

from browser_helpers import Server, game_url, wait_ready


def only_this_server(page: Any, server: Server) -> list[str]:
    """Abort every request to another site (as offline); returns the list of what was tried."""
    tried: list[str] = []

    def handle(route: Any) -> None:
        url = route.request.url
        if url.startswith(server.base) or url.startswith("data:"):
            route.continue_()
        else:
            tried.append(url)
            route.abort()

    page.route("**/*", handle)
    return tried


def test_docs_render_offline_under_the_csp(server: Server, new_page: Any) -> None:
    page = new_page()
    elsewhere = only_this_server(page, server)
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    res = page.goto(server.base + "/docs")
    assert res is not None and "frame-ancestors 'none'" in res.headers["content-security-policy"]
    page.wait_for_selector(".swagger-ui .opblock-summary-path", timeout=30000)
    paths = page.locator(".swagger-ui .opblock-summary-path").all_inner_texts()
    assert any("/api/games" in p for p in paths), paths
    page.locator(".swagger-ui .opblock-summary-path", has_text="/api/editions").first.click()  # the UI works
    page.wait_for_selector(".swagger-ui .opblock.is-open")
    assert elsewhere == [] and violations == []


def test_the_token_leaves_the_address_bar_and_a_reload_keeps_the_seat(server: Server, new_page: Any) -> None:
    created = server.api(
        "POST", "/api/games", body={"players": 2, "seats": [{"type": "human"}, {"type": "bot", "level": "easy"}]}
    )
    gid, token = created["game_id"], created["seats"][0]["token"]
    server.api("POST", f"/api/games/{gid}/join", token, {"name": "Ana"})
    page = new_page()
    page.goto(game_url(server, gid, token))
    wait_ready(page)
    assert page.url == f"{server.base}/play/{gid}", page.url
    assert page.evaluate("window.ttrGame.token") == token and page.evaluate("window.ttrGame.mySeat") == 0
    page.reload()
    wait_ready(page)
    assert page.url == f"{server.base}/play/{gid}"
    assert page.evaluate("window.ttrGame.token") == token and page.evaluate("window.ttrGame.mySeat") == 0
    # another tab of the same browser (no sessionStorage) still finds the seat this browser joined
    other = page.context.new_page()
    other.goto(f"{server.base}/play/{gid}")
    wait_ready(other)
    assert other.evaluate("window.ttrGame.token") == token
    other.close()

"""At the table: chat per game (a players' channel and a spectators' channel) and rematch.

Chat messages are plain text (control and format characters removed, whitespace collapsed, 1-300 characters),
stored with the game (``chat`` table) and kept for as long as the game is (replays included). The players'
channel takes messages from the game's seats (a seat token); the spectators' channel from signed-in accounts
that have no seat in the game. Both are rate-limited per client and game (``rate_chat``). Clients must render
the text as text (the browser client uses text nodes), never as markup.

Who reads what: while the game runs, the players' channel is read only with a seat token of the game (what the
players tell each other is not for the audience, who might pass it on to another player); the spectators'
channel is public (spectators see only the public view, so nothing they write can reveal a secret; players may
read it). Once the game is over (finished or closed) both channels are public, as its record and replay are.
Messages are pushed over the game's WebSocket (``?chat=1``) to those who may read them.

Rematch: a player of a finished game offers the same table again (edition, options, seats and bot levels,
clock, hot-seat, listing). The first offer creates the new game, with every human seat reserved; each player
who accepts (the same call, with their seat token of the old game) gets a token for the same seat in the new
game and is joined under the same name and account. The new game starts when every human seat has accepted.
Two offers at once (even through two processes) make one game: the old game's row records it with a
conditional UPDATE, and the loser's copy is deleted. An offer not every seat accepted expires (the expiry sweep
closes its game after ``rematch_offer_seconds``, see expiry.py); the next call then makes a fresh offer.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from .accounts import User
from .db import chat, games
from .errors import ApiError
from .maps import is_custom
from .security import clean_name
from .service import ABANDONED, FINISHED, SPECTATOR, Access, GameService, LiveGame, authorise, clock_request

CHAT_MAX = 300
CHANNELS = ("players", "spectators")


def post_chat(
    service: GameService, game_id: str, token: str | None, user: User | None, channel: str, text: object, client: str | None
) -> dict[str, Any]:
    live = service.get(game_id)
    try:
        body = clean_name(text, CHAT_MAX)
    except ValueError as exc:
        raise ApiError(422, "bad_text", f"chat: {str(exc).replace('the name', 'the message')}") from None
    seat: int | None = None
    if channel == "players":
        access = authorise(live, token)
        seat = min(access.seats)
        name = live.seats[seat].name or f"Player {seat + 1}"
    elif channel == "spectators":
        if user is None:
            raise ApiError(401, "sign_in_required", "sign in to write in the spectators' chat")
        if any(s.user_id == user.id for s in live.seats) and live.status not in (FINISHED, ABANDONED):
            raise ApiError(403, "player", "players write in the players' chat while the game runs")
        name = user.name
    else:  # the schema allows only the two
        raise ApiError(422, "bad_channel", f"unknown channel {channel!r}")
    if service.rate_check is not None and client is not None:
        service.rate_check("chat", f"{client}/{game_id}")
    now = datetime.now(UTC)
    with service.db.write() as conn:
        mid = conn.execute(
            chat.insert().values(game_id=live.id, channel=channel, seat=seat, name=name, text=body, at=now)
        ).inserted_primary_key[0]
        service.db.notify(conn, f"{live.id} chat")  # other processes push it to their WebSockets
    return {"id": mid, "channel": channel, "seat": seat, "name": name, "text": body, "at": now.isoformat()}


def readable_channels(live: LiveGame, access: Access) -> tuple[str, ...]:
    """The channels `access` may read: a seat reads both; anyone else the spectators' one, and the players' one
    once the game is over."""
    if not access.spectator or live.status in (FINISHED, ABANDONED):
        return CHANNELS
    return ("spectators",)


def _message(r: Any) -> dict[str, Any]:
    return {
        "id": r.id,
        "channel": r.channel,
        "seat": r.seat,
        "name": r.name,
        "text": r.text,
        "at": (r.at if r.at.tzinfo else r.at.replace(tzinfo=UTC)).isoformat(),
    }


def read_chat(
    service: GameService, game_id: str, channel: str, since: int, token: str | None = None, limit: int = 200
) -> dict[str, Any]:
    """A channel's messages after `since`, if the caller may read it (see the module docstring): the players'
    channel of a running game needs a seat token (401 token_required / bad_token, 403 players_only)."""
    live = service.get(game_id)
    access = authorise(live, token) if token is not None else SPECTATOR
    if channel not in readable_channels(live, access):
        if token is None:
            raise ApiError(401, "token_required", "the players' chat is read with a seat token while the game runs")
        raise ApiError(403, "players_only", "the players' chat is for the players while the game runs")
    with service.db.read() as conn:
        rows = conn.execute(
            sa.select(chat)
            .where(chat.c.game_id == live.id, chat.c.channel == channel, chat.c.id > since)
            .order_by(chat.c.id)
            .limit(limit)
        ).all()
    return {"messages": [_message(r) for r in rows]}


def chat_for(service: GameService, game_id: str, access: Access, since: dict[str, int], limit: int = 200) -> list[dict[str, Any]]:
    """(WebSocket) the messages after `since[channel]` of every channel `access` may read now, oldest first;
    `since` is advanced."""
    live = service.cached(game_id) or service.get(game_id)
    out: list[dict[str, Any]] = []
    with service.db.read() as conn:
        for channel in readable_channels(live, access):
            rows = conn.execute(
                sa.select(chat)
                .where(chat.c.game_id == live.id, chat.c.channel == channel, chat.c.id > since.get(channel, 0))
                .order_by(chat.c.id.desc())
                .limit(limit)
            ).all()
            if rows:
                since[channel] = rows[0].id
            out += [_message(r) for r in reversed(rows)]
    out.sort(key=lambda m: m["id"])
    return out


def _offer(service: GameService, old: LiveGame) -> str:
    """The rematch game of `old`, created by this call if there is none yet or the last offer expired."""
    with service.db.read() as conn:
        existing, clock = conn.execute(sa.select(games.c.rematch, games.c.clock).where(games.c.id == old.id)).one()
        status = conn.execute(sa.select(games.c.status).where(games.c.id == existing)).scalar() if existing else None
    if existing and status != ABANDONED:  # an offer still waiting, or its game started: the same game
        return existing
    seat_specs = [
        {"type": "bot", "level": s.level or "medium"}
        if s.type == "bot"
        else {"type": "human", **({"name": s.name} if old.hotseat and s.name else {})}
        for s in old.seats
    ]
    base = old.game.base_edition
    created = service.create_game(
        edition=old.edition,
        custom_map=base.raw if is_custom(base) else None,  # an uploaded map is in no library: send it again
        players=old.players,
        options=old.options,
        seat_specs=seat_specs,
        hotseat=old.hotseat,
        public=old.public,
        name=old.name,
        clock=clock_request(clock),
    )  # the invitation tokens it returns are dropped: each seat gets a new one when its player accepts
    new_id = created["game_id"]
    with service.db.write() as conn:
        unchanged = games.c.rematch.is_(None) if existing is None else games.c.rematch == existing
        won = conn.execute(games.update().where(games.c.id == old.id, unchanged).values(rematch=new_id)).rowcount
        if won != 1:  # another offer was faster: keep its game
            conn.execute(games.delete().where(games.c.id == new_id))
            return conn.execute(sa.select(games.c.rematch).where(games.c.id == old.id)).scalar_one()
    return new_id


def rematch(service: GameService, game_id: str, token: str | None) -> tuple[LiveGame, dict[str, Any]]:
    """Offer or accept the rematch of a finished game, with a seat token of it: the caller's seat in the new game."""
    from .db import seats as seats_table
    from .security import hash_token, new_token

    old = service.get(game_id)
    access = authorise(old, token)
    if old.status not in (FINISHED, ABANDONED):
        raise ApiError(409, "not_finished", "a rematch is offered once the game is over")
    new_id = _offer(service, old)
    if old.hotseat:
        # one screen: the hot-seat token of the new game (every seat was joined at creation)
        fresh = new_token()
        with service.db.write() as conn:
            conn.execute(games.update().where(games.c.id == new_id).values(hotseat_token_hash=hash_token(fresh)))
        service.forget(new_id)
        live = service.get(new_id)
        return live, {"game_id": new_id, "hotseat_token": fresh, "join_url": f"/play/{new_id}?token={fresh}"}
    seat = min(access.seats)
    prior = old.seats[seat]
    fresh = new_token()

    def reserve(conn: sa.Connection, live: LiveGame) -> tuple[LiveGame, None]:
        from dataclasses import replace

        h = hash_token(fresh)
        conn.execute(
            seats_table.update().where(seats_table.c.game_id == live.id, seats_table.c.seat == seat).values(token_hash=h)
        )
        new_seats = tuple(replace(s, token_hash=h) if s.seat == seat else s for s in live.seats)
        from ..engine import Event

        new, _ = service._append(conn, live, datetime.now(UTC), [(None, Event("rematch_accepted", seat, {}))], seats=new_seats)
        return new, None

    service._change(new_id, reserve)
    user = User(prior.user_id, prior.account or "") if prior.user_id is not None else None
    live, _ = service.join(new_id, fresh, prior.name or f"Player {seat + 1}", seat, user)
    return live, {"game_id": new_id, "seat": seat, "token": fresh, "join_url": f"/play/{new_id}?token={fresh}"}

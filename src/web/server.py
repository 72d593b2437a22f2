"""The local web server of `xenophon serve` (aiohttp): the static page, and
one WebSocket per open page carrying JSON messages (docs/web.md).

Each socket has its own game or review (xenophon.web.play). A search runs in
a worker thread; its messages are queued to the socket in order. A request
that arrives while a job runs waits for it (a review in progress is stopped
first). Any fault in a request is answered with one `error` message; a game
in progress is saved when its page goes away, as the terminal's quit does."""
from __future__ import annotations

import asyncio
import json
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from aiohttp import WSMsgType, web

from xenophon.errors import XenophonError
from xenophon.web.play import PageError, WebGame, review

MAX_MESSAGE_BYTES = 70 * 1024 * 1024     # an uploaded record: the record reader's 64 MiB, and JSON
STATIC = "static"


def static_folder() -> Path:
    return Path(str(resources.files("xenophon.web") / STATIC))


class Connection:
    """One open page: its socket, its game or review, and its job."""

    def __init__(self, socket: web.WebSocketResponse, loop: asyncio.AbstractEventLoop,
                 observer: Callable[[dict[str, Any], Any], None] | None = None):
        self.socket = socket
        self.loop = loop
        self.outbox: asyncio.Queue = asyncio.Queue()
        self.game: WebGame | None = None
        self.job: asyncio.Future | None = None
        self.stop_review = False
        self.observer = observer

    def send(self, message: dict[str, Any]) -> None:
        """Queues a message (from any thread); sent in order."""
        if self.observer is not None:
            self.observer(message, self)
        self.loop.call_soon_threadsafe(self.outbox.put_nowait, message)

    async def sender(self) -> None:
        while True:
            message = await self.outbox.get()
            if message is None:
                return
            if self.socket.closed:
                continue                # the page went: the rest is dropped
            try:
                await self.socket.send_str(json.dumps(message))
            except ConnectionError:
                continue

    async def handle(self, text: str) -> None:
        if self.job is not None:
            self.stop_review = True
            await self.job
        self.stop_review = False
        try:
            request = json.loads(text)
        except ValueError:
            self.send({"type": "error", "message": "not a JSON message"})
            return
        if not isinstance(request, dict):
            self.send({"type": "error", "message": "a message is a JSON object"})
            return
        job = asyncio.ensure_future(asyncio.to_thread(self.carry_out, request))
        self.job = job
        job.add_done_callback(lambda _: self._job_done(job))

    def _job_done(self, job: asyncio.Future) -> None:
        if self.job is job:
            self.job = None

    def carry_out(self, request: dict[str, Any]) -> None:
        """Runs one request (in a worker thread); a fault is one error message."""
        try:
            self.dispatch(request)
        except XenophonError as error:
            self.send({"type": "error", "message": str(error)})
        except Exception as error:      # a bug: answered, so that one request cannot stop the page
            self.send({"type": "error",
                       "message": f"internal error: {type(error).__name__}: {error}"})

    def dispatch(self, request: dict[str, Any]) -> None:
        kind = request.get("type")
        if kind in ("new", "resume"):
            game = WebGame.new(request) if kind == "new" else WebGame.resume(request)
            self.leave_game()                  # only once the new game could be made
            self.game = game
            self.send(game.setup_message())
            game.advance(self.send)
        elif kind == "review":
            review(request, self.send, lambda: self.stop_review)
        elif kind in ("move", "hint", "undo", "save"):
            if self.game is None:
                raise PageError("start a game first")
            if kind == "move":
                self.game.move(request, self.send)
            elif kind == "save":
                self.game.save(request, self.send)
            else:
                getattr(self.game, kind)(self.send)
        else:
            raise PageError(f"unknown request {kind!r}")

    def leave_game(self) -> None:
        """Saves the game in progress, if any, and says where."""
        if self.game is not None:
            path = self.game.leave()
            if path is not None:
                self.send({"type": "saved", "path": str(path), "left": True})
            self.game = None

    async def close(self) -> None:
        if self.job is not None:
            self.stop_review = True
            await self.job
        await asyncio.to_thread(self.leave_game)
        self.outbox.put_nowait(None)


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(static_folder() / "index.html")


def make_app(observer: Callable[[dict[str, Any], Any], None] | None = None) -> web.Application:
    """The application; `observer(message, connection)` sees every message sent
    (for tests)."""

    async def socket(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE_BYTES)
        await ws.prepare(request)
        connection = Connection(ws, asyncio.get_running_loop(), observer)
        sender = asyncio.ensure_future(connection.sender())
        async for message in ws:
            if message.type == WSMsgType.TEXT:
                await connection.handle(message.data)
        await connection.close()
        await sender
        return ws

    app = web.Application(client_max_size=MAX_MESSAGE_BYTES)
    app.router.add_get("/", index)
    app.router.add_get("/ws", socket)
    app.router.add_static("/static/", static_folder())
    return app


def run(host: str, port: int, announce: Callable[[str], None] = print) -> None:
    """Serves until interrupted; `announce` gets the address (or raises
    OSError when the port cannot be had, before announcing)."""
    asyncio.run(_serve(host, port, announce))


async def _serve(host: str, port: int, announce: Callable[[str], None]) -> None:
    runner = web.AppRunner(make_app(), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError:
        await runner.cleanup()
        raise
    bound = site._server.sockets[0].getsockname()[1] if port == 0 else port  # type: ignore
    shown = f"[{host}]" if ":" in host else host
    announce(f"http://{shown}:{bound}/")
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()

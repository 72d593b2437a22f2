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
import signal
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.plugin import plugins
from xenophon.web.play import PAGE_CODE_URL, PageError, WebGame, hello_message, review

MAX_MESSAGE_BYTES = 70 * 1024 * 1024  # an uploaded record: the record reader's 64 MiB, and JSON
STATIC = "static"
ANY_ADDRESS = "*"
SOCKETS = web.AppKey("sockets", set)
SHUTDOWN_SECONDS = 10.0


def static_folder() -> Path:
    return Path(str(resources.files("xenophon.web") / STATIC))


class Connection:
    """One open page: its socket, its game or review, and its job."""

    def __init__(
        self,
        socket: web.WebSocketResponse,
        loop: asyncio.AbstractEventLoop,
        observer: Callable[[dict[str, Any], Any], None] | None = None,
    ):
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
                continue  # the page went: the rest is dropped
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
        except Exception as error:  # a bug: answered, so that one request cannot stop the page
            self.send(
                {"type": "error", "message": f"internal error: {type(error).__name__}: {error}"}
            )

    def dispatch(self, request: dict[str, Any]) -> None:
        kind = request.get("type")
        if kind in ("new", "resume"):
            game = WebGame.new(request) if kind == "new" else WebGame.resume(request)
            self.leave_game()  # only once the new game could be made
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
        """Saves the game in progress, if any, and says where (to the page,
        and where the server was started, since the page may be gone)."""
        if self.game is not None:
            path = self.game.leave()
            if path is not None:
                self.send({"type": "saved", "path": str(path), "left": True})
                print(
                    f"xenophon: a game in progress was saved to {path}", file=sys.stderr, flush=True
                )
            self.game = None

    async def close(self) -> None:
        if self.job is not None:
            self.stop_review = True
            await self.job
        await asyncio.to_thread(self.leave_game)
        self.outbox.put_nowait(None)


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(static_folder() / "index.html")


def same_origin(request: web.Request, hosts: frozenset[str]) -> bool:
    """A socket may be opened by this server's own page only: the Host is one
    this server answers to (not another name resolved to it) and the Origin,
    which a browser always sends, is that host. Another site open in the
    same browser cannot drive the games or their files."""
    host = request.host
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if ANY_ADDRESS not in hosts and name.strip("[]") not in hosts:
        return False
    origin = request.headers.get("Origin")
    return origin is None or origin == f"{request.scheme}://{host}"


def make_app(
    observer: Callable[[dict[str, Any], Any], None] | None = None, host: str = "127.0.0.1"
) -> web.Application:
    """The application; `observer(message, connection)` sees every message sent
    (for tests)."""
    # listening on every address (--host 0.0.0.0): any name of the machine will do
    hosts = frozenset(
        {"127.0.0.1", "localhost", "::1", host}
        | ({ANY_ADDRESS} if host in ("0.0.0.0", "::", "") else set())
    )

    async def socket(request: web.Request) -> web.StreamResponse:
        if not same_origin(request, hosts):
            raise web.HTTPForbidden(text="xenophon: only this server's own page may connect")
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE_BYTES)
        await ws.prepare(request)
        connection = Connection(ws, asyncio.get_running_loop(), observer)
        sender = asyncio.ensure_future(connection.sender())
        request.app[SOCKETS].add(ws)
        connection.send(hello_message())
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    await connection.handle(message.data)
        finally:
            request.app[SOCKETS].discard(ws)
            await connection.close()
            await sender
        return ws

    async def close_sockets(app: web.Application) -> None:
        # on shutdown: each page's socket closed, so that its game is saved
        sockets = app[SOCKETS]
        for ws in list(sockets):
            await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server stopped")

    app = web.Application(client_max_size=MAX_MESSAGE_BYTES)
    app[SOCKETS] = set()
    app.on_shutdown.append(close_sockets)
    app.router.add_get("/", index)
    app.router.add_get("/ws", socket)
    app.router.add_static("/static/", static_folder())
    for plugin in plugins():  # each game's board code, from the game's own folder
        app.router.add_static(PAGE_CODE_URL.format(name=plugin.name), plugin.page_code())
    return app


def run(host: str, port: int, announce: Callable[[str], None] = print) -> None:
    """Serves until interrupted; `announce` gets the address (or raises
    OSError when the port cannot be had, before announcing)."""
    asyncio.run(_serve(host, port, announce))


async def _serve(host: str, port: int, announce: Callable[[str], None]) -> None:
    runner = web.AppRunner(
        make_app(host=host), handle_signals=False, shutdown_timeout=SHUTDOWN_SECONDS
    )
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
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    try:
        await stop.wait()  # Ctrl-C cancels it (asyncio.run), SIGTERM sets it
    finally:
        await runner.cleanup()

"""The local web server of `xenophon serve` (aiohttp): the static page, each
game's board code, and one WebSocket per open page carrying JSON messages
(docs/web.md).

Who may connect (xenophon.web.hosts): every request's Host must be one of
the server's names with its port, and a socket's Origin that same page.

Each socket has its own game or review (xenophon.web.play). A search runs in
a worker thread; its messages are queued to the socket in order. A request
that arrives while a job runs waits for it (a review in progress is stopped
first). Any fault in a request, or a message that is not one, is answered
with one `error` message; a game in progress is saved when its page goes
away, as the terminal's quit does."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, hdrs, web

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.files import JsonError, loads
from xenophon.kernel.plugin import plugins
from xenophon.web.hosts import is_own_host, is_own_origin, served_names
from xenophon.web.play import (
    MAX_MESSAGE_BYTES,
    PAGE_CODE_URL,
    PageError,
    WebGame,
    hello_message,
    review,
)

STATIC = "static"
SOCKETS = web.AppKey("sockets", set)
SHUTDOWN_SECONDS = 10.0


def static_folder() -> Path:
    return Path(str(resources.files("xenophon.web") / STATIC))


def error(message: str) -> dict[str, Any]:
    return {"type": "error", "message": message}


TOO_LARGE = error(
    f"the message is too large (at most {MAX_MESSAGE_BYTES // 2**20} MiB): "
    "review a larger record by its path"
)


class PageSocket(web.WebSocketResponse):
    """A page's socket. A message over the size limit cannot be read past
    (aiohttp refuses it from its header): it is answered with one error,
    then the socket closes (1009, message too big)."""

    async def close(
        self, *, code: int = WSCloseCode.OK, message: bytes = b"", drain: bool = True
    ) -> bool:
        if code == WSCloseCode.MESSAGE_TOO_BIG and not self.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self.send_str(json.dumps(TOO_LARGE))
            message = message or b"message too big"
        return await super().close(code=code, message=message, drain=drain)


def parse_request(text: str | None) -> dict[str, Any]:
    """A page's message as a request (PageError, one line, otherwise)."""
    if text is None:
        raise PageError("a message is JSON text, not binary")
    try:
        request = loads(text)
    except JsonError as fault:
        raise PageError(f"not a JSON message: {fault}") from None
    if not isinstance(request, dict):
        raise PageError("a message is a JSON object")
    return request


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

    async def handle(self, text: str | None) -> None:
        """Carries out a message (None: a binary one) once the one before is done."""
        if self.job is not None:
            self.stop_review = True
            await self.job
        self.stop_review = False
        job = asyncio.ensure_future(asyncio.to_thread(self.carry_out, text))
        self.job = job
        job.add_done_callback(lambda _: self._job_done(job))

    def _job_done(self, job: asyncio.Future) -> None:
        if self.job is job:
            self.job = None

    def carry_out(self, text: str | None) -> None:
        """Runs one request (in a worker thread); a fault is one error message."""
        try:
            self.dispatch(parse_request(text))
        except XenophonError as fault:
            self.send(error(str(fault)))
        except Exception as fault:  # a bug: answered, so that one request cannot stop the page
            self.send(error(f"internal error: {type(fault).__name__}: {fault}"))

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


def server_port(request: web.Request) -> int | None:
    """The port the request came in on (the server's own, even with --port 0)."""
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    return sockname[1] if isinstance(sockname, tuple) and len(sockname) >= 2 else None


def make_app(
    observer: Callable[[dict[str, Any], Any], None] | None = None,
    host: str = "127.0.0.1",
    allowed_hosts: tuple[str, ...] = (),
) -> web.Application:
    """The application of a server listening on `host`, answering to the
    loopback names, `host` and `allowed_hosts` (xenophon.web.hosts);
    `observer(message, connection)` sees every message sent (for tests)."""
    names = served_names(host, allowed_hosts)

    @web.middleware
    async def own_names_only(
        request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        # another name resolved to this machine (DNS rebinding) gets nothing
        port = server_port(request)
        if port is None or not is_own_host(request.headers.get(hdrs.HOST), names, port):
            raise web.HTTPForbidden(
                text="xenophon: this server answers only to its own names "
                "(localhost, or those given with --allow-host)"
            )
        return await handler(request)

    async def socket(request: web.Request) -> web.StreamResponse:
        # a socket may be opened by this server's own page only: another site
        # open in the same browser cannot drive the games or their files
        if not is_own_origin(request.headers.get(hdrs.ORIGIN), request.headers[hdrs.HOST]):
            raise web.HTTPForbidden(text="xenophon: only this server's own page may connect")
        ws = PageSocket(max_msg_size=MAX_MESSAGE_BYTES)
        await ws.prepare(request)
        connection = Connection(ws, asyncio.get_running_loop(), observer)
        sender = asyncio.ensure_future(connection.sender())
        request.app[SOCKETS].add(ws)
        connection.send(hello_message())
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    await connection.handle(message.data)
                elif message.type == WSMsgType.BINARY:
                    await connection.handle(None)
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

    app = web.Application(middlewares=[own_names_only])
    app[SOCKETS] = set()
    app.on_shutdown.append(close_sockets)
    app.router.add_get("/", index)
    app.router.add_get("/ws", socket)
    app.router.add_static("/static/", static_folder())
    for plugin in plugins():  # each game's board code, from the game's own folder
        app.router.add_static(PAGE_CODE_URL.format(name=plugin.name), plugin.page_code())
    return app


def run(
    host: str,
    port: int,
    announce: Callable[[str], None] = print,
    allowed_hosts: tuple[str, ...] = (),
) -> None:
    """Serves until interrupted; `announce` gets the address (or raises
    OSError when the port cannot be had, before announcing)."""
    asyncio.run(_serve(host, port, announce, allowed_hosts))


async def _serve(
    host: str, port: int, announce: Callable[[str], None], allowed_hosts: tuple[str, ...]
) -> None:
    runner = web.AppRunner(
        make_app(host=host, allowed_hosts=allowed_hosts),
        handle_signals=False,
        shutdown_timeout=SHUTDOWN_SECONDS,
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

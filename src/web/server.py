"""The local web server of `xenophon serve` (aiohttp): the static page, each
game's board code, and one WebSocket per open page carrying JSON messages
(docs/web.md).

Who may connect (xenophon.web.hosts): every request's Host must be one of
the server's names with its port, and a socket's Origin that same page.

Each socket has its own game or review (xenophon.web.play) and its own
thread, which carries out its requests one at a time, in order (a review in
progress stops when another request comes); their searches run in the
server's pool of search threads (xenophon.web.searches), so a page's
requests never wait for other pages' searches. Any fault in a request, or a
message that is not one, is answered with one `error` message. When a page
goes, or the server stops (SIGTERM, Ctrl-C), its search stops within a
slice and its game in progress is saved, as the terminal's quit does."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
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
    error_message,
    hello_message,
    quoted,
    review,
    rules_message,
)
from xenophon.web.searches import DEFAULT_THREADS, Searches, SearchPool, Stopped

#: a page's requests waiting for its thread; more are refused, one error each
MAX_WAITING = 16
TOO_MANY = f"too many requests at once (at most {MAX_WAITING} wait): slow down"
STATIC = "static"
PAGES: web.AppKey[set[Connection]] = web.AppKey("pages", set)
SEARCH_POOL = web.AppKey("search pool", SearchPool)
SHUTDOWN_SECONDS = 10.0
Observer = Callable[[dict[str, Any], Any], None]


def static_folder() -> Path:
    return Path(str(resources.files("xenophon.web") / STATIC))


TOO_LARGE = error_message(
    f"the message is too large (at most {MAX_MESSAGE_BYTES // 2**20} MiB): "
    "review a larger record by its path"
)


_TERMINAL = threading.Lock()  # pages leave from their own threads


def say_on_the_terminal(line: str) -> None:
    """One whole line on the server's terminal: print() writes a text and its
    newline apart, so two pages leaving at once ran their lines together."""
    with _TERMINAL:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


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


def left_line(told: dict[str, Any]) -> str:
    """What the server's terminal is told of a game left by its page."""
    if told["type"] == "error":
        return f"a game left by its page was not saved: {told['message']}"
    if told.get("warning"):
        return f"a game in progress was saved to {told['path']}: {told['warning']}"
    return f"a game in progress was saved to {told['path']}"


class Connection:
    """One open page: its socket, its thread, its game or review and its searches."""

    def __init__(
        self,
        socket: web.WebSocketResponse,
        loop: asyncio.AbstractEventLoop,
        pool: SearchPool | None = None,
        observer: Observer | None = None,
    ):
        self.socket = socket
        self.loop = loop
        self.outbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="xenophon-page")
        self.searches = Searches(pool)
        self.game: WebGame | None = None
        self.received = 0  # requests received: a review stops when a later one comes
        self.jobs: set[asyncio.Future[None]] = set()
        self.observer = observer
        self.sending: asyncio.Future[None] | None = None
        self.finished: asyncio.Future[None] | None = None

    def send(self, message: dict[str, Any]) -> None:
        """Queues a message (from any thread); sent in order."""
        if self.observer is not None:
            self.observer(message, self)
        self.loop.call_soon_threadsafe(self.outbox.put_nowait, message)

    def start_sending(self) -> None:
        self.sending = asyncio.ensure_future(self._sender())

    async def _sender(self) -> None:
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

    def handle(self, text: str | None) -> None:
        """Queues a message (None: a binary one) for the page's thread; its
        answers come after those of the requests before it."""
        if self.searches.stopped:
            return  # the page is going
        if len(self.jobs) >= MAX_WAITING:
            self.send(error_message(TOO_MANY))
            return
        self.received += 1
        job = self.loop.run_in_executor(self.thread, self.carry_out, text, self.received)
        self.jobs.add(job)
        job.add_done_callback(self.jobs.discard)

    def carry_out(self, text: str | None, number: int) -> None:
        """Runs one request (in the page's thread); a fault is one error message."""
        if self.searches.stopped:
            return  # the page went before this request was begun
        try:
            self.dispatch(parse_request(text), lambda: self.received > number)
        except Stopped:
            return  # the page went or the server stops: finish() saves the game
        except XenophonError as fault:
            self.send(error_message(str(fault)))
        except Exception as fault:  # a bug: answered, so that one request cannot stop the page
            self.send(error_message(f"internal error: {type(fault).__name__}: {fault}"))

    def dispatch(self, request: dict[str, Any], replaced: Callable[[], bool]) -> None:
        kind = request.get("type")
        if kind in ("new", "resume"):
            if kind == "new":
                game = WebGame.new(request, self.searches)
            else:
                if self.game is not None and self.game.resumes(request):
                    self.leave_game()  # the same file again: saved there first
                game = WebGame.resume(request, self.searches)
            self.leave_game()  # only once the new game could be made
            self.game = game
            self.send(game.setup_message())
            game.advance(self.send)
        elif kind == "review":
            review(request, self.send, replaced, self.searches)
        elif kind == "rules":
            self.send(rules_message(request))
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
            raise PageError(f"unknown request {quoted(kind)}")

    def leave_game(self) -> None:
        """Saves the game, if there is one to save, and says where (to the
        page, and where the server was started, since the page may be gone)."""
        if self.game is not None:
            told = self.game.leave()
            if told is not None:
                self.send(told)
                say_on_the_terminal(f"xenophon: {left_line(told)}")
            self.game = None

    async def finish(self) -> None:
        """The page goes or the server stops: its search stops (a waiting one
        is dropped), the requests not begun are dropped, its game in progress
        is saved and the page told where (while its socket is open), and its
        messages are sent. Once, however often it is awaited."""
        if self.finished is None:
            self.finished = asyncio.ensure_future(self._finish())
        await asyncio.shield(self.finished)

    async def _finish(self) -> None:
        self.searches.stop()
        # after the request under way, in the page's own thread
        await self.loop.run_in_executor(self.thread, self.leave_game)
        self.thread.shutdown(wait=False)
        self.outbox.put_nowait(None)
        if self.sending is not None:
            await self.sending


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(static_folder() / "index.html")


def server_port(request: web.Request) -> int | None:
    """The port the request came in on (the server's own, even with --port 0)."""
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    return sockname[1] if isinstance(sockname, tuple) and len(sockname) >= 2 else None


def make_app(
    observer: Observer | None = None,
    host: str = "127.0.0.1",
    allowed_hosts: tuple[str, ...] = (),
    search_threads: int = DEFAULT_THREADS,
) -> web.Application:
    """The application of a server listening on `host`, answering to the
    loopback names, `host` and `allowed_hosts` (xenophon.web.hosts), its
    searches `search_threads` at a time; `observer(message, connection)`
    sees every message sent (for tests)."""
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
        connection = Connection(ws, asyncio.get_running_loop(), request.app[SEARCH_POOL], observer)
        connection.start_sending()
        request.app[PAGES].add(connection)
        connection.send(hello_message())
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    connection.handle(message.data)
                elif message.type == WSMsgType.BINARY:
                    connection.handle(None)
        finally:
            request.app[PAGES].discard(connection)
            await connection.finish()
        return ws

    async def close_pages(app: web.Application) -> None:
        # on shutdown: every search stops at once, then each page's game is
        # saved and the page told where, then its socket closed
        open_pages = app[PAGES]
        pages = list(open_pages)
        for page in pages:
            page.searches.stop()

        async def close(page: Connection) -> None:
            await page.finish()
            await page.socket.close(code=WSCloseCode.GOING_AWAY, message=b"server stopped")

        if pages:
            await asyncio.wait(
                [asyncio.ensure_future(close(page)) for page in pages], timeout=SHUTDOWN_SECONDS
            )

    async def stop_pool(app: web.Application) -> None:
        app[SEARCH_POOL].shutdown()

    app = web.Application(middlewares=[own_names_only])
    app[PAGES] = set()
    app[SEARCH_POOL] = SearchPool(search_threads)
    app.on_shutdown.append(close_pages)
    app.on_cleanup.append(stop_pool)
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
    """Serves until SIGTERM or Ctrl-C (KeyboardInterrupt, once the pages'
    games are saved); `announce` gets the address (or raises OSError when
    the port cannot be had, before announcing)."""
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

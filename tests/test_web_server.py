"""`xenophon serve` as a server (docs/web.md, "What the server protects"):
who may connect (the Host and the Origin), searches stopped when their page
goes or the server stops, the searches' own bounded pool that leaves a new
page its board while others search, and one error answer to each bad
message. Real sockets and real searches; the searches at level LONG outlast
every test, so a test that waited for one to end would fail by its time."""

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time

import aiohttp
import pytest
from aiohttp import WSMsgType, WSServerHandshakeError
from aiohttp.test_utils import TestClient, TestServer

from test_cli import ctrl_c_as_on_a_terminal
from xenophon.play.records import load_record
from xenophon.play.session import resumed_game
from xenophon.web.server import MAX_MESSAGE_BYTES, make_app

LONG = "60s"  # an AI level whose search lasts a minute
STOP_BUDGET = 5.0  # seconds: a search stops within one (docs/web.md); slack for a loaded machine
BOARD_BUDGET = 5.0  # seconds: a new page's board within one; slack for a loaded machine
SEARCHING_PAGES = 8
POOL = 2  # search threads, where a test sets them


@pytest.fixture(autouse=True)
def games_folder(tmp_path, monkeypatch):
    """Saved games go to a folder of the test's own."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))


class Page:
    """One open page: its socket and the messages it is sent."""

    def __init__(self, socket):
        self.socket = socket
        self.seen = []

    async def send(self, message):
        await self.socket.send_str(json.dumps(message))

    async def next(self, timeout=60.0):
        message = await self.socket.receive(timeout=timeout)
        assert message.type == WSMsgType.TEXT, message
        self.seen.append(json.loads(message.data))
        return self.seen[-1]

    async def until(self, kind, timeout=60.0):
        return await self.until_one_of(kind, timeout=timeout)

    async def until_one_of(self, *kinds, timeout=60.0):
        deadline = time.monotonic() + timeout
        while True:
            message = await self.next(max(0.01, deadline - time.monotonic()))
            if message["type"] in kinds:
                return message


def own_origin(client):
    return {"Origin": f"http://127.0.0.1:{client.server.port}"}


async def open_page(client):
    page = Page(await client.ws_connect("/ws", headers=own_origin(client)))
    assert (await page.next())["type"] == "hello"
    return page


def serving(check, **app_options):
    """Runs `check(client)` against the app on a free port of 127.0.0.1."""

    async def main():
        async with TestClient(TestServer(make_app(**app_options), host="127.0.0.1")) as client:
            return await check(client)

    return asyncio.run(main())


def ai_first(seed, level=LONG):
    """A new game in which the AI moves first (the human has the second seat)."""
    return {"type": "new", "game": "anabasis", "seat": 1, "level": level, "seed": str(seed)}


async def moved_then_ai(page, seed, level=LONG):
    """A new game in which the human moves first (ends the first turn: `end`
    or `pass` until the AI thinks), then the AI searches: a game leaving
    saves (one the human has not moved in leaves no file)."""
    await page.send(
        {"type": "new", "game": "anabasis", "seat": 0, "level": level, "seed": str(seed)}
    )
    while (message := await page.until_one_of("position", "thinking"))["type"] == "position":
        legal = [move["text"] for move in message["legal"]]
        await page.send({"type": "move", "move": "end" if "end" in legal else "pass"})


# -- who may connect -------------------------------------------------------------
async def handshake(client, headers):
    try:
        socket = await client.ws_connect("/ws", headers=headers)
    except WSServerHandshakeError as error:
        return error.status
    await socket.close()
    return 101


async def page_status(client, host):
    async with client.session.get(client.make_url("/"), headers={"Host": host}) as response:
        return response.status


def test_on_every_address_only_loopback_names_may_connect():
    """Served on every address, a name made to resolve to this machine (DNS
    rebinding) still gets no socket, nor does a Host with userinfo or a
    wrong port, nor a socket without its page's Origin."""

    async def check(client):
        port = client.server.port
        rebound = f"rebind.evil.example:{port}"
        assert await handshake(client, {"Host": rebound, "Origin": f"http://{rebound}"}) == 403
        assert await page_status(client, rebound) == 403
        for host in (
            f"127.0.0.1:{port}@evil.example",
            f"evil.example@127.0.0.1:{port}",
            f"127.0.0.1:{port + 1}",
            f"127.0.0.1:0{port}",
            "127.0.0.1:99999",
            "127.0.0.1:",
            "127.0.0.1",
            f"127.0.0.1:{port}/x",
            f"127.0.0.1 :{port}",
            f"[::1:{port}",
            "",
        ):
            assert await handshake(client, {"Host": host, "Origin": f"http://{host}"}) == 403, host
        own = f"127.0.0.1:{port}"
        assert await handshake(client, {}) == 403  # no Origin
        for origin in ("null", f"https://{own}", f"http://localhost:{port}", f"http://{own}/"):
            assert await handshake(client, {"Origin": origin}) == 403, origin
        for name in ("127.0.0.1", "localhost", "LocalHost", "[::1]"):
            host = f"{name}:{port}"
            assert await handshake(client, {"Host": host, "Origin": f"http://{host}"}) == 101
            assert await page_status(client, host) == 200

    serving(check, host="0.0.0.0")


def test_other_names_only_when_allowed():
    async def check(client):
        port = client.server.port
        for host in (f"box.lan:{port}", f"BOX.lan:{port}", f"192.168.1.5:{port}"):
            assert await handshake(client, {"Host": host, "Origin": f"http://{host}"}) == 101
        other = f"other.lan:{port}"
        assert await handshake(client, {"Host": other, "Origin": f"http://{other}"}) == 403

    serving(check, host="0.0.0.0", allowed_hosts=("box.lan", "192.168.1.5"))


def run_xenophon(*args, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "xenophon.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize("name", ["evil@box.lan", "box.lan:8765", "http://box.lan", "", "a b"])
def test_a_bad_allowed_host_is_one_line(name):
    result = run_xenophon("serve", "--allow-host", name)
    assert result.returncode == 2 and "argument --allow-host: not a host name" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


# -- stopping searches -------------------------------------------------------------
def test_a_page_that_closes_stops_its_search():
    """The human has moved, the AI searches for a minute; its page closes:
    the search stops and the game is saved (the AI to move) within seconds."""
    sent = []

    async def check(client):
        page = await open_page(client)
        await moved_then_ai(page, 1)
        closed = time.monotonic()
        await page.socket.close()
        while not any(m["type"] == "saved" and m.get("left") for m in sent):
            assert time.monotonic() - closed < STOP_BUDGET, "the search went on after its page"
            await asyncio.sleep(0.02)
        return time.monotonic() - closed

    serving(check, observer=lambda message, connection: sent.append(message))
    path = next(m["path"] for m in sent if m["type"] == "saved")
    assert load_record(path).result is None
    assert resumed_game(path, None).session(None).to_move() == "ai"


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_stopping_the_server_stops_its_searches_and_saves_the_games(tmp_path, stop):
    """Two games the human has moved in are saved, each page told where; a
    third, its human not yet moved (the AI searching its first move), leaves
    no file."""
    server = subprocess.Popen(
        [sys.executable, "-m", "xenophon.cli.main", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path)},
        preexec_fn=ctrl_c_as_on_a_terminal,  # Ctrl-C reaches it however pytest was started
    )
    try:
        url = re.search(r"http://\S+/", server.stdout.readline()).group(0)

        async def search_then_stop():
            async with aiohttp.ClientSession() as session:
                pages = []
                for seed in (1, 2, 3):
                    socket = await session.ws_connect(f"{url}ws", headers={"Origin": url[:-1]})
                    page = Page(socket)
                    pages.append(page)
                    await page.until("hello")
                    if seed < 3:
                        await moved_then_ai(page, seed)  # moved in, and searching
                    else:
                        await page.send(ai_first(seed))
                # the third searching, or waiting for one of the pool's threads
                await pages[2].until_one_of("thinking", "waiting")
                server.send_signal(stop)
                stopped = time.monotonic()
                for page in pages[:2]:  # each page is told where its game went, then closed
                    await page.until("saved", STOP_BUDGET * 2)
                    while (await page.socket.receive(STOP_BUDGET * 2)).type == WSMsgType.TEXT:
                        pass
                last = pages[2]  # closed with nothing saved
                while (
                    message := await last.socket.receive(STOP_BUDGET * 2)
                ).type == WSMsgType.TEXT:
                    assert json.loads(message.data)["type"] != "saved"
                return stopped

        stopped = asyncio.run(search_then_stop())
        server.wait(STOP_BUDGET * 4)
        seconds = time.monotonic() - stopped
    finally:
        if server.poll() is None:
            server.kill()
    errors = server.stderr.read()
    assert seconds < STOP_BUDGET, f"the server took {seconds:.1f} s to stop"
    assert "Traceback" not in errors
    saved = re.findall(r"saved to (\S+)", errors)
    assert len(saved) == 2, errors
    for path in saved:
        assert load_record(path).result is None


# -- the searches' pool ------------------------------------------------------------
@pytest.mark.skipif(
    "PYTEST_XDIST_WORKER" in os.environ,
    reason="a timing check of the server's pool: the other test worker's load breaks it; "
    "run it alone (pytest tests/test_web_server.py)",
)
def test_a_new_page_gets_its_board_while_eight_pages_search():
    """Eight pages have the AI search for a minute each; a ninth page that
    starts a game in which it moves first is shown its board at once: the
    searches take their own pool's threads, not the pages'."""

    async def check(client):
        searching = [await open_page(client) for _ in range(SEARCHING_PAGES)]
        for seed, page in enumerate(searching):
            await page.send(ai_first(seed))
        # every request is under way: each page's search has started or waits
        # for the pool (which pages get its threads first depends on the load)
        for searching_page in searching:
            await searching_page.until_one_of("thinking", "waiting")
        started = time.monotonic()
        page = await open_page(client)
        await page.send({"type": "new", "game": "anabasis", "seat": 0, "level": "easy"})
        position = await page.until("position", BOARD_BUDGET * 4)
        seconds = time.monotonic() - started
        assert position["to_move"] == "human" and position["legal"]
        return seconds

    seconds = serving(check)
    assert seconds < BOARD_BUDGET, f"the new page waited {seconds:.1f} s for its board"


def test_a_page_waits_its_turn_for_the_pool_and_is_told():
    """More searches than the pool has threads: a page is told it waits
    (none ahead of it) while the pool's threads are all searching, and its
    search starts when another page's ends."""

    async def check(client):
        pages = [await open_page(client) for _ in range(POOL + 1)]
        told: asyncio.Queue = asyncio.Queue()

        async def read(index, page):
            while not page.socket.closed:
                try:
                    await told.put((index, await page.next(120)))
                except AssertionError:  # the closed page's last message
                    return

        readers = [asyncio.create_task(read(i, page)) for i, page in enumerate(pages)]
        for seed, page in enumerate(pages):
            await page.send(ai_first(seed))
        # which page waits depends on which request reached the pool last, and
        # a page whose search ends (e.g. a decision with one legal move) asks
        # again: so the pages are followed together, each searching or not
        searching = [False] * len(pages)

        async def until_told(kind, of=None):
            while True:
                index, message = await asyncio.wait_for(told.get(), 120)
                if message["type"] == "thinking":
                    searching[index] = True
                elif message["type"] == "ai_move":
                    searching[index] = False
                if message["type"] == kind and of in (None, index):
                    return index, message

        waiting, message = await until_told("waiting")
        assert message["ahead"] == 0, message
        # the pages' messages travel on their own sockets: a searching page's
        # "thinking" may reach us after the waiting page's "waiting"
        while searching.count(True) < POOL:
            await until_told("thinking")
        assert searching.count(True) == POOL and not searching[waiting], searching
        # a searching page closes, so its search stops and the waiting one starts
        await pages[searching.index(True)].socket.close()
        await until_told("thinking", of=waiting)  # how fast a search stops is timed elsewhere
        for reader in readers:
            reader.cancel()

    serving(check, search_threads=POOL)


# -- bad messages ------------------------------------------------------------------
async def too_large_is_answered(page, message):
    """Sends a message over the size limit and checks the one error it gets
    before the server closes the socket: True when it came. The server closes
    as soon as it has read the frame's length, so while the 4 MB are still
    being written the kernel may reset the connection, and the answer is
    lost with it (False): a race of the sockets, not of the server."""
    try:
        await page.send(message)
    except ConnectionError:
        return False
    answer = await page.socket.receive(10)
    if answer.type in (WSMsgType.ERROR, WSMsgType.CLOSED):
        return False
    assert answer.type == WSMsgType.TEXT, answer
    error = json.loads(answer.data)
    assert error["type"] == "error" and "too large" in error["message"], error
    closing = await page.socket.receive(10)
    assert closing.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING), closing
    return True


def test_each_bad_message_gets_one_error_and_the_page_goes_on():
    async def check(client):
        page = await open_page(client)

        async def one_error(send, *words):
            await send
            answer = await page.next()
            assert answer["type"] == "error", answer
            assert all(word in answer["message"] for word in words), answer
            await page.send({"type": "undo"})  # the next request is answered, and nothing else came
            assert (await page.next())["message"] == "start a game first"

        deep = "[" * 100_000 + "]" * 100_000
        await one_error(page.socket.send_str(deep), "nested")
        await one_error(page.socket.send_str('{"type": [' * 500 + "]}" * 500), "nested")
        await one_error(page.socket.send_bytes(b'{"type": "undo"}'), "binary")
        await one_error(page.socket.send_str("[NaN]"), "JSON")
        for field, value in (("seed", 1.5), ("seed", True), ("seed", "1_000"), ("seat", True)):
            request = {**ai_first(1, "beginner"), field: value}
            await one_error(page.send(request), field)
        record = "x" * (MAX_MESSAGE_BYTES + 1)
        if await too_large_is_answered(page, {"type": "review", "text": record}):
            assert page.socket.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
        other = await open_page(client)  # the server goes on serving
        await other.send({"type": "undo"})
        assert (await other.next())["message"] == "start a game first"

    serving(check)

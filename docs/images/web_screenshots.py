"""Takes the screenshots of docs/web.md: the web board of each game with a
hint and a card's details, an Anabasis board with a character's reach
shown, its move list and rules, and a review. It serves
the installed package on a free port of 127.0.0.1 (games saved in a
temporary folder), drives the system's Chromium with Playwright, plays a
few moves with fixed seeds, reviews the Hero game it played, and writes
small PNGs (256 colours) here.

    python docs/images/web_screenshots.py          # from the repository
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZE = {"width": 1280, "height": 1000}
TIMEOUT = 120_000  # ms
#: each game's screenshot: its seed, the human's seat, and the decisions played first
GAMES = {"anabasis": ("11", "0", 9), "hero": ("11", "0", 7)}


def serve(home: Path) -> tuple[str, object]:
    """The server in its own thread; its address and a function that stops it."""
    from aiohttp import web

    from xenophon.web.server import make_app

    os.environ["XDG_DATA_HOME"] = str(home)
    loop = asyncio.new_event_loop()
    ready, holder = threading.Event(), {}

    def run() -> None:
        asyncio.set_event_loop(loop)
        runner = web.AppRunner(make_app())
        loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        holder["runner"], holder["port"] = runner, site._server.sockets[0].getsockname()[1]
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    if not ready.wait(60):
        sys.exit("web_screenshots: the server did not start")

    def stop() -> None:
        asyncio.run_coroutine_threadsafe(holder["runner"].cleanup(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)

    return f"http://127.0.0.1:{holder['port']}/?delay=0", stop


def your_move(page) -> bool:
    page.wait_for_selector("body[data-state=your-move], body[data-state=over]", timeout=TIMEOUT)
    return page.evaluate("document.body.dataset.state") == "your-move"


#: the moves the script prefers, for a board with something on it
BUILDS = ("deploy", "play", "place", "buy", "move", "attack")


def play(page, rng: random.Random, decisions: int) -> None:
    """Plays `decisions` moves (one that builds when it can), typed."""
    for _ in range(decisions):
        if not your_move(page):
            return
        legal = [move["text"] for move in page.evaluate("window.xenophon.legal")]
        acts = [text for text in legal if text.split()[0] in BUILDS] or legal
        sent = page.evaluate("window.xenophon.movesSent || 0")
        page.fill("#move-text", rng.choice(acts))
        page.click("#typed button")
        page.wait_for_function(f"(window.xenophon.movesSent || 0) > {sent}")


def shot(page, name: str) -> None:
    """A PNG of the page's viewport, in 256 colours."""
    from PIL import Image

    path = HERE / name
    page.screenshot(path=str(path))
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)
    print(f"{path.relative_to(HERE.parent.parent)}: {path.stat().st_size:,} bytes")


def board(page, game: str) -> None:
    seed, seat, decisions = GAMES[game]
    page.select_option("#new-game select[name=game]", game)
    page.fill("#new-game input[name=seed]", seed)
    page.select_option("#new-game select[name=seat]", seat)
    page.select_option("#new-game select[name=level]", "easy")
    page.click("#start")
    rng = random.Random(int(seed))
    play(page, rng, decisions)
    while your_move(page) and page.evaluate("window.xenophon.legal.length") < 4:
        play(page, rng, 1)
    page.click("#hint")
    page.wait_for_selector("body[data-state=your-move] #analysis li.why", timeout=TIMEOUT)
    page.hover("#play-board .card.mine[data-card] >> nth=0")
    shot(page, f"web-{game}.png")


def reach(page) -> None:
    """A later board of the same game, in a Field phase, one of the player's
    characters selected: where it moves (blue dots) and attacks (red rings),
    its legal targets outlined, the last move marked."""
    rng = random.Random(5)
    for _ in range(60):
        if not your_move(page):
            return
        legal = page.evaluate("window.xenophon.legal")
        fights = [m for m in legal if m["text"].split()[0] in ("move", "attack")]
        if fights and page.evaluate("window.xenophon.view.turn") >= 7:
            break
        play(page, rng, 1)
    else:
        sys.exit("web_screenshots: no move on the grid by the Anabasis game's turn 7")
    page.click(f'#play-board [data-anchor="{fights[-1]["anchors"][0]}"]')
    page.mouse.move(5, 995)  # the card's details away
    shot(page, "web-reach.png")


def review(page, home: Path) -> None:
    """The review of the Hero game played above, saved when its page closed
    (a game in progress: reviewed as its player saw it)."""
    [path] = (home / "xenophon" / "games").glob("hero-*.jsonl")
    page.click("button[data-tab=review]")
    page.fill("#review-form input[name=path]", str(path))
    page.fill("#review-form input[name=iterations]", "300")
    page.click("#review-load")
    page.wait_for_selector("body[data-state=reviewed]", timeout=TIMEOUT)
    if page.locator("#mistakes li").count():
        page.click("#mistakes li >> nth=0")
    shot(page, "web-review.png")


def rules(page) -> None:
    page.click("button[data-tab=rules]")
    page.select_option("#rules-form select[name=game]", "anabasis")
    page.wait_for_selector('#rules-text[data-game="anabasis"]', timeout=TIMEOUT)
    shot(page, "web-rules.png")


def main() -> int:
    from playwright.sync_api import sync_playwright

    chromium = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    if chromium is None:
        sys.exit("web_screenshots: no Chromium on this machine (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        url, stop = serve(home)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
            )
            for game in GAMES:
                page = browser.new_page(viewport=SIZE)
                page.goto(url)
                page.wait_for_selector("body[data-connected=yes]")
                board(page, game)
                if game == "anabasis":
                    reach(page)
                page.close()
            page = browser.new_page(viewport=SIZE)
            page.goto(url)
            page.wait_for_selector("body[data-connected=yes]")
            review(page, home)
            rules(page)
            browser.close()
        stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

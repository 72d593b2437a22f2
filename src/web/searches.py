"""Where the pages' searches run (docs/web.md, "What the server protects"):
the server's own pool of search threads, bounded and first come first
served, and how a page's search is stopped when its page goes, a later
request replaces it or the server stops.

A search is a bot's `analyse` given a progress callback, which the search
calls between its slices of PROGRESS_EVERY seconds (the page's progress
messages); a stopped search raises Stopped from there, so it ends within
one slice, and a search still waiting for a thread is dropped at once."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor

from xenophon.search.bots import SearchResult

#: seconds between a search's partial results (and its checks for a stop)
PROGRESS_EVERY = 0.25
#: the searches that run at once, unless the server is told: one a core, at least two
DEFAULT_THREADS = max(2, os.cpu_count() or 1)

Progress = Callable[[SearchResult], None]
#: a search, given the callback it calls between its slices
Analyse = Callable[[Progress], SearchResult]


class Stopped(Exception):
    """A search stopped before its end: its page went, a later request
    replaced it, or the server is stopping. Nothing is answered."""


class SearchPool:
    """At most `size` searches at once, each in a thread of the pool, in the
    order they were asked for; the rest wait."""

    def __init__(self, size: int = DEFAULT_THREADS):
        if size < 1:
            raise ValueError("a search pool needs a thread")
        self.size = size
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="xenophon-search")
        self._lock = threading.Lock()
        self._asked = 0  # searches running or waiting

    def submit(self, search: Callable[[], SearchResult]) -> tuple[Future[SearchResult], int]:
        """Queues `search`: its future, and how many searches wait before it
        (-1 or less when a thread is free for it)."""
        with self._lock:
            ahead = self._asked - self.size
            self._asked += 1
        future = self._executor.submit(search)
        future.add_done_callback(self._done)
        return future, ahead

    def _done(self, _: Future[SearchResult]) -> None:
        with self._lock:
            self._asked -= 1

    def shutdown(self) -> None:
        """Drops the waiting searches; the running ones end at their stop."""
        self._executor.shutdown(wait=False, cancel_futures=True)


class Searches:
    """One page's searches: run in `pool` (in the caller's thread without
    one), and stopped for good by `stop()`. A page runs one request at a
    time, so it has at most one search running or waiting: its share of the
    pool is one thread."""

    def __init__(self, pool: SearchPool | None = None):
        self.pool = pool
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._waiting: Future[SearchResult] | None = None

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def stop(self) -> None:
        """Stops the running search at its next slice, drops a waiting one,
        and stops every later one before it starts (from any thread)."""
        self._stopped.set()
        with self._lock:
            if self._waiting is not None:
                self._waiting.cancel()

    def run(
        self,
        analyse: Analyse,
        progress: Progress | None = None,
        waiting: Callable[[int], None] | None = None,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> SearchResult:
        """The result of `analyse`, run in the pool; `progress` gets its
        partial results, `waiting(ahead)` is called when it must wait for a
        thread. Raises Stopped when stopped, or when `cancelled()` holds at
        a slice's end."""

        def check() -> None:
            if self._stopped.is_set() or cancelled():
                raise Stopped

        def on_progress(partial: SearchResult) -> None:
            check()
            if progress is not None:
                progress(partial)

        def search() -> SearchResult:
            check()  # it may have waited long
            return analyse(on_progress)

        check()
        if self.pool is None:
            return analyse(on_progress)
        future, ahead = self.pool.submit(search)
        with self._lock:
            self._waiting = future
        try:
            if self._stopped.is_set():  # a stop between the check and the line above
                future.cancel()
            elif ahead >= 0 and waiting is not None:
                waiting(ahead)
            return future.result()
        except CancelledError:
            raise Stopped from None
        finally:
            with self._lock:
                self._waiting = None

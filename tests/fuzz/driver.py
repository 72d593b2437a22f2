"""Running a fuzz target for a long time, in worker processes watched by
this one.

Each worker makes its share of the inputs (input `i` goes to job
`i % jobs`; `mutate.Mutator.input(i)` makes it), runs the target on it and
writes every failing input, with its traceback, as it comes. Before each
input a worker puts it, its number and the time into memory shared with the
parent, so that the parent can tell a hang (an input running longer than
the time limit: the worker is killed and the input saved) and a crash (the
worker died: the input it was running is saved) and start the worker again
after that input. Nothing is lost on Ctrl-C: findings are already on disk,
and the summary names the input to resume from (`--start`).
"""

from __future__ import annotations

import ctypes
import hashlib
import multiprocessing
import os
import signal
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xenophon.kernel.files import write_atomic

from .mutate import MAX_INPUT, Mutator

POLL_SECONDS = 0.05
STARTUP_SECONDS = 300.0  # to import the target and make its seeds
DEFAULT_FINDINGS = Path(__file__).resolve().parent / "findings"

# slots of a worker's shared counters
INDEX, STARTED, BUSY, DONE, FAILED, READY = range(6)


@dataclass
class Settings:
    inputs: int | None = None  # run inputs number start..inputs-1 (None: no end)
    seconds: float | None = None  # stop after this long (None: no limit)
    jobs: int = 1
    seed: int = 0
    timeout: float = 10.0  # per input, seconds
    start: int = 0
    findings: Path = DEFAULT_FINDINGS
    memory_mb: int = 4096  # address-space limit of a worker (0: none)
    max_per_bug: int = 0  # inputs saved per bug and worker (0: every one)
    progress: bool = False


@dataclass
class Stats:
    target: str
    inputs: int = 0
    failures: int = 0
    hangs: int = 0
    crashes: int = 0
    seconds: float = 0.0
    resume: int = 0  # every input below this number has run
    interrupted: bool = False

    @property
    def found(self) -> int:
        return self.failures + self.hangs + self.crashes

    def summary(self) -> str:
        line = (
            f"{self.target}: {self.inputs} inputs, {self.failures + self.crashes} failures, "
            f"{self.hangs} hangs, {self.seconds:.1f} s"
        )
        if self.crashes:
            line += f" ({self.crashes} of the failures crashed the process)"
        if self.interrupted:
            line += f"; interrupted, resume with --start {self.resume}"
        return line


# -- findings -----------------------------------------------------------------
def save_finding(folder: Path, target: str, data: bytes, kind: str, report: str) -> Path:
    """Writes the input (TARGET-<hash>.bin) and what happened (.txt beside it)."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{target.replace(':', '.')}-{hashlib.sha1(data).hexdigest()[:16]}"
    write_atomic(folder / f"{stem}.bin", data)
    write_atomic(
        folder / f"{stem}.txt",
        f"{kind} in fuzz target {target} ({len(data)} bytes: {data[:200]!r})\n"
        f"replay: python -m tests.fuzz.run {target} --replay {folder / stem}.bin\n\n"
        f"{report}",
    )
    return folder / f"{stem}.bin"


# -- the worker ---------------------------------------------------------------
class Shared:
    """What a worker and the parent share: counters and the current input."""

    def __init__(self, context: Any):
        self.counters = context.RawArray(ctypes.c_double, 6)
        self.length = context.RawValue(ctypes.c_long, 0)
        self.buffer = context.RawArray(ctypes.c_ubyte, MAX_INPUT)

    def begin(self, index: int, data: bytes) -> None:
        length = min(len(data), MAX_INPUT)  # only a seed can be longer
        ctypes.memmove(self.buffer, data, length)
        self.length.value = length
        self.counters[INDEX] = index
        self.counters[STARTED] = time.monotonic()
        self.counters[BUSY] = 1

    def current(self) -> tuple[int, bytes]:
        return int(self.counters[INDEX]), bytes(self.buffer[: self.length.value])


def _isolate(memory_mb: int) -> None:
    """A worker reads nothing from the terminal, writes nothing to it, leaves
    Ctrl-C to the parent and cannot take all the machine's memory."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(null, descriptor)
    if memory_mb:
        import resource

        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import warnings

    warnings.simplefilter("ignore")


def bug(error: BaseException) -> str:
    """What tells one bug from another: the exception's type and where it was raised."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return type(error).__name__ + where


def work(target: str, settings: Settings, job: int, first: int, shared: Shared, stop: Any) -> None:
    """A worker: inputs first, first + jobs, ... until the end, or `stop`, or
    until its parent is gone (killed, it could not set `stop`)."""
    parent = os.getppid()
    _isolate(settings.memory_mb)
    from .targets import resolve

    fn, seeds = resolve(target)
    mutator = Mutator(seeds(), settings.seed)
    saved: Counter[str] = Counter()
    shared.counters[READY] = 1
    index = first
    while (
        not stop.value
        and os.getppid() == parent
        and (settings.inputs is None or index < settings.inputs)
    ):
        data = mutator.input(index)
        shared.begin(index, data)
        try:
            fn(data)
        except Exception as error:
            shared.counters[FAILED] += 1
            which = bug(error)
            saved[which] += 1
            if not settings.max_per_bug or saved[which] <= settings.max_per_bug:
                save_finding(
                    settings.findings,
                    target,
                    data,
                    "failure",
                    f"input {index} of seed {settings.seed}: {which}\n\n{traceback.format_exc()}",
                )
        shared.counters[BUSY] = 0
        shared.counters[DONE] += 1
        index += settings.jobs


# -- the parent ---------------------------------------------------------------
class Job:
    """One worker slot: its shared memory, and the process now running it."""

    def __init__(self, context: Any, number: int, first: int):
        self.context = context
        self.number = number
        self.shared = Shared(context)
        self.next = first  # the first input of the process to start
        self.process: Any = None
        self.started = 0.0
        self.ended = False  # its last process ended and was dealt with

    @property
    def alive(self) -> bool:
        return not self.ended and self.process is not None and self.process.is_alive()

    def start(self, target: str, settings: Settings, stop: Any) -> None:
        self.shared.counters[BUSY] = 0
        self.shared.counters[READY] = 0
        self.process = self.context.Process(
            target=work,
            args=(target, settings, self.number, self.next, self.shared, stop),
            daemon=True,
        )
        self.process.start()
        self.started = time.monotonic()

    def resume_point(self, jobs: int) -> int:
        """The first input of this job that has not run to its end."""
        index = int(self.shared.counters[INDEX])
        if not self.shared.counters[READY] or not self.shared.counters[DONE]:
            return self.next
        return index if self.shared.counters[BUSY] else index + jobs

    def kill(self) -> None:
        if self.process is not None and self.process.is_alive():
            self.process.kill()
        if self.process is not None:
            self.process.join()


class Run:
    """One target run by `settings.jobs` workers until done, out of time or interrupted."""

    def __init__(
        self, target: str, settings: Settings, on_progress: Callable[[Stats], None] | None = None
    ):
        self.target = target
        self.settings = settings
        self.on_progress = on_progress
        self.context = multiprocessing.get_context("spawn")
        self.stop = self.context.RawValue(ctypes.c_int, 0)
        self.jobs = [Job(self.context, j, settings.start + j) for j in range(settings.jobs)]
        self.stats = Stats(target, resume=settings.start)
        self.begun = time.monotonic()

    def run(self) -> Stats:
        try:
            for job in self.jobs:
                job.start(self.target, self.settings, self.stop)
            while not all(job.ended for job in self.jobs):
                time.sleep(POLL_SECONDS)
                self.watch()
        except KeyboardInterrupt:
            self.stats.interrupted = True
            self.stop.value = 1
            self.wait_for_workers()
        finally:
            for job in self.jobs:
                job.kill()
            self.tally()
        return self.stats

    def watch(self) -> None:
        now = time.monotonic()
        if self.settings.seconds is not None and now - self.begun >= self.settings.seconds:
            self.stop.value = 1
        for job in self.jobs:
            self.check(job, now)
        self.tally()
        if self.on_progress:
            self.on_progress(self.stats)

    def check(self, job: Job, now: float) -> None:
        if job.ended:
            return
        counters, alive = job.shared.counters, job.process.is_alive()
        if not counters[READY]:
            if not alive or now - job.started > STARTUP_SECONDS:
                job.kill()
                raise RuntimeError(
                    f"fuzz target {self.target}: the worker could not start "
                    "(run the target once in-process to see why)"
                )
        elif alive and counters[BUSY] and now - counters[STARTED] > self.settings.timeout:
            job.kill()
            self.lost_input(job, "hang", f"ran longer than {self.settings.timeout:g} s")
        elif not alive and job.process.exitcode != 0 and counters[BUSY]:
            self.lost_input(job, "crash", f"the process died (exit code {job.process.exitcode})")
        elif not alive:
            job.ended = True
            if job.process.exitcode != 0:
                raise RuntimeError(
                    f"fuzz target {self.target}: a worker died between inputs "
                    f"(exit code {job.process.exitcode})"
                )

    def lost_input(self, job: Job, kind: str, what: str) -> None:
        """Saves the input that hung or crashed the worker; starts it again after it."""
        index, data = job.shared.current()
        save_finding(
            self.settings.findings,
            self.target,
            data,
            kind,
            f"input {index} of seed {self.settings.seed} {what}\n",
        )
        if kind == "hang":
            self.stats.hangs += 1
        else:
            self.stats.crashes += 1
        job.shared.counters[DONE] += 1
        job.shared.counters[BUSY] = 0
        job.next = index + self.settings.jobs
        if not self.stop.value and (
            self.settings.inputs is None or job.next < self.settings.inputs
        ):
            job.start(self.target, self.settings, self.stop)
        else:
            job.ended = True

    def wait_for_workers(self, grace: float = 2.0) -> None:
        """After Ctrl-C: lets the workers end the input they are running."""
        end = time.monotonic() + grace
        for job in self.jobs:
            if job.alive:
                job.process.join(max(0.0, end - time.monotonic()))

    def tally(self) -> None:
        stats = self.stats
        stats.inputs = int(sum(job.shared.counters[DONE] for job in self.jobs))
        stats.failures = int(sum(job.shared.counters[FAILED] for job in self.jobs))
        stats.seconds = time.monotonic() - self.begun
        stats.resume = min(job.resume_point(self.settings.jobs) for job in self.jobs)


def run_target(
    target: str, settings: Settings, on_progress: Callable[[Stats], None] | None = None
) -> Stats:
    return Run(target, settings, on_progress).run()


def replay(target: str, paths: list[Path]) -> int:
    """Runs the target in this process on saved inputs; the number that fail."""
    from .targets import resolve

    fn, _ = resolve(target)
    failed = 0
    for path in paths:
        try:
            fn(path.read_bytes())
        except Exception:
            failed += 1
            print(f"{path}: fails", file=sys.stderr)
            traceback.print_exc()
        else:
            print(f"{path}: passes")
    return failed

"""The job runner of every bulk command (`match`, `selfplay`, `balance`,
`bench --only strength`, `tune`): a list of jobs, each one or two games identified by its seed, run
on a local process pool or on a Ray cluster, every finished job appended to a
results file as it arrives.

A job is a pure function of its spec (`Job`): the same job gives the same
games wherever and in whatever order it runs, so a run can be spread over
processes or machines, interrupted, resumed and replayed.

The results file is JSON Lines: a header naming the command and its
configuration, then one line per game, ``{"job": KEY, "game": i, "of": n,
"seed": ..., ...}``, flushed as each job finishes. `--resume` reads it back
and plays only the jobs that are missing (a job torn by a crash is played
again); a results file of another command or configuration is refused. When
a run ends (all jobs played, or its stop rule met) the file is rewritten in
job order, so the same jobs give the same file however they were scheduled.

>>> from xenophon.kernel.registry import GAMES
>>> jobs = [Job(str(seed), "match_pair", {"plays": [[GAMES[0], 0], [GAMES[0], 1]],
...         "bots": ["greedy", "random"], "seed": seed}) for seed in (1, 2)]
>>> run = run_jobs(jobs, None, command="doc", config={}, progress=False)
>>> [len(games) for games in run.results.values()]
[2, 2]
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from xenophon.kernel.errors import XenophonError, shown
from xenophon.kernel.files import (
    JsonError,
    check_header,
    check_output,
    dumps_line,
    iter_lines,
    loads,
    write_atomic,
)

RESULTS_FORMAT = "xenophon-results"
RESULTS_VERSION = 1
#: the tasks a job can name: name -> "module:function" (imported in the worker)
TASKS = {
    "match_pair": "xenophon.lab.tournament:play_pair_job",
    "selfplay": "xenophon.lab.selfplay:selfplay_job",
    "tune_positions": "xenophon.lab.tune:positions_job",
    "learn_log": "xenophon.lab.learnlog:log_job",
}
#: times a job may be in flight when its worker dies before the run gives up
MAX_ATTEMPTS = 4
#: the cluster names `--cluster` takes besides a Ray address
LOCAL, RAY = "local", "ray"


class RunError(XenophonError):
    """A run that cannot start or go on (its message names the file or job)."""


@dataclass(frozen=True)
class Job:
    """One unit of work: `task` (a name in TASKS) called with `args` (JSON
    values, the game's seed among them), named `key` in the results file."""

    key: str
    task: str
    args: dict[str, Any]


def run_job(job: Job) -> list[dict[str, Any]]:
    """Plays a job where it is called: its games, one dict each (seed included)."""
    module, _, name = TASKS[job.task].partition(":")
    games = getattr(importlib.import_module(module), name)(**job.args)
    return [{"job": job.key, "game": i, "of": len(games), **g} for i, g in enumerate(games)]


# -- backends ---------------------------------------------------------------


class LocalBackend:
    """A process pool on this machine (in this process with one process). A
    pool whose worker dies is made again and the jobs it held are replayed."""

    def __init__(self, processes: int | None = None):
        self.processes = processes or os.cpu_count() or 1

    def describe(self) -> str:
        return f"{self.processes} local process{'es' if self.processes > 1 else ''}"

    def results(self, jobs: Sequence[Job]) -> Iterator[tuple[Job, list[dict[str, Any]]]]:
        if self.processes == 1 or len(jobs) == 1:
            for job in jobs:
                yield job, run_job(job)
            return
        attempts = {job.key: 0 for job in jobs}
        order = {job.key: number for number, job in enumerate(jobs)}
        waiting = list(reversed(jobs))
        while waiting:
            pool = _new_pool(min(self.processes, len(waiting)))
            running: dict[Future, Job] = {}
            try:
                while waiting or running:
                    while waiting and len(running) < 2 * self.processes:
                        job = waiting.pop()
                        attempts[job.key] += 1
                        running[pool.submit(run_job, job)] = job
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in sorted(done, key=lambda f: order[running[f].key]):
                        games = future.result()  # a dead worker raises here
                        yield running.pop(future), games
            except BrokenProcessPool:
                lost = sorted(running.values(), key=lambda j: order[j.key], reverse=True)
                for job in lost:
                    if attempts[job.key] >= MAX_ATTEMPTS:
                        # the pool's breakage stays in the traceback as the context
                        raise RunError(f"job {job.key}: its worker died {MAX_ATTEMPTS} times")  # noqa: B904
                waiting.extend(lost)
            finally:
                _stop_pool(pool)


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the runner, which stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _new_pool(processes: int) -> ProcessPoolExecutor:
    import multiprocessing

    return ProcessPoolExecutor(
        processes, mp_context=multiprocessing.get_context("fork"), initializer=_ignore_interrupts
    )


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancels what is queued and ends the workers at once (a game in
    progress is not waited for: its job is simply not in the results)."""
    processes = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join()


class RayBackend:
    """Tasks on a Ray cluster, one per job, gathered as they finish; a task
    whose worker or node dies is run again by Ray (`max_retries`). At most
    `window` tasks are in flight, so a stop leaves little to cancel."""

    def __init__(self, address: str | None = None):
        try:
            import ray
        except ImportError:
            raise RunError("--cluster needs Ray: pip install 'xenophon[cluster]'") from None
        self.ray = ray
        try:
            if not ray.is_initialized():
                ray.init(
                    address=address,
                    include_dashboard=False,
                    log_to_driver=False,
                    logging_level="ERROR",  # type: ignore[arg-type]  # a level's name
                    configure_logging=True,
                )
        except (ConnectionError, ValueError, RuntimeError) as error:
            message = str(error).strip()
            first = message.splitlines()[0] if message else type(error).__name__
            raise RunError(
                f"cannot reach the Ray cluster at {address or 'the default'}: {first}"
            ) from None
        self.cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))

    def describe(self) -> str:
        return f"Ray cluster of {self.cpus} CPUs"

    def results(self, jobs: Sequence[Job]) -> Iterator[tuple[Job, list[dict[str, Any]]]]:
        ray = self.ray
        task = ray.remote(num_cpus=1, max_retries=MAX_ATTEMPTS - 1)(run_job)
        waiting = list(reversed(jobs))
        running: dict[Any, Job] = {}
        window = 2 * self.cpus
        try:
            while waiting or running:
                while waiting and len(running) < window:
                    job = waiting.pop()
                    running[task.remote(job)] = job
                done, _ = ray.wait(list(running), num_returns=1)
                for ref in done:
                    job = running.pop(ref)
                    yield job, self._get(ref, job)
        finally:
            for ref in running:
                ray.cancel(ref, force=True)

    def _get(self, ref: Any, job: Job) -> list[dict[str, Any]]:
        try:
            return self.ray.get(ref)
        except self.ray.exceptions.RayError as error:
            cause = getattr(error, "cause", None)
            reason = str(cause) if isinstance(cause, XenophonError) else type(error).__name__
            raise RunError(f"job {job.key} failed on the cluster ({reason})") from None


def make_backend(
    cluster: str | None = None, processes: int | None = None
) -> LocalBackend | RayBackend:
    """`cluster`: None or 'local' (a process pool of `processes`), 'ray' (the
    Ray cluster `ray.init` finds, or a new local one), or a Ray address."""
    if cluster in (None, LOCAL):
        return LocalBackend(processes)
    return RayBackend(None if cluster == RAY else cluster)


# -- the results file -------------------------------------------------------


def results_header(command: str, config: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": RESULTS_FORMAT,
        "format_version": RESULTS_VERSION,
        "command": command,
        "config": config,
    }


def read_results(
    path: str | Path, header: dict[str, Any], keys: set[str] | None
) -> dict[str, list[dict[str, Any]]]:
    """The finished jobs of a results file made by the same command and
    configuration: {key: its games}. A job whose lines are incomplete (a
    run killed while writing) is left out, to be played again. `keys`: the
    jobs the file may hold (None: any)."""
    lines = iter_lines(path, "results file")
    found: dict[str, list[dict[str, Any]]] = {}
    for number, (text, ended) in enumerate(lines, start=1):
        try:
            row = loads(text)
        except JsonError as error:
            if not ended:  # the last line, cut short: its job is played again
                break
            raise RunError(f"{path}: line {number}: not a results file ({error})") from None
        if number == 1:
            _check_header(path, row, header)
            continue
        _check_row(path, number, row, keys)
        found.setdefault(row["job"], []).append(row)
    return {
        key: sorted(games, key=lambda g: g["game"])
        for key, games in found.items()
        if sorted(g["game"] for g in games) == list(range(games[0]["of"]))
    }


def results_config(path: str | Path, command: str) -> dict[str, Any]:
    """The configuration a results file of `command` was made with (its
    header), to read the file as another run's: an earlier generation's."""
    lines = iter_lines(path, "results file")
    first = next(lines, None)
    lines.close()
    if first is None:
        raise RunError(f"{path}: empty; not a results file")
    try:
        row = loads(first[0])
    except JsonError as error:
        raise RunError(f"{path}: line 1: not a results file ({error})") from None
    _check_header(path, row, {"command": command, "config": None})
    return row["config"]


def _check_header(path: str | Path, row: Any, header: dict[str, Any]) -> None:
    """A results file's first line against `header` (its config None: any)."""
    check_header(
        row,
        str(path),
        "xenophon results file",
        RESULTS_FORMAT,
        RESULTS_VERSION,
        RunError,
        "format_version",
    )
    if row.get("command") != header["command"]:
        raise RunError(
            f"{path}: results of '{shown(row.get('command'))}', not of "
            f"'{header['command']}'; give another file to start a new run"
        )
    theirs, ours = row.get("config"), header["config"]
    if ours is None:
        if not isinstance(theirs, dict):
            raise RunError(f"{path}: not a xenophon results file (no configuration)")
        return
    if theirs != ours:
        differ = sorted(
            k
            for k in set(ours) | set(theirs or {})
            if not isinstance(theirs, dict) or theirs.get(k) != ours.get(k)
        )
        raise RunError(
            f"{path}: results of another run (it differs in {', '.join(differ)}); "
            "give the same options to resume it, or another file"
        )


def _check_row(path: str | Path, number: int, row: Any, keys: set[str] | None) -> None:
    where = f"{path}: line {number}"
    if not isinstance(row, dict) or not isinstance(row.get("job"), str):
        raise RunError(f"{where}: not a game of a results file")
    if keys is not None and row["job"] not in keys:
        raise RunError(f"{where}: job {shown(row['job'])} is not one of this run's")
    game, of = row.get("game"), row.get("of")
    if not (isinstance(game, int) and isinstance(of, int) and 0 <= game < of):
        raise RunError(f"{where}: not a game of a results file (its 'game' and 'of')")


def _results_text(
    header: dict[str, Any], jobs: Sequence[Job], results: dict[str, list[dict[str, Any]]]
) -> str:
    rows = [header] + [game for job in jobs if job.key in results for game in results[job.key]]
    return "".join(dumps_line(row) + "\n" for row in rows)


# -- the run ----------------------------------------------------------------


@dataclass
class Run:
    """What a run left: each finished job's games in job order, how many jobs
    from the first on its stop rule had seen when it stopped the run (None if
    it did not), and how many jobs this run played itself."""

    results: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    stopped_after: int | None = None
    played: int = 0

    def counted(self, jobs: Sequence[Job]) -> list[list[dict[str, Any]]]:
        """The games of the jobs a report counts, in job order: all the
        finished ones, or those the stop rule decided on."""
        chosen = jobs if self.stopped_after is None else jobs[: self.stopped_after]
        return [self.results[job.key] for job in chosen if job.key in self.results]


class _Rule:
    """A stop rule fed each finished job once, in job order."""

    def __init__(self, jobs: Sequence[Job], stop: Callable[[list[dict[str, Any]]], bool] | None):
        self.jobs, self.stop, self.seen = jobs, stop, 0

    def decided(self, results: dict[str, list[dict[str, Any]]]) -> int | None:
        """Feeds the jobs finished from the first on not fed yet; the number
        fed when the rule stops the run, or None."""
        while self.stop and self.seen < len(self.jobs) and self.jobs[self.seen].key in results:
            self.seen += 1
            if self.stop(results[self.jobs[self.seen - 1].key]):
                return self.seen
        return None


def open_results(
    path: str | Path | None,
    header: dict[str, Any],
    jobs: Sequence[Job],
    *,
    resume: bool,
    force: bool,
    inputs: Sequence[str | Path] = (),
) -> dict[str, list[dict[str, Any]]]:
    """Checks the results file before any game (FileError or RunError in one
    line) and returns the jobs it holds already (with `resume`). The file is
    rewritten with just those, in job order, ready for appending."""
    if path is None:
        return {}
    resuming = resume and Path(path).is_file()
    check_output(path, force=force or resuming, inputs=inputs, what="results file")
    done = read_results(path, header, {job.key for job in jobs}) if resuming else {}
    write_atomic(path, _results_text(header, jobs, done))
    return done


def finished_jobs(
    path: str | Path | None, command: str, config: dict[str, Any], jobs: Sequence[Job]
) -> dict[str, list[dict[str, Any]]]:
    """The jobs a results file holds already for this run (none if it does
    not exist yet), read before the run by a command whose other outputs
    depend on them."""
    if path is None or not Path(path).is_file():
        return {}
    return read_results(path, results_header(command, config), {job.key for job in jobs})


def run_jobs(
    jobs: Sequence[Job],
    results: str | Path | None,
    *,
    command: str,
    config: dict[str, Any],
    backend: LocalBackend | RayBackend | None = None,
    resume: bool = False,
    force: bool = False,
    inputs: Sequence[str | Path] = (),
    progress: bool | None = None,
    unit: str = "job",
    stop: Callable[[list[dict[str, Any]]], bool] | None = None,
    on_job: Callable[[Job, list[dict[str, Any]]], None] | None = None,
    about: dict[str, Any] | None = None,
) -> Run:
    """Runs the jobs not yet in `results` (a results file, or None to keep
    them in memory), appending each as it finishes; returns the `Run`.

    `stop` is given each job's games once, in job order, as the finished jobs
    from the first on grow; when it answers true the jobs still running are
    cancelled. Feeding it in job order keeps its decision the same however
    the jobs were scheduled. `on_job` is called with each job this run plays
    as it finishes. The header of the results file keeps each run's
    provenance (`run_provenance`, with `about`: e.g. the bots in full).
    Ctrl-C stops at once, keeping what has finished (a line on stderr says
    so), and raises KeyboardInterrupt."""
    keys = [job.key for job in jobs]
    if len(set(keys)) != len(keys):
        raise RunError("two jobs of a run have the same key")
    header = results_header(command, config)
    this_run = run_provenance(backend, about)
    header["runs"] = earlier_runs(results, resume) + [this_run]
    run = Run(open_results(results, header, jobs, resume=resume, force=force, inputs=inputs))
    rule = _Rule(jobs, stop)
    run.stopped_after = rule.decided(run.results)
    todo = [job for job in jobs if job.key not in run.results] if run.stopped_after is None else []
    if progress is None:
        progress = sys.stderr.isatty()
    from tqdm import tqdm

    bar = tqdm(
        total=len(jobs),
        initial=len(jobs) - len(todo),
        unit=unit,
        desc=command,
        disable=not progress,
        leave=False,
    )
    handle = open(results, "a", encoding="utf-8") if results is not None else None
    stream = (backend or LocalBackend()).results(todo) if todo else iter(())
    try:
        for job, games in stream:
            run.results[job.key] = games
            run.played += 1
            if handle:
                handle.write("".join(dumps_line(game) + "\n" for game in games))
                handle.flush()
            if on_job:
                on_job(job, games)
            bar.update(1)
            run.stopped_after = rule.decided(run.results)
            if run.stopped_after is not None:
                break
    except KeyboardInterrupt:
        kept = (
            f"; {len(run.results)} of {len(jobs)} {unit}s kept in {results}, rerun with "
            "--resume to finish"
            if results is not None
            else ""
        )
        print(f"xenophon: interrupted{kept}", file=sys.stderr)
        raise
    finally:
        _close(stream)
        bar.close()
        if handle:
            handle.close()
    run.results = {key: run.results[key] for key in keys if key in run.results}
    this_run.update(ended=now_text(), load_end=load_average(), played=run.played)
    if results is not None:
        write_atomic(results, _results_text(header, jobs, run.results))
    return run


def run_provenance(
    backend: LocalBackend | RayBackend | None, about: dict[str, Any] | None
) -> dict[str, Any]:
    """What a results file keeps of the run that played its games: the
    version and commit, where the games ran, when, and the machine's load at
    its start (`run_jobs` adds its end, its load then and the jobs played)."""
    from xenophon import __version__

    return {
        "version": __version__,
        "commit": source_commit(),
        "backend": (backend or LocalBackend()).describe(),
        "cores": os.cpu_count(),
        "started": now_text(),
        "load_start": load_average(),
        **(about or {}),
    }


def earlier_runs(results: str | Path | None, resume: bool) -> list[dict[str, Any]]:
    """The provenance of the runs a resumed results file already holds."""
    if results is None or not resume or not Path(results).is_file():
        return []
    lines = iter_lines(results, "results file")
    first = next(lines, None)
    lines.close()
    try:
        runs = loads(first[0]).get("runs", []) if first else []
    except (JsonError, AttributeError):
        return []  # read_results says what is wrong with the file
    return runs if isinstance(runs, list) else []


def source_commit() -> str | None:
    """The commit of the checkout the command runs in, if it is one, with
    "+changes" when its files differ from it."""
    head = _git("rev-parse", "HEAD")
    if head is None:
        return None
    return head + ("+changes" if _git("status", "--porcelain", "--untracked-files=no") else "")


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def load_average() -> list[float] | None:
    try:
        return [round(load, 2) for load in os.getloadavg()]
    except OSError:
        return None


def now_text() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _close(stream: Iterator[Any]) -> None:
    close = getattr(stream, "close", None)
    if close:
        close()


__all__ = [
    "Job",
    "LocalBackend",
    "RayBackend",
    "Run",
    "RunError",
    "TASKS",
    "finished_jobs",
    "make_backend",
    "read_results",
    "run_job",
    "run_jobs",
]

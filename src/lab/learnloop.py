"""The learning loop (docs/learning.md): generation after generation, log
self-play with the parent's bot, train a network on the log, gate it
against the parent; `xenophon train GAME --generations N` runs it.

A loop lives in one folder:

    FOLDER/g1/            generation 1's log (index.jsonl and its shards)
    FOLDER/g1.npz         its network (its training report: g1.json)
    FOLDER/g1-gate.jsonl  its gate's results (a GSPRT within a deal)
    FOLDER/g1-generation.json  the verdict: kept or not, and why

Every step resumes: a log plays only its missing games, a network made by
the same training command is reused (one made otherwise is refused), a gate
goes on from its results file, and a generation with a verdict is not run
again. Generation k is logged with the bot of the last kept network (or of
`parent` before any is kept) and trained on its own log and the logs of the
`window - 1` generations before it. The loop stops after `patience`
generations in a row are not kept. The games of the logs and of the gates
run on the job runner's backend (xenophon.lab.jobs: a local pool or a Ray
cluster); the training runs in a process of its own (JAX starts threads, and
the next step's pool forks).
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xenophon import __version__
from xenophon.kernel.errors import XenophonError, one_line
from xenophon.kernel.evaluation import (
    read_network,
    read_weights,
    shipped_weights_file,
    write_network,
)
from xenophon.kernel.files import make_folders, write_atomic
from xenophon.kernel.registry import game_from_texts
from xenophon.lab.dealbook import read_book
from xenophon.lab.jobs import (
    make_backend,
    read_results,
    results_config,
    results_header,
    run_jobs,
    source_commit,
)
from xenophon.lab.learnlog import COMMAND, INDEX_NAME, log_jobs, read_log

#: what the parent of the first generation is called when it is today's
#: evaluation (no network)
LEARNED = "learned"


class LoopError(XenophonError):
    """A learning loop that cannot go on as asked (one line)."""


@dataclass(frozen=True)
class LogSettings:
    """How a generation's games are logged (xenophon.lab.learnlog.log_job)."""

    games: int = 1000
    first_seed: int = 1
    bot: str | None = None  # None: the parent's bot
    deep_bot: str = "ismcts:iterations=8000"
    deep_share: float = 0.05
    explore: int = 10
    leaves: int = 4


@dataclass(frozen=True)
class TrainSettings:
    """How a network is fitted on a log (xenophon.lab.network.train)."""

    hidden: int = 32
    epochs: int = 3
    rate: float = 1e-3
    blends: tuple[float, ...] = (0.0, 0.5, 1.0)
    leaf_weight: float = 8.0
    seed: int = 1
    max_games: int | None = None


@dataclass(frozen=True)
class GateSettings:
    """How a network is gated against its parent: a GSPRT within a deal."""

    games: int = 400
    first_deal: int = 1
    sprt: tuple[float, float] = (0.0, 50.0)
    options: str = ""  # search options of both bots ("" : equal iterations, the defaults')
    book: str | None = None


@dataclass(frozen=True)
class LoopSettings:
    game: str
    folder: str
    generations: int = 1
    parent: str = LEARNED
    window: int = 1
    patience: int = 2
    log: LogSettings = LogSettings()
    train: TrainSettings = TrainSettings()
    gate: GateSettings = GateSettings()
    cluster: str | None = None
    processes: int | None = None

    def check(self) -> None:
        """Bad settings stop the loop before any game (LoopError)."""
        if self.generations < 1 or self.window < 1 or self.patience < 1:
            raise LoopError("--generations, --window and --patience are 1 or more")
        if self.log.leaves < 0 or self.log.games < 1:
            raise LoopError("--games is 1 or more and --leaves 0 or more")
        if not self.train.blends or not all(0 <= blend <= 1 for blend in self.train.blends):
            raise LoopError("--blend takes numbers from 0 to 1, comma-separated")
        if self.parent != LEARNED:
            read_network(self.parent, self.game)


def parse_blends(text: str) -> tuple[float, ...]:
    """'0,0.5,1' -> (0.0, 0.5, 1.0) (LoopError in one line otherwise)."""
    try:
        blends = tuple(float(part) for part in text.split(","))
    except ValueError:
        blends = ()
    if not blends or not all(0 <= blend <= 1 for blend in blends):
        raise LoopError(f"--blend takes numbers from 0 to 1, comma-separated: {text!r}")
    return blends


def network_bot(network: str, options: str = "") -> str:
    """The bot of a network file (LEARNED: today's defaults), with more
    search options ("iterations=500,...") when given."""
    settings = [] if network == LEARNED else ["eval=net", f"weights={network}"]
    settings += [options] if options else []
    return "ismcts" + (":" + ",".join(settings) if settings else "")


# -- one generation's files ----------------------------------------------------


@dataclass(frozen=True)
class Generation:
    settings: LoopSettings
    number: int

    @property
    def name(self) -> str:
        return f"g{self.number}"

    def path(self, suffix: str) -> Path:
        return Path(self.settings.folder) / f"{self.name}{suffix}"

    @property
    def log_folder(self) -> Path:
        return self.path("")

    @property
    def network(self) -> Path:
        return self.path(".npz")

    @property
    def verdict_file(self) -> Path:
        return self.path("-generation.json")

    @property
    def seeds(self) -> list[int]:
        games = self.settings.log.games
        first = self.settings.log.first_seed + (self.number - 1) * games
        return list(range(first, first + games))

    def training_logs(self) -> list[Path]:
        """Its own log and those of the `window - 1` generations before it."""
        first = max(1, self.number - self.settings.window + 1)
        return [Generation(self.settings, k).log_folder for k in range(first, self.number + 1)]

    def verdict(self) -> dict[str, Any] | None:
        if not self.verdict_file.is_file():
            return None
        verdict: dict[str, Any] = json.loads(self.verdict_file.read_text())
        return verdict


# -- the steps -----------------------------------------------------------------


def log_config(settings: LoopSettings, folder: Path, bot: str) -> dict[str, Any]:
    log = settings.log
    return {
        "game": settings.game,
        "options": {},
        "bot": log.bot or bot,
        "deep_bot": log.deep_bot,
        "explore": log.explore,
        "deep_share": log.deep_share,
        "folder": str(folder.resolve()),
        **({"leaves": log.leaves} if log.leaves else {}),
    }


def run_log(settings: LoopSettings, folder: Path, seeds: list[int], bot: str) -> dict[str, int]:
    """Plays (or resumes) the log of `seeds` in `folder`; its totals."""
    make_folders(folder)
    config = log_config(settings, folder, bot)
    run = run_jobs(
        log_jobs(config, seeds),
        folder / INDEX_NAME,
        command=COMMAND,
        config={key: value for key, value in config.items() if key != "folder"},
        backend=make_backend(settings.cluster, settings.processes),
        resume=True,
        unit="game",
    )
    played = [rows[0] for rows in run.results.values()]
    return {
        "games": len(played),
        "positions": sum(row["positions"] for row in played),
        "deep": sum(row["deep"] for row in played),
        "played_now": run.played,
    }


def index_rows(folder: Path) -> list[dict[str, Any]]:
    """The index rows of a log folder (LoopError when it has none)."""
    path = folder / INDEX_NAME
    if not path.is_file():
        raise LoopError(f"{path}: no log index (log the games first)")
    done = read_results(path, results_header(COMMAND, results_config(path, COMMAND)), None)
    return [rows[0] for rows in done.values()]


def training_recipe(settings: LoopSettings, folders: list[Path]) -> dict[str, Any]:
    """What identifies a network's training: a network file made by the same
    recipe is reused, one made otherwise is refused."""
    return {
        "game": settings.game,
        "logs": [str(folder) for folder in folders],
        **dataclasses.asdict(settings.train),
    }


def train_network(
    settings: LoopSettings, folders: list[Path], out: Path, lineage: dict[str, Any]
) -> dict[str, Any]:
    """Trains one network per blend on the logs of `folders`, keeps the one
    with the lowest held-out log-loss, and writes it (with its lineage) and
    its report; the kept report."""
    from xenophon.lab.network import to_network, train

    recipe = training_recipe(settings, folders)
    rows_by_folder = [(folder, index_rows(folder)) for folder in folders]
    linear = read_weights(shipped_weights_file(settings.game), settings.game)
    log = joined_log(rows_by_folder, settings.train.max_games)
    trained = {}
    for blend in settings.train.blends:
        started = time.monotonic()
        params, report = train(
            log,
            linear,
            hidden=settings.train.hidden,
            epochs=settings.train.epochs,
            rate=settings.train.rate,
            blend=blend,
            leaf_weight=settings.train.leaf_weight,
            seed=settings.train.seed,
            progress=sys.stderr.isatty(),
        )
        report["blend"] = blend
        report["seconds"] = round(time.monotonic() - started, 1)
        trained[blend] = (params, report)
    chosen = min(trained, key=lambda blend: trained[blend][1]["held_out_log_loss"]["network"])
    params, report = trained[chosen]
    report["blends_tried"] = {
        f"{blend:g}": trained[blend][1]["held_out_log_loss"]["network"] for blend in trained
    }
    made = {
        "recipe": recipe,
        **lineage,
        "report": {key: value for key, value in report.items() if key != "history"},
    }
    game = game_from_texts(settings.game, {}, seed=1)
    tables = game.tables
    network = to_network(
        params,
        settings.game,
        tables.net_input_names,
        tables.feature_names,
        linear.taper_turns,
        made,
    )
    write_network(out, network, force=True)
    write_atomic(out.with_suffix(".json"), json.dumps(report, indent=1) + "\n")
    return made


def joined_log(
    rows_by_folder: list[tuple[Path, list[dict[str, Any]]]], max_games: int | None
) -> dict[str, Any]:
    """The logs of several folders as one (the first `max_games` games of
    each): their rows with each shard's whole path, read as one log."""
    rows = []
    for folder, folder_rows in rows_by_folder:
        chosen = sorted(folder_rows, key=lambda row: row["seed"])[:max_games]
        rows += [{**row, "shard": str(folder.resolve() / row["shard"])} for row in chosen]
    return read_log(Path("."), rows)


def _train_in_child(
    settings: LoopSettings, folders: list[Path], out: Path, lineage: dict[str, Any]
) -> None:
    try:
        train_network(settings, folders, out, lineage)
    except XenophonError as error:
        print(f"xenophon: {one_line(error)}", file=sys.stderr)
        sys.exit(2)


def train_in_a_child(
    settings: LoopSettings, folders: list[Path], out: Path, lineage: dict[str, Any]
) -> None:
    """`train_network` in a spawned process of its own, so that the games'
    pool never forks a process holding JAX's threads."""
    child = multiprocessing.get_context("spawn").Process(
        target=_train_in_child, args=(settings, folders, out, lineage)
    )
    child.start()
    child.join()
    if child.exitcode:
        raise LoopError(f"the training of {out} failed (exit status {child.exitcode}; see above)")


def reuse_or_train(
    settings: LoopSettings, generation: Generation, parent: str, logged: dict[str, int]
) -> None:
    """The generation's network: trained, or the one the same recipe made
    before (a file made otherwise is refused, never overwritten)."""
    folders = generation.training_logs()
    recipe = training_recipe(settings, folders)
    out = generation.network
    if out.exists():
        made = read_network(str(out), settings.game).meta.get("made", {})
        if made.get("recipe") != recipe:
            raise LoopError(f"{out} exists and was not made by this loop's training (remove it)")
        print(f"{out}: trained already by the same recipe, kept as it is")
        return
    lineage = {
        "generation": generation.number,
        "parent": parent,
        "log": {"folders": [str(folder) for folder in folders], **logged},
        "command": " ".join(shlex.quote(word) for word in sys.argv),
        "commit": source_commit(),
        "version": __version__,
    }
    train_in_a_child(settings, folders, out, lineage)


def gate(settings: LoopSettings, generation: Generation, parent: str) -> dict[str, Any]:
    """The network's GSPRT against its parent (resumed from its results
    file), and the verdict written beside it."""
    from xenophon.lab.tournament import play_match

    options = settings.gate.options
    results = generation.path("-gate.jsonl")
    report = play_match(
        settings.game,
        network_bot(str(generation.network), options),
        network_bot(parent, options),
        games=settings.gate.games,
        seed=settings.gate.first_deal,
        sprt=(*settings.gate.sprt, 0.05, 0.05),
        backend=make_backend(settings.cluster, settings.processes),
        results=str(results),
        resume=results.exists(),
        book=read_book(settings.gate.book, settings.game).deals if settings.gate.book else None,
    )
    print(report.text())
    verdict = {
        "generation": generation.number,
        "network": str(generation.network),
        "parent": parent,
        "gate": str(results),
        "decision": report.sprt or f"undecided at the cap of {settings.gate.games} games",
        "kept": bool(report.sprt and report.sprt.startswith("H1")),
        "summary": report.summary(),
    }
    write_atomic(generation.verdict_file, json.dumps(verdict, indent=1) + "\n")
    return verdict


def run_generation(settings: LoopSettings, generation: Generation, parent: str) -> dict[str, Any]:
    """One generation: its log, its network, its gate; its verdict."""
    print(f"generation {generation.number}: parent {parent}")
    logged = run_log(settings, generation.log_folder, generation.seeds, network_bot(parent))
    print(
        f"generation {generation.number}: log of {logged['games']} games, "
        f"{logged['positions']:,} positions ({logged['played_now']} played now)"
    )
    reuse_or_train(settings, generation, parent, logged)
    return gate(settings, generation, parent)


def run_loop(settings: LoopSettings) -> str:
    """Runs (or resumes) the loop's generations; the last kept network, or
    the first parent when none was kept. Stops after `patience` generations
    in a row are not kept."""
    settings.check()
    make_folders(settings.folder)
    parent, misses = settings.parent, 0
    for number in range(1, settings.generations + 1):
        generation = Generation(settings, number)
        verdict = generation.verdict() or run_generation(settings, generation, parent)
        if verdict["kept"]:
            parent, misses = verdict["network"], 0
            print(f"generation {number}: kept ({verdict['decision']})")
            continue
        misses += 1
        print(f"generation {number}: not kept ({verdict['decision']})")
        if misses >= settings.patience:
            print(f"{misses} generations in a row not kept: the loop stops here")
            break
    print(f"the loop's network: {parent}")
    return parent

"""Fuzzing in CI (docs/fuzzing.md): a short run of every fuzz target, the
driver's own checks (it finds a planted failure, hang and crash, it is
reproducible, Ctrl-C loses nothing), and regression tests for what the
fuzzers found."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fuzz import notation_targets, sample
from fuzz.driver import Settings, run_target
from fuzz.mutate import Mutator
from fuzz.targets import SEEDS, TARGETS
from test_cli import ctrl_c_as_on_a_terminal
from xenophon.anabasis.cards import load_card_set as load_anabasis_cards
from xenophon.anabasis.notation import parse_action as parse_anabasis
from xenophon.hero.cards import load_card_set as load_hero_cards
from xenophon.hero.cards import load_deck
from xenophon.kernel.errors import CardFileError, NotationError
from xenophon.play.records import open_sealed

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "data"
SUMMARY = re.compile(r"^(\S+): (\d+) inputs, (\d+) failures, (\d+) hangs, [\d.]+ s")

#: inputs of the CI-sized run: a few seconds per target on one core
CI_INPUTS = {
    "anabasis_notation": 20000,
    "hero_notation": 20000,
    "record_file": 500,
    "anabasis_cards": 600,
    "hero_cards": 600,
    "hero_deck": 1500,
    "engine_query": 1000,
    "sealed_save": 1000,
    "web_message": 200,
    "network_file": 1000,
    "hostile_player": 20,  # a child program per input: about 0.3 s each
}
CI_DEFAULT_INPUTS = 600  # core_targets' targets
CI_SECONDS = 6.0  # the cap per target, for a slow machine
CI_TARGET_SECONDS = {"hostile_player": 15.0}  # the cap of a target slower than that


# -- the CI-sized run -----------------------------------------------------------
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_short_fuzz_run_finds_nothing(target, tmp_path):
    inputs = CI_INPUTS.get(target, CI_DEFAULT_INPUTS)
    stats = run_target(
        target,
        Settings(
            inputs=inputs,
            seconds=CI_TARGET_SECONDS.get(target, CI_SECONDS),
            timeout=5.0,
            findings=tmp_path,
        ),
    )
    assert stats.inputs >= min(100, inputs), stats.summary()
    assert stats.found == 0, first_finding(stats.summary(), tmp_path)


def first_finding(summary: str, folder: Path) -> str:
    reports = sorted(folder.glob("*.txt"))
    return summary + ("; the first finding:\n" + reports[0].read_text()[:3000] if reports else "")


def test_every_target_has_seeds_that_pass():
    for name, target in TARGETS.items():
        seeds = SEEDS[name]()
        assert seeds, name
        for data in seeds:
            target(data)


@pytest.mark.parametrize("game", notation_targets.GAMES)
def test_every_legal_move_text_names_its_move_again(game):
    for state in sample.positions(game):
        notation_targets.check_round_trip(state)


# -- the driver ---------------------------------------------------------------------
def planted(name: str, tmp_path: Path, **settings) -> tuple:
    options = {"inputs": 20, "timeout": 0.5, "findings": tmp_path, **settings}
    return run_target(f"fuzz.planted:{name}", Settings(**options)), sorted(tmp_path.iterdir())


def test_driver_saves_a_failing_input_with_its_traceback(tmp_path):
    stats, files = planted("fails", tmp_path)
    assert stats.inputs == 20 and stats.failures >= 1 and stats.hangs == 0
    inputs = [p for p in files if p.suffix == ".bin"]
    assert any(p.read_bytes() == b"boom" for p in inputs)
    report = inputs[0].with_suffix(".txt").read_text()
    assert "PlantedFailure" in report and "Traceback" in report and "--replay" in report


def test_driver_saves_as_many_inputs_of_one_bug_as_asked(tmp_path):
    stats, files = planted("fails", tmp_path, inputs=300, max_per_bug=1)
    assert stats.failures > 1 and len([p for p in files if p.suffix == ".bin"]) == 1
    assert "PlantedFailure at " in files[0].with_suffix(".txt").read_text()


def test_driver_stops_a_hanging_input_and_goes_on(tmp_path):
    stats, files = planted("hangs", tmp_path)
    assert stats.hangs == 1 and stats.inputs == 20
    assert [p.read_bytes() for p in files if p.suffix == ".bin"] == [b"hang"]
    assert "longer than 0.5 s" in next(p for p in files if p.suffix == ".txt").read_text()


def test_driver_survives_a_crashing_input(tmp_path):
    stats, files = planted("crashes", tmp_path, inputs=6)
    assert stats.crashes >= 1 and stats.inputs == 6
    assert b"crash" in [p.read_bytes() for p in files if p.suffix == ".bin"]


def test_driver_splits_inputs_between_jobs(tmp_path):
    stats, _ = planted("fails", tmp_path, inputs=30, jobs=2)
    assert stats.inputs == 30 and stats.resume == 30


def test_inputs_depend_only_on_the_seed_and_their_number():
    seeds = SEEDS["hero_deck"]()
    one, again, other = Mutator(seeds, 7), Mutator(seeds, 7), Mutator(seeds, 8)
    assert [one.input(i) for i in range(50, 80)] == [again.input(i) for i in range(79, 49, -1)][
        ::-1
    ]
    assert [one.input(i) for i in range(50, 80)] != [other.input(i) for i in range(50, 80)]
    assert [one.input(i) for i in range(len(seeds))] == seeds


def driver(*args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.fuzz.run", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_as_on_a_terminal,
        **popen,
    )


def test_command_prints_one_summary_line_and_fails_on_a_finding(tmp_path):
    process = driver("tests.fuzz.planted:fails", "--inputs", "10", "--findings", str(tmp_path))
    out, err = process.communicate(timeout=60)
    assert process.returncode == 1, err
    match = SUMMARY.match(out.splitlines()[0])
    assert match and match.group(2) == "10" and int(match.group(3)) >= 1, out
    assert err == ""  # piped: no progress bar


def test_command_passes_when_nothing_is_found(tmp_path):
    process = driver(
        "tests.fuzz.planted:fails", "--inputs", "1", "--start", "1", "--findings", str(tmp_path)
    )
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert out.startswith("tests.fuzz.planted:fails: 0 inputs, 0 failures, 0 hangs")


def test_ctrl_c_prints_the_summary_and_where_to_resume(tmp_path):
    process = driver("tests.fuzz.planted:slow", "--findings", str(tmp_path))
    time.sleep(4)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    match = re.search(r"interrupted, resume with --start (\d+)", out)
    assert SUMMARY.match(out) and match, out + err
    assert 0 < int(match.group(1)) <= int(SUMMARY.match(out).group(2))


# -- regression tests for what the fuzzers found ----------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "event \u00b2",
        "event 1 rank \u00b2",
        "event " + "9" * 5000,
        "event 1 rank " + "9" * 5000,
        "event \u0663",
        "event \uff11",
    ],
)
def test_event_slot_and_rank_are_plain_digits(text):
    """int() takes superscripts (and fails), other scripts' digits and 5000-digit
    numbers (and fails): found by anabasis_notation."""
    with pytest.raises(NotationError):
        parse_anabasis(text, load_anabasis_cards())


def test_event_numbers_still_parse():
    cards = load_anabasis_cards()
    assert parse_anabasis("event 3 rank 6", cards) == parse_anabasis("event 03 rank 06", cards)


LOADERS = {
    "anabasis cards": load_anabasis_cards,
    "hero cards": load_hero_cards,
    "hero deck": lambda path: load_deck(path, load_hero_cards()),
}


def refused_quickly(load, path: Path) -> str:
    """The message of the CardFileError `load(path)` raises within a few seconds."""
    outcome: list = []

    def attempt() -> None:
        try:
            load(path)
        except BaseException as error:  # noqa: BLE001 - the test inspects it
            outcome.append(error)

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(5)
    if thread.is_alive():  # blocked on a FIFO: let it go, then fail
        with open(path, "wb"):
            pass
        pytest.fail(f"reading {path} did not return")
    assert outcome and isinstance(outcome[0], CardFileError), outcome
    return str(outcome[0])


@pytest.mark.parametrize("what", sorted(LOADERS))
def test_card_and_deck_files_must_be_regular_files(what, tmp_path):
    fifo = tmp_path / "cards.toml"
    os.mkfifo(fifo)
    assert "not a regular file" in refused_quickly(LOADERS[what], fifo)
    assert "not a regular file" in refused_quickly(LOADERS[what], Path("/dev/zero"))
    assert "is a folder" in refused_quickly(LOADERS[what], tmp_path)


@pytest.mark.parametrize("what", sorted(LOADERS))
@pytest.mark.parametrize(
    "text, message",
    [
        ("a = " + "9" * 5000 + "\n", "number"),
        ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested"),
        ("a = 1\n" + "#" * (2 << 20), "too large"),
    ],
)
def test_card_and_deck_files_that_break_the_toml_reader(what, text, message, tmp_path):
    """tomllib raises ValueError on a number of over 4300 digits and
    RecursionError on deep nesting: found by hero_cards and hero_deck."""
    path = tmp_path / "file.toml"
    path.write_text(text)
    assert message in refused_quickly(LOADERS[what], path)


def hero_cards_with(tmp_path: Path, old: str, new: str) -> Path:
    text = (DATA / "hero" / "cards.toml").read_text()
    assert old in text
    path = tmp_path / "cards.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    "old, new, message",
    [
        ('"damage_unit(2000)"', '"damage_unit(' + "9" * 5000 + ')"', "above 100000"),
        ('"damage_unit(2000)"', '"damage_unit(\u0662000)"', "must be written damage_unit(x)"),
        ('condition = "(R)"', 'condition = "(99999999999999999999)"', "bad condition"),
        ('condition = "(R)"', 'condition = "(\u0663)"', "bad condition"),
        ('condition = "(R)"', 'condition = "' + "(R)" * 300 + '"', "bad condition"),
    ],
)
def test_hero_numbers_in_effects_and_conditions(old, new, message, tmp_path):
    """Effect arguments and conditions take plain digits within the C core's
    ranges (a 20-digit condition reached the C tables as a RuntimeError)."""
    with pytest.raises(CardFileError, match=re.escape(message)):
        load_hero_cards(hero_cards_with(tmp_path, old, new))


# -- the oracles of the save and page targets ----------------------------------------
def resealed(data: bytes, change) -> bytes:
    """A saved game changed by `change(header, lines)` and sealed again with
    the fixed key: what only someone holding the key could make."""
    from fuzz import saves
    from xenophon.play.records import parse_record, seal_game

    record = parse_record(data.decode(), "seed")
    with saves.fixed_key_data():
        full, secrets = open_sealed(record)
        change(record, full)
        record.sealed = None
        return record_bytes_of(seal_game(full, record, secrets))


def record_bytes_of(record) -> bytes:
    return record.text().encode()


def test_sealed_save_finds_a_save_that_resumes_as_another_game():
    """The oracle: a seal made over another seat (as an edit the seal did not
    bind would give) resumes as a game that is none of the seeds'."""
    from fuzz import save_targets

    data = save_targets.save_seeds()[0]
    save_targets.save_target(data)
    swapped = resealed(data, lambda record, full: record.seats.reverse())
    with pytest.raises(save_targets.SealFinding, match="another game"):
        save_targets.save_target(swapped)


def test_sealed_save_takes_whitespace_and_key_order_as_the_same_save():
    import json as json_module

    from fuzz import save_targets

    data = save_targets.save_seeds()[1]
    rows = [json_module.loads(line) for line in data.decode().splitlines()]
    rows[0] = dict(reversed(list(rows[0].items())))
    spaced = "\n\n".join(json_module.dumps(row, separators=(" , ", " : ")) for row in rows)
    resumed = save_targets._resumed(spaced.encode())
    assert resumed is not None and resumed[1]  # it resumes, sealed,
    assert save_targets.fingerprint(resumed[0]) in save_targets.seed_games()  # as the seed's game
    save_targets.save_target(spaced.encode())


def test_web_message_finds_a_game_left_unsaved(monkeypatch):
    """The oracle: a page that closes with a game in progress must be told
    where it was saved."""
    from fuzz import web_targets
    from xenophon.web.play import WebGame

    monkeypatch.setattr(WebGame, "leave", lambda self: None)
    with pytest.raises(web_targets.WebFinding, match="left unsaved"):
        web_targets.web_target(web_targets.web_seeds()[0])


def test_web_message_finds_a_game_saved_before_its_humans_move(monkeypatch):
    """The oracle: a page that closes before its human's first move leaves no
    file (issue 49, item 14: each closed tab left another saved game)."""
    from fuzz import web_targets
    from xenophon.web.play import WebGame

    monkeypatch.setattr(WebGame, "in_progress_to_save", lambda self: True)
    first = web_targets.request(type="new", game="anabasis", seat="1", level="easy", seed="5")
    with pytest.raises(web_targets.WebFinding, match="never moved in was saved"):
        web_targets.web_target(first.encode())
    monkeypatch.undo()
    web_targets.web_target(first.encode())


def test_network_file_finds_a_reader_past_its_memory_bound(tmp_path):
    """The oracle: a read that grows the process by more than 4x the file
    plus 50 MB is a finding (in a process of its own: the driver's workers
    are, and the test patches the reader)."""
    code = (
        "import numpy as np\n"
        "from fuzz import npz_targets\n"
        "seed = npz_targets.network_seeds()[0]\n"
        "npz_targets.network_target(seed)\n"
        "npz_targets.read_network = lambda path, game: np.ones(80 << 20, np.uint8)\n"
        "try:\n"
        "    npz_targets.network_target(seed)\n"
        "except npz_targets.MemoryFinding as finding:\n"
        "    print('found', finding)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT / "tests",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.startswith("found") and "bytes more for a file of" in done.stdout, (
        done.stdout + done.stderr
    )

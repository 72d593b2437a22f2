"""The job runner (`xenophon.lab.jobs`) behind match, selfplay, bench and balance:
the same games locally and on a real Ray cluster (a local one on the loopback
address, `ray_cluster` in conftest.py), no game lost when a worker dies or
the run is interrupted, resumed runs giving the same file, and bad input in
one line."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import run_cli
from test_cli import assert_clean_error, ctrl_c_as_on_a_terminal, xenophon

# A run on Ray is a process of its own (test_cli.xenophon): Ray's client keeps
# its connection and token for the life of the process that made them.
from xenophon.lab.jobs import Job, LocalBackend, RunError, run_jobs
from xenophon.lab.tournament import match_jobs, play_match

# slow enough (about 0.25 s a game) to be caught mid-run, small enough for CI
SLOW = ("match", "ismcts:iterations=200", "greedy", "--game", "hero", "--games", "20")
FAST = ("match", "ismcts:iterations=20", "greedy", "--game", "hero", "--games", "8")


def game_lines(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()[1:]]


def played(path):
    """A results file as what was played: its header but the runs' provenance
    (when, where, the load), and its games, byte for byte."""
    header, *games = Path(path).read_text().splitlines(keepends=True)
    runs = json.loads(header).pop("runs")
    assert runs and all("started" in run and "load_start" in run for run in runs)
    return {k: v for k, v in json.loads(header).items() if k != "runs"}, games


def start(*args, results):
    """The command in the background, its stderr captured."""
    return subprocess.Popen(
        [sys.executable, "-m", "xenophon.cli.main", *map(str, args), "--results", str(results)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_as_on_a_terminal,
    )


def wait_for_games(path, count, process, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline and process.poll() is None:
        if Path(path).exists() and len(Path(path).read_text().splitlines()) > count:
            return
        time.sleep(0.05)
    raise AssertionError(f"no {count} games in {path}: {process.poll()}")


def ray_worker_playing(process, timeout=30):
    """Pids of the Ray workers running a job, looked for until one is (a
    worker is briefly idle between its jobs, and not named for a job then)."""
    deadline = time.time() + timeout
    while time.time() < deadline and process.poll() is None:
        workers = processes_where(lambda pid, parent, command: command.startswith("ray::run_job"))
        if workers:
            return workers
        time.sleep(0.02)
    raise AssertionError(f"no Ray worker playing a game: {process.poll()}")


def processes_where(test):
    """Pids of this machine's processes whose command line passes `test`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    command = handle.read().replace(b"\0", b" ").decode(errors="replace")
                with open(f"/proc/{entry}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            if test(int(entry), parent, command):
                found.append(int(entry))
    return found


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The results files of SLOW and FAST played locally, uninterrupted."""
    folder = tmp_path_factory.mktemp("reference")
    files = {}
    for name, args in (("slow", SLOW), ("fast", FAST)):
        files[name] = folder / f"{name}.jsonl"
        result = run_cli(*args, "--results", files[name])
        assert result.returncode == 0, result.stderr
    return files


def test_the_same_games_locally_in_one_process_and_on_ray(reference, ray_cluster, tmp_path):
    one = tmp_path / "one.jsonl"
    assert run_cli(*FAST, "--processes", "1", "--results", one).returncode == 0
    on_ray = tmp_path / "ray.jsonl"
    result = xenophon(*FAST, "--cluster", ray_cluster, "--results", on_ray)
    assert result.returncode == 0, result.stderr
    assert played(one) == played(reference["fast"]) == played(on_ray)
    lines = game_lines(on_ray)
    assert [(g["seed"], g["first_seat_of_a"]) for g in lines] == [
        (1 + k // 2, k % 2) for k in range(8)
    ]
    assert "8 games" in result.stdout and "4 deals" in result.stdout


def test_a_ray_worker_killed_mid_run_loses_no_game(reference, ray_cluster, tmp_path):
    results = tmp_path / "ray.jsonl"
    run = start(*SLOW, "--cluster", ray_cluster, results=results)
    wait_for_games(results, 2, run)
    os.kill(ray_worker_playing(run)[0], signal.SIGKILL)
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert played(results) == played(reference["slow"])


def test_a_local_worker_killed_mid_run_loses_no_game(reference, tmp_path):
    results = tmp_path / "local.jsonl"
    run = start(*SLOW, "--processes", "2", results=results)
    wait_for_games(results, 2, run)
    workers = processes_where(lambda pid, parent, command: parent == run.pid)
    assert workers, "no pool worker"
    os.kill(workers[0], signal.SIGKILL)
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert played(results) == played(reference["slow"])


def test_interrupted_then_resumed_on_ray_gives_the_same_file(reference, ray_cluster, tmp_path):
    results = tmp_path / "resumed.jsonl"
    run = start(*SLOW, "--processes", "2", results=results)
    wait_for_games(results, 2, run)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "interrupted" in lines[0] and "--resume" in lines[0], err
    kept = game_lines(results)
    assert 2 <= len(kept) < 20 and all(g in game_lines(reference["slow"]) for g in kept)
    result = xenophon(*SLOW, "--cluster", ray_cluster, "--results", results, "--resume")
    assert result.returncode == 0, result.stderr
    assert played(results) == played(reference["slow"])


def test_a_torn_last_line_is_played_again(reference, tmp_path):
    results = tmp_path / "torn.jsonl"
    text = reference["fast"].read_text()
    results.write_text(text[: len(text) * 2 // 3])  # killed while writing a line
    result = run_cli(*FAST, "--results", results, "--resume")
    assert result.returncode == 0, result.stderr
    assert played(results) == played(reference["fast"])


def test_a_finished_run_resumed_plays_nothing(reference, tmp_path):
    results = tmp_path / "done.jsonl"
    shutil.copy(reference["fast"], results)
    jobs = match_jobs("hero", "ismcts:iterations=20", "greedy", 8, 1)
    run = run_jobs(
        jobs,
        results,
        command="match",
        progress=False,
        resume=True,
        config=json.loads(results.read_text().splitlines()[0])["config"],
        backend=LocalBackend(1),
    )
    assert run.played == 0 and len(run.results) == 4


def test_an_sprt_stop_does_not_depend_on_the_schedule():
    reports = [
        play_match(
            "anabasis",
            "greedy",
            "random",
            games=400,
            processes=processes,
            progress=False,
            sprt=(-400, 400, 0.2, 0.2),
        )
        for processes in (1, 2)
    ]
    assert reports[0].sprt and reports[0].games < 400
    assert [r.sprt for r in reports] == [reports[0].sprt] * 2
    assert [asdict_list(r) for r in reports] == [asdict_list(reports[0])] * 2


def asdict_list(report):
    return [(r.seed, r.first_seat_of_a, r.returns) for r in report.records]


def test_selfplay_is_the_same_on_ray_and_resumes(ray_cluster, tmp_path):
    args = ("selfplay", "hero", "--bots", "random;greedy", "--games", "3", "--seed", "4")
    local = run_cli(*args, "--out", tmp_path / "a", "--results", tmp_path / "a.jsonl")
    assert local.returncode == 0, local.stderr
    (tmp_path / "b").mkdir()
    shutil.copy(tmp_path / "a" / "hero-selfplay-4.jsonl", tmp_path / "b")
    partial = [line for line in (tmp_path / "a.jsonl").read_text().splitlines()[:2]]
    (tmp_path / "b.jsonl").write_text("\n".join(partial) + "\n")
    on_ray = xenophon(
        *args,
        "--out",
        tmp_path / "b",
        "--results",
        tmp_path / "b.jsonl",
        "--resume",
        "--cluster",
        ray_cluster,
    )
    assert on_ray.returncode == 0, on_ray.stderr
    assert on_ray.stdout.count("hero-selfplay-") == 2  # only the missing games
    assert played(tmp_path / "a.jsonl") == played(tmp_path / "b.jsonl")
    for name in ("hero-selfplay-4.jsonl", "hero-selfplay-5.jsonl", "hero-selfplay-6.jsonl"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert (
        json.loads((tmp_path / "a" / "hero-selfplay-6.jsonl").read_text().splitlines()[0])["seed"]
        == 6
    )


def test_balance_at_a_tiny_budget_writes_its_matrix_and_pictures(ray_cluster, tmp_path):
    from xenophon.hero.cards import default_deck_dir

    deck = tmp_path / "my_deck.toml"
    shutil.copy(default_deck_dir() / "wild_grove.toml", deck)
    prefix = tmp_path / "hero"
    result = xenophon(
        "balance",
        "hero",
        "--bot",
        "greedy",
        "--deals",
        "2",
        "--decks",
        deck,
        "--out",
        prefix,
        "--cluster",
        ray_cluster,
    )
    assert result.returncode == 0, result.stderr
    matrix = json.loads(Path(f"{prefix}.json").read_text())
    assert matrix["rows"] == matrix["columns"] == ["crimson_conqueror", "wild_grove", "my_deck"]
    for r, row in enumerate(matrix["cells"]):
        for c, cell in enumerate(row):
            if r == c:
                assert cell is None
            else:
                assert cell["deals"] == 2 and cell["games"] == 4
                assert cell["score"] + matrix["cells"][c][r]["score"] == pytest.approx(1)
                assert cell["interval95"][0] <= cell["score"] <= cell["interval95"][1]
    assert matrix["games"] == 3 * 2 * 2 and "2 deals" in result.stdout
    assert "my_deck" in result.stdout and "[" in result.stdout
    assert Path(f"{prefix}.svg").read_text().startswith("<svg")
    assert "my_deck" in Path(f"{prefix}.svg").read_text()
    assert Path(f"{prefix}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = run_cli(
        "balance",
        "hero",
        "--bot",
        "greedy",
        "--deals",
        "2",
        "--decks",
        deck,
        "--out",
        prefix,
        "--resume",
    )
    assert again.returncode == 0, again.stderr
    assert json.loads(Path(f"{prefix}.json").read_text()) == matrix


def test_balance_of_anabasis_compares_seats_in_each_mode(tmp_path):
    prefix = tmp_path / "ana"
    result = run_cli("balance", "anabasis", "--bot", "random", "--deals", "2", "--out", prefix)
    assert result.returncode == 0, result.stderr
    matrix = json.loads(Path(f"{prefix}.json").read_text())
    assert matrix["rows"] == ["standard", "expert"] and matrix["columns"] == ["seat 0", "seat 1"]
    for seat0, seat1 in matrix["cells"]:
        assert seat0["score"] + seat1["score"] == pytest.approx(1)


def test_bad_runs_are_one_line(reference, tmp_path):
    results = tmp_path / "r.jsonl"
    shutil.copy(reference["fast"], results)
    assert_clean_error(run_cli(*FAST, "--results", results), "exists already")
    assert_clean_error(
        run_cli(*FAST[:-1], "6", "--results", results, "--resume"),
        "results of another run (it differs in games)",
    )
    assert_clean_error(
        run_cli(
            "selfplay", "hero", "--seed", "1", "--results", results, "--resume", "--out", tmp_path
        ),
        "results of 'match', not of 'selfplay'",
    )
    assert_clean_error(run_cli(*FAST, "--resume"), "--resume continues a --results FILE")
    assert_clean_error(
        run_cli(*FAST, "--cluster", "ray", "--processes", "2"),
        "--processes is for --cluster local",
    )
    for broken, message in (
        ("not json\n{}\n", "not a results file"),
        ('{"format": "other"}\n', "not a xenophon results file"),
    ):
        results.write_text(broken)
        assert_clean_error(run_cli(*FAST, "--results", results, "--resume"), message)
    results.write_text(reference["fast"].read_text().replace('"job": "3"', '"job": "99"'))
    assert_clean_error(
        run_cli(*FAST, "--results", results, "--resume"), "job 99 is not one of this run's"
    )
    assert_clean_error(run_cli(*FAST, "--results", tmp_path, "--resume"), "is a folder")
    assert_clean_error(run_cli("balance", "anabasis", "--decks", "x.toml"), "--decks is for hero")
    assert_clean_error(run_cli("balance", "hero", "--decks", tmp_path / "none.toml"), "not found")
    assert_clean_error(run_cli("balance", "hero", "--bot", "nobot"), "unknown bot 'nobot'")
    assert_clean_error(run_cli("balance", "hero", "--deals", "0"), "out of range")


def test_jobs_with_the_same_key_are_refused():
    job = Job("1", "match_pair", {"plays": [["hero", 0]], "bots": ["random", "random"], "seed": 1})
    with pytest.raises(RunError, match="same key"):
        run_jobs([job, job], None, command="test", config={}, progress=False)

"""bench/learn.py, the learning loop's command: a log with leaves, `train
--leaf-weight` and `score` on it, a whole generation (log, blends chosen on
held-out games, gate) resumed, and bad input in one line."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from test_cli import assert_clean_error
from xenophon.kernel.evaluation import read_network

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "learn.py"
# the script trains in its own process; the check does not import JAX here
needs_train_extra = pytest.mark.skipif(
    importlib.util.find_spec("optax") is None, reason="training needs the train extra"
)


def learn(*args):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=600
    )


@needs_train_extra
def test_log_train_and_score_with_leaves(tmp_path):
    folder = tmp_path / "log"
    logged = learn(
        "log",
        "hero",
        "--folder",
        folder,
        "--games",
        3,
        "--leaves",
        2,
        "--bot",
        "ismcts:iterations=40",
        "--deep-share",
        0,
        "--workers",
        1,
    )
    assert logged.returncode == 0, logged.stderr
    rows = [json.loads(line) for line in (folder / "index.jsonl").read_text().splitlines()]
    assert rows[0]["config"]["leaves"] == 2 and all(row["leaves"] > 0 for row in rows[1:])
    out = tmp_path / "net.npz"
    trained = learn(
        "train",
        "hero",
        "--folder",
        folder,
        "--out",
        out,
        "--epochs",
        1,
        "--hidden",
        4,
        "--leaf-weight",
        2,
    )
    assert trained.returncode == 0, trained.stderr
    assert "held_out_leaves" in json.loads(out.with_suffix(".json").read_text())
    scored = learn("score", "hero", "--folder", folder, "--networks", out)
    assert scored.returncode == 0, scored.stderr
    report = json.loads(scored.stdout)
    assert set(report["models"]) == {"learned", str(out)}
    assert "correction" in report["models"][str(out)]
    assert report["leaves"]["leaves"] == sum(row["leaves"] for row in rows[1:])


def test_bad_input_is_one_line(tmp_path):
    assert_clean_error(
        learn("log", "hero", "--folder", tmp_path / "x", "--leaves", -1), "--leaves must be 0"
    )
    assert_clean_error(learn("score", "hero", "--folder", tmp_path), "no log index")
    assert_clean_error(
        learn("train", "hero", "--folder", tmp_path, "--out", tmp_path / "n.npz", "--blend", "0,x"),
        "--blend takes numbers from 0 to 1",
    )


@needs_train_extra
def test_a_generation_logs_trains_gates_and_says_whether_it_is_kept(tmp_path):
    out = tmp_path / "g1.npz"
    args = [
        "generation",
        "hero",
        "--folder",
        tmp_path / "log",
        "--games",
        3,
        "--bot",
        "ismcts:iterations=30",
        "--deep-share",
        0,
        "--leaves",
        2,
        "--workers",
        1,
        "--out",
        out,
        "--epochs",
        1,
        "--hidden",
        4,
        "--blend",
        "0,1",
        "--leaf-weight",
        2,
        "--gate-games",
        4,
        "--gate-options",
        "iterations=30",
    ]
    first = learn(*args)
    # four games decide no GSPRT: not kept, and the loop is told to stop
    assert first.returncode == 1, first.stderr
    assert "not kept (undecided at the cap of 4 games): the loop stops here" in first.stdout
    # JAX's threads stay in the training's own process: the gate's pool forks a clean one
    assert "os.fork() was called" not in first.stderr
    made = read_network(str(out), "hero").meta["made"]
    assert set(made["report"]["blends_tried"]) == {"0", "1"}
    assert made["report"]["blend"] in (0.0, 1.0)
    verdict = json.loads((tmp_path / "g1-generation.json").read_text())
    assert verdict["kept"] is False and verdict["summary"]["games"] == 4
    assert len((tmp_path / "g1-gate.jsonl").read_text().splitlines()) == 1 + 4
    # run again: nothing is played or trained twice
    trained = out.read_bytes()
    again = learn(*args)
    assert again.returncode == 1, again.stderr
    assert "trained already by the same command" in again.stdout
    assert out.read_bytes() == trained
    assert len((tmp_path / "g1-gate.jsonl").read_text().splitlines()) == 1 + 4
    # a network file another command made is not overwritten
    assert_clean_error(learn(*args, "--hidden", 5), "not made by this generation's training")
    assert out.read_bytes() == trained

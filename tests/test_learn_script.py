"""bench/learn.py, the learning loop's command: a log with leaves, `train
--leaf-weight` and `score` on it, and bad input in one line."""

import json
import subprocess
import sys
from pathlib import Path

from test_cli import assert_clean_error

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "learn.py"


def learn(*args):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=600
    )


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

"""The worked example (docs/worked-example.md): OpenSpiel's JAX DQN trains on
the C core's tensor with a tiny budget, resumes from its checkpoint, and the
saved agent plays legal moves as a `python:` player in a match. Needs the
`train` extra (jax, flax, optax, orbax); skipped without it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GAME_NAMES
from xenophon.lab.tournament import play_one

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dqn_agent.py"


def train(game: str, out: Path, episodes: int) -> dict:
    done = subprocess.run(
        [sys.executable, EXAMPLE, "--game", game, "--out", out, "--episodes", str(episodes),
         "--eval-every", "1", "--eval-games", "2", "--minutes", "10"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads((out / "agent.json").read_text())


@pytest.mark.parametrize("game", GAME_NAMES)
def test_training_resumes_and_the_saved_agent_plays_legal_moves(game, tmp_path, monkeypatch):
    # checked here, not when the file is collected: importing JAX (and absl's
    # logging handler, which keeps the stream it found) into the test process
    # before the other tests run would give them a stale stderr
    pytest.importorskip(
        "open_spiel.python.jax.dqn",
        reason="the train extra is not installed: pip install '.[train]'",
    )
    out = tmp_path / "agent"
    first = train(game, out, 1)
    assert first["episodes"] == 1 and [row["episodes"] for row in first["curve"]] == [0, 1]
    assert first["slots"] and first["decisions"] > 0
    again = train(game, out, 2)  # goes on from the checkpoint
    assert again["episodes"] == 2 and [row["episodes"] for row in again["curve"]] == [0, 1, 2]
    assert again["slots"][: len(first["slots"])] == first["slots"]
    for row in again["curve"]:
        assert 0 <= row["vs_random"] <= 1 and 0 <= row["vs_greedy"] <= 1
    monkeypatch.setenv("XENOPHON_DQN", str(out))
    player = f"python[startup=120,time=30]:{EXAMPLE}:DQNPlayer"
    for seat in (0, 1):
        record = play_one(game, [player, "random"], 5, seat)
        assert record.forfeit is None  # every move it answered was legal

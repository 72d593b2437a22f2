"""`xenophon bench --quick`: every part of the benchmark runs (not how fast),
with OpenSpiel or without it (then the peer parts say why they are skipped)."""

import json
import random

from conftest import GAME_NAMES, run_cli
from test_cli import assert_clean_error, xenophon
from xenophon import _core
from xenophon.interop.native import unavailable_reason
from xenophon.kernel.evaluation import NETWORK_PATH_VARIABLE, network_path
from xenophon.kernel.registry import make_game
from xenophon.lab.benchmarks import PARTS, TO_THE_END, Measure, median_runs
from xenophon.search.bots import ISMCTSBot


def test_quick_bench_runs_every_part(tmp_path):
    out = tmp_path / "bench.json"
    result = run_cli("bench", "--quick", "--json", out, timeout=120)
    assert result.returncode == 0, result.stderr
    results = json.loads(out.read_text())
    assert set(results["tables"]) == set(GAME_NAMES)
    assert results["environment"]["versions"]["xenophon"]
    reason = unavailable_reason()
    for game, rows in results["tables"].items():
        assert game in result.stdout
        assert {row["part"] for row in rows} == set(PARTS)
        for row in rows:
            if row["part"] == "core":
                assert row["xenophon_value"] > 0 and row["peer_value"] > 0
            elif reason:
                assert row["result"] == f"skipped: {reason}"
            elif row["part"] == "strength":
                assert row["match"]["games"] == 2 and row["result"].endswith("2 games")
            else:
                assert row["xenophon_value"] > 0 and row["peer_value"] > 0


def test_bench_one_part_of_one_game():
    result = run_cli("bench", "--quick", "--game", "hero", "--only", "core")
    assert result.returncode == 0, result.stderr
    assert "hero" in result.stdout and "anabasis" not in result.stdout
    assert "search" not in result.stdout


def test_bench_says_which_path_the_network_runs(monkeypatch):
    monkeypatch.setenv(NETWORK_PATH_VARIABLE, "portable")
    result = xenophon("bench", "--quick", "--game", "hero", "--only", "core")
    assert result.returncode == 0, result.stderr
    assert "the network's value runs on its portable path" in result.stdout
    monkeypatch.delenv(NETWORK_PATH_VARIABLE)
    assert network_path() == _core.NETWORK_PATH in ("portable", "avx2", "avx512")


def test_bench_bad_input_is_one_line():
    assert_clean_error(run_cli("bench", "--game", "chess"), "invalid choice: 'chess'")
    assert_clean_error(run_cli("bench", "--frobnicate"), "unrecognized arguments")
    assert_clean_error(run_cli("bench", "--games", "1"), "argument --games: 1 is out of range")
    assert_clean_error(run_cli("bench", "--rounds", "0"), "argument --rounds: 0 is out of range")
    assert_clean_error(
        run_cli("bench", "--move-time", "0"), "argument --move-time: 0 is out of range"
    )
    assert_clean_error(
        run_cli("bench", "--sprt", "abc"), "argument --sprt: 'abc': give two Elo values"
    )
    assert_clean_error(
        run_cli("bench", "--positions", "/nonexistent.json"), "cannot read the benchmark positions"
    )


def test_rounds_take_turns_and_keep_each_searchs_median_run():
    calls = []

    def search(name, seconds):
        runs = iter(seconds)

        def run():
            calls.append(name)
            return Measure(100, next(runs))

        return run

    ours, peer = median_runs([search("ours", [1.0, 4.0, 2.0]), search("peer", [5.0, 3.0, 9.0])], 3)
    assert calls == ["ours", "peer"] * 3
    assert (ours.seconds, peer.seconds) == (2.0, 5.0)


def test_uniform_playouts_search_is_reproducible_and_differs_from_the_policy():
    state = make_game("hero", seed=5).new_initial_state()
    state.resolve_chance(random.Random(5))

    def visits(**options):
        result = ISMCTSBot(iterations=300, seed=2, **TO_THE_END, **options).analyse(state)
        return [(m.move.code, m.visits) for m in result.moves]

    uniform = visits(uniform_playouts=True)
    assert uniform == visits(uniform_playouts=True)
    assert uniform != visits()
    assert {code for code, _ in uniform} <= set(state.legal_actions())


def test_table_figures_carry_their_unit():
    # a value is printed in the unit its suffix names (34,645 is 34.6k, not 3.46k)
    from xenophon.lab.benchmarks import _figure

    assert [_figure(v) for v in (34_645, 9_999, 88.5, 8_870_000, 2.1e9, None)] == [
        "34.6k",
        "9999",
        "88.5",
        "8.87M",
        "2.1G",
        "n/a",
    ]

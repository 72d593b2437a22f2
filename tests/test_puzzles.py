"""The puzzle suite (`bench/puzzles/`, docs/search.md "The puzzle suite"):
the files load, every puzzle's best and played moves are legal in its
position, the held-out split is stable as puzzles are added, the patterns
are read from the moves, and the per-pattern report counts a tiny subset."""

from pathlib import Path

import pytest

from harness import bench_script
from test_cli import assert_clean_error
from xenophon.kernel.registry import GAMES

BENCH_PUZZLES = Path(__file__).resolve().parents[1] / "bench" / "puzzles.py"
FIELDS = {
    "game",
    "state",
    "seat",
    "values",
    "best",
    "played",
    "pattern",
    "source",
    "held_out",
    "id",
}


@pytest.fixture(scope="module")
def puzzles():
    return bench_script("puzzles")


@pytest.mark.parametrize("game", GAMES)
def test_the_suite_loads_with_unique_ids_and_known_patterns(puzzles, game):
    suite = puzzles.load(game)
    assert len(suite) >= 30
    assert [p["id"] for p in suite] == [f"{game}-{n}" for n in range(1, len(suite) + 1)]
    for puzzle in suite:
        assert FIELDS <= set(puzzle), puzzle["id"]
        assert puzzle["game"] == game and puzzle["pattern"] in puzzles.PATTERNS
        values = puzzle["values"]
        assert values[puzzle["best"]] == max(values.values())
        assert values[puzzle["best"]] - values[puzzle["played"]] >= puzzles.MARGIN
    keys = [puzzles.position_key(p["state"], p["seat"]) for p in suite]
    assert len(set(keys)) == len(keys)  # no position twice


@pytest.mark.parametrize("game", GAMES)
def test_every_recorded_move_is_legal_in_its_position(puzzles, game):
    for puzzle in puzzles.load(game):
        state = puzzles.position(puzzle)
        if state is None:  # inside a battle's windows: the measure skips it
            continue
        assert state.current_player == puzzle["seat"]
        legal = {move.text for move in state.legal_moves()}
        assert set(puzzle["values"]) == legal, puzzle["id"]
        assert {puzzle["best"], puzzle["played"]} <= legal


@pytest.mark.parametrize("game", GAMES)
def test_the_split_is_stable(puzzles, game):
    suite = puzzles.load(game)
    legacy = puzzles.LEGACY_IDS[game]
    for index, puzzle in enumerate(suite):
        if index < legacy:  # the first harvest's split, kept as recorded
            assert puzzle["held_out"] == (index % 2 == 1)
        else:
            assert puzzle["held_out"] == puzzles.held_out_by_hash(puzzle["state"], puzzle["seat"])
    held_out = sum(p["held_out"] for p in suite)
    assert 0.3 < held_out / len(suite) < 0.7


def test_the_split_by_hash_does_not_depend_on_the_file(puzzles):
    state = {"turn": 3, "grid": {"a1": 1}}
    assert puzzles.held_out_by_hash(state, 0) == puzzles.held_out_by_hash(dict(state), 0)
    assert puzzles.position_key(state, 0) != puzzles.position_key(state, 1)
    # pinned: a change of the digest would move old puzzles across the split
    assert puzzles.position_key(state, 0)[:12] == PINNED_KEY


PINNED_KEY = "2f08317aebeb"


def anabasis_puzzle(best, played, slots=(None, None, None)):
    state = {"players": [{"slots": list(slots)}, {"slots": [None, None, None]}]}
    return {"game": "anabasis", "state": state, "seat": 0, "best": best, "played": played}


def hero_puzzle(best, played):
    return {"game": "hero", "state": {}, "seat": 0, "best": best, "played": played}


def test_the_pattern_is_read_from_the_moves(puzzles):
    rally = ({"card": "Rally", "face_up": False}, None, None)
    flood = ({"card": "Flood Disaster", "face_up": False}, None, None)
    assert puzzles.classify(anabasis_puzzle("event 1 d4", "attack d4xd6", rally)) == (
        "boost-before-attack"
    )
    assert puzzles.classify(anabasis_puzzle("end", "event 1 rank 2", flood)) == "waste"
    assert puzzles.classify(anabasis_puzzle("event 1 rank 5", "event 1 rank 2", flood)) == "waste"
    assert puzzles.classify(anabasis_puzzle("move d3-d2", "attack d3xd4")) == "guard"
    assert puzzles.classify(anabasis_puzzle("move d3-d4", "move g2-f2")) == "other"
    assert puzzles.classify(hero_puzzle("play War Cry on F1", "attack F1 > avatar")) == (
        "boost-before-attack"
    )
    assert puzzles.classify(hero_puzzle("end", "attack F1 > avatar")) == "guard"
    assert puzzles.classify(hero_puzzle("play Fireball on op.B2", "end")) == "cast-vs-hoard"
    assert puzzles.classify(hero_puzzle("end", "play Fireball on op.F1")) == "waste"


def test_the_report_counts_per_game_and_pattern_on_a_tiny_subset(puzzles):
    suite = puzzles.load("anabasis")[:2] + puzzles.load("hero")[:2]
    chosen = {p["id"]: p["best"] for p in suite}
    chosen[suite[0]["id"]] = suite[0]["played"]  # one wrong answer
    lines = puzzles.report(suite, chosen, held_out_only=False)
    totals = {line.split()[0]: line for line in lines if line.split()[1] == "all"}
    assert set(totals) == {"anabasis", "hero"}
    assert "open 0/1" in totals["anabasis"] and "held-out 1/1" in totals["anabasis"]
    assert "open 1/1" in totals["hero"] and "held-out 1/1" in totals["hero"]
    turned = puzzles.turned_wrong(suite, {p["id"]: p["best"] for p in suite}, chosen)
    assert turned == [f"  right before and wrong now: 1 of 4 compared {suite[0]['id']}"]


def test_a_search_answers_a_puzzle(puzzles):
    puzzle = next(p for p in puzzles.load("anabasis") if puzzles.position(p) is not None)
    puzzle_id, move, seconds = puzzles.choice((puzzle, "50", 0, None))
    assert puzzle_id == puzzle["id"] and move in puzzle["values"] and seconds >= 0


def test_the_seeds_agreement_counts_each_separated_puzzle(puzzles, capsys):
    suite = [
        next(p for p in puzzles.load(game) if puzzles.separated(p) and puzzles.position(p))
        for game in GAMES
    ]
    puzzles.agreement(suite + [{**suite[0], "values": {"a": 0.5, "b": 0.45}}], "50", 3, None, 1)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "level 50: agreement over 3 seeds"
    for puzzle in suite:  # the unseparated copy is left out
        counted = [line for line in lines if line.startswith(f"  {puzzle['id']}: ")]
        assert len(counted) == 1 and counted[0].split()[1] in {"2/3", "3/3"}
        assert f"  {puzzle['game']}: " in "\n".join(lines)
    assert lines[-1].endswith("/1 puzzles with at least 3")


def test_a_bad_level_is_one_clear_line(tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, str(BENCH_PUZZLES), "--level", "nosuchlevel"],
        capture_output=True,
        text=True,
    )
    assert_clean_error(result, "nosuchlevel")


def test_appending_numbers_on_and_skips_a_position_already_there(puzzles, tmp_path, monkeypatch):
    first, second = (dict(p) for p in puzzles.load("hero")[:2])
    monkeypatch.setattr(puzzles, "FOLDER", tmp_path)
    assert [p["id"] for p in puzzles.append_puzzles("hero", [first])] == ["hero-1"]
    written = puzzles.append_puzzles("hero", [dict(first), second])
    assert [p["id"] for p in written] == ["hero-2"]
    assert [p["id"] for p in puzzles.load("hero")] == ["hero-1", "hero-2"]


def test_every_hand_built_puzzle_comes_from_a_builder_of_its_pattern(puzzles):
    sources = {
        " ".join([builder.__name__, *map(str, arguments)]): pattern
        for pattern, builder, arguments in puzzles.HAND_BUILT
    }
    built = [p for game in GAMES for p in puzzles.load(game) if p["played_by"].startswith("hand")]
    assert len(built) > 200
    for puzzle in built:
        assert sources[puzzle["source"]] == puzzle["pattern"], puzzle["id"]
    position = puzzles.catapult_rally_position()  # the builders still build what they built
    anabasis_30 = next(p for p in puzzles.load("anabasis") if p["id"] == "anabasis-30")
    assert position.to_dict() == anabasis_30["state"]


def test_the_open_half_alone_leaves_the_held_out_half_unseen(puzzles):
    open_half = puzzles.selected(False, False, ("hero",), open_only=True)
    assert open_half and all(p["game"] == "hero" and not p["held_out"] for p in open_half)
    every = puzzles.selected(False, False, ("hero",))
    assert len(open_half) == sum(not p["held_out"] for p in every)
    chosen = {p["id"]: p["best"] for p in open_half}
    lines = puzzles.report(open_half, chosen, held_out_only=False, open_only=True)
    assert lines and not any("held-out" in line for line in lines)


def test_a_recheck_solves_again_and_counts_what_survives(puzzles, monkeypatch, tmp_path, capsys):
    puzzle = next(p for p in puzzles.load("hero") if p["id"] == "hero-3")
    monkeypatch.setattr(puzzles, "load", lambda game_name: [puzzle] if game_name == "hero" else [])
    record = tmp_path / "record.json"
    record.write_text('{"hero-3": "end"}')
    puzzles.recheck(["hero"], 2, "guard", record)
    summary = capsys.readouterr().out.splitlines()[-1].split()
    assert summary[:3] == ["hero", "guard", "open"]
    assert summary[3] in ("0/1", "1/1") and "recorded move right 1" in " ".join(summary)
    values = puzzles.resolved(puzzle, 2)
    assert set(values) == set(puzzle["values"]) and puzzles.right_by(
        values, max(values, key=values.get)
    )

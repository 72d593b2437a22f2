"""Analysing games through the command line: seat-view records (export, replay,
analyse, suggest, review), the engine protocol's observations, new games,
state, legal moves and cancel, and match with two named Hero decks."""

import json
import re
import subprocess
import sys
import time

import pytest

from test_cli import assert_clean_error, xenophon
from xenophon.play.records import load_record, make_game_for, redact

GAMES = ("anabasis", "hero")
SEEDS = (21, 22)


@pytest.fixture(scope="module")
def random_games(tmp_path_factory):
    """Full records of random games, two of each game, by `selfplay`."""
    folder = tmp_path_factory.mktemp("games")
    records = {}
    for game in GAMES:
        for seed in SEEDS:
            made = xenophon(
                "selfplay", game, "--bots", "random;random", "--seed", seed, "--out", folder
            )
            assert made.returncode == 0, made.stderr
            records[game, seed] = folder / f"{game}-selfplay-{seed}.jsonl"
    return records


def rows_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def keyed_and_seat_view(full, seat, folder):
    """The record redacted with keys (as a saved game is) and exported in the
    seat-view notation, for one seat."""
    record = load_record(full)
    keyed = redact(record, make_game_for(record), seat).save(folder / f"keyed{seat}.jsonl")
    view = folder / f"view{seat}.jsonl"
    exported = xenophon("export", full, "--as", seat, "--out", view)
    assert exported.returncode == 0, exported.stderr
    assert "seat-view" in exported.stdout
    return keyed, view


def without_timing(text):
    data = json.loads(text)
    data.pop("seconds", None)
    return data


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("seat", (0, 1))
def test_a_seat_view_export_analyses_as_the_keyed_record_does(
    random_games, tmp_path, game, seed, seat
):
    keyed, view = keyed_and_seat_view(random_games[game, seed], seat, tmp_path)
    for where in ((), ("--turn", 3 + seat)):
        answers = [
            xenophon("analyse", path, *where, "--iterations", "300", "--json")
            for path in (keyed, view)
        ]
        assert all(a.returncode == 0 for a in answers), answers[1].stderr
        assert without_timing(answers[0].stdout) == without_timing(answers[1].stdout)
    suggested = [xenophon("suggest", path, "--iterations", "200") for path in (keyed, view)]
    assert suggested[0].returncode == 0 and suggested[0].stdout == suggested[1].stdout


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_view_review_matches_the_keyed_one(random_games, tmp_path, game):
    keyed, view = keyed_and_seat_view(random_games[game, SEEDS[0]], 1, tmp_path)
    reviews = [
        xenophon("review", path, "--as", "1", "--iterations", "20", "--json")
        for path in (keyed, view)
    ]
    assert reviews[0].returncode == 0, reviews[0].stderr
    assert json.loads(reviews[0].stdout) == json.loads(reviews[1].stdout)


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_view_record_holds_no_key_no_seed_and_no_hidden_card(random_games, tmp_path, game):
    full = random_games[game, SEEDS[0]]
    _, view = keyed_and_seat_view(full, 0, tmp_path)
    head, *lines = rows_of(view)
    true_lines = rows_of(full)[1:]
    assert head["view"] == 0 and "seed" not in head
    # a seat-view record is format 2, or 3 in a game whose pieces have names (Hero's letters)
    named = game == "hero"
    assert head["format_version"] == (3 if named else 2)
    assert head.get("notation") == ("names" if named else None)
    assert not any("key" in line for line in lines)
    hidden = [(line, true) for line, true in zip(lines, true_lines) if "hidden" in line]
    assert hidden and all(line["seat"] != 0 for line, _ in hidden)
    for line, true in hidden:
        assert line["hidden"].startswith("opponent ")
        assert " ".join(true["move"].split()[1:]) not in line["hidden"]  # no card named
    assert any(line["hidden"] == "opponent draws a card" for line, _ in hidden)
    if game == "anabasis":
        deals = [line["hidden"] for line, _ in hidden if "dealt" in line["hidden"]]
        assert deals == [f"opponent is dealt an event face down in slot {n}" for n in (1, 2, 3)]
    shown = xenophon("replay", view)
    assert shown.returncode == 0, shown.stderr
    assert "opponent draws a card" in shown.stdout and "(hidden)" not in shown.stdout


@pytest.mark.parametrize(
    "game, options",
    [
        ("anabasis", {}),
        ("anabasis", {"mode": "expert"}),
        ("hero", {}),
        ("hero", {"decks": ("wild_grove", "crimson_conqueror")}),
    ],
)
def test_seat_view_and_keyed_records_rebuild_the_same_worlds(game, options):
    """Line by line, the world rebuilt from the seat-view notation is the one
    rebuilt from the keys (so every analysis of them agrees)."""
    from xenophon.kernel.registry import make_game
    from xenophon.lab.selfplay import selfplay_game
    from xenophon.play.records import parse_record, replay, seat_view

    for seed in (40, 41, 42):
        played = make_game(game, seed=seed, **options)
        record = selfplay_game(played, ["random", "greedy"], seed)
        for seat in (0, 1):
            keyed = redact(record, played, seat)
            view = parse_record(seat_view(record, played, seat).text(), "seat view")
            final, before = replay(keyed, played)
            final_seen, before_seen = replay(view, played)
            assert [s.hash() for s in before + [final]] == [
                s.hash() for s in before_seen + [final_seen]
            ], (seed, seat)


def test_a_hand_written_seat_view_game_is_analysed(random_games, tmp_path):
    """A game noted at a table: no card digest, no players, typed in words."""
    _, view = keyed_and_seat_view(random_games["hero", SEEDS[0]], 0, tmp_path)
    head, *lines = rows_of(view)
    decision = next(i for i, line in enumerate(lines) if line["seat"] == 0)
    noted = tmp_path / "noted.jsonl"
    typed = {
        "format": "xenophon-record",
        "format_version": 2,
        "game": "hero",
        "options": head["options"],
        "view": 0,
    }
    rows = [typed] + [
        {**line, "hidden": "Opponent  draws a card"} if "hidden" in line else line
        for line in lines[:decision]
    ]
    noted.write_text("".join(json.dumps(row) + "\n" for row in rows))
    analysed = xenophon("analyse", noted, "--iterations", "100", "--json")
    assert analysed.returncode == 0, analysed.stderr
    assert json.loads(analysed.stdout)["seat"] == 0


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda line: line.update(hidden="a card was drawn"), 'words starting with "opponent"'),
        (
            lambda line: line.update(hidden="opponent sets an event face down in slot 2"),
            "no world consistent",
        ),
        (lambda line: line.update(reveals="Ambush"), "'reveals' is a list"),
    ],
)
def test_a_broken_seat_view_line_is_one_clear_error(random_games, tmp_path, change, message):
    _, view = keyed_and_seat_view(random_games["anabasis", SEEDS[0]], 0, tmp_path)
    rows = rows_of(view)
    change(next(row for row in rows[1:] if row.get("hidden") == "opponent draws a card"))
    view.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert_clean_error(xenophon("analyse", view, "--iterations", "10"), message)


# -- the review picture -------------------------------------------------------------
def svg_texts(path):
    import xml.etree.ElementTree as ElementTree

    root = ElementTree.parse(path).getroot()
    return ["".join(element.itertext()) for element in root.iter() if element.tag.endswith("}text")]


@pytest.mark.parametrize("game", GAMES)
def test_review_draws_a_picture_with_axes_turns_and_the_mistakes(random_games, tmp_path, game):
    _, view = keyed_and_seat_view(random_games[game, SEEDS[0]], 0, tmp_path)
    svg, png = tmp_path / "review.svg", tmp_path / "review.png"
    reviewed = xenophon(
        "review",
        view,
        "--as",
        "0",
        "--iterations",
        "200",
        "--threshold",
        "0",
        "--json",
        "--svg",
        svg,
        "--png",
        png,
    )
    assert reviewed.returncode == 0, reviewed.stderr
    data = json.loads(reviewed.stdout)
    texts = svg_texts(svg)
    for label in (
        "win probability (%)",
        "turn",
        "50%",
        "mistakes",
        "win probability before the decision",
    ):
        assert label in texts, label
    assert "1" in texts  # the first turn's tick
    assert data["mistakes"], "random play makes mistakes"
    numbers = [str(n) for n in range(1, min(17, len(data["mistakes"])) + 1)]
    assert all(texts.count(number) >= 2 for number in numbers)  # mark and table row
    assert "drop ±95%" in texts
    for mistake in data["mistakes"][:17]:
        assert mistake["played"][:29] in " ".join(texts)
    drops = [text for text in texts if re.fullmatch(r"\d+±\d+", text)]
    assert len(drops) == min(17, len(data["mistakes"]))  # each row's drop and interval
    header = png.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")
    assert width > 1000 and height > 400


def test_review_pictures_are_checked_before_the_review(random_games, tmp_path):
    _, view = keyed_and_seat_view(random_games["hero", SEEDS[0]], 0, tmp_path)
    kept = tmp_path / "kept.png"
    kept.write_bytes(b"mine")
    assert_clean_error(xenophon("review", view, "--as", "0", "--png", kept), "exists")
    assert kept.read_bytes() == b"mine"
    same = tmp_path / "same"
    assert_clean_error(
        xenophon("review", view, "--as", "0", "--png", same, "--svg", same), "same file"
    )


# -- explained suggestions -------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_analyse_shows_the_position_its_columns_and_why(random_games, game):
    full = random_games[game, SEEDS[0]]
    table = xenophon("analyse", full, "--as", "1", "--turn", "6", "--iterations", "1000")
    assert table.returncode == 0, table.stderr
    text = table.stdout
    assert "Turn 6" in text or "turn 6" in text  # the board of the position
    assert "low: the 95% lower bound of win" in " ".join(text.split())
    assert "why: each move searched again in 24 worlds" in " ".join(text.split())
    assert "best in " in text and "opponent's hidden cards" in text
    suggested = xenophon("suggest", full, "--as", "1", "--turn", "6", "--iterations", "500")
    assert suggested.returncode == 0 and "best in " in suggested.stdout
    plain = xenophon(
        "analyse", full, "--as", "1", "--turn", "6", "--iterations", "500", "--worlds", "0"
    )
    assert "why:" not in plain.stdout and "best in" not in plain.stdout


@pytest.mark.parametrize("sampler", ["uniform", "policy"])
@pytest.mark.parametrize("game", GAMES)
def test_explanations_come_from_the_seat_information_only(random_games, tmp_path, game, sampler):
    """The full record (hidden cards in it) and the seat's own view of it give
    the same analysis and explanation, with either sampler: the hidden cards
    are never read."""
    full = random_games[game, SEEDS[1]]
    _, view = keyed_and_seat_view(full, 0, tmp_path)
    answers = [
        xenophon(
            "analyse",
            path,
            "--as",
            "0",
            "--turn",
            "7",
            "--iterations",
            "800",
            "--worlds",
            "16",
            "--sampler",
            sampler,
            "--json",
        )
        for path in (full, view)
    ]
    assert answers[0].returncode == 0, answers[0].stderr
    data = [without_timing(answer.stdout) for answer in answers]
    assert data[0] == data[1]
    explanation = data[0]["explanation"]
    assert [m["move"] for m in explanation["moves"]] == [m["move"] for m in data[0]["moves"]]
    assert sum(m["best_share"] for m in explanation["moves"]) <= 1 + 1e-6
    for move in explanation["moves"]:
        assert all(hurt["change"] <= -0.05 and hurt["worlds"] >= 2 for hurt in move["hurts"])
    places = explanation["hidden_cards"]
    assert all(0 < p <= 1 for cards in places.values() for p in cards.values())
    for place, cards in places.items():
        if place.startswith("slot"):  # one card a slot: the chances add up to 1
            assert sum(cards.values()) == pytest.approx(1, abs=1e-3)


# -- the engine protocol ---------------------------------------------------------
def engine(*queries, timeout=300):
    """The answers to `queries` sent as a file of queries, which ends with
    quit (at the end of the input without one, analyses are cancelled)."""
    text = "".join(json.dumps(query) + "\n" for query in [*queries, {"command": "quit"}])
    result = subprocess.run(
        [sys.executable, "-m", "xenophon.cli.main", "engine"],
        input=text,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.parametrize("game", GAMES)
def test_engine_analyses_observations_as_the_seat_view_record(random_games, tmp_path, game):
    full = random_games[game, SEEDS[1]]
    _, view = keyed_and_seat_view(full, 1, tmp_path)
    head, *lines = rows_of(view)
    lines = [line for line in lines if "result" not in line]
    upto = max(i for i, line in enumerate(lines) if line["seat"] == 1)  # its last decision
    observations = [
        line.get("move", line.get("hidden"))
        if "reveals" not in line
        else {"move": line["move"], "reveals": line["reveals"]}
        for line in lines[:upto]
    ]
    truncated = tmp_path / "upto.jsonl"
    truncated.write_text("".join(json.dumps(row) + "\n" for row in [head] + lines[:upto]))
    by_record, by_observations, other_seat, wrong_seat = engine(
        {"id": "r", "record": str(truncated), "iterations": 200, "top": 5, "explain": 8},
        {
            "id": "o",
            "game": game,
            "options": head["options"],
            "seat": 1,
            "observations": observations,
            "iterations": 200,
            "top": 5,
            "explain": 8,
        },
        {"id": "s", "command": "state", "record": str(truncated), "seat": 0},
        {
            "id": "w",
            "game": game,
            "options": head["options"],
            "seat": 0,
            "observations": observations,
            "iterations": 10,
        },
    )
    assert "error" not in by_observations, by_observations
    assert "shown to seat 1 only" in other_seat["error"]
    assert "observations: observation" in wrong_seat["error"]  # seat 1's, not seat 0's
    for answer in (by_record, by_observations):
        answer.pop("id"), answer.pop("seconds")
    assert by_record == by_observations
    assert by_record["explanation"]["worlds"] == 8
    analysed = xenophon("analyse", truncated, "--iterations", "200", "--worlds", "8", "--json")
    assert json.loads(analysed.stdout)["explanation"] == by_record["explanation"]


@pytest.mark.parametrize("game", GAMES)
def test_engine_new_game_state_and_legal_moves_show_only_the_seat_view(game):
    (opened,) = engine({"id": 1, "command": "new_game", "game": game, "seed": 8, "seat": 0})
    assert opened["to_move"] == 0 and opened["legal_moves"]
    assert any(text == "opponent draws a card" for text in opened["observations"])
    opponent = opened["state"]["players"][1]
    assert opponent["hand"] is None and opponent["deck"] is None
    (again,) = engine({"id": 2, "command": "new_game", "game": game, "seed": 8, "seat": 0})
    assert again["observations"] == opened["observations"]  # the seed fixes the chance
    move = opened["legal_moves"][0]
    after, moves, state, analysed = engine(
        {"id": 3, "command": "new_game", "game": game, "seed": 8, "seat": 0, "moves": [move]},
        {
            "id": 4,
            "command": "legal_moves",
            "game": game,
            "seat": 0,
            "observations": opened["observations"],
        },
        {
            "id": 5,
            "command": "state",
            "game": game,
            "seat": 0,
            "observations": opened["observations"],
        },
        {
            "id": 6,
            "game": game,
            "seat": 0,
            "observations": opened["observations"],
            "iterations": 100,
        },
    )
    assert after["observations"][: len(opened["observations"])] == opened["observations"]
    assert after["observations"][len(opened["observations"])] == move
    assert moves["legal_moves"] == opened["legal_moves"]
    assert state["state"] == opened["state"] and state["board"] == opened["board"]
    assert analysed["final"] and analysed["moves"][0]["move"] in opened["legal_moves"]


def test_engine_refuses_the_opponents_legal_moves_and_unknown_commands():
    (opened,) = engine({"command": "new_game", "game": "anabasis", "seed": 3, "seat": 1})
    assert opened["to_move"] == 0 and "legal_moves" not in opened
    refused, unknown, no_seed = engine(
        {
            "id": 1,
            "command": "legal_moves",
            "game": "anabasis",
            "seat": 1,
            "observations": opened["observations"],
        },
        {"id": 2, "command": "undo"},
        {"id": 3, "command": "new_game", "game": "anabasis", "seat": 0},
    )
    assert "its own legal moves only" in refused["error"]
    assert "'command' must be one of" in unknown["error"]
    assert "needs its 'seed'" in no_seed["error"]


def test_engine_cancel_stops_a_running_search():
    process = subprocess.Popen(
        [sys.executable, "-m", "xenophon.cli.main", "engine"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )

    def send(query):
        process.stdin.write(json.dumps(query) + "\n")
        process.stdin.flush()

    try:
        send({"id": 0, "command": "new_game", "game": "hero", "seed": 1, "seat": 0})
        opened = json.loads(process.stdout.readline())
        send(
            {
                "id": "long",
                "game": "hero",
                "seat": 0,
                "observations": opened["observations"],
                "iterations": 50_000_000,
            }
        )
        time.sleep(0.5)
        started = time.perf_counter()
        send({"id": "stop", "command": "cancel"})
        stopped = json.loads(process.stdout.readline())
        acknowledged = json.loads(process.stdout.readline())
        assert time.perf_counter() - started < 30
        assert stopped["id"] == "long" and stopped["cancelled"] and stopped["final"]
        assert 0 < stopped["iterations"] < 50_000_000
        assert acknowledged == {"id": "stop", "cancelled": True}
        send({"id": "idle", "command": "cancel"})
        assert json.loads(process.stdout.readline()) == {"id": "idle", "cancelled": False}
        process.stdin.close()
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()


# -- match -------------------------------------------------------------------------
def test_match_takes_both_hero_decks_joined_by_a_comma():
    swapped = xenophon(
        "match",
        "random",
        "random",
        "--game",
        "hero:decks=wild_grove,crimson_conqueror",
        "--games",
        "2",
    )
    assert swapped.returncode == 0, swapped.stderr
    assert "hero:decks=wild_grove,crimson_conqueror" in swapped.stdout
    assert_clean_error(
        xenophon(
            "match",
            "random",
            "random",
            "--game",
            "hero:decks=wild_grove,crimson_conqueror,wild_grove",
            "--games",
            "2",
        ),
        "takes two decks",
    )
    assert_clean_error(
        xenophon("match", "random", "random", "--game", "hero:cards=,wild_grove", "--games", "2"),
        "key=value",
    )


def test_review_finds_its_seat_as_suggest_does(random_games, tmp_path):
    """Issue 49, item 12: `review` works out the seat where `suggest` does
    (a redacted record's), and asks for it in one line where no one can."""
    full = random_games["anabasis", SEEDS[0]]
    _, view = keyed_and_seat_view(full, 1, tmp_path)
    reviewed = xenophon("review", view, "--iterations", "20", "--json")
    assert reviewed.returncode == 0, reviewed.stderr
    assert json.loads(reviewed.stdout)["seat"] == 1
    assert_clean_error(
        xenophon("review", full, "--iterations", "20"), "say which seat is reviewed with --as"
    )


def beyond(mistake):
    """A mistake's drop less its interval: above the threshold it was given."""
    return mistake["better_win"] - mistake["played_win"] - mistake["margin"]


def one_mistake(random_games, game):
    """A record, seat and threshold whose review finds exactly one mistake
    (the largest drop beyond its interval, clear of the next by 0.004: the
    JSON rounds each of the three values to 0.001)."""
    for seed in SEEDS:
        for seat in ("0", "1"):
            record = random_games[game, seed]
            answer = xenophon(
                "review", record, "--as", seat, "--iterations", "200", "--threshold", "0", "--json"
            )
            mistakes = json.loads(answer.stdout)["mistakes"]
            drops = sorted(beyond(m) for m in mistakes)
            if len(drops) >= 2 and drops[-1] - drops[-2] >= 0.004:
                threshold = (drops[-1] + drops[-2]) / 2
                (mistake,) = [m for m in mistakes if beyond(m) > threshold]
                return record, seat, threshold, mistake
    raise AssertionError(f"no {game} review here has one largest mistake")


@pytest.mark.parametrize("game", GAMES)
def test_one_mistake_its_step_and_the_better_move_as_the_picture_writes_it(
    random_games, tmp_path, game
):
    """Issue 49, items 12 and 13: '1 mistake', the better move in the
    picture's notation, and `analyse --step N` reaching the mistake's
    position (any decision, not only a turn's first)."""
    record, seat, threshold, mistake = one_mistake(random_games, game)
    budget = ("--as", seat, "--iterations", "200")
    text = xenophon("review", record, *budget, "--threshold", f"{threshold:.6f}")
    assert text.returncode == 0, text.stderr
    assert re.search(r"decisions? with a choice, 1 mistake \(", text.stdout), text.stdout
    assert f"better: {mistake['better']} (" in text.stdout
    assert f"step {mistake['step']}, line {mistake['line']} " in text.stdout
    analysed = xenophon(
        "analyse",
        record,
        "--as",
        "0",
        "--step",
        mistake["step"],
        "--iterations",
        "40",
        "--worlds",
        "0",
        "--json",
    )
    assert analysed.returncode == 0, analysed.stderr
    assert f"before line {mistake['line']})" in json.loads(analysed.stdout)["position"]
    too_far = xenophon("analyse", record, "--as", seat, "--step", "100000")
    assert_clean_error(too_far, "--step is 1 to")


def test_analyse_help_says_where_last_and_step_go():
    helped = " ".join(xenophon("analyse", "--help").stdout.split())
    assert "--last the end of the record" in helped
    assert "the seat's Nth decision with a choice" in helped


def test_replay_tells_what_each_move_did_as_the_terminal_does(random_games):
    """`replay` prints the narrator's lines under each move (issue 66 item 1):
    a Hero unit's letter as it enters, an Anabasis purchase."""
    hero = xenophon("replay", random_games["hero", SEEDS[0]])
    assert hero.returncode == 0, hero.stderr
    assert re.search(r"^ {14}your \S.* \([a-z]\) enters the (front|back) row$", hero.stdout, re.M)
    anabasis = xenophon("replay", random_games["anabasis", SEEDS[0]])
    assert re.search(r"^ {14}you bought .* for \d+ funds", anabasis.stdout, re.M)

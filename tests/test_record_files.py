"""Record files and saves as a careless or hostile user meets them: every
fault is one line and a non-zero exit, nothing hangs, nothing the user saved
is lost or overwritten, and no temporary file is left behind."""

import json
import os
import re
import subprocess
import sys
import tracemalloc

import pytest

from conftest import run_cli
from xenophon.play import records
from xenophon.play.records import RecordError, load_record

COMMANDS_READING_RECORDS = (
    ("replay",),
    ("analyse", "--iterations", "5"),
    ("suggest", "--iterations", "5"),
    ("review", "--as", "0", "--iterations", "5"),
)


def one_line_error(result, fragment):
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert fragment in lines[0], lines[0]


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    made = run_cli(
        "selfplay", "anabasis", "--bots", "random;random", "--seed", "3", "--out", folder
    )
    assert made.returncode == 0, made.stderr
    return folder / "anabasis-selfplay-3.jsonl"


def edited(record, tmp_path, change):
    rows = [json.loads(line) for line in record.read_text().splitlines()]
    change(rows)
    path = tmp_path / "edited.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def first_decision(rows, seat):
    return next(i for i, row in enumerate(rows) if row.get("seat") == seat)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda rows: rows[0].update(format_version=99), "newer xenophon"),
        (lambda rows: rows[0].update(seed="abc"), "'seed' must be"),
        (lambda rows: rows[0].update(seats=["human"]), "'seats' must be"),
        (lambda rows: rows[0].update(view=5), "'view' must be"),
        (lambda rows: rows[5].update(seat=5), "'seat' must be"),
        (lambda rows: rows[first_decision(rows, 0)].update(seat=1), "labelled seat 1"),
        (lambda rows: rows[-1].update(result=[-r for r in rows[-1]["result"]]), "contradicts"),
        (lambda rows: rows[-1].update(result="x"), "'result' must be"),
        (lambda rows: rows[-1].update(result=[True, False]), "'result' must be"),
        (lambda rows: rows[-1].update(result=[0.5, -0.5]), "'result' must be"),
        (lambda rows: rows[first_decision(rows, 0)].update(seat=0.0), "'seat' must be"),
        (lambda rows: rows[first_decision(rows, 1)].update(seat=True), "'seat' must be"),
        (lambda rows: rows.insert(3, {"result": [1, -1]}), "must be the last line"),
        (lambda rows: rows[4].update(hidden=True), "hidden line in a full record"),
    ],
)
def test_records_are_checked_on_read(record, tmp_path, change, message):
    one_line_error(run_cli("replay", edited(record, tmp_path, change)), message)


def result_before_the_end(rows):
    result = rows[-1]
    del rows[len(rows) // 2 :]
    rows.append(result)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda rows: rows[-1].update(result=[-r for r in rows[-1]["result"]]), "contradicts"),
        (lambda rows: rows[-1].update(result=[0, 0]), "contradicts"),
        (result_before_the_end, "not over"),
        (lambda rows: rows[first_decision(rows, 0)].update(seat=1), "labelled seat 1"),
        (lambda rows: rows.insert(len(rows) - 1, {"seat": 0, "move": "end"}), "already over"),
    ],
)
@pytest.mark.parametrize("seat", ["0", "1"])
def test_export_refuses_what_replay_refuses(record, tmp_path, change, message, seat):
    """export --as wrote a record whose result the game contradicts, or that
    comes before its end, and exited 0; replay refused the same file."""
    path = edited(record, tmp_path, change)
    out = tmp_path / "out.jsonl"
    one_line_error(run_cli("replay", path), message)
    one_line_error(run_cli("export", path, "--as", seat, "--out", out), message)
    assert not out.exists() and not list(tmp_path.glob(".*.tmp"))


def test_a_result_before_the_end_is_refused(record, tmp_path):
    def cut(rows):
        result = rows[-1]
        del rows[len(rows) // 2 :]
        rows.append(result)

    one_line_error(run_cli("replay", edited(record, tmp_path, cut)), "not over")


def test_a_byte_order_mark_is_read(record, tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + record.read_bytes())
    result = run_cli("replay", path)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    "command", COMMANDS_READING_RECORDS + (("export", "--as", "1", "--out"), ("play", "--resume"))
)
def test_deeply_nested_json_is_one_line(record, tmp_path, command):
    lines = record.read_text().splitlines()
    path = tmp_path / "deep.jsonl"
    path.write_text(lines[0] + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    args = list(command)
    if command[0] == "export":
        args.append(tmp_path / "out.jsonl")
    args = args[:1] + [path] + args[1:] if command[0] != "play" else args + [path]
    one_line_error(run_cli(*args, home=tmp_path), "nested more than")


@pytest.mark.parametrize("view", [1.0, 0.0, True, "1", [1]])
@pytest.mark.parametrize("command", COMMANDS_READING_RECORDS)
def test_a_view_that_is_not_a_whole_number_is_refused(record, tmp_path, command, view):
    """`"view": 1.0` equals 1 but is no seat: it reached the C core and
    ended replay, analyse and review in a traceback."""
    seat_view = tmp_path / "seat1.jsonl"
    assert run_cli("export", record, "--as", "1", "--out", seat_view).returncode == 0
    rows = [json.loads(line) for line in seat_view.read_text().splitlines()]
    rows[0]["view"] = view
    path = tmp_path / "float-view.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    one_line_error(run_cli(command[0], path, *command[1:]), "the header's 'view' must be")


@pytest.mark.parametrize("source", ["/dev/zero", "fifo", "folder"])
def test_special_files_are_refused_without_waiting(tmp_path, source):
    if source == "fifo":
        path = tmp_path / "pipe.jsonl"
        os.mkfifo(path)
    elif source == "folder":
        path = tmp_path
    else:
        path = source
    one_line_error(
        run_cli("replay", path, timeout=30),
        "folder" if source == "folder" else "not a regular file",
    )


def test_a_huge_file_is_refused(tmp_path):
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as handle:
        handle.truncate(65 * 1024 * 1024)  # sparse: no disk used
    one_line_error(run_cli("replay", path), "too large")


def test_a_bad_line_is_refused_before_the_rest_is_read(record, tmp_path):
    """A record is read line by line: 8 MiB of `{}` lines after the header
    are refused at line 2 holding a line at a time (reading the file whole
    to check it took 700 MB, and 5.4 GB for 64 MiB)."""
    path = tmp_path / "flood.jsonl"
    with open(path, "w") as handle:
        handle.write(record.read_text().splitlines()[0] + "\n")
        handle.write("{}\n" * (8 * 1024 * 1024 // 3))
    tracemalloc.start()
    try:
        with pytest.raises(RecordError, match=r"line 2: 'seat' must be"):
            load_record(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024, f"{peak:,} bytes"
    one_line_error(run_cli("replay", path), "line 2: 'seat' must be")


def test_a_line_over_the_cap_is_refused_without_holding_it(record, tmp_path):
    path = tmp_path / "long.jsonl"
    header = record.read_text().splitlines()[0]
    long_move = "x" * (records.MAX_RECORD_LINE_BYTES + 10)
    path.write_text(header + "\n" + json.dumps({"seat": "chance", "move": long_move}) + "\n")
    one_line_error(run_cli("replay", path), "line 2 is too long for a record (at most 1,048,576")


def test_a_record_longer_than_any_game_is_refused(record, tmp_path, monkeypatch):
    monkeypatch.setattr(records, "MAX_RECORD_LINES", 50)
    path = tmp_path / "many.jsonl"
    lines = record.read_text().splitlines()
    path.write_text("\n".join(lines[:51]) + "\n")  # the header and 50 moves
    assert len(load_record(path).lines) == 50 and len(lines) > 52
    path.write_text("\n".join(lines[:52]) + "\n")
    with pytest.raises(RecordError, match="line 52: a record holds at most 50 moves"):
        load_record(path)


def test_a_line_cut_short_at_the_end_is_named_truncated(record, tmp_path):
    text = record.read_text()
    path = tmp_path / "cut.jsonl"
    path.write_text(text[: text.index("\n", 1000) - 5])
    number = text[: text.index("\n", 1000)].count("\n") + 1
    one_line_error(run_cli("replay", path), f"line {number}: not valid JSON")
    assert "(truncated file?)" in run_cli("replay", path).stderr
    path.write_text(text.replace("\n", "\n{\n", 1))
    assert "truncated" not in run_cli("replay", path).stderr


HOSTILE = "\x1b]0;pwned\x07\x1b[31mred\nnext line"


def assert_nothing_raw(text):
    """No control character but the line's own end reaches the terminal."""
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", text), repr(text[:300])


@pytest.mark.parametrize("command", COMMANDS_READING_RECORDS)
@pytest.mark.parametrize(
    "change",
    [
        lambda rows: rows[3].update(move=HOSTILE),
        lambda rows: rows[0]["options"].update(mode=HOSTILE),
        lambda rows: rows[0].update(card_digest=HOSTILE),
    ],
)
def test_error_lines_escape_what_the_file_holds(record, tmp_path, command, change):
    """An escape sequence, a bell or a newline in a record reached the
    terminal raw, and a newline split the one error line."""
    path = edited(record, tmp_path, change)
    result = run_cli(command[0], path, *command[1:])
    one_line_error(result, "\\x1b")
    assert_nothing_raw(result.stderr.rstrip("\n"))


def test_a_long_move_is_cut_in_the_error_line(record, tmp_path):
    """A 10 MB move was echoed whole (records now hold lines of 1 MiB)."""
    path = edited(record, tmp_path, lambda rows: rows[3].update(move="x" * 1_000_000))
    result = run_cli("replay", path)
    one_line_error(result, "unknown move 'xxxxxxxx")
    assert len(result.stderr) < 1000 and "x..." in result.stderr


def test_a_long_format_version_is_cut_in_the_error_line(record, tmp_path):
    """A format_version of thousands of digits was echoed whole (found by
    the sealed_save fuzz target, input 485,504 of seed 1)."""
    path = edited(record, tmp_path, lambda rows: rows[0].update(format_version=int("19" * 1000)))
    result = run_cli("replay", path)
    one_line_error(result, "by a newer xenophon")
    assert len(result.stderr) < 1000 and "..." in result.stderr


def test_a_hostile_card_file_name_is_one_line(tmp_path):
    cards = tmp_path / "cards.toml"
    cards.write_text('[[character]]\nname = "Mil\\nitia\\u001b[2J"\n')
    for args in (
        ("selfplay", "anabasis", "--cards", cards),
        ("selfplay", "anabasis", "--bots", "x\ny"),
    ):
        result = run_cli(*args, "--out", tmp_path / "out")
        assert result.returncode != 0 and "Traceback" not in result.stderr
        assert len(result.stderr.splitlines()) == 1, result.stderr
        assert_nothing_raw(result.stderr.rstrip("\n"))
    result = run_cli("replay", str(tmp_path / "no\x1b[2Jsuch\nfile.jsonl"))
    one_line_error(result, "no\\x1b[2Jsuch\\nfile.jsonl")


def test_a_failed_autosave_is_said_in_words(tmp_path):
    """The folder of the autosave could not be made: a raw '[Errno 20] Not
    a directory: ...' was printed."""
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("a file where the data folder should be\n")
    env = {**os.environ, "XDG_DATA_HOME": str(not_a_folder)}
    result = subprocess.run(
        [sys.executable, "-m", "xenophon.cli.main", "play", "anabasis", "--seat", "0"],
        input="end\nquit\n",  # a move: a game left before it is not saved
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd="/proc",  # the working folder, where a save goes next, cannot be written either
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "The game could not be saved anywhere:" in result.stdout
    assert "[Errno" not in result.stdout
    assert f"{not_a_folder}/xenophon/games: cannot make the folder (Not a directory)" in (
        result.stdout
    )


def test_save_at_the_prompt_never_loses_the_game(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    script = (
        "\n".join(
            [
                "end",  # a move first: before it a failed save writes nothing else
                f"save {tmp_path}",
                "save /proc/xenophon-test.jsonl",
                f"save {tmp_path}/no/such/folder/x.jsonl",
                f"save {notes}",
                f"save {tmp_path}/mine.jsonl",
                f"save {tmp_path}/mine.jsonl",
                "quit",
            ]
        )
        + "\n"
    )
    result = run_cli(
        "play", "anabasis", "--seat", "0", "--level", "20", input_text=script, home=tmp_path
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count("Not saved:") == 4 and out.count("The game goes on") == 4
    assert "is a folder" in out and "does not exist" in out and "add --force" in out
    assert notes.read_text() == "my notes\n"  # not overwritten
    assert not (tmp_path / "no").exists()  # no folder made silently
    assert out.count("Saved to") == 2  # its own file twice
    assert not list(tmp_path.rglob("*.tmp"))
    forced = run_cli(
        "play",
        "anabasis",
        "--seat",
        "0",
        "--level",
        "20",
        input_text=f"save {notes} --force\nquit\n",
        home=tmp_path,
    )
    assert "Saved to" in forced.stdout and notes.read_text().startswith('{"format"')


def test_export_refuses_its_own_input_and_existing_files(record, tmp_path):
    before = record.read_bytes()
    one_line_error(run_cli("export", record, "--as", "1", "--out", record), "input")
    one_line_error(run_cli("export", record, "--as", "1", "--out", record, "--force"), "input")
    assert record.read_bytes() == before
    one_line_error(run_cli("export", record, "--as", "1", "--out", tmp_path), "is a folder")
    one_line_error(
        run_cli("export", record, "--as", "1", "--out", "/proc/x/y.jsonl"), "does not exist"
    )
    out = tmp_path / "seat1.jsonl"
    assert run_cli("export", record, "--as", "1", "--out", out).returncode == 0
    one_line_error(run_cli("export", record, "--as", "0", "--out", out), "--force")
    assert run_cli("export", record, "--as", "0", "--out", out, "--force").returncode == 0
    assert json.loads(out.read_text().splitlines()[0])["view"] == 0
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_selfplay_never_overwrites(tmp_path):
    common = ("selfplay", "hero", "--bots", "random;random", "--games", "2", "--out")
    assert run_cli(*common, tmp_path / "sp", "--seed", "1").returncode == 0
    written = (tmp_path / "sp" / "hero-selfplay-2.jsonl").read_bytes()
    one_line_error(run_cli(*common, tmp_path / "sp", "--seed", "2"), "exist already")
    assert (tmp_path / "sp" / "hero-selfplay-2.jsonl").read_bytes() == written
    assert not (tmp_path / "sp" / "hero-selfplay-3.jsonl").exists()  # checked before playing
    existing = tmp_path / "existing.txt"
    existing.write_text("x")
    one_line_error(run_cli(*common, existing, "--seed", "1"), "is a file")


def test_export_full_unseals_only_on_request(tmp_path):
    played = run_cli(
        "play", "hero", "--seat", "0", "--level", "20", input_text="end\nquit\n", home=tmp_path
    )
    saved = sorted((tmp_path / "xenophon" / "games").glob("*.jsonl"))[-1]
    full = tmp_path / "full.jsonl"
    assert played.returncode == 0
    result = run_cli("export", saved, "--full", "--out", full, home=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in full.read_text().splitlines()]
    assert rows[0]["view"] is None and "sealed" not in rows[0]
    assert all("move" in row for row in rows[1:])
    replayed = run_cli("replay", full)
    assert replayed.returncode == 0 and "(hidden)" not in replayed.stdout


def test_resume_says_when_the_level_changes(tmp_path):
    run_cli("play", "hero", "--seat", "0", "--level", "20", input_text="end\nquit\n", home=tmp_path)
    saved = sorted((tmp_path / "xenophon" / "games").glob("*.jsonl"))[-1]
    result = run_cli("play", "--resume", saved, "--level", "30", input_text="quit\n", home=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "now plays at level 30 (the game was saved at 20)" in result.stdout
    one_line_error(run_cli("play", "hero", "--resume", saved, home=tmp_path), "--resume")


def test_a_corrupt_move_in_a_redacted_record_is_refused_at_once(record, tmp_path, monkeypatch):
    """A move no world can play is refused without resampling (it took
    20,000 resamples, 7 to 23 s, found by the record_file fuzz target)."""
    redacted = tmp_path / "seat0.jsonl"
    assert run_cli("export", record, "--as", "0", "--out", redacted).returncode == 0
    rows = [json.loads(line) for line in redacted.read_text().splitlines()]
    index = next(i for i, row in enumerate(rows) if row.get("seat") == 0 and "move" in row)
    rows[index]["move"] = rows[index]["move"][:3] + "}" + rows[index]["move"][3:]
    redacted.write_text("".join(json.dumps(row) + "\n" for row in rows))
    from xenophon.kernel.game import State
    from xenophon.play.records import RecordError, load_record, make_game_for, replay

    loaded = load_record(redacted)

    def no_resampling(*args):
        raise AssertionError("resampled a world for a line no world can play")

    monkeypatch.setattr(State, "resample", no_resampling)
    with pytest.raises(RecordError, match="unknown move"):
        replay(loaded, make_game_for(loaded))


def test_undecodable_file_names_are_printed_escaped(tmp_path):
    result = run_cli("replay", os.fsdecode(bytes(tmp_path) + b"/\xff.jsonl"))
    one_line_error(result, "cannot read record")
    assert "\\udcff" in result.stderr or "\\xff" in result.stderr

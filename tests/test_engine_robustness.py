"""`xenophon engine` never stops on a line and always answers valid UTF-8 JSON:
over-long lines, bytes that are not UTF-8, deep nesting, lone surrogates,
fields of the wrong type or range, records that are not regular files; and
an unexpected fault is answered, not fatal."""

import io
import json
import os
import queue
import subprocess
import sys
import threading

import pytest

from xenophon.protocol import engine

QUICK = {"iterations": 20}


def serve(*lines: bytes) -> list[dict]:
    """The answers of the serve loop to `lines`, each checked to be UTF-8 JSON."""
    out = io.BytesIO()
    engine.serve(io.BytesIO(b"".join(line + b"\n" for line in lines)), out)
    answers = [json.loads(line.decode("utf-8")) for line in out.getvalue().splitlines()]
    for answer in answers:
        assert "internal error" not in answer.get("error", ""), answer
    return answers


def query(**fields) -> bytes:
    return json.dumps(fields).encode()


def first_decision(game: str = "hero") -> list[str]:
    """The moves up to the first decision of seed 1 (its chance outcomes)."""
    from xenophon.kernel.registry import make_game

    made = make_game(game, seed=1)
    state = made.new_initial_state()
    moves = []
    while state.is_chance():
        move = state.sample_chance(made.rng)
        moves.append(move.text)
        state.apply_code(move.code)
    return moves


FOLLOW_UP = query(id="next", game="anabasis", moves=[])  # answered: a chance node


def assert_error_then_next_answered(answers, fragment, query_id=None):
    assert len(answers) == 2, answers
    assert fragment in answers[0]["error"], answers[0]
    assert answers[0]["id"] == query_id
    assert answers[1]["id"] == "next" and "chance node" in answers[1]["error"]


def test_invalid_utf8_gets_an_error_answer():
    answers = serve(b'{"id": "\xff\xfe", "game": "anabasis"}', FOLLOW_UP)
    assert_error_then_next_answered(answers, "not UTF-8")


def test_deep_nesting_gets_an_error_answer():
    deep = b'{"id": 1, "x": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    assert_error_then_next_answered(serve(deep, FOLLOW_UP), "nested more than")


def test_a_lone_surrogate_in_the_id_is_answered_as_utf8():
    answers = serve(b'{"id": "u\\ud800", "game": "chess"}', FOLLOW_UP)
    assert answers[0]["id"] == "u\ud800" and "unknown game" in answers[0]["error"]


def test_nan_in_the_id_is_refused():
    answers = serve(b'{"id": [NaN], "game": "anabasis"}', FOLLOW_UP)
    assert_error_then_next_answered(answers, "NaN")


def test_a_line_over_the_cap_is_skipped_without_reading_it_whole():
    sizes = []

    class Recording(io.BytesIO):
        def readline(self, size=-1):
            sizes.append(size)
            return super().readline(size)

    stream = Recording(b"x" * 100 + b"\n{}\n")
    lines = list(engine.read_lines(stream, limit=10))
    assert isinstance(lines[0], engine.LineTooLong) and lines[1] == b"{}"
    assert sizes and all(0 < size <= max(11, engine.READ_CHUNK) for size in sizes)


def test_a_huge_line_gets_an_error_answer():
    long_line = b'{"id": 1, "pad": "' + b"x" * (engine.MAX_LINE_BYTES + 10) + b'"}'
    assert_error_then_next_answered(serve(long_line, FOLLOW_UP), "longer than")


@pytest.mark.parametrize(
    "fields, fragment",
    [
        ({"bogus": 1}, "unknown field 'bogus'"),
        ({"command": "stop"}, "'command'"),
        ({"seed": "x"}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"options": []}, "'options'"),
        ({"options": {"mode": 5}}, "'mode'"),
        ({"options": {"seed": 5}}, "no option 'seed'"),
        ({"options": {"engine": "oracle"}}, "no option 'engine'"),
        ({"options": {"cards": "/dev/zero"}}, "not a regular file"),
        ({"options": {"cards": "\udfff"}}, "not a file name"),
        ({"options": {"cards": "x" * 5000}}, "too long"),
        ({"search_seed": "1"}, "'search_seed'"),
        ({"search_seed": 2.5}, "'search_seed'"),
        ({"stream": -1}, "'stream'"),
        ({"stream": 0}, "'stream'"),
        ({"stream": "fast"}, "'stream'"),
        ({"restrict": "end"}, "'restrict'"),
        ({"restrict": []}, "'restrict'"),
        ({"restrict": [1]}, "'restrict'"),
        ({"seat": 2}, "'seat'"),
        ({"seat": True}, "'seat'"),
        ({"seat": "0"}, "'seat'"),
        ({"top": 0}, "'top'"),
        ({"top": 10**9}, "'top'"),
        ({"top": 2.0}, "'top'"),
        ({"iterations": 0}, "'iterations'"),
        ({"iterations": True}, "'iterations'"),
        ({"iterations": 10**12}, "'iterations'"),
        ({"time": 0}, "'time'"),
        ({"time": -2}, "'time'"),
        ({"time": 10**9}, "'time'"),
        ({"workers": 0}, "'workers'"),
        ({"workers": 10**6}, "'workers'"),
        ({"moves": "end"}, "'moves'"),
        ({"moves": [1, 2]}, "'moves'"),
        ({"record": "x.jsonl"}, "either 'record' or 'game'"),
    ],
)
def test_every_field_is_checked(fields, fragment):
    """Each bad field gets its own error, before the position is built (the
    position here is a chance node, which would be the error otherwise)."""
    answers = serve(query(**{"id": 7, "game": "anabasis", "moves": [], **fields}), FOLLOW_UP)
    assert_error_then_next_answered(answers, fragment, query_id=7)


@pytest.mark.parametrize("record", [5, "", "a\0b", "\ud800.jsonl", ["x"]])
def test_record_must_be_a_path(record):
    answers = serve(query(id=3, record=record), FOLLOW_UP)
    assert_error_then_next_answered(answers, "'record'", query_id=3)


def test_records_that_are_not_regular_files_get_error_answers(tmp_path):
    huge = tmp_path / "huge.jsonl"
    with open(huge, "wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # sparse: no disk used
    for path, fragment in (
        ("/dev/zero", "not a regular file"),
        (tmp_path, "folder"),
        (huge, "too large"),
    ):
        answers = serve(query(id=1, record=str(path)), FOLLOW_UP)
        assert_error_then_next_answered(answers, fragment, query_id=1)


def test_a_fifo_record_gets_an_error_answer(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    lines = query(id=1, record=str(fifo)) + b"\n" + FOLLOW_UP + b"\n"
    result = subprocess.run(
        [sys.executable, "-m", "xenophon.cli.main", "engine"],
        input=lines,
        capture_output=True,
        timeout=60,
    )
    answers = [json.loads(line) for line in result.stdout.decode("utf-8").splitlines()]
    assert_error_then_next_answered(answers, "not a regular file", query_id=1)


@pytest.mark.parametrize("seat", [1.0, 0.0, True, "1", None])
@pytest.mark.parametrize("command", ["analyse", "state", "legal_moves"])
def test_observations_need_a_whole_number_seat(command, seat):
    """A float seat equals 0 or 1 but reached the C core from a state or
    legal-moves query: an internal error."""
    fields = {"id": 2, "command": command, "game": "anabasis"}
    answers = serve(query(**fields, observations=["opponent draws a card"], seat=seat), FOLLOW_UP)
    assert_error_then_next_answered(answers, "'seat'", query_id=2)


def test_a_record_whose_view_is_not_a_whole_number_gets_an_error_answer(tmp_path):
    from xenophon.kernel.registry import make_game
    from xenophon.play.records import new_record, seat_view

    game = make_game("anabasis", seed=3)
    state = game.new_initial_state()
    record = new_record(game, ["?", "?"])
    for move in first_decision("anabasis"):
        record.add(state.current_player, state.apply(move).text)
    path = tmp_path / "view.jsonl"
    seat_view(record, game, 0).save(path)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["view"] = 0.0
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    for command in ("analyse", "state", "legal_moves"):
        answers = serve(query(id=1, command=command, record=str(path)), FOLLOW_UP)
        assert_error_then_next_answered(answers, "the header's 'view' must be", query_id=1)


def test_a_good_query_is_still_answered():
    moves = first_decision()
    answers = serve(query(id="q", game="hero", moves=moves, top=2, **QUICK))
    assert answers[0]["final"] and len(answers[0]["moves"]) <= 2


def test_an_unexpected_fault_is_answered_and_the_engine_goes_on(monkeypatch):
    def broken(query, out, stop=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(engine, "answer", broken)
    out = io.BytesIO()
    engine.serve(io.BytesIO(query(id=1) + b"\n" + query(id=2) + b"\n"), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["id"] for a in answers] == [1, 2]
    assert all(a["error"] == "internal error: RuntimeError: boom" for a in answers)


def test_answers_are_flushed_one_by_one_as_bytes():
    """A front end reads each answer before it sends the next query."""
    process = subprocess.Popen(
        [sys.executable, "-m", "xenophon.cli.main", "engine"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        process.stdin.write(b'{"id": "\xc3\xa9t\xc3\xa9", "game": "chess"}\n')
        process.stdin.flush()
        first = json.loads(process.stdout.readline().decode("utf-8"))
        assert first["id"] == "été" and "unknown game" in first["error"]
        process.stdin.write(b'{"command": "quit"}\n')
        process.stdin.close()
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()


def test_the_command_survives_every_bad_line():
    """The reproductions through `xenophon engine` itself: each line below
    used to end the engine or give an answer that is not UTF-8."""
    lines = [
        b'{"id": "\xff\xfe", "game": "anabasis"}',
        b'{"id": 1, "x": ' + b"[" * 1000 + b"]" * 1000 + b"}",
        b'{"id": "u\\ud800", "game": "chess"}',
        b'{"id": 4, "game": "anabasis", "options": {"seed": 1}}',
        b'{"id": 5, "game": "anabasis", "seat": "x"}',
        FOLLOW_UP,
    ]
    result = subprocess.run(
        [sys.executable, "-m", "xenophon.cli.main", "engine"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0 and not result.stderr, result.stderr
    answers = [json.loads(line.decode("utf-8")) for line in result.stdout.splitlines()]
    assert len(answers) == len(lines) and all("error" in answer for answer in answers)
    assert not any("internal error" in answer["error"] for answer in answers)
    assert answers[-1]["id"] == "next"


# -- order and cancel -----------------------------------------------------------
LONG = 50_000_000  # iterations no test waits for: only a cancel ends such a search


class EngineProcess:
    """`xenophon engine` in a process of its own: queries written when sent,
    answers collected as they come."""

    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "xenophon.cli.main", "engine"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.answers.put(json.loads(line))
        self.answers.put(None)  # the end of the output

    def send(self, *queries):
        for item in queries:
            self.process.stdin.write(item if isinstance(item, bytes) else query(**item))
            self.process.stdin.write(b"\n")
        self.process.stdin.flush()

    def next(self, count=1):
        return [self.answers.get(timeout=120) for _ in range(count)]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.process.kill()
        self.process.wait()


def analysis(query_id, iterations=LONG, **fields):
    return {
        "id": query_id,
        "game": "hero",
        "moves": first_decision(),
        "iterations": iterations,
        **fields,
    }


def test_answers_come_in_the_order_of_the_queries_and_a_cancel_acts_at_once():
    """A bad line behind a running analysis was answered at once, ahead of it;
    a cancel behind another query waited for the analysis to end (and then
    said it had cancelled nothing)."""
    state = {"id": "state", "command": "state", "game": "hero", "moves": first_decision()}
    with EngineProcess() as engine:
        engine.send(analysis("long"), b"not json", state, {"id": "stop", "command": "cancel"})
        long, bad, shown, stop = engine.next(4)
        engine.send({"command": "quit"})
        assert engine.next() == [None] and engine.process.wait(timeout=60) == 0
    assert long["id"] == "long" and long["final"] and long["cancelled"]
    assert 0 < long["iterations"] < LONG
    assert bad["id"] is None and "not valid JSON" in bad["error"]
    assert shown["id"] == "state" and shown["to_move"] == 0
    assert stop == {"id": "stop", "cancelled": True}


def test_a_cancel_stops_every_analysis_sent_before_it_and_no_later_one():
    with EngineProcess() as engine:
        engine.send(
            analysis("first"),
            analysis("queued"),
            {"id": "stop", "command": "cancel"},
            analysis("after", iterations=50),
        )
        first, queued, stop, after = engine.next(4)
    assert [first["id"], queued["id"], stop["id"], after["id"]] == [
        "first",
        "queued",
        "stop",
        "after",
    ]
    assert first["cancelled"] and queued["cancelled"] and queued["iterations"] < LONG
    assert stop["cancelled"] is True
    assert "cancelled" not in after and after["iterations"] == 50


def test_end_of_input_cancels_the_analyses_and_the_engine_ends():
    """At the end of its input the engine waited for a running analysis,
    up to its budget (3,600 s at most)."""
    with EngineProcess() as engine:
        engine.send(analysis("long"), analysis("queued"))
        engine.process.stdin.close()
        long, queued, end = engine.next(3)
        assert engine.process.wait(timeout=60) == 0
    assert long["id"] == "long" and long["cancelled"] and 0 < long["iterations"] < LONG
    assert queued["id"] == "queued" and queued["cancelled"]
    assert end is None


def test_quit_lets_the_analyses_before_it_finish():
    with EngineProcess() as engine:
        engine.send(analysis("a", iterations=3000), analysis("b", iterations=3000))
        engine.send({"command": "quit"})
        engine.process.stdin.close()
        a, b, end = engine.next(3)
        assert engine.process.wait(timeout=60) == 0
    assert a["iterations"] == b["iterations"] == 3000 and end is None
    assert "cancelled" not in a and "cancelled" not in b


def test_a_cancel_says_truly_whether_it_cancelled_an_analysis():
    """A cancel right after an analysis that failed said it had cancelled it."""
    with EngineProcess() as engine:
        engine.send(
            {"id": "failed", "game": "hero", "moves": [], "iterations": 10},
            {"id": "after failed", "command": "cancel"},
            {"id": "idle", "command": "cancel"},
            analysis("long"),
            {"id": "stop", "command": "cancel"},
            {"id": "again", "command": "cancel"},
            analysis("short", iterations=20),
            {"id": "after short", "command": "cancel"},
        )
        answers = engine.next(8)
    by_id = {answer["id"]: answer for answer in answers}
    assert [answer["id"] for answer in answers] == [
        "failed",
        "after failed",
        "idle",
        "long",
        "stop",
        "again",
        "short",
        "after short",
    ]
    assert "chance node" in by_id["failed"]["error"]
    assert by_id["after failed"]["cancelled"] is False and by_id["idle"]["cancelled"] is False
    assert by_id["long"]["cancelled"] and by_id["stop"]["cancelled"] is True
    assert by_id["again"]["cancelled"] is False  # the first cancel stopped it
    # a search whose budget was spent before the cancel came is whole
    assert by_id["short"]["iterations"] == 20 and "cancelled" not in by_id["short"]
    assert by_id["after short"]["cancelled"] is False

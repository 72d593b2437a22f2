"""A save that fails never loses the game (issue 46, finding 6): leaving
with `quit`, Ctrl-C or the end of the input when the game cannot be sealed
or written keeps it open and says where it could not be written and why;
asked again (or with no one left to ask), the game is written in full,
unsealed, beside its file or in the working folder, with a warning that the
file shows the AI's cards (docs/records.md, "When a save fails")."""

import os
import resource
import select
import subprocess
import sys
import time

import pytest

from xenophon.play.records import load_record

SEAT0 = ("play", "hero", "--seat", "0", "--level", "20", "--seed", "5")
#: a first move of SEAT0's game: a new game left before it is not saved
FIRST = "deploy Goblin Raider back\n"


def environment(home):
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_DATA_HOME": str(home)}


def xenophon(*args, input_text, home, cwd):
    return subprocess.run(
        [sys.executable, "-m", "xenophon.cli.main", *map(str, args)],
        input=input_text,
        capture_output=True,
        text=True,
        timeout=300,
        env=environment(home),
        cwd=cwd,
    )


def unwritable_data_folder(tmp_path):
    """A data folder that cannot be made (its name is taken by a file): no
    seal key can be made and no game written there, for root too."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "xenophon").write_text("not a folder\n")
    work = tmp_path / "work"
    work.mkdir()
    return home, work


def unsealed_files(folder):
    return sorted(folder.glob("hero-*-unsealed.jsonl"))


def resumes(path, tmp_path):
    """The saved file resumes in a working data folder, and is saved again there."""
    home = tmp_path / "elsewhere"
    home.mkdir(exist_ok=True)
    result = xenophon("play", "--resume", path, input_text="quit\n", home=home, cwd=home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Game saved to" in result.stdout
    return result


def test_quit_keeps_the_game_open_when_it_cannot_be_sealed(tmp_path):
    home, work = unwritable_data_folder(tmp_path)
    result = xenophon(*SEAT0, input_text=FIRST + "quit\nmoves\nquit\n", home=home, cwd=work)
    out = result.stdout
    assert "Traceback" not in out + result.stderr
    # the first quit: where and why, in one line, and the game stays open
    failed = out.index("Not saved: ")
    line = out[failed:].splitlines()[0]
    assert f"{home}/xenophon/seal.key" in line and "Not a directory" in line
    assert "The game stays open" in out
    assert "deploy" in out[failed:]  # 'moves' listed the legal moves after it
    # the second: the game written in full, unsealed, in the working folder
    [path] = unsealed_files(work)
    assert result.returncode == 1
    assert f"The game was written in full, unsealed, to {path}\n" in out
    assert "shows the AI's hidden cards" in " ".join(out.split())
    record = load_record(path)
    assert record.view is None and record.sealed is None and record.lines
    assert not any(line.get("hidden") for line in record.lines)
    resumes(path, tmp_path)


def test_end_of_input_writes_the_game_unsealed_when_it_cannot_be_sealed(tmp_path):
    """Input from a pipe that ends: no one is left to ask, so the game is
    written unsealed at once."""
    home, work = unwritable_data_folder(tmp_path)
    result = xenophon(*SEAT0, input_text="end\n", home=home, cwd=work)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "The game stays open" not in result.stdout
    [path] = unsealed_files(work)
    assert "shows the AI's hidden cards" in " ".join(result.stdout.split())
    moves = [(line["seat"], line["move"]) for line in load_record(path).lines]
    assert (0, "end") in moves  # the move made before the end
    resumes(path, tmp_path)


@pytest.mark.parametrize("first", ["", FIRST])
def test_a_save_that_fails_before_the_first_move_writes_no_other_file(tmp_path, first):
    """'save FILE' into a missing folder falls back to the game's own file
    once the human has moved; before that there is nothing to keep, and the
    fallback wrote a file that leaving then said was not written."""
    home = tmp_path / "home"
    home.mkdir()
    bad = tmp_path / "missing" / "game.jsonl"
    result = xenophon(*SEAT0, input_text=f"{first}save {bad}\nquit\n", home=home, cwd=tmp_path)
    out = result.stdout
    assert result.returncode == 0 and f"Not saved: {bad}" in out
    written = list((home / "xenophon" / "games").glob("*.jsonl"))
    if first:
        assert "it was saved to" in out and "Game saved to" in out and len(written) == 1
    else:
        assert "it was saved to" not in out and "Nothing was played" in out and not written


def test_a_working_save_is_sealed_as_before(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    result = xenophon(*SEAT0, input_text=FIRST + "quit\n", home=home, cwd=tmp_path)
    assert result.returncode == 0 and "Game saved to" in result.stdout
    assert "Not saved" not in result.stdout and not unsealed_files(tmp_path)
    [path] = (home / "xenophon" / "games").glob("*.jsonl")
    assert load_record(path).sealed.startswith("xs2:")


def _no_file_may_grow():
    # the soft limit only: the test raises it again from outside (prlimit)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


def read_until(stream, text, timeout=300):
    """What a child printed, once `text` is in it."""
    got, deadline = b"", time.monotonic() + timeout
    while text.encode() not in got:
        assert time.monotonic() < deadline, f"{text!r} never came: {got[-2000:]!r}"
        ready, _, _ = select.select([stream], [], [], 0.2)
        if ready:
            chunk = os.read(stream.fileno(), 65536)
            assert chunk, f"the output ended before {text!r}: {got[-2000:]!r}"
            got += chunk
    return got.decode()


@pytest.mark.skipif(not hasattr(resource, "prlimit"), reason="needs prlimit (Linux)")
def test_quit_under_a_file_size_limit_keeps_the_game_until_it_can_be_saved(tmp_path):
    """The first seal under RLIMIT_FSIZE=0 (no key can be made, no file
    written): quit keeps the game open; once files may grow again, quit
    saves it, sealed, and it resumes."""
    home = tmp_path / "home"
    home.mkdir()
    child = subprocess.Popen(
        [sys.executable, "-m", "xenophon.cli.main", *SEAT0],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=environment(home),
        cwd=tmp_path,
        preexec_fn=_no_file_may_grow,
    )
    try:
        read_until(child.stdout, "your move> ")
        child.stdin.write(FIRST.encode())
        child.stdin.flush()
        read_until(child.stdout, "your move> ")
        child.stdin.write(b"quit\n")
        child.stdin.flush()
        out = read_until(child.stdout, "your move> ")
        line = out[out.index("Not saved: ") :].splitlines()[0]
        assert "seal.key" in line and "File too large" in line
        assert "The game stays open" in out
        assert not (home / "xenophon" / "seal.key").exists()
        # the disk has room again (say, the player freed some)
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        resource.prlimit(child.pid, resource.RLIMIT_FSIZE, (hard, hard))
        rest, _ = child.communicate(b"quit\n", timeout=300)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, rest.decode()
    [path] = (home / "xenophon" / "games").glob("*.jsonl")
    assert f"Game saved to {path}" in rest.decode()
    assert load_record(path).sealed.startswith("xs2:")
    assert not unsealed_files(tmp_path) and not unsealed_files(home)


def test_end_of_input_on_a_terminal_keeps_the_game_open(tmp_path, monkeypatch):
    """Ctrl-D at the prompt of a terminal is a request to leave like quit:
    the game stays open when it cannot be saved."""
    from test_play_cli import Terminal

    home, work = unwritable_data_folder(tmp_path)
    monkeypatch.chdir(work)  # the terminal's working folder
    term = Terminal(*SEAT0, home=home)
    try:
        term.read_until("your move> ")
        term.send(FIRST)
        term.read_until("your move> ", count=2)
        term.send("\x04")
        out = term.read_until("your move> ", count=3)
        assert "Not saved: " in out and "The game stays open" in out
        term.send("quit\n")
        term.process.wait(timeout=300)
        out = term.read_until("Resume it with")
    finally:
        term.close()
    [path] = unsealed_files(work)
    assert "shows the AI's hidden cards" in " ".join(out.split())
    resumes(path, tmp_path)

"""The seal of a saved game in progress (docs/records.md, "Saved games in
progress"): bound to its own file's header and visible lines, of a length
that tells nothing hidden, under a key file that is made whole or not at all
and refused when others could read it."""

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli
from xenophon.kernel import seal as sealing
from xenophon.kernel.errors import XenophonError
from xenophon.play.records import load_record, open_sealed

LEGACY = Path(__file__).parent / "data" / "legacy-seal"


def xenophon(*args, input_text=None, home=None, timeout=300):
    """The command with nothing of this environment but a PATH: the key is
    found from HOME and XDG_DATA_HOME alone."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_DATA_HOME": str(home)}
    return run_cli(*args, input_text=input_text, env=env, timeout=timeout)


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """XDG_DATA_HOME for this test: the key lives in tmp_path/xenophon."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    return tmp_path


#: a game saved after its first move (one left before it leaves no file)
FIRST_MOVE = "end\nquit\n"


def saved_game(home, seed, script="end\npass\n" * 3 + "quit\n"):
    """A hero game played at the terminal from `seed`, then saved by quit."""
    played = xenophon(
        "play", "hero", "--seat", "0", "--level", "20", "--seed", seed, input_text=script, home=home
    )
    assert played.returncode == 0, played.stderr
    return sorted(
        (home / "xenophon" / "games").glob("*.jsonl"), key=lambda path: path.stat().st_mtime_ns
    )[-1]


def rows_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_rows(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_an_edited_header_is_refused(tmp_path):
    """Swapping the seats in the plain header would resume the game with the
    human in the AI's seat, shown the AI's hand: the seal binds the header."""
    path = saved_game(tmp_path, 1)
    rows = rows_of(path)
    rows[0]["seats"] = rows[0]["seats"][::-1]
    rows[0]["view"] = 1 - rows[0]["view"]
    write_rows(path, rows)
    result = xenophon("play", "--resume", path, input_text="quit\n", home=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "sealed part was changed" in result.stderr


def test_an_edited_visible_line_is_refused(tmp_path):
    path = saved_game(tmp_path, 2)
    rows = rows_of(path)
    index = next(i for i, row in enumerate(rows) if i and row.get("move") == "end")
    rows[index]["move"] = "pass"
    write_rows(path, rows)
    result = xenophon("play", "--resume", path, input_text="quit\n", home=tmp_path)
    assert result.returncode == 2 and "sealed part was changed" in result.stderr


def test_another_saves_seal_is_refused(tmp_path):
    """The sealed part of another save with the same number of lines does
    not resume this file (with the other game's chance)."""
    # two games of different deals with as many lines (how many the AI's
    # turn writes depends on the deal and on the AI)
    by_length: dict[int, Path] = {}
    for seed in range(3, 16):
        path = saved_game(tmp_path, seed, FIRST_MOVE)
        first = by_length.setdefault(len(rows_of(path)), path)
        if first != path:
            break
    rows, other = rows_of(first), rows_of(path)
    assert len(rows) == len(other) and rows[1:] != other[1:]
    rows[0]["sealed"] = other[0]["sealed"]
    write_rows(first, rows)
    result = xenophon("play", "--resume", first, input_text="quit\n", home=tmp_path)
    assert result.returncode == 2 and "sealed part was changed" in result.stderr


def test_seal_length_is_a_size_class(data_home):
    """The sealed text's length depends only on the size class of the
    compressed payload, not on what the payload holds."""
    small = sealing.seal(b"a" * 10, b"header")
    varied = sealing.seal(os.urandom(600), b"header")
    assert len(small) == len(varied)
    assert len(sealing.seal(os.urandom(1500), b"header")) > len(small)
    for size in (0, 1, 1019, 1020, 1021, 5000):
        payload = os.urandom(size)
        assert sealing.unseal(sealing.seal(payload, b"h"), b"h") == payload


def test_saves_of_different_deals_seal_to_one_length(tmp_path):
    """Saves at the same point of games with other hidden cards: one length."""
    lengths = {len(rows_of(saved_game(tmp_path, seed))[0]["sealed"]) for seed in (5, 6, 7, 8)}
    assert len(lengths) == 1


def test_wrong_associated_data_is_refused(data_home):
    sealed = sealing.seal(b"payload", b"this file")
    with pytest.raises(sealing.SealError, match="sealed part was changed"):
        sealing.unseal(sealed, b"another file")


def test_the_key_file_is_private_and_whole(data_home):
    sealing.seal(b"x", b"")
    key = sealing.key_path()
    assert key.stat().st_mode & 0o777 == 0o600
    assert key.parent.stat().st_mode & 0o777 == 0o700
    assert sorted(path.name for path in key.parent.iterdir()) == ["seal.key", "seal.keys"]
    history = (key.parent / "seal.keys").lstat()
    assert history.st_mode & 0o777 == 0o600


def test_a_key_others_can_read_is_refused(data_home):
    sealed = sealing.seal(b"x", b"")
    sealing.key_path().chmod(0o644)
    with pytest.raises(sealing.SealError, match="can be read by others"):
        sealing.unseal(sealed, b"")
    with pytest.raises(sealing.SealError, match="can be read by others"):
        sealing.seal(b"x", b"")


def test_a_symlinked_key_is_refused(data_home, tmp_path):
    sealing.seal(b"x", b"")
    key = sealing.key_path()
    elsewhere = tmp_path / "elsewhere.key"
    shutil.move(key, elsewhere)
    key.symlink_to(elsewhere)
    with pytest.raises(sealing.SealError, match="symbolic link"):
        sealing.seal(b"x", b"")


def test_a_replaced_key_is_named(data_home):
    """A save sealed under this machine's key, since deleted and replaced by
    a new one, says so with both key ids (not "another machine")."""
    sealed = sealing.seal(b"x", b"")
    old_id = sealing.key_id(sealing.key_path().read_bytes()).hex()
    sealing.key_path().unlink()
    sealing.seal(b"y", b"")  # a new key
    new_id = sealing.key_id(sealing.key_path().read_bytes()).hex()
    with pytest.raises(sealing.SealError) as raised:
        sealing.unseal(sealed, b"")
    message = str(raised.value)
    assert f"sealed with this machine's earlier key (key {old_id}, known here since " in message
    assert f"replaced since by key {new_id}" in message
    assert "another machine" not in message


def test_a_deleted_key_is_told_apart_from_another_machine(data_home, tmp_path, monkeypatch):
    """The key ids this data folder has had are kept (seal.keys), so a save
    whose key was deleted here, one whose key was replaced here and one
    sealed on another machine each get their own message."""
    here = sealing.seal(b"x", b"")
    here_id = sealing.key_id(sealing.key_path().read_bytes()).hex()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "other machine"))
    there = sealing.seal(b"x", b"")
    there_id = sealing.key_id(sealing.key_path().read_bytes()).hex()
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))
    with pytest.raises(sealing.SealError, match=f"sealed with another key \\(key {there_id}"):
        sealing.unseal(there, b"")
    with pytest.raises(sealing.SealError, match="has no record of that key: sealed on another"):
        sealing.unseal(there, b"")
    sealing.key_path().unlink()
    with pytest.raises(sealing.SealError) as deleted:
        sealing.unseal(here, b"")
    assert f"sealed with this machine's key {here_id}" in str(deleted.value)
    assert "has been deleted" in str(deleted.value)
    with pytest.raises(sealing.SealError, match="is not on this machine") as elsewhere:
        sealing.unseal(there, b"")
    assert there_id in str(elsewhere.value) and "has been deleted" not in str(elsewhere.value)


def test_resuming_after_the_key_was_replaced_says_so(tmp_path):
    """At the command line: a game saved, the key deleted, another game
    played (a new key is made): the first game's resume names the change."""
    first = saved_game(tmp_path, 3, FIRST_MOVE)
    (tmp_path / "xenophon" / "seal.key").unlink()
    saved_game(tmp_path, 4, FIRST_MOVE)
    resumed = xenophon("play", "--resume", first, input_text="quit\n", home=tmp_path)
    assert resumed.returncode == 2 and "Traceback" not in resumed.stderr
    assert "sealed with this machine's earlier key" in resumed.stderr
    assert "another machine" not in resumed.stderr


def _seal_without_room(home: str) -> None:
    """In a child process: a first seal where no file may grow."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    os.environ["XDG_DATA_HOME"] = home
    try:
        sealing.seal(b"x", b"")
    except XenophonError as error:
        print(error)
        sys.exit(3)


def test_a_key_that_cannot_be_written_leaves_no_key_file(tmp_path):
    """A key write that fails (a full disk, RLIMIT_FSIZE=0) leaves no empty
    key file behind: the next save makes a whole key and works."""
    here, folder = str(Path(__file__).parent), str(tmp_path)
    code = (
        "import signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
        f"sys.path.insert(0, {here!r}); import test_seal; "
        f"test_seal._seal_without_room({folder!r})"
    )
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert child.returncode == 3 and "cannot use the seal key" in child.stdout, child.stderr
    assert not (tmp_path / "xenophon" / "seal.key").exists()
    os.environ["XDG_DATA_HOME"] = str(tmp_path)
    try:
        assert sealing.unseal(sealing.seal(b"x", b""), b"") == b"x"
    finally:
        del os.environ["XDG_DATA_HOME"]


def test_keys_made_at_once_are_one_key(tmp_path):
    """Two processes sealing for the first time at once end with one key,
    and each can open the other's seal."""
    code = (
        "import os, sys; os.environ['XDG_DATA_HOME'] = sys.argv[1]; "
        "from xenophon.kernel import seal; print(seal.seal(b'x', b''))"
    )
    children = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    seals = [child.communicate()[0].strip() for child in children]
    os.environ["XDG_DATA_HOME"] = str(tmp_path)
    try:
        assert all(sealing.unseal(text, b"") == b"x" for text in seals)
    finally:
        del os.environ["XDG_DATA_HOME"]


def test_a_save_of_the_first_format_still_opens(data_home):
    """Saves sealed before the xs2 format (xs1) resume."""
    folder = data_home / "xenophon"
    folder.mkdir(mode=0o700)
    shutil.copy(LEGACY / "seal.key", folder / "seal.key")
    (folder / "seal.key").chmod(0o600)
    saved = load_record(LEGACY / "hero-save.jsonl")
    assert saved.sealed.startswith("xs1:")
    full, secrets = open_sealed(saved)
    assert len(full.lines) == len(saved.lines) and len(secrets["chance_key"]) == 64


def test_export_as_the_other_seat_needs_full(tmp_path):
    """A saved game in progress exported as the AI's seat would print the
    AI's draws: refused, as only --full unseals on purpose."""
    path = saved_game(tmp_path, 9, FIRST_MOVE)
    human = rows_of(path)[0]["view"]
    refused = xenophon(
        "export", path, "--as", 1 - human, "--out", tmp_path / "ai.jsonl", home=tmp_path
    )
    assert refused.returncode == 2 and "--full unseals it on purpose" in refused.stderr
    assert not (tmp_path / "ai.jsonl").exists()
    own = xenophon("export", path, "--as", human, "--out", tmp_path / "own.jsonl", home=tmp_path)
    assert own.returncode == 0, own.stderr

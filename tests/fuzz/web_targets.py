"""`web_message`: any bytes as the messages one page sends `xenophon serve`,
carried out as the server carries them out (xenophon.web.server.Connection:
`carry_out` per message, in order, then the page closes), without a network.

The input is split at newlines into at most MAX_MESSAGES messages; one that
is valid UTF-8 is a text frame, any other a binary frame (a browser sends no
invalid UTF-8 as text, and aiohttp would close the socket on it). What must
hold, message by message:

- it gets at least one answer, and every answer is a JSON object with a
  `type` (encodable without NaN or Infinity, which no browser parses);
- a bad message gets one `error`, the last of its answers, whose message is
  one printable line (`sample.check_message`) and no internal error;
- no answer holds the game's chance key;
- a finished game is saved (`over` without an error); a game in progress
  its human has moved in when the page closes is saved and the page told
  where (`saved`); one the human has not moved in leaves no file and is
  told nothing (docs/web.md, "Saving").

The AI, hints and reviews search as a TinyBot (`budgets.py`) whatever level
or iterations are asked; the data folder has the fixed seal key, and the
page's saves are written in a scratch folder only (`saves.sandbox`). A
message over the server's size limit ends the input (the server answers
it with one error and closes the socket before reading it).
"""

from __future__ import annotations

import json
from typing import Any

from xenophon.play import records
from xenophon.web import play
from xenophon.web.play import MAX_MESSAGE_BYTES
from xenophon.web.server import Connection

from . import record_targets, sample, saves
from .budgets import TinyBot, tiny_bot_for_level

MAX_MESSAGES = 8
Message = dict[str, Any]


class WebFinding(AssertionError):
    """Answers that break what a page is promised (the message says which)."""


class NoLoop:
    """The event loop a Connection sends through: here the observer keeps
    every message, so nothing need be queued."""

    def call_soon_threadsafe(self, *_: Any) -> None:
        pass


def frames(data: bytes) -> list[str | None]:
    """The input as messages: text, or None for a binary frame."""
    found: list[str | None] = []
    for piece in data.split(b"\n")[:MAX_MESSAGES]:
        if len(piece) > MAX_MESSAGE_BYTES:
            break
        try:
            found.append(piece.decode("utf-8"))
        except UnicodeDecodeError:
            found.append(None)
    return found


def check_answer(message: Any) -> None:
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise WebFinding(f"an answer that is not an object with a type: {message!r:.300}")
    try:
        json.dumps(message, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise WebFinding(f"a {message['type']} answer is not JSON ({error})") from None


def check_answers(answers: list[Message], secret: str | None) -> None:
    """The answers to one message."""
    if not answers:
        raise WebFinding("a message got no answer")
    for message in answers:
        check_answer(message)
        if secret is not None and secret in json.dumps(message):
            raise WebFinding(f"a {message['type']} answer holds the chance key")
        if message["type"] == "over" and message.get("error"):
            raise WebFinding(f"a finished game was not saved: {message['error']}")
    errors = [message for message in answers if message["type"] == "error"]
    if errors and (len(errors) > 1 or answers[-1] is not errors[0]):
        raise WebFinding(f"{len(errors)} errors for one message, or answers after one")
    if errors:
        text = errors[0].get("message")
        if not isinstance(text, str) or text.startswith("internal error"):
            raise WebFinding(f"error answer {text!r:.1000}")
        sample.check_message(Exception(text))


def in_progress(connection: Connection) -> bool:
    """A game that leaving must save: in progress, and its human has moved."""
    game = connection.game
    return (
        game is not None
        and game.session.to_move() != "over"
        and game.moved
        and bool(game.session.record.lines)
    )


def unmoved(connection: Connection) -> bool:
    """A game in progress its human has not moved in: leaving saves nothing."""
    game = connection.game
    return game is not None and game.session.to_move() != "over" and not game.moved


def chance_key(connection: Connection) -> str | None:
    return connection.game.session.chance.key.hex() if connection.game is not None else None


def check_leaving(answers: list[Message], had_game: bool, untouched: bool = False) -> None:
    """What the page is told as it closes: where its game in progress went
    (nothing, for a game its human has not moved in)."""
    for message in answers:
        check_answer(message)
    saved = [message for message in answers if message["type"] == "saved"]
    if had_game and not any(message.get("path") for message in saved):
        raise WebFinding(f"a game in progress was left unsaved: {answers!r:.1000}")
    if untouched and saved:
        raise WebFinding(f"a game its human never moved in was saved: {answers!r:.1000}")


def converse(messages: list[str | None]) -> list[list[Message]]:
    """Carries out the messages of one page, then closes it: the answers to
    each, and last what the page was sent as it closed (checked as they come)."""
    sent: list[Message] = []
    connection = Connection(None, NoLoop(), observer=lambda message, _: sent.append(message))  # type: ignore[arg-type]
    answered = []
    for number, text in enumerate(messages, start=1):
        before, connection.received = len(sent), number
        connection.carry_out(text, number)
        check_answers(sent[before:], chance_key(connection))
        answered.append(sent[before:])
    before, had_game, untouched = len(sent), in_progress(connection), unmoved(connection)
    connection.searches.stop()
    connection.leave_game()
    check_leaving(sent[before:], had_game, untouched)
    return answered + [sent[before:]]


def run_page(messages: list[str | None]) -> list[list[Message]]:
    """`converse` with the searches cut and the files kept in the sandbox."""
    with (
        saves.sandbox(sample.scratch("page")),
        sample.patched(play, "bot_for_level", tiny_bot_for_level),
        sample.patched(play, "ISMCTSBot", TinyBot),
        sample.patched(records, "RESAMPLE_TRIES", record_targets.RESAMPLE_TRIES),
    ):
        return converse(messages)


def web_target(data: bytes) -> None:
    run_page(frames(data))


# -- seeds: the messages of real games ------------------------------------------
def request(**fields: Any) -> str:
    return json.dumps(fields)


def played_on(messages: list[str], choose: int) -> list[str]:
    """`messages`, then a move: the `choose`-th legal move (modulo their
    number) of the last position the page was sent."""
    answers = run_page(messages)
    positions = [m for answer in answers for m in answer if m["type"] == "position"]
    legal = positions[-1]["legal"]
    return messages + [request(type="move", move=legal[choose % len(legal)]["text"])]


def game_seed(name: str, options: dict[str, str]) -> list[str]:
    """A game as a page plays it: new game, moves, a hint, undo, save."""
    messages = [request(type="new", game=name, seat="0", level="easy", seed="5", **options)]
    for choose in (0, 3):
        messages = played_on(messages, choose)
    messages += [request(type="hint"), request(type="undo")]
    messages = played_on(messages, 1)
    return messages + [request(type="save")]


def resume_seed(name: str) -> list[str]:
    """A saved game resumed by its path, a move, a save under a name."""
    messages = [request(type="resume", path=str(saves.stable_save_file(name)), level="")]
    return played_on(messages, 2) + [request(type="save", path="page-save.jsonl")]


def review_seed(name: str) -> list[str]:
    """A record reviewed as uploaded text, then by its path as the other seat."""
    path = record_targets.stable_record_file(name)
    return [
        request(type="review", text=path.read_text(), name="game.jsonl", seat="", iterations="4"),
        request(type="review", path=str(path), seat="1", iterations=3),
    ]


GAME_OPTIONS = {"anabasis": {"mode": "expert"}, "hero": {"decks": "wild_grove+crimson_conqueror"}}


def web_seeds() -> list[bytes]:
    seeds = []
    for name in sample.GAMES:
        for options in ({}, GAME_OPTIONS.get(name, {})):
            seeds.append(game_seed(name, options))
        seeds += [resume_seed(name), review_seed(name)]
    seeds.append([request(type="new", game="chess"), "not json", request(type="move", move="end")])
    return ["\n".join(m for m in messages).encode("utf-8") for messages in seeds] + [
        b'{"type": "hint"}\n\xff\xfe binary'
    ]


TARGETS = {"web_message": web_target}
SEEDS = {"web_message": web_seeds}

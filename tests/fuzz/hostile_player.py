"""A player program that behaves as its script says: the child of the
`hostile_player` fuzz target (player_targets.py), run as

    python -I -S hostile_player.py SCRIPT_HEX PIDS_FILE

The script is pairs of bytes (operation, argument). An operation that
answers (valid, late, illegal) answers the message read last and reads the
next; the others (random bytes, blank lines, a partial or huge line, a fork,
standard error, an exit, a signal, a hang, closing its output) are done in
turn before it. When the script runs out, every message gets a valid
answer. Every process it starts appends its pid to PIDS_FILE first.
"""

import json
import os
import random
import signal
import sys
import time

(
    VALID,
    RANDOM,
    BLANKS,
    PARTIAL,
    HUGE,
    LATE,
    FORK,
    STDERR,
    EXIT,
    SIGNAL,
    HANG,
    CLOSE,
    ILLEGAL,
    STAY,
) = range(14)
OPERATIONS = 14
SIGNALS = (signal.SIGKILL, signal.SIGSEGV, signal.SIGTERM, signal.SIGABRT)


def note_pid(pids: str) -> None:
    with open(pids, "a") as out:
        out.write(f"{os.getpid()}\n")


def write(data: bytes, fd: int = 1) -> None:
    while data:
        data = data[os.write(fd, data) :]


def valid(message: dict, argument: int) -> dict | None:
    kind = message.get("type")
    if kind == "start":
        return {"type": "ready", "protocol": 2}
    if kind == "move":
        moves = message["legal_moves"]
        return {"move": moves[argument % len(moves)]}
    return None


def illegal(argument: int) -> bytes:
    lines = [b'{"move": "no such move"}', b"[1, 2]", b'{"move": 7}', b'"move"', b"{}"]
    return lines[argument % len(lines)] + b"\n"


def fork(argument: int, pids: str) -> None:
    """A child that sleeps, holding the pipes (0), or a daemon in a session
    of its own whose parent is gone, letting go of the pipes (1) or not (2)."""
    if os.fork():
        return
    if argument % 3:
        os.setsid()
        if os.fork():
            os._exit(0)
        if argument % 3 == 1:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
    note_pid(pids)
    time.sleep(600)
    os._exit(0)


def act(operation: int, argument: int, pids: str) -> None:
    """Does one operation that answers nothing."""
    if operation == RANDOM:
        data = random.Random(argument).randbytes(argument * 4 + 1)
        write(data + (b"\n" if argument % 2 else b""))
    elif operation == BLANKS:
        while argument == 255:
            write(b"\n" * 65536)
        write(b"\n" * (argument * 100))
    elif operation == PARTIAL:
        write(b'{"move": "' * (argument % 8 + 1))
        time.sleep(argument / 2000)
    elif operation == HUGE:
        write(b"a" * ((1 << 20) + argument) + b"\n")
    elif operation == FORK:
        fork(argument, pids)
    elif operation == STDERR:
        write(b"e" * (argument * 4096) + b"\nthe last line\n", 2)
    elif operation == EXIT:
        write(b"leaving\n", 2)
        os._exit(argument)
    elif operation == SIGNAL:
        os.kill(os.getpid(), SIGNALS[argument % len(SIGNALS)])
    elif operation == HANG:
        time.sleep(600)
    elif operation == CLOSE:
        os.close(1)
        time.sleep(argument / 1000)


def main(script: bytes, pids: str) -> None:
    note_pid(pids)
    steps = [(script[i] % OPERATIONS, script[i + 1]) for i in range(0, len(script) - 1, 2)]
    stay = any(operation == STAY for operation, _ in steps)
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        message = json.loads(line)
        while True:
            operation, argument = steps.pop(0) if steps else (VALID, 0)
            if operation in (VALID, LATE, ILLEGAL):
                break
            act(operation, argument, pids)
        if operation == LATE:
            time.sleep(0.05 + argument / 1000)
        reply = valid(message, argument)
        if reply is None:
            break  # the game is over
        write(illegal(argument) if operation == ILLEGAL else json.dumps(reply).encode() + b"\n")
    while stay:  # a program that does not leave when the game ends
        time.sleep(600)


if __name__ == "__main__":
    main(bytes.fromhex(sys.argv[1]), sys.argv[2])

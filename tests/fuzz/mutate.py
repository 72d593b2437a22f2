"""Mutational input generation: seed inputs changed by a stack of byte- and
token-level edits (flips, interesting tokens, deletions, duplications,
truncation, splicing with another seed, line swaps).

Input number `i` of a run depends only on the seeds, the run's seed and `i`
(`Mutator.input(i)`), so any input can be made again from its number and a
run can be resumed or split between processes without sharing state.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Sequence

#: tokens that break parsers: numbers at type limits, brackets and quotes,
#: escapes, control characters, invalid UTF-8 (a lone byte, a surrogate, a
#: truncated sequence), characters whose case or digit value surprises
#: (superscript two, Arabic-Indic three, fullwidth one, dotted I, Kelvin sign,
#: sharp s, right-to-left override), and paths that are not regular files
INTERESTING = (
    b"0",
    b"-0",
    b"1",
    b"-1",
    b"2",
    b"3",
    b"6",
    b"7",
    b"63",
    b"64",
    b"99",
    b"100",
    b"255",
    b"256",
    b"4096",
    b"65535",
    b"65536",
    b"2147483647",
    b"2147483648",
    b"-2147483649",
    b"4294967296",
    b"9223372036854775807",
    b"18446744073709551616",
    b"1e309",
    b"0.5",
    b"1.0",
    b"-1e-9",
    b"NaN",
    b"nan",
    b"inf",
    b"-inf",
    b"Infinity",
    b"0x10",
    b"1_000",
    b"9" * 5000,
    b"true",
    b"false",
    b"null",
    b"[]",
    b"{}",
    b'""',
    b"''",
    b'"',
    b"'",
    b'"""',
    b"'''",
    b"[",
    b"]",
    b"[[",
    b"]]",
    b"{",
    b"}",
    b"(",
    b")",
    b",",
    b"=",
    b":",
    b">",
    b"-",
    b"x",
    b".",
    b"#",
    b"\\",
    b"\\u0000",
    b"\\ud800",
    b"\\udfff",
    b"\\x",
    b"\x00",
    b"\n",
    b"\r",
    b"\r\n",
    b"\t",
    b"\x0b",
    b" ",
    b"\xff",
    b"\xfe",
    b"\x80",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xef\xbb\xbf",
    b"\xc2\xb2",
    b"\xd9\xa3",
    b"\xef\xbc\x91",
    b"\xc4\xb0",
    b"\xe2\x84\xaa",
    b"\xc3\x9f",
    b"\xe2\x80\xae",
    b"/dev/zero",
    b"/dev/null",
    b"/dev/stdin",
    b"/tmp",
    b".",
    b"..",
    b"/",
)
INTERESTING_BYTES = (
    0,
    1,
    0x7F,
    0x80,
    0xFF,
    0xC0,
    0xED,
    ord('"'),
    ord("'"),
    ord("["),
    ord("]"),
    ord("{"),
    ord("}"),
    ord("\\"),
    ord("\n"),
    ord(" "),
    ord("0"),
    ord("9"),
    ord("-"),
)
WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_.']*|-?\d+(?:\.\d+)?")
DICTIONARY_SIZE = 400
MAX_STACK = 8
MAX_INPUT = 1 << 20  # no input made is longer (the driver shares a buffer this size)


def dictionary(seeds: Sequence[bytes], size: int = DICTIONARY_SIZE) -> tuple[bytes, ...]:
    """The commonest words and numbers of the seeds: keywords, card names,
    field names, move words."""
    counts = Counter(word for seed in seeds for word in WORD.findall(seed))
    return tuple(word for word, _ in counts.most_common(size))


Edit = Callable[["Mutator", bytearray, random.Random], bytearray]


def _point(data: bytearray, rng: random.Random) -> int:
    return rng.randint(0, len(data))


def _span(data: bytearray, rng: random.Random) -> tuple[int, int]:
    start = rng.randint(0, len(data))
    return start, min(len(data), start + 1 + int(rng.expovariate(1 / 8)))


def flip_bit(m: Mutator, data: bytearray, rng: random.Random) -> bytearray:
    if data:
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return data


def set_byte(m: Mutator, data: bytearray, rng: random.Random) -> bytearray:
    if data:
        value = rng.choice(INTERESTING_BYTES) if rng.random() < 0.5 else rng.randrange(256)
        data[rng.randrange(len(data))] = value
    return data


def insert_token(m: Mutator, data: bytearray, rng: random.Random) -> bytearray:
    at = _point(data, rng)
    data[at:at] = m.token(rng)
    return data


def replace_word(m: Mutator, data: bytearray, rng: random.Random) -> bytearray:
    words = list(WORD.finditer(data))
    if not words:
        return insert_token(m, data, rng)
    word = rng.choice(words)
    data[word.start() : word.end()] = m.token(rng)
    return data


def repeat_token(m: Mutator, data: bytearray, rng: random.Random) -> bytearray:
    """A token many times over: deep nesting, long names, long lines."""
    at = _point(data, rng)
    data[at:at] = m.token(rng)[:16] * rng.choice((2, 3, 10, 100, 1000, 3000))
    return data


def delete_span(m: Mutator, data: bytearray, rng: random.Random) -> bytearray:
    start, end = _span(data, rng)
    del data[start:end]
    return data


def duplicate_span(m: Mutator, data: bytearray, rng: random.Random) -> bytearray:
    start, end = _span(data, rng)
    at = _point(data, rng)
    data[at:at] = data[start:end]
    return data


def truncate(m: Mutator, data: bytearray, rng: random.Random) -> bytearray:
    return data[: _point(data, rng)]


def splice(m: Mutator, data: bytearray, rng: random.Random) -> bytearray:
    """The start of this input and the end of another seed."""
    other = rng.choice(m.seeds)
    return data[: _point(data, rng)] + other[rng.randint(0, len(other)) :]


def insert_chunk(m: Mutator, data: bytearray, rng: random.Random) -> bytearray:
    other = bytearray(rng.choice(m.seeds))
    start, end = _span(other, rng)
    at = _point(data, rng)
    data[at:at] = other[start:end]
    return data


def shuffle_lines(m: Mutator, data: bytearray, rng: random.Random) -> bytearray:
    """Deletes, duplicates or swaps whole lines (records, TOML tables)."""
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    choice = rng.randrange(3)
    if choice == 0:
        del lines[i]
    elif choice == 1:
        lines.insert(j, lines[i])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return bytearray(b"\n".join(lines))


EDITS: tuple[Edit, ...] = (
    flip_bit,
    set_byte,
    set_byte,
    insert_token,
    insert_token,
    replace_word,
    replace_word,
    replace_word,
    repeat_token,
    delete_span,
    delete_span,
    duplicate_span,
    truncate,
    splice,
    insert_chunk,
    shuffle_lines,
)


class Mutator:
    """Makes input number `i` of a run from the seeds and the run's seed."""

    def __init__(self, seeds: Sequence[bytes], seed: int = 0, max_len: int | None = None):
        self.seeds = [bytes(s) for s in seeds] or [b""]
        self.seed = seed
        self.words = dictionary(self.seeds)
        self.max_len = min(MAX_INPUT, max_len or max(1 << 16, 2 * max(map(len, self.seeds))))

    def token(self, rng: random.Random) -> bytes:
        if self.words and rng.random() < 0.5:
            return rng.choice(self.words)
        return rng.choice(INTERESTING)

    def input(self, index: int) -> bytes:
        rng = random.Random(f"{self.seed}/{index}")
        base = self.seeds[index % len(self.seeds)]
        if index < len(self.seeds):
            return base  # every seed once, as it is, first
        data = bytearray(base)
        for _ in range(1 + min(MAX_STACK - 1, int(rng.expovariate(1 / 1.5)))):
            data = rng.choice(EDITS)(self, data, rng)
            if len(data) > self.max_len:
                data = data[: self.max_len]
        return bytes(data)

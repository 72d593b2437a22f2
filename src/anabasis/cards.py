"""Anabasis card data: loading and validating a card file (TOML).

A card file defines patterns, characters, territories, events and field cards
(RULES.md A12 is the reference set, shipped as ``data/anabasis/cards.toml``).
Card ids follow the order of the file: characters, then territories, then
events; field cards are numbered on their own. Both the C core and the
pure-Python oracle are driven by the :class:`CardSet` this module returns, so
adding or changing a card needs no recompilation.

>>> cards = load_card_set()
>>> cards.by_name("archer").attack.name
'ARC2'
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from xenophon.errors import CardFileError
from xenophon.names import find_by_name, read_toml

KEYWORDS = frozenset({"ARMORED", "CHARGE", "SIEGE", "COMMAND"})
EVENT_EFFECTS = {
    # effect -> (timing, needs an amount)
    "flood": ("own-turn", True),
    "evasion": ("response", False),
    "nullify": ("response", False),
    "rally": ("own-turn", True),
    "forced_march": ("own-turn", True),
    "windfall": ("own-turn", True),
    "ambush": ("response", False),
    "fortify": ("response", False),
    "sabotage": ("own-turn", True),
}
FIELD_EFFECTS = frozenset({"hit", "income_funds", "move_cost", "price", "attack_cost"})
PILES = ("A", "B", "C")
MAX_CARD_TYPES = 48       # action codes hold a card id in 6 bits; the C tables are sized for 48
MAX_FIELD_CARDS = 16
MAX_PATTERN_SIZE = 13     # offsets beyond +-6 cannot reach any square of a 7 x 6 grid
SQUARE_NAME = re.compile(r"^[a-g][1-6]$", re.IGNORECASE)


@dataclass(frozen=True)
class Pattern:
    """A movement or attack diagram as (file offset, rank offset) jumps for seat 0.

    A positive rank offset is forward (towards rank 6); seat 1 uses the
    negated offsets (the diagram turned by 180 degrees).
    """

    name: str
    offsets: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Card:
    """One card type of the deck-building cards (character, territory or event)."""

    id: int
    name: str
    japanese: str
    kind: str                      # "character", "territory" or "event"
    cost: int
    copies: int                    # copies in the market
    start_copies: int = 0          # copies each player starts with
    pile: str | None = None        # market pile: "A", "B", "C" (characters), "row" or None
    hp: int = 0
    atk: int = 0
    hit: int = 0
    crit: int = 0
    move: Pattern | None = None
    attack: Pattern | None = None
    keywords: frozenset[str] = frozenset()
    ap_income: int = 0
    funds_income: int = 0
    effect: str | None = None      # events: one of EVENT_EFFECTS
    amount: int = 0

    @property
    def timing(self) -> str | None:
        return EVENT_EFFECTS[self.effect][0] if self.effect else None


@dataclass(frozen=True)
class FieldCard:
    """An Expert-mode field card."""

    id: int
    name: str
    japanese: str
    duration: int
    effect: str
    amount: int


@dataclass(frozen=True)
class CardSet:
    """Every card of one card file, indexed by id and by name."""

    path: str
    digest: str
    cards: tuple[Card, ...]
    fields: tuple[FieldCard, ...]

    def by_name(self, name: str) -> Card:
        """The card of that name, ignoring case; KeyError if there is none."""
        return find_by_name(self.cards, name)

    def field_by_name(self, name: str) -> FieldCard:
        return find_by_name(self.fields, name)

    def of_kind(self, kind: str) -> tuple[Card, ...]:
        return tuple(card for card in self.cards if card.kind == kind)


def default_card_path() -> Path:
    return Path(str(resources.files("xenophon") / "data" / "anabasis" / "cards.toml"))


def load_card_set(path: str | Path | None = None) -> CardSet:
    """Load and validate an Anabasis card file (the reference set by default)."""
    path = Path(path) if path is not None else default_card_path()
    raw, data = read_toml(path, "card file")
    return _CardFileReader(str(path), data).card_set(hashlib.sha256(raw).hexdigest())


class _CardFileReader:
    """Turns the parsed TOML into a CardSet, raising CardFileError on the first fault."""

    def __init__(self, path: str, data: dict[str, Any]):
        self.path = path
        self.data = data
        self.patterns: dict[str, Pattern] = {}

    def fail(self, where: str, message: str) -> CardFileError:
        return CardFileError(f"{self.path}: {where}: {message}")

    def card_set(self, digest: str) -> CardSet:
        known = {"patterns", "character", "territory", "event", "field"}
        for key in self.data:
            if key not in known:
                raise self.fail(f"section '{key}'", "unknown section")
        self.patterns = {name: self.pattern(name, diagram)
                         for name, diagram in self.data.get("patterns", {}).items()}
        cards: list[Card] = []
        for kind, reader in (("character", self.character), ("territory", self.territory),
                             ("event", self.event)):
            for entry in self.entries(kind):
                cards.append(reader(len(cards), entry))
        fields = [self.field(index, entry) for index, entry in enumerate(self.entries("field"))]
        self.check_names([c.name for c in cards], "card")
        self.check_names([f.name for f in fields], "field card")
        if not any(c.kind == "character" for c in cards):
            raise self.fail("characters", "the file defines no character")
        if len(cards) > MAX_CARD_TYPES:
            raise self.fail("cards", f"{len(cards)} cards, at most {MAX_CARD_TYPES} are supported")
        if len(fields) > MAX_FIELD_CARDS:
            raise self.fail("fields", f"{len(fields)} field cards, at most {MAX_FIELD_CARDS}")
        self.check_starting_cards(cards)
        return CardSet(self.path, digest, tuple(cards), tuple(fields))

    def entries(self, kind: str) -> list[dict[str, Any]]:
        entries = self.data.get(kind, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise self.fail(f"section '{kind}'", f"must be a list of tables ([[{kind}]])")
        return entries

    def check_starting_cards(self, cards: list[Card]) -> None:
        """Setup places one starting territory and deals three event slots (A4)."""
        territories = [c for c in cards if c.kind == "territory" and c.start_copies]
        if len(territories) > 1:
            raise self.fail(f"territory '{territories[1].name}'",
                            "only one territory can start on the board (start_copies)")
        events = [c for c in cards if c.kind == "event" and c.start_copies]
        if len(events) > 3:
            raise self.fail(f"event '{events[3].name}'",
                            "at most three events start in the three event slots")

    def check_names(self, names: list[str], what: str) -> None:
        seen: set[str] = set()
        for name in names:
            if name.casefold() in seen:
                raise self.fail(f"{what} '{name}'", "duplicate name")
            seen.add(name.casefold())

    # -- patterns -----------------------------------------------------------
    def pattern(self, name: str, diagram: Any) -> Pattern:
        where = f"pattern '{name}'"
        if not isinstance(diagram, str):
            raise self.fail(where, "must be a multi-line string")
        rows = [row.strip() for row in diagram.strip().splitlines() if row.strip()]
        size = len(rows)
        if size % 2 == 0 or size > MAX_PATTERN_SIZE or any(len(r) != size for r in rows):
            raise self.fail(where, f"must be an odd square of at most {MAX_PATTERN_SIZE} "
                                   "rows and columns")
        if any(ch not in ".xC" for row in rows for ch in row):
            raise self.fail(where, "may only contain '.', 'x' and 'C'")
        centre = size // 2
        centres = [(i, j) for i, row in enumerate(rows) for j, ch in enumerate(row) if ch == "C"]
        if centres != [(centre, centre)]:
            raise self.fail(where, "must hold exactly one 'C', at its centre")
        offsets = tuple(sorted((j - centre, centre - i) for i, row in enumerate(rows)
                               for j, ch in enumerate(row) if ch == "x"))
        return Pattern(name, offsets)

    # -- card fields --------------------------------------------------------
    def text(self, entry: dict[str, Any], key: str, where: str) -> str:
        value = entry.get(key)
        if value is None:
            raise self.fail(where, f"missing field '{key}'")
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where, f"field '{key}' must be a non-empty string")
        return value.strip()

    def number(self, entry: dict[str, Any], key: str, where: str, *, default: int | None = None,
               low: int = 0, high: int = 999, allow_negative: bool = False) -> int:
        value = entry.get(key, default)
        if value is None:
            raise self.fail(where, f"missing field '{key}'")
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(where, f"field '{key}' must be a whole number")
        if value < 0 and not allow_negative:
            raise self.fail(where, f"field '{key}' is negative ({value})")
        if not allow_negative and not low <= value <= high:
            raise self.fail(where, f"field '{key}' must be between {low} and {high} ({value})")
        return value

    def header(self, entry: dict[str, Any], kind: str) -> tuple[str, str, str]:
        if "name" not in entry:
            raise self.fail(f"a {kind} without a name", "missing field 'name'")
        name = self.text(entry, "name", f"a {kind}")
        where = f"{kind} '{name}'"
        if SQUARE_NAME.match(name) or not re.fullmatch(r"[A-Za-z][A-Za-z' -]*", name):
            raise self.fail(where, "a name must start with a letter, hold only letters, spaces, "
                                   "hyphens and apostrophes, and not look like a square")
        japanese = entry.get("japanese", "")
        return name, where, japanese if isinstance(japanese, str) else ""

    def check_keys(self, entry: dict[str, Any], allowed: set[str], where: str) -> None:
        for key in entry:
            if key not in allowed:
                raise self.fail(where, f"unknown field '{key}'")

    def pattern_ref(self, entry: dict[str, Any], key: str, where: str) -> Pattern:
        name = self.text(entry, key, where)
        if name not in self.patterns:
            raise self.fail(where, f"unknown pattern '{name}' in field '{key}'")
        return self.patterns[name]

    def character(self, card_id: int, entry: dict[str, Any]) -> Card:
        name, where, japanese = self.header(entry, "character")
        self.check_keys(entry, {"name", "japanese", "pile", "cost", "hp", "atk", "hit", "crit",
                                "move", "attack", "keywords", "copies", "start_copies"}, where)
        pile = self.text(entry, "pile", where)
        if pile not in PILES + ("start",):
            raise self.fail(where, f"unknown pile '{pile}' (A, B, C or start)")
        keywords = entry.get("keywords", [])
        if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
            raise self.fail(where, "field 'keywords' must be a list of strings")
        for keyword in keywords:
            if keyword not in KEYWORDS:
                raise self.fail(where, f"unknown keyword '{keyword}'")
        return Card(
            id=card_id, name=name, japanese=japanese, kind="character",
            cost=self.number(entry, "cost", where, low=1, high=99),
            copies=self.number(entry, "copies", where, high=20 if pile != "start" else 0),
            start_copies=self.number(entry, "start_copies", where, default=0, high=20),
            pile=None if pile == "start" else pile,
            hp=self.number(entry, "hp", where, low=1, high=99),
            atk=self.number(entry, "atk", where, high=99),
            hit=self.number(entry, "hit", where, high=100),
            crit=self.number(entry, "crit", where, high=100),
            move=self.pattern_ref(entry, "move", where),
            attack=self.pattern_ref(entry, "attack", where),
            keywords=frozenset(keywords),
        )

    def territory(self, card_id: int, entry: dict[str, Any]) -> Card:
        name, where, japanese = self.header(entry, "territory")
        self.check_keys(entry, {"name", "japanese", "cost", "hp", "ap_income", "funds_income",
                                "copies", "start_copies"}, where)
        start = self.number(entry, "start_copies", where, default=0, high=1)
        return Card(
            id=card_id, name=name, japanese=japanese, kind="territory",
            cost=self.number(entry, "cost", where, low=1, high=99),
            copies=self.number(entry, "copies", where, high=20),
            start_copies=start, pile="row",
            hp=self.number(entry, "hp", where, low=1, high=99),
            ap_income=self.number(entry, "ap_income", where, high=20),
            funds_income=self.number(entry, "funds_income", where, high=20),
        )

    def event(self, card_id: int, entry: dict[str, Any]) -> Card:
        name, where, japanese = self.header(entry, "event")
        self.check_keys(entry, {"name", "japanese", "cost", "effect", "amount", "copies",
                                "start_copies"}, where)
        effect = self.text(entry, "effect", where)
        if effect not in EVENT_EFFECTS:
            raise self.fail(where, f"unknown effect '{effect}'")
        needs_amount = EVENT_EFFECTS[effect][1]
        amount = self.number(entry, "amount", where, default=None if needs_amount else 0,
                             high=99)
        return Card(
            id=card_id, name=name, japanese=japanese, kind="event",
            cost=self.number(entry, "cost", where, low=1, high=99),
            copies=self.number(entry, "copies", where, high=20),
            start_copies=self.number(entry, "start_copies", where, default=0, high=1),
            pile="row", effect=effect, amount=amount,
        )

    def field(self, field_id: int, entry: dict[str, Any]) -> FieldCard:
        name, where, japanese = self.header(entry, "field")
        self.check_keys(entry, {"name", "japanese", "duration", "effect", "amount"}, where)
        effect = self.text(entry, "effect", where)
        if effect not in FIELD_EFFECTS:
            raise self.fail(where, f"unknown effect '{effect}'")
        amount = self.number(entry, "amount", where, allow_negative=True)
        low = -100 if effect in ("hit", "price") else 0   # costs and income cannot go negative
        if not low <= amount <= 100:
            raise self.fail(where, f"field 'amount' must be between {low} and 100 ({amount})")
        return FieldCard(field_id, name, japanese,
                         self.number(entry, "duration", where, low=1, high=50), effect, amount)

"""A Hero incarnation card data: loading and validating card files and decks (TOML).

A card file defines avatars and cards (units and operations); the reference
set (docs/hero-engine.md §1.7) is shipped as ``data/hero/cards.toml``. Card
ids follow the order of the ``[[card]]`` tables (0..N-1), avatar ids the order
of the ``[[avatar]]`` tables (0..A-1). Effects are data in the small vocabulary
of docs/hero-engine.md §7.1 (the file's schema is §1.5), so that both the C
core and the pure-Python oracle are driven by the :class:`HeroCardSet` returned
here and a new card needs no recompilation. What every card and deck file
shares (reading, field checks, digests) is :mod:`xenophon.kernel.cardfile`.

>>> cards = load_card_set()
>>> cards.by_name("fireball").effects[0].text
'damage_unit(2000)'
>>> decks = prebuilt_decks(cards)
>>> decks["wild_grove"].avatar.name, decks["wild_grove"].size
('Beast King', 40)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from xenophon.kernel.cardfile import (
    CardFileReader,
    NameRule,
    card_file_error,
    find_by_name,
    is_whole_number,
    packaged_data,
    read_card_file,
)
from xenophon.kernel.errors import shown

# The card vocabulary, owned here: each list is in the order the C core
# numbers it (src/engine_c/hero/hero.h: HERO_R.. for FACTIONS, the HERO_KW_*
# bits for KEYWORDS, HERO_TG_* for TARGETS, HERO_AB_* for ABILITY_KINDS, and
# HERO_FX_* for the opcodes of EFFECT_KINDS), and HeroCardSet.core_data() hands
# the core those numbers, so the binding holds no names
# (tests/test_hero_core_data.py checks the order against the enums it exports).
#: faction symbols; the index is the faction's code in the C tables
FACTIONS = ("R", "U", "G", "K", "N")
FACTION_NAMES = {"R": "red", "U": "blue", "G": "green", "K": "black", "N": "neutral"}
#: keywords; keyword i is bit (1 << i) in the C tables
KEYWORDS = ("RANGED", "BLITZ", "FIRST_STRIKE", "FLYING", "PROTECTION", "HORDE")
#: target kinds; the index is the target code in the C tables
TARGETS = ("none", "unit", "own_unit", "enemy_unit")
CARD_TYPES = ("unit", "operation")
TIMINGS = ("fast", "normal")
TRIGGERS = ("on_deploy",)
#: avatar ability kinds; the index is the ability's code in the C tables
ABILITY_KINDS = ("none", "activated", "on_enemy_destroyed", "race_bonus")


@dataclass(frozen=True)
class EffectKind:
    """One word of the effect vocabulary (docs/hero-engine.md §7.1)."""

    name: str
    opcode: int  # the effect's code in the C tables
    params: tuple[str, ...]  # names of its whole-number arguments
    needs_target: bool


EFFECT_KINDS: dict[str, EffectKind] = {
    kind.name: kind
    for kind in (
        EffectKind("damage_unit", 1, ("x",), True),
        EffectKind("destroy_unit", 2, ("max_power",), True),
        EffectKind("damage_avatar", 3, ("x",), False),
        EffectKind("heal_avatar", 4, ("x",), False),
        EffectKind("lose_hp", 5, ("x",), False),
        EffectKind("draw", 6, ("n",), False),
        EffectKind("pump", 7, ("power", "attack"), True),
        EffectKind("bounce", 8, (), True),
        EffectKind("tap", 9, (), True),
        EffectKind("untap", 10, (), True),
        EffectKind("win_if_units", 11, ("n",), False),
    )
}
#: effects an ``on_enemy_destroyed`` avatar ability may use (no target, no draw)
TRIGGERED_ABILITY_EFFECTS = frozenset({"heal_avatar", "damage_avatar", "lose_hp"})

MAX_CARDS = 64  # action codes hold a card id in 6 bits
MAX_AVATARS = 64
MIN_DECK_SIZE = 40  # docs/hero-engine.md §1.4
MAX_DECK_SIZE = 200  # engine bound: per-card counts fit in a byte
MAX_COPIES = 4  # of a card without HORDE [D-21]
MAX_NUMBER = 100_000  # bound on power and effect arguments (fits the C core's int32 sums)
MAX_EFFECTS = 4  # effects per card or ability (fixed-size C tables)
TOKEN_NAME = "Retainer"  # the name of the avatars' token; no card may take it

#: words of letters, hyphens and apostrophes, one space apart
NAME_RULE = NameRule(
    re.compile(r"[A-Za-z][A-Za-z'-]*(?: [A-Za-z'-]+)*"),
    "a name must start with a letter and hold only letters, single spaces, hyphens and apostrophes",
)
MAX_CONDITION = 99  # symbols of a colour, and the number, in a condition
CONDITION = re.compile(r"((?:\([RUGK]\))*)(?:\(([0-9]{1,2})\))?")
EFFECT = re.compile(r"([a-z_]+)\s*(?:\((.*)\))?")
INTEGER = re.compile(r"-?[0-9]+")  # ASCII digits only: int() reads any script's


@dataclass(frozen=True)
class Effect:
    """One effect of a card or ability, e.g. ``pump(500, 0)``."""

    name: str
    args: tuple[int, ...] = ()

    @property
    def kind(self) -> EffectKind:
        return EFFECT_KINDS[self.name]

    @property
    def opcode(self) -> int:
        return self.kind.opcode

    @property
    def needs_target(self) -> bool:
        return self.kind.needs_target

    @property
    def text(self) -> str:
        if not self.args:
            return self.name
        return f"{self.name}({', '.join(str(a) for a in self.args)})"

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Condition:
    """A usage condition such as ``(R)(K)(1)`` (docs/hero-engine.md §5.1).

    `colours` counts the faction symbols in the order R, U, G, K; `generic` is
    the number. The condition is met by a field (avatar, units and tokens)
    holding, for each colour, at least that many cards of the colour, and at
    least `total` cards in all.

    >>> Condition.parse("(R)(R)(1)").total
    3
    """

    colours: tuple[int, int, int, int] = (0, 0, 0, 0)
    generic: int = 0

    @property
    def total(self) -> int:
        return sum(self.colours) + self.generic

    @property
    def text(self) -> str:
        symbols = "".join(f"({f})" * n for f, n in zip(FACTIONS, self.colours))
        return symbols + (f"({self.generic})" if self.generic else "")

    @classmethod
    def parse(cls, text: str) -> Condition:
        """Parses ``""``, ``"(R)"``, ``"(U)(U)(2)"``...; ValueError if malformed or
        above MAX_CONDITION symbols of a colour."""
        match = CONDITION.fullmatch(text)
        if match is None:
            raise ValueError(text)
        symbols = re.findall(r"\(([RUGK])\)", match.group(1))
        colours = tuple(symbols.count(f) for f in FACTIONS[:4])
        if max(colours) > MAX_CONDITION:
            raise ValueError(text)
        generic = int(match.group(2)) if match.group(2) else 0
        return cls(colours, generic)  # type: ignore[arg-type]

    def is_met(self, faction_counts: Mapping[str, int]) -> bool:
        """Whether a field with these cards per faction symbol meets the condition."""
        if sum(faction_counts.values()) < self.total:
            return False
        return all(faction_counts.get(f, 0) >= n for f, n in zip(FACTIONS, self.colours))


@dataclass(frozen=True)
class HeroCard:
    """A unit or operation card."""

    id: int
    name: str
    japanese: str
    kind: str  # "unit" or "operation"
    faction: str  # one of FACTIONS
    cost: int
    condition: Condition
    race: str = ""  # units only
    power: int = 0  # units only
    attack: int = 0  # units only
    keywords: frozenset[str] = frozenset()
    timing: str | None = None  # operations: "fast" or "normal"
    trigger: str | None = None  # units with effects: "on_deploy"
    target: str = "none"  # one of TARGETS, shared by all the card's effects
    effects: tuple[Effect, ...] = ()

    @property
    def is_unit(self) -> bool:
        return self.kind == "unit"

    @property
    def keyword_bits(self) -> int:
        return sum(1 << i for i, k in enumerate(KEYWORDS) if k in self.keywords)


@dataclass(frozen=True)
class AvatarAbility:
    """An avatar's own ability (besides the Retainer every avatar has)."""

    kind: str = "none"  # one of ABILITY_KINDS
    effects: tuple[Effect, ...] = ()
    target: str = "none"  # "activated" only
    race: str = ""  # "race_bonus" only
    power: int = 0  # "race_bonus" only
    attack: int = 0  # "race_bonus" only


@dataclass(frozen=True)
class HeroAvatar:
    """An avatar card."""

    id: int
    name: str
    japanese: str
    faction: str
    hp: int
    hand: int  # starting hand size
    charisma: int
    race: str
    ability: AvatarAbility = AvatarAbility()


@dataclass(frozen=True)
class HeroCardSet:
    """Every avatar and card of one card file, by id and by name."""

    path: str
    digest: str
    avatars: tuple[HeroAvatar, ...]
    cards: tuple[HeroCard, ...]

    def by_name(self, name: str) -> HeroCard:
        """The card of that name, ignoring case and surrounding spaces; KeyError if none."""
        return find_by_name(self.cards, name)

    def avatar_by_name(self, name: str) -> HeroAvatar:
        """The avatar of that name, ignoring case and surrounding spaces; KeyError if none."""
        return find_by_name(self.avatars, name)

    def card_id(self, name: str) -> int:
        return self.by_name(name).id

    def core_data(
        self, deck0: Deck, deck1: Deck
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """The card set and the two seats' decks as the C core's tables take them
        (xenophon._core.hero.Tables): plain numbers in the core's numbering, one
        tuple a card (name, the fields of HeroCardSpec, its effects) and a seat
        (deck name, avatar name, the fields of HeroAvatarSpec, its ability's
        effects, the deck's count of every card id); an effect is (opcode, a, b).
        Race ids by first appearance: avatars (an avatar's race, then its race
        bonus's), then units (docs/hero-engine.md §14). ValueError, naming the
        card, avatar or deck, for what the core cannot take or number (a card
        set of load_card_set passes the checks on words; they name what is
        wrong in one built in memory), and for decks of another card set."""
        for deck in (deck0, deck1):
            if not all(hasattr(deck, key) for key in ("counts", "avatar", "card_set_digest")):
                raise ValueError(
                    "decks must be Deck objects of xenophon.hero.cards (load_deck, "
                    "build_deck or prebuilt_decks)"
                )
        if len(self.cards) > MAX_CARDS:
            raise ValueError(
                f"card set not supported: {len(self.cards)} cards, at most {MAX_CARDS}"
            )
        races: dict[str, int] = {}
        avatars = [_avatar_data(avatar, races) for avatar in self.avatars]
        cards = [_card_data(card, races) for card in self.cards]
        seats = [self._seat_data(seat, deck, avatars) for seat, deck in enumerate((deck0, deck1))]
        return cards, seats

    def _seat_data(
        self,
        seat: int,
        deck: Deck,
        avatars: list[tuple[tuple[int, ...], list[tuple[int, int, int]]]],
    ) -> tuple[Any, ...]:
        """One seat of core_data: its deck, checked against this card set, and its avatar."""
        where = f"deck {seat} ('{deck.name}')"
        if str(deck.card_set_digest) != str(self.digest):
            raise ValueError(f"{where} was built for another card set")
        if len(deck.counts) != len(self.cards):
            raise ValueError(
                f"{where}: {len(deck.counts)} card counts for a set of {len(self.cards)} cards"
            )
        avatar_id = deck.avatar.id
        if not 0 <= avatar_id < len(self.avatars) or (
            self.avatars[avatar_id].name != deck.avatar.name
        ):
            raise ValueError(f"{where}: avatar '{deck.avatar.name}' is not in the card set")
        numbers, effects = avatars[avatar_id]
        return (str(deck.name), deck.avatar.name, numbers, effects, list(deck.counts))


@dataclass(frozen=True)
class Deck:
    """A deck: an avatar and a count for every card id of its card set."""

    name: str
    avatar: HeroAvatar
    counts: tuple[int, ...]  # counts[card id], one entry per card of the set
    card_set_digest: str
    path: str = "<memory>"
    digest: str = ""  # sha256 of the deck file, "" for a deck built in memory

    @property
    def size(self) -> int:
        return sum(self.counts)

    def multiset(self) -> dict[int, int]:
        """{card id: count} for the cards in the deck."""
        return {card_id: n for card_id, n in enumerate(self.counts) if n}

    def cards(self, card_set: HeroCardSet) -> dict[str, int]:
        """{card name: count} in card id order."""
        return {card_set.cards[card_id].name: n for card_id, n in self.multiset().items()}


# --------------------------------------------------------------------------- the core's data


def _code(names: tuple[str, ...], name: str, what: str, where: str) -> int:
    """The core's number of a word of the vocabulary `names` (its index)."""
    if name not in names:
        raise ValueError(f"{where}: unknown {what} '{name}'")
    return names.index(name)


def _race_id(races: dict[str, int], race: str) -> int:
    """A race's id: the next free one at its first appearance."""
    return races.setdefault(race, len(races))


def _effects_data(effects: tuple[Effect, ...], where: str) -> list[tuple[int, int, int]]:
    """(opcode, a, b) of each effect, the arguments missing taken as 0."""
    if len(effects) > MAX_EFFECTS:
        raise ValueError(f"{where}: more than {MAX_EFFECTS} effects")
    data = []
    for effect in effects:
        if len(effect.args) > 2:
            raise ValueError(f"{where}: an effect with more than 2 arguments")
        a, b = (tuple(effect.args) + (0, 0))[:2]
        data.append((effect.opcode, a, b))
    return data


def _card_data(card: HeroCard, races: dict[str, int]) -> tuple[Any, ...]:
    """A card of core_data: name; is_unit, faction, cost, the condition's R, U,
    G and K counts, its number, race, power, attack, keyword bits, fast, target
    (the order of the binding's reader); effects."""
    where = f"card '{card.name}'"
    if card.kind not in CARD_TYPES:
        raise ValueError(f"{where}: unknown kind '{card.kind}'")
    faction = _code(FACTIONS, card.faction, "faction", where)
    colours = tuple(card.condition.colours)
    if len(colours) != 4:
        raise ValueError(f"{where}: a condition has 4 colour counts")
    race, power, attack = 0, 0, 0  # an operation's
    if card.is_unit:
        race, power, attack = _race_id(races, card.race), card.power, card.attack
    keywords = 0
    for keyword in card.keywords:
        keywords |= 1 << _code(KEYWORDS, keyword, "keyword", where)
    numbers = (
        int(card.is_unit),
        faction,
        card.cost,
        *colours,
        card.condition.generic,
        race,
        power,
        attack,
        keywords,
        int(card.timing == "fast"),
        _code(TARGETS, card.target, "target kind", where),
    )
    return (card.name, numbers, _effects_data(card.effects, where))


def _avatar_data(
    avatar: HeroAvatar, races: dict[str, int]
) -> tuple[tuple[int, ...], list[tuple[int, int, int]]]:
    """An avatar of core_data: faction, hp, hand, charisma, race, ability,
    target, bonus race, bonus power, bonus attack (the order of the binding's
    reader); the ability's effects."""
    where = f"avatar '{avatar.name}'"
    faction = _code(FACTIONS, avatar.faction, "faction", where)
    race = _race_id(races, avatar.race)
    ability = avatar.ability
    kind = _code(ABILITY_KINDS, ability.kind, "ability kind", where)
    target = _code(TARGETS, ability.target, "target kind", where)
    effects = _effects_data(ability.effects, where)
    bonus = (0, 0, 0)
    if ability.kind == "race_bonus":
        bonus = (_race_id(races, ability.race), ability.power, ability.attack)
    numbers = (faction, avatar.hp, avatar.hand, avatar.charisma, race, kind, target, *bonus)
    return numbers, effects


# --------------------------------------------------------------------------- loading


def default_card_path() -> Path:
    return packaged_data("hero", "cards.toml")


def default_deck_dir() -> Path:
    return packaged_data("hero", "decks")


def load_card_set(path: str | Path | None = None) -> HeroCardSet:
    """Load and validate a Hero card file (the reference set by default)."""
    path = Path(path) if path is not None else default_card_path()
    return _CardFileReader(read_card_file(path, "card file")).card_set()


def load_deck(path: str | Path, card_set: HeroCardSet) -> Deck:
    """Load and validate a deck file against a card set.

    A deck file holds ``name`` (optional, default: the file name),
    ``avatar`` and a ``[cards]`` table of card name = count.
    """
    path = Path(path)
    file = read_card_file(path, "deck file")
    deck = CardFileReader(file)
    deck.check_fields(file.data, {"name", "avatar", "cards"}, "")
    name = deck.text(file.data, "name", "", default=path.stem)
    for key in ("avatar", "cards"):
        deck.require(file.data, key, f"deck '{shown(name)}'")
    return build_deck(
        card_set,
        file.data["avatar"],
        file.data["cards"],
        name=name,
        path=file.path,
        digest=file.digest,
    )


def build_deck(
    card_set: HeroCardSet,
    avatar: str,
    cards: Mapping[str, Any],
    *,
    name: str = "deck",
    path: str = "<memory>",
    digest: str = "",
) -> Deck:
    """A validated deck from an avatar name and {card name: count}.

    Raises CardFileError naming `path`, the deck and the faulty card.
    """
    where = f"deck '{shown(name)}'"
    if not isinstance(avatar, str):
        raise card_file_error(path, where, "field 'avatar' must be a string")
    try:
        avatar_card = card_set.avatar_by_name(avatar)
    except KeyError:
        raise card_file_error(path, where, f"unknown avatar '{shown(avatar)}'") from None
    counts = _deck_counts(card_set, cards, path, where)
    size = sum(counts)
    if size < MIN_DECK_SIZE:
        raise card_file_error(path, where, f"{size} cards, a deck needs at least {MIN_DECK_SIZE}")
    if size > MAX_DECK_SIZE:
        raise card_file_error(
            path, where, f"{size} cards, the engine supports at most {MAX_DECK_SIZE}"
        )
    return Deck(name, avatar_card, tuple(counts), card_set.digest, path, digest)


def _deck_counts(
    card_set: HeroCardSet, cards: Mapping[str, Any], path: str, where: str
) -> list[int]:
    """counts[card id] of a deck's {card name: count}."""
    if not isinstance(cards, Mapping):
        raise card_file_error(path, where, "field 'cards' must be a table of card name = count")
    counts = [0] * len(card_set.cards)
    for card_name, count in cards.items():
        try:
            card = card_set.by_name(card_name)
        except KeyError:
            raise card_file_error(path, where, f"unknown card '{shown(card_name)}'") from None
        counts[card.id] = _deck_count(
            card, count, counts[card.id], path, f"{where}: card '{card.name}'"
        )
    return counts


def _deck_count(card: HeroCard, count: Any, counted: int, path: str, where: str) -> int:
    """The count of one card in a deck (`counted`: what an earlier line gave it)."""
    if not is_whole_number(count):
        raise card_file_error(path, where, "the count must be a whole number")
    if count < 1:
        raise card_file_error(path, where, f"the count must be at least 1 ({count})")
    if counted:
        raise card_file_error(path, where, "listed twice")
    if count > MAX_COPIES and "HORDE" not in card.keywords:
        raise card_file_error(
            path, where, f"{count} copies, at most {MAX_COPIES} of a card without HORDE"
        )
    return count


def prebuilt_decks(card_set: HeroCardSet | None = None) -> dict[str, Deck]:
    """The packaged decks, keyed by file name without '.toml' (e.g. 'wild_grove')."""
    card_set = card_set if card_set is not None else load_card_set()
    return {
        path.stem: load_deck(path, card_set) for path in sorted(default_deck_dir().glob("*.toml"))
    }


# --------------------------------------------------------------------------- validation


class _CardFileReader(CardFileReader):
    """Turns a Hero card file into a HeroCardSet, raising CardFileError on the first fault."""

    def card_set(self) -> HeroCardSet:
        self.check_sections(lists=("avatar", "card"))
        avatars = tuple(self.read_entries("avatar", self.avatar))
        cards = tuple(self.read_entries("card", self.card))
        self.check_unique_names(avatars, "avatar")
        self.check_unique_names(cards, "card")
        self.check_defined(avatars, "avatar")
        self.check_defined(cards, "card")
        self.check_at_most(cards, MAX_CARDS, "cards")
        self.check_at_most(avatars, MAX_AVATARS, "avatars")
        return HeroCardSet(self.path, self.file.digest, avatars, cards)

    def entry_header(self, entry: dict[str, Any], what: str, index: int) -> tuple[str, str, str]:
        return self.header(entry, what, f"{what} #{index + 1}", NAME_RULE)

    # -- effects and targets ------------------------------------------------
    def effects(self, entry: dict[str, Any], key: str, where: str) -> tuple[Effect, ...]:
        texts = self.strings(entry, key, where, ' such as "damage_unit(2000)"')
        if len(texts) > MAX_EFFECTS:
            raise self.fail(where, f"{len(texts)} effects, at most {MAX_EFFECTS}")
        return tuple(self.effect(text, where) for text in texts)

    def effect(self, text: str, where: str) -> Effect:
        match = EFFECT.fullmatch(text.strip())
        if match is None or match.group(1) not in EFFECT_KINDS:
            word = match.group(1) if match else text.strip()
            raise self.fail(
                where, f"unknown effect '{shown(word)}' (one of {', '.join(EFFECT_KINDS)})"
            )
        kind = EFFECT_KINDS[match.group(1)]
        raw_args = match.group(2)
        parts = (
            []
            if raw_args is None or not raw_args.strip()
            else [part.strip() for part in raw_args.split(",")]
        )
        usage = kind.name + (f"({', '.join(kind.params)})" if kind.params else "")
        if len(parts) != len(kind.params) or not all(INTEGER.fullmatch(p) for p in parts):
            raise self.fail(where, f"effect '{shown(text.strip())}' must be written {usage}")
        for param, part in zip(kind.params, parts):
            self.check_argument(part, f"effect '{shown(text.strip())}': {param}", where)
        return Effect(kind.name, tuple(int(p) for p in parts))

    def check_argument(self, part: str, what: str, where: str) -> None:
        """An effect argument from 0 to MAX_NUMBER (its digits counted before
        int() is asked to read thousands of them)."""
        short = len(part.lstrip("-")) <= len(str(MAX_NUMBER))
        if part.startswith("-") and (not short or int(part) < 0):
            raise self.fail(where, f"{what} is negative ({shown(part)})")
        if not short or int(part) > MAX_NUMBER:
            raise self.fail(where, f"{what} is above {MAX_NUMBER} ({shown(part)})")

    def target(self, entry: dict[str, Any], effects: tuple[Effect, ...], where: str) -> str:
        target = self.choice(entry, "target", where, TARGETS, default="none", what="target kind")
        needs = [e.name for e in effects if e.needs_target]
        if needs and target == "none":
            raise self.fail(
                where,
                f"effect '{needs[0]}' needs a target: set target to unit, own_unit or enemy_unit",
            )
        if not needs and target != "none":
            raise self.fail(where, f"target '{target}' given, but no effect uses a target")
        return target

    # -- avatars ------------------------------------------------------------
    def avatar(self, avatar_id: int, entry: dict[str, Any]) -> HeroAvatar:
        name, where, japanese = self.entry_header(entry, "avatar", avatar_id)
        self.check_fields(
            entry,
            {"name", "japanese", "faction", "hp", "hand", "charisma", "race", "ability"},
            where,
        )
        return HeroAvatar(
            id=avatar_id,
            name=name,
            japanese=japanese,
            faction=self.choice(entry, "faction", where, FACTIONS),
            hp=self.number(entry, "hp", where, low=1, high=999),
            hand=self.number(entry, "hand", where, high=MIN_DECK_SIZE - 1),
            charisma=self.number(entry, "charisma", where, low=1, high=99),
            race=self.text(entry, "race", where),
            ability=self.ability(entry.get("ability"), where),
        )

    def ability(self, value: Any, where: str) -> AvatarAbility:
        if value is None:
            return AvatarAbility()
        if not isinstance(value, dict):
            raise self.fail(
                where,
                "field 'ability' must be a table such as "
                '{ kind = "race_bonus", race = "Beast", power = 500 }',
            )
        where = f"{where}: ability"
        kind = self.choice(value, "kind", where, ABILITY_KINDS, what="ability kind")
        allowed = {
            "none": {"kind"},
            "activated": {"kind", "effects", "target"},
            "on_enemy_destroyed": {"kind", "effects"},
            "race_bonus": {"kind", "race", "power", "attack"},
        }[kind]
        self.check_fields(value, allowed, where, f" for kind '{kind}'")
        if kind == "none":
            return AvatarAbility()
        if kind == "race_bonus":
            return AvatarAbility(
                kind,
                race=self.text(value, "race", where),
                power=self.number(value, "power", where, high=MAX_NUMBER),
                attack=self.number(value, "attack", where, high=99, default=0),
            )
        effects = self.ability_effects(value, kind, where)
        if kind == "on_enemy_destroyed":
            return AvatarAbility(kind, effects)
        return AvatarAbility(kind, effects, self.target(value, effects, where))

    def ability_effects(self, value: dict[str, Any], kind: str, where: str) -> tuple[Effect, ...]:
        """The effects of an activated or on_enemy_destroyed ability: at least one."""
        self.require(value, "effects", where)
        effects = self.effects(value, "effects", where)
        if not effects:
            raise self.fail(where, "needs at least one effect")
        for effect in effects:
            if kind == "on_enemy_destroyed" and effect.name not in TRIGGERED_ABILITY_EFFECTS:
                raise self.fail(
                    where,
                    f"effect '{effect.name}' cannot be used by an "
                    f"on_enemy_destroyed ability (only "
                    f"{', '.join(sorted(TRIGGERED_ABILITY_EFFECTS))})",
                )
        return effects

    # -- cards --------------------------------------------------------------
    def card(self, card_id: int, entry: dict[str, Any]) -> HeroCard:
        name, where, japanese = self.entry_header(entry, "card", card_id)
        if name.casefold() == TOKEN_NAME.casefold():
            raise self.fail(where, f"the name '{TOKEN_NAME}' is reserved for the avatars' token")
        kind = self.choice(entry, "type", where, CARD_TYPES, what="card type")
        common = {
            "name",
            "japanese",
            "type",
            "faction",
            "cost",
            "condition",
            "keywords",
            "effects",
            "target",
        }
        specific = {"race", "power", "attack", "trigger"} if kind == "unit" else {"timing"}
        self.check_fields(entry, common | specific, where, f" for a {kind}")
        card = HeroCard(
            card_id,
            name,
            japanese,
            kind,
            faction=self.choice(entry, "faction", where, FACTIONS),
            cost=self.number(entry, "cost", where, low=1, high=99),
            condition=self.condition(entry, where),
            keywords=self.keywords(entry, where, KEYWORDS),
            effects=self.effects(entry, "effects", where),
        )
        card = replace(card, target=self.target(entry, card.effects, where))
        return (
            self.operation(card, entry, where)
            if kind == "operation"
            else self.unit(card, entry, where)
        )

    def condition(self, entry: dict[str, Any], where: str) -> Condition:
        text = self.text(entry, "condition", where, empty=True)
        try:
            return Condition.parse(text)
        except ValueError:
            raise self.fail(
                where,
                f"bad condition '{shown(text)}': write faction symbols then an "
                'optional number, like "(R)(K)(1)", or "" (at most '
                f"{MAX_CONDITION} symbols of a colour, a number up to "
                f"{MAX_CONDITION})",
            ) from None

    def operation(self, card: HeroCard, entry: dict[str, Any], where: str) -> HeroCard:
        if card.keywords - {"HORDE"}:
            raise self.fail(
                where,
                f"keyword '{sorted(card.keywords - {'HORDE'})[0]}' has no "
                "meaning on an operation (only HORDE)",
            )
        if not card.effects:
            raise self.fail(where, "an operation needs at least one effect")
        return replace(card, timing=self.choice(entry, "timing", where, TIMINGS))

    def unit(self, card: HeroCard, entry: dict[str, Any], where: str) -> HeroCard:
        return replace(
            card,
            trigger=self.trigger(entry, card.effects, where),
            race=self.text(entry, "race", where),
            power=self.number(entry, "power", where, low=1, high=MAX_NUMBER),
            attack=self.number(entry, "attack", where, high=99),
        )

    def trigger(self, entry: dict[str, Any], effects: tuple[Effect, ...], where: str) -> str | None:
        """A unit's trigger: given exactly when the unit has effects."""
        if "trigger" not in entry:
            if effects:
                raise self.fail(
                    where, "missing field 'trigger' (a unit's effects need trigger = \"on_deploy\")"
                )
            return None
        trigger = self.choice(entry, "trigger", where, TRIGGERS)
        if not effects:
            raise self.fail(where, "trigger given, but the unit has no effects")
        return trigger

"""The pure-Python oracle of Anabasis: a slow implementation written to be read.

It implements ``docs/anabasis-engine.md``, the rules authority and engine
spec of the project (cited below as "spec §n"; the decisions D-n and E-n are
listed there, §12 and §10). The C core is written from the same spec by
someone else and is checked against this file on random games: legal
actions, chance outcomes with their probabilities and the canonical
``to_dict()`` must agree after every action. This module shares
nothing with the C code but the card file (:class:`CardSet`).

How the flow is modelled
------------------------
The game is a state machine. ``self.node`` is what the game waits for now:

* ``("decide", phase, player)``: a decision of ``player`` in ``phase``
  (``standby1``, ``field``, ``standby2``, ``response``, ``evade``), or
  ``("decide", "nullify", player, answering)`` where ``answering`` is
  ``"response"`` (the attacker's Nullify window in a battle) or ``"event"``
  (the opponent's window after an own-turn event);
* ``("chance", what, *args)``: a chance node; ``what`` is ``deal``,
  ``reveal_pile``, ``reveal_row``, ``field``, ``draw`` or ``strike``;
* ``("over",)``: the game has ended.

``self.agenda`` is the continuation: the list of steps still to run, in
order, once the current node is answered. A step is a tuple
``(name, *args)`` run by the method ``_step_<name>``. A step either does its
work at once (and may put further steps at the front of the agenda), or stops
the machine by setting a node. ``_run()`` runs steps until a node is set.
At the three "resting" decisions (standby1, field, standby2) the agenda is
empty; each action queues what follows it, ending with the decision it
returns to.

Everything is kept as plain values (ints, dicts used as multisets, tuples),
so that a snapshot for ``undo`` is a cheap copy.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from xenophon.anabasis import notation
from xenophon.anabasis.cards import Card, CardSet, FieldCard, load_card_set
from xenophon.anabasis.notation import (
    ATTACK,
    BUY,
    BUY_PLACE,
    DEAL,
    DRAW,
    END,
    EVADE,
    EVENT,
    FIELD,
    KIND_NAMES,
    MOVE,
    PASS,
    PLACE,
    READY,
    REVEAL,
    SET,
    STRIKE,
)
from xenophon.kernel.codes import CHANCE, TERMINAL, decode, encode
from xenophon.kernel.errors import XenophonError
from xenophon.kernel.game import register_engine
from xenophon.kernel.oracle import (  # noqa: F401
    OracleStateBase,
    ms_add,
    ms_size,
    ms_take,
    perft,  # perft: part of this module's API
)

__all__ = [
    "CHANCE",
    "TERMINAL",
    "END",
    "PASS",
    "BUY",
    "BUY_PLACE",
    "PLACE",
    "SET",
    "MOVE",
    "ATTACK",
    "READY",
    "EVENT",
    "EVADE",
    "DEAL",
    "REVEAL",
    "FIELD",
    "DRAW",
    "STRIKE",
    "MISS",
    "HIT",
    "CRIT",
    "KIND_NAMES",
    "encode",
    "decode",
    "square",
    "square_name",
    "format_action",
    "OracleGame",
    "OracleState",
    "perft",
]

# The backend protocol constants and the action codes are the public ones
# (xenophon.kernel.codes, xenophon.anabasis.notation), numbered by the C core: the
# oracle checks the rules, not the numbering.
MISS, HIT, CRIT = 0, 1, 2  # the x of a STRIKE outcome

# ---------------------------------------------------------------------------
# The board (spec §1)

FILES = "abcdefg"
N_FILES, N_RANKS = 7, 6
CASTLE = (3, 38)  # d1 (seat 0), d6 (seat 1)
START_TERRITORY_SQUARE = (6, 35)  # g1 (seat 0), a6 (seat 1)
MAX_TURNS = 200  # D-11
MODES = {  # spec §2.1: castle HP, cemetery limit, field cards
    "standard": (10, 8, False),
    "expert": (15, 12, True),
}
FUNDS_CAP = 99


def square(name: str) -> int:
    """'a1' -> 0, 'g6' -> 41."""
    name = name.strip().lower()
    return (int(name[1]) - 1) * N_FILES + FILES.index(name[0])


def square_name(q: int) -> str:
    return f"{FILES[q % N_FILES]}{q // N_FILES + 1}"


def in_home_zone(seat: int, q: int) -> bool:
    """Ranks 1-2 for seat 0, ranks 5-6 for seat 1."""
    return q < 14 if seat == 0 else q >= 28


def neighbours(q: int) -> list[int]:
    """The (up to) 8 squares around q."""
    f, r = q % N_FILES, q // N_FILES
    return [
        (r + dr) * N_FILES + f + df
        for dr in (-1, 0, 1)
        for df in (-1, 0, 1)
        if (df or dr) and 0 <= f + df < N_FILES and 0 <= r + dr < N_RANKS
    ]


# ---------------------------------------------------------------------------
# Multisets (ms_add, ms_take, ms_size: xenophon.kernel.oracle)


def ms_merge(into: dict[int, int], other: dict[int, int]) -> None:
    for card, n in other.items():
        ms_add(into, card, n)


def ms_draw(ms: dict[int, int], rng: random.Random) -> int:
    """A card drawn uniformly from the multiset (each copy equally likely), removed."""
    pick = rng.randrange(ms_size(ms))
    for card in sorted(ms):
        if pick < ms[card]:
            ms_take(ms, card)
            return card
        pick -= ms[card]
    raise AssertionError("unreachable")


def ms_key(ms: dict[int, int]) -> tuple[tuple[int, int], ...]:
    """A multiset as a sorted tuple, for comparisons."""
    return tuple(sorted(ms.items()))


# ---------------------------------------------------------------------------
# State pieces


class Piece(NamedTuple):
    """A card on the grid (spec §1). Immutable: changes make a new Piece."""

    card: int
    owner: int
    damage: int = 0
    ready: bool = False  # characters only
    moved: bool = False  # characters only
    face_down: bool = False  # territories only
    atk_bonus: int = 0  # Rally, characters only


class Slot(NamedTuple):
    """An occupied EVENT slot."""

    card: int
    face_up: bool


class FieldState(NamedTuple):
    """Expert mode: the active field card, its remaining duration, the cards seen so far."""

    active: int
    remaining: int
    revealed: tuple[int, ...]


class Battle(NamedTuple):
    """Bookkeeping of the battle in progress (spec §4). All of it is public."""

    attacker_sq: int  # a
    target_sq: int  # b (a castle square for an attack on the castle)
    charge: bool  # the attacker was `moved` when the attack was declared
    response: str | None = None  # effect of the response that is in force, if any
    bounty: int = 0  # funds due to the attacker for a territory the main strike destroyed


class PendingEvent(NamedTuple):
    """An own-turn event turned face up, waiting for the event window (spec §5)."""

    owner: int
    slot: int
    card: int
    arg: int
    nullified: bool = False


class Player:
    """Everything a seat holds off the grid."""

    __slots__ = ("castle_hp", "ap", "funds", "hand", "deck", "flow", "cemetery", "slots", "to_deal")

    def __init__(self, castle_hp: int, funds: int = 0):
        self.castle_hp = castle_hp
        self.ap = 0
        self.funds = funds
        self.hand: dict[int, int] = {}
        self.deck: dict[int, int] = {}
        self.flow: dict[int, int] = {}
        self.cemetery: dict[int, int] = {}
        self.slots: list[Slot | None] = [None, None, None]
        self.to_deal: dict[int, int] = {}  # setup only: starting events not dealt yet

    def copy(self) -> Player:
        new = Player.__new__(Player)
        new.castle_hp, new.ap, new.funds = self.castle_hp, self.ap, self.funds
        new.hand, new.deck, new.flow = dict(self.hand), dict(self.deck), dict(self.flow)
        new.cemetery, new.to_deal = dict(self.cemetery), dict(self.to_deal)
        new.slots = list(self.slots)
        return new


# ---------------------------------------------------------------------------
# The game: card set, mode, and precomputed pattern squares


class OracleGame:
    """Anabasis with one card set in one mode; makes initial states."""

    def __init__(self, card_set: CardSet | None = None, mode: str = "standard"):
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r} (standard or expert)")
        self.cards = card_set if card_set is not None else load_card_set()
        self.mode = mode
        self.castle_hp, self.cemetery_limit, self.expert = MODES[mode]
        self.fields: tuple[FieldCard, ...] = self.cards.fields if self.expert else ()
        cards = self.cards.cards
        self.start_territories = [c.id for c in cards if c.kind == "territory" and c.start_copies]
        self.start_events = [c.id for c in cards if c.kind == "event" and c.start_copies]
        if len(self.start_territories) > 1:
            raise ValueError("the oracle supports at most one starting territory")
        if len(self.start_events) > 3:
            raise ValueError("the oracle supports at most three starting events")
        self._reach: dict[tuple[Any, int, int], tuple[int, ...]] = {}

    def card(self, card_id: int) -> Card:
        return self.cards.cards[card_id]

    def reach(self, pattern: Any, seat: int, q: int) -> tuple[int, ...]:
        """The board squares of a pattern for a card of `seat` on q (spec §1)."""
        key = (pattern, seat, q)
        if key not in self._reach:
            f, r = q % N_FILES, q // N_FILES
            squares = []
            sign = 1 if seat == 0 else -1  # seat 1: the diagram turned by 180 degrees
            for df, dr in pattern.offsets:
                tf, tr = f + sign * df, r + sign * dr
                if 0 <= tf < N_FILES and 0 <= tr < N_RANKS:
                    squares.append(tr * N_FILES + tf)
            self._reach[key] = tuple(sorted(squares))
        return self._reach[key]

    def new_initial_state(self) -> OracleState:
        return OracleState(self)

    def state_from_dict(self, d: dict) -> OracleState:
        """A state built from a canonical dict (spec §8), for tests.

        Only resting decisions are accepted (phase standby1, field or standby2,
        current = active), since a dict does not record a pending battle, event
        or chance node. Nothing is validated beyond that: the caller builds
        positions that could occur.
        """
        return OracleState.from_dict(self, d)


# ---------------------------------------------------------------------------
# The state


class OracleState(OracleStateBase):
    """One Anabasis position, with the backend protocol of docs/architecture.md."""

    # -- construction: the deterministic setup (spec §2) ---------------------
    def __init__(self, game: OracleGame, _blank: bool = False):
        super().__init__(game)
        if _blank:
            return
        cards = game.cards.cards
        self.turn = 1
        self.active = 0
        # Castle HP, AP 0, funds 0; seat 1 starts with 1 fund (D-12).
        self.players = [Player(game.castle_hp, funds=0), Player(game.castle_hp, funds=1)]
        self.grid: dict[int, Piece] = {}
        for seat, player in enumerate(self.players):
            for card in cards:
                if card.kind == "character" and card.start_copies:
                    ms_add(player.deck, card.id, card.start_copies)
            for event in game.start_events:
                ms_add(player.to_deal, event)
            for territory in game.start_territories:
                self.grid[START_TERRITORY_SQUARE[seat]] = Piece(territory, seat)
        # Market: piles A, B, C of characters; the row pile of events and territories.
        self.tops: list[int | None] = [None, None, None]
        self.piles: list[dict[int, int]] = [{}, {}, {}]
        self.row: dict[int, int] = {}
        self.row_pile: dict[int, int] = {}
        for card in cards:
            if card.copies == 0:
                continue
            if card.kind == "character":
                ms_add(self.piles["ABC".index(card.pile)], card.id, card.copies)
            else:
                ms_add(self.row_pile, card.id, card.copies)
        self.field: FieldState | None = None
        self.result: list[int] | None = None
        self.battle: Battle | None = None
        self.pending_event: PendingEvent | None = None
        self.node: tuple = ()
        # The setup chance nodes, in the order of spec §2.
        self.agenda: list[tuple] = (
            [("deal", 0, slot) for slot in range(3)]
            + [("deal", 1, slot) for slot in range(3)]
            + [("reveal_pile", pile) for pile in range(3)]
            + [("reveal_row",)] * 5
            + [("first_field",)]
            + [("draw", 0)] * 3
            + [("draw", 1)] * 3
            + [("standby1",)]
        )
        self._run()

    # -- the machine ----------------------------------------------------------
    def _run(self) -> None:
        """Runs agenda steps until one of them sets a node."""
        self.node = ()
        while not self.node:
            step = self.agenda.pop(0)
            getattr(self, "_step_" + step[0])(*step[1:])

    def _push(self, *steps: tuple) -> None:
        """Puts steps at the front of the agenda, to run next, in the order given."""
        self.agenda[:0] = steps

    def _chance(self, what: str, *args: Any) -> None:
        self.node = ("chance", what, *args)

    def _decide(self, phase: str, player: int, *extra: Any) -> None:
        self.node = ("decide", phase, player, *extra)

    def _step_decide(self, phase: str, player: int) -> None:
        self._decide(phase, player)

    # -- small rule helpers -----------------------------------------------------
    def card(self, card_id: int) -> Card:
        return self.game.cards.cards[card_id]

    def _field_amount(self, effect: str) -> int | None:
        """The amount of the active field card if it has this effect, else None."""
        if self.field is None:
            return None
        field = self.game.fields[self.field.active]
        return field.amount if field.effect == effect else None

    def _price(self, card_id: int) -> int:
        """Purchase price: cost (+ Festival amount), at least 1 (spec §3)."""
        extra = self._field_amount("price") or 0
        return max(1, self.card(card_id).cost + extra)

    def _move_cost(self) -> int:
        storm = self._field_amount("move_cost")
        return 1 if storm is None else storm

    def _attack_cost(self, attacker: Piece) -> int:
        mud = self._field_amount("attack_cost")
        if mud is not None:
            return mud
        return 0 if attacker.moved else 1

    def _gain_funds(self, seat: int, amount: int) -> None:
        player = self.players[seat]
        player.funds = min(FUNDS_CAP, player.funds + amount)

    def _is_character(self, q: int) -> bool:
        return q in self.grid and self.card(self.grid[q].card).kind == "character"

    def _is_free(self, q: int) -> bool:
        """Empty and not a castle: where a card may be placed or moved to."""
        return q not in self.grid and q not in CASTLE

    def _free_home_squares(self, seat: int) -> list[int]:
        return [q for q in range(N_FILES * N_RANKS) if in_home_zone(seat, q) and self._is_free(q)]

    def _moves_of(self, q: int) -> tuple[int, ...]:
        piece = self.grid[q]
        return self.game.reach(self.card(piece.card).move, piece.owner, q)

    def _attacks_of(self, q: int) -> tuple[int, ...]:
        piece = self.grid[q]
        return self.game.reach(self.card(piece.card).attack, piece.owner, q)

    def _has_face_down_event(self, seat: int) -> bool:
        return any(slot is not None and not slot.face_up for slot in self.players[seat].slots)

    def _face_down_slots(self, seat: int, effects: set[str]) -> list[int]:
        """Slots of `seat` holding a face-down event whose effect is in `effects`."""
        return [
            s
            for s, slot in enumerate(self.players[seat].slots)
            if slot is not None and not slot.face_up and self.card(slot.card).effect in effects
        ]

    def _to_cemetery(self, q: int) -> None:
        """A destroyed card leaves the grid for its owner's cemetery."""
        piece = self.grid.pop(q)
        ms_add(self.players[piece.owner].cemetery, piece.card)

    def _damage(self, q: int, amount: int) -> bool:
        """Adds damage to the card on q; destroys it at damage >= HP. True if destroyed."""
        piece = self.grid[q]
        damage = piece.damage + amount
        if damage >= self.card(piece.card).hp:
            self._to_cemetery(q)
            return True
        self.grid[q] = piece._replace(damage=damage)
        return False

    # -- setup chance steps (spec §2) -------------------------------------------
    def _step_deal(self, seat: int, slot: int) -> None:
        if self.players[seat].to_deal:
            self._chance("deal", seat, slot)

    def _step_reveal_pile(self, pile: int) -> None:
        """Turns the next card of pile A/B/C face up (also the refill after a purchase)."""
        if self.piles[pile]:
            self._chance("reveal_pile", pile)

    def _step_reveal_row(self) -> None:
        """Adds a card of the row pile to the face-up row (also the refill)."""
        if self.row_pile:
            self._chance("reveal_row")

    def _step_first_field(self) -> None:
        if self.game.fields:
            self._chance("field")

    def _step_draw(self, seat: int) -> None:
        if self.players[seat].deck:
            self._chance("draw", seat)

    # -- the turn (spec §3) -----------------------------------------------------
    def _step_standby1(self) -> None:
        """Standby 1, automatic steps 1-3 of the active player P, then 4, 5 and the decision."""
        P = self.active
        me = self.players[P]
        # 1. P's face-up events leave their slots for P's cemetery.
        for s, slot in enumerate(me.slots):
            if slot is not None and slot.face_up:
                ms_add(me.cemetery, slot.card)
                me.slots[s] = None
        # 2. P's cards heal; P's characters are ready and not moved.
        for q, piece in self.grid.items():
            if piece.owner == P:
                is_character = self.card(piece.card).kind == "character"
                self.grid[q] = piece._replace(damage=0, ready=is_character, moved=False)
        # 3. P's face-down territories turn face up.
        for q, piece in self.grid.items():
            if piece.owner == P and piece.face_down:
                self.grid[q] = piece._replace(face_down=False)
        self._push(("field_tick",), ("income",), ("decide", "standby1", P))

    def _step_field_tick(self) -> None:
        """4. Expert, unless turn 1: the field card's duration runs down; at 0 the next one."""
        if self.field is None or self.turn == 1:
            return
        remaining = self.field.remaining - 1
        self.field = self.field._replace(remaining=remaining)
        if remaining > 0:
            return
        revealed = self.field.revealed
        if len(revealed) < len(self.game.fields):
            self._chance("field")  # a new card from the unseen field cards
        else:  # every card seen: the pile is a cycle
            following = revealed[(revealed.index(self.field.active) + 1) % len(revealed)]
            self.field = FieldState(following, self.game.fields[following].duration, revealed)

    def _step_income(self) -> None:
        """5. AP set to 3 + territories' AP income; funds += 2 + funds income (+ Harvest)."""
        P = self.active
        me = self.players[P]
        ap_income = funds_income = 0
        for piece in self.grid.values():
            card = self.card(piece.card)
            if piece.owner == P and card.kind == "territory" and not piece.face_down:
                ap_income += card.ap_income
                funds_income += card.funds_income
        me.ap = 3 + ap_income
        self._gain_funds(P, 2 + funds_income + (self._field_amount("income_funds") or 0))

    def _step_end_phase(self) -> None:
        """End phase (E-5): Rally bonuses end, hand and FLOW go into the DECK, turn limit."""
        P = self.active
        me = self.players[P]
        for q, piece in self.grid.items():
            if piece.atk_bonus:
                self.grid[q] = piece._replace(atk_bonus=0)
        ms_merge(me.deck, me.hand)
        ms_merge(me.deck, me.flow)
        me.hand, me.flow = {}, {}
        if self.turn == MAX_TURNS:
            self._finish([0, 0])  # D-11: a draw
            return
        self._push(("draw", P), ("draw", P), ("draw", P), ("next_turn",))

    def _step_next_turn(self) -> None:
        self.turn += 1
        self.active = 1 - self.active
        self._push(("standby1",))

    # -- battle (spec §4) ---------------------------------------------------------
    def _step_response_window(self) -> None:
        """1. The defender may answer the attack if they have any face-down event (E-3)."""
        D = 1 - self.active
        if self._has_face_down_event(D):
            self._decide("response", D)

    def _step_nullify_window(self, answerer: int, answering: str) -> None:
        """The Nullify window: offered if the answerer has any face-down event."""
        if self._has_face_down_event(answerer):
            self._decide("nullify", answerer, answering)

    def _step_resolve_battle(self) -> None:
        """2. Resolution by the response in force."""
        b = self.battle
        a, t = b.attacker_sq, b.target_sq
        if b.response is None:
            self._push(("strike", a, t, "main"), ("counter_strike",))
        elif b.response == "ambush":
            self._push(("strike", t, a, "ambush"), ("ambush_main_strike",))
        # evasion, fortify: no strike at all

    def _step_strike(self, striker_sq: int, target_sq: int, role: str) -> None:
        self._chance("strike", striker_sq, target_sq, role)

    def _step_counter_strike(self) -> None:
        """The target strikes back if it is a character still on the grid with a in range."""
        a, t = self.battle.attacker_sq, self.battle.target_sq
        if self._is_character(t) and a in self._attacks_of(t):
            self._push(("strike", t, a, "counter"))

    def _step_ambush_main_strike(self) -> None:
        """Ambush: the attacker, if it survived, strikes normally; no counter-strike."""
        a, t = self.battle.attacker_sq, self.battle.target_sq
        if a in self.grid:
            self._push(("strike", a, t, "main"))

    def _step_after_battle(self) -> None:
        """3. bounty, 4. the attacker is exhausted, 5. the Evasion move."""
        b = self.battle
        if b.bounty:
            self._gain_funds(self.active, b.bounty)
        if b.attacker_sq in self.grid:
            self.grid[b.attacker_sq] = self.grid[b.attacker_sq]._replace(ready=False, moved=False)
        if b.response == "evasion" and self._evasion_squares():
            self._decide("evade", 1 - self.active)

    def _evasion_squares(self) -> list[int]:
        return [q for q in self._moves_of(self.battle.target_sq) if self._is_free(q)]

    def _step_end_battle(self) -> None:
        """6. Back to the attacker's field phase."""
        self.battle = None
        self._decide("field", self.active)

    def _strike_odds(self, x_sq: int, y_sq: int, role: str) -> tuple[int, int]:
        """(HIT, CRIT) in percent of the strike of the card on x_sq on y_sq."""
        striker = self.grid[x_sq]
        card = self.card(striker.card)
        hit, crit = card.hit, card.crit
        # COMMAND: +10 if another character of the striker's owner with COMMAND is adjacent.
        if any(
            q in self.grid
            and self.grid[q].owner == striker.owner
            and "COMMAND" in self.card(self.grid[q].card).keywords
            and self._is_character(q)
            for q in neighbours(x_sq)
        ):
            hit += 10
        hit += self._field_amount("hit") or 0
        # Out-of-range bonus: main strike on a character from outside its attack pattern.
        if role == "main" and self._is_character(y_sq) and x_sq not in self._attacks_of(y_sq):
            hit += 20
            crit += 10
        return min(100, max(0, hit)), min(100, max(0, crit))

    def _strike_weights(self, x_sq: int, y_sq: int, role: str) -> list[tuple[int, int]]:
        """[(outcome, weight)] over 10,000, only the outcomes of non-zero weight."""
        hit, crit = self._strike_odds(x_sq, y_sq, role)
        weights = [(MISS, (100 - hit) * 100), (HIT, hit * (100 - crit)), (CRIT, hit * crit)]
        return [(outcome, w) for outcome, w in weights if w > 0]

    def _strike_damage(self, x_sq: int, y_sq: int, role: str, critical: bool) -> int:
        striker = self.grid[x_sq]
        card = self.card(striker.card)
        damage = card.atk + striker.atk_bonus
        if "CHARGE" in card.keywords and role == "main" and self.battle.charge:
            damage += 1
        target_is_building = y_sq in CASTLE or self.card(self.grid[y_sq].card).kind == "territory"
        siege = "SIEGE" in card.keywords and target_is_building
        if critical and siege:
            damage *= 3  # D-13: x3, not x4
        elif critical or siege:
            damage *= 2
        if y_sq not in CASTLE and "ARMORED" in self.card(self.grid[y_sq].card).keywords:
            damage = max(1, damage - 1)
        return damage

    def _resolve_strike(self, x_sq: int, y_sq: int, role: str, outcome: int) -> None:
        if outcome != MISS:
            damage = self._strike_damage(x_sq, y_sq, role, critical=outcome == CRIT)
            if y_sq in CASTLE:
                self.players[CASTLE.index(y_sq)].castle_hp -= damage  # may go below 0 (E-8)
            else:
                target = self.grid[y_sq]
                is_territory = self.card(target.card).kind == "territory"
                if self._damage(y_sq, damage) and role == "main" and is_territory:
                    self.battle = self.battle._replace(bounty=self.card(target.card).cost // 2)
        self._check_end()

    # -- events (spec §5) -----------------------------------------------------------
    def _event_targets(self, effect: str) -> list[int]:
        """The legal `arg` values of an own-turn event of the active player."""
        P = self.active
        if effect == "flood":
            return list(range(N_RANKS))
        if effect == "rally":
            return [
                q
                for q, piece in sorted(self.grid.items())
                if piece.owner == P and self._is_character(q)
            ]
        if effect == "sabotage":
            return [
                q
                for q, piece in sorted(self.grid.items())
                if piece.owner != P and self.card(piece.card).kind == "territory"
            ]
        if effect in ("forced_march", "windfall"):
            return [0]
        return []  # response events are never played here

    def _step_event_effect(self) -> None:
        """The effect of the event, unless it was nullified; then the end-of-game check."""
        e = self.pending_event
        if e.nullified:
            return
        card = self.card(e.card)
        P = e.owner
        if card.effect == "flood":
            rank_squares = [q for q in range(e.arg * N_FILES, (e.arg + 1) * N_FILES)]
            for q in rank_squares:  # ascending square order (E-6)
                if self._is_character(q):
                    self._damage(q, card.amount)
        elif card.effect == "rally":
            piece = self.grid[e.arg]
            self.grid[e.arg] = piece._replace(atk_bonus=piece.atk_bonus + card.amount)
        elif card.effect == "forced_march":
            self.players[P].ap += card.amount
        elif card.effect == "windfall":
            self._gain_funds(P, card.amount)
        elif card.effect == "sabotage":
            self._damage(e.arg, card.amount)  # no bounty
        self._check_end()

    def _step_end_event(self) -> None:
        self.pending_event = None
        self._decide("field", self.active)

    # -- end of the game (spec §6) -----------------------------------------------------
    def _has_lost(self, seat: int) -> bool:
        player = self.players[seat]
        buried = sum(
            n for c, n in player.cemetery.items() if self.card(c).kind in ("character", "territory")
        )
        return player.castle_hp <= 0 or buried >= self.game.cemetery_limit

    def _check_end(self) -> None:
        lost = [self._has_lost(0), self._has_lost(1)]
        if lost[0] and lost[1]:
            self._finish([0, 0])  # D-10
        elif lost[0]:
            self._finish([-1, 1])
        elif lost[1]:
            self._finish([1, -1])

    def _finish(self, result: list[int]) -> None:
        """The game is over: nothing else happens (the agenda is dropped)."""
        self.result = result
        self.node = ("over",)
        self.agenda = []
        self.battle = None
        self.pending_event = None

    # =========================================================================
    # Chance nodes

    def _chance_weights(self) -> list[tuple[int, int]]:
        """[(outcome code, integer weight)] of the current chance node, ascending."""
        what, *args = self.node[1:]
        if what == "deal":
            ms, kind = self.players[args[0]].to_deal, DEAL
        elif what == "reveal_pile":
            ms, kind = self.piles[args[0]], REVEAL
        elif what == "reveal_row":
            ms, kind = self.row_pile, REVEAL
        elif what == "draw":
            ms, kind = self.players[args[0]].deck, DRAW
        elif what == "field":
            seen = self.field.revealed if self.field else ()
            return [(encode(FIELD, f.id), 1) for f in self.game.fields if f.id not in seen]
        elif what == "strike":
            return [(encode(STRIKE, outcome), w) for outcome, w in self._strike_weights(*args)]
        else:
            raise AssertionError(what)
        return [(encode(kind, card), n) for card, n in sorted(ms.items())]

    def _resolve_chance(self, x: int) -> None:
        what, *args = self.node[1:]
        if what == "deal":
            seat, slot = args
            ms_take(self.players[seat].to_deal, x)
            self.players[seat].slots[slot] = Slot(x, face_up=False)
        elif what == "reveal_pile":
            ms_take(self.piles[args[0]], x)
            self.tops[args[0]] = x
        elif what == "reveal_row":
            ms_take(self.row_pile, x)
            ms_add(self.row, x)
        elif what == "draw":
            player = self.players[args[0]]
            ms_take(player.deck, x)
            ms_add(player.hand, x)
        elif what == "field":
            seen = self.field.revealed if self.field else ()
            self.field = FieldState(x, self.game.fields[x].duration, seen + (x,))
        elif what == "strike":
            self._resolve_strike(*args, outcome=x)  # type: ignore[misc]  # args: the two squares and role

    # =========================================================================
    # Decisions: legal actions

    def _legal_decisions(self) -> list[int]:
        phase, player = self.node[1], self.node[2]
        if phase in ("standby1", "standby2"):
            codes = self._standby_actions()
        elif phase == "field":
            codes = self._field_actions()
        elif phase == "response":
            # evasion and ambush answer an attack on a character; fortify one on a
            # territory or the castle.
            if self._is_character(self.battle.target_sq):
                effects = {"evasion", "ambush"}
            else:
                effects = {"fortify"}
            codes = [encode(PASS)] + [
                encode(EVENT, s) for s in self._face_down_slots(player, effects)
            ]
        elif phase == "nullify":
            codes = [encode(PASS)] + [
                encode(EVENT, s) for s in self._face_down_slots(player, {"nullify"})
            ]
        elif phase == "evade":
            codes = [encode(PASS)] + [encode(EVADE, q) for q in self._evasion_squares()]
        else:
            raise AssertionError(phase)
        return sorted(codes)

    def _standby_actions(self) -> list[int]:
        P = self.active
        me = self.players[P]
        codes = [encode(END)]
        face_up = [t for t in self.tops if t is not None] + list(self.row)
        for t in face_up:
            if self._price(t) > me.funds:
                continue
            codes.append(encode(BUY, t))
            if self.card(t).kind == "territory" and t in self.row and me.ap >= 1:
                codes += [encode(BUY_PLACE, t, q) for q in self._free_home_squares(P)]
        for t in me.hand:
            kind = self.card(t).kind
            if kind in ("character", "territory") and me.ap >= 1:
                codes += [encode(PLACE, t, q) for q in self._free_home_squares(P)]
            elif kind == "event" and None in me.slots:
                codes.append(encode(SET, t))
        return codes

    def _field_actions(self) -> list[int]:
        P = self.active
        me = self.players[P]
        enemy_castle = CASTLE[1 - P]
        codes = [encode(END)]
        for a, piece in self.grid.items():
            if piece.owner != P or not self._is_character(a):
                continue
            if not piece.ready:
                if me.ap >= 1:
                    codes.append(encode(READY, a))
                continue
            if me.ap >= self._move_cost():
                codes += [encode(MOVE, a, b) for b in self._moves_of(a) if self._is_free(b)]
            if me.ap >= self._attack_cost(piece):
                for b in self._attacks_of(a):
                    if b == enemy_castle or (b in self.grid and self.grid[b].owner != P):
                        codes.append(encode(ATTACK, a, b))
        for s, slot in enumerate(me.slots):
            if slot is not None and not slot.face_up and self.card(slot.card).timing == "own-turn":
                targets = self._event_targets(self.card(slot.card).effect)
                codes += [encode(EVENT, s, arg) for arg in targets]
        return codes

    # =========================================================================
    # Decisions: their effects

    def _apply_decision(self, kind: int, x: int, y: int) -> None:
        phase, player = self.node[1], self.node[2]
        P = self.active
        me = self.players[P]
        if phase in ("standby1", "standby2"):
            if kind == END:
                if phase == "standby1":
                    self._push(("decide", "field", P))
                else:
                    self._push(("end_phase",))
                return
            then = [("decide", phase, P)]  # back to the same phase ...
            if kind == BUY:
                me.funds -= self._price(x)
                ms_add(me.flow, x)
                then.insert(0, self._take_from_market(x))  # ... after the refill
            elif kind == BUY_PLACE:
                me.funds -= self._price(x)
                me.ap -= 1
                self.grid[y] = Piece(x, P, face_down=True)
                then.insert(0, self._take_from_market(x))
            elif kind == PLACE:
                me.ap -= 1
                ms_take(me.hand, x)
                self.grid[y] = Piece(x, P, ready=self.card(x).kind == "character")
            elif kind == SET:
                ms_take(me.hand, x)
                me.slots[me.slots.index(None)] = Slot(x, face_up=False)
            self._push(*then)
        elif phase == "field":
            if kind == END:
                self._push(("decide", "standby2", P))
            elif kind == MOVE:
                me.ap -= self._move_cost()
                self.grid[y] = self.grid.pop(x)._replace(moved=True)
                self._push(("decide", "field", P))
            elif kind == READY:
                me.ap -= 1
                self.grid[x] = self.grid[x]._replace(ready=True, moved=False)
                self._push(("decide", "field", P))
            elif kind == ATTACK:
                attacker = self.grid[x]
                me.ap -= self._attack_cost(attacker)
                self.battle = Battle(x, y, charge=attacker.moved)
                self._push(
                    ("response_window",), ("resolve_battle",), ("after_battle",), ("end_battle",)
                )
            elif kind == EVENT:
                slot = me.slots[x]
                me.slots[x] = slot._replace(face_up=True)
                self.pending_event = PendingEvent(P, x, slot.card, y)
                self._push(("nullify_window", 1 - P, "event"), ("event_effect",), ("end_event",))
        elif phase == "response":
            if kind == EVENT:
                D = player
                slot = self.players[D].slots[x]
                self.players[D].slots[x] = slot._replace(face_up=True)
                self.battle = self.battle._replace(response=self.card(slot.card).effect)
                self._push(("nullify_window", 1 - D, "response"))
        elif phase == "nullify":
            if kind == EVENT:
                answerer = self.players[player]
                answerer.slots[x] = answerer.slots[x]._replace(face_up=True)
                if self.node[3] == "response":
                    self.battle = self.battle._replace(response=None)  # cancelled
                else:
                    self.pending_event = self.pending_event._replace(nullified=True)
        elif phase == "evade":
            if kind == EVADE:
                self.grid[x] = self.grid.pop(self.battle.target_sq)  # `moved` unchanged

    def _take_from_market(self, t: int) -> tuple:
        """Removes a bought card from the market; returns the refill step."""
        if t in self.tops:
            pile = self.tops.index(t)
            self.tops[pile] = None
            return ("reveal_pile", pile)
        ms_take(self.row, t)
        return ("reveal_row",)

    # =========================================================================
    # The backend protocol (docs/architecture.md)

    def current_player(self) -> int:
        if self.node[0] == "over":
            return TERMINAL
        if self.node[0] == "chance":
            return CHANCE
        return self.node[2]

    def _describe(self, code: int) -> str:
        return format_action(code, self)

    def _play(self, code: int) -> None:
        kind, x, y = decode(code)
        if self.node[0] == "chance":
            self._resolve_chance(x)
        else:
            self._apply_decision(kind, x, y)
        self._legal = None
        if self.node[0] != "over":
            self._run()

    def observed_by(self, code: int, seat: int) -> bool:
        """Spec §9.1: whether `seat` is shown which code this is: not an event
        the opponent sets face down, nor a deal or a draw of the opponent."""
        player = self.current_player()
        if player == seat:
            return True
        if player != CHANCE:
            return decode(code)[0] != SET
        what, *args = self.node[1:]
        return what not in ("deal", "draw") or args[0] == seat

    def _copy(self) -> OracleState:
        """An independent copy without undo history."""
        new = OracleState(self.game, _blank=True)
        new.turn, new.active = self.turn, self.active
        new.players = [p.copy() for p in self.players]
        new.grid = dict(self.grid)
        new.tops, new.piles = list(self.tops), [dict(p) for p in self.piles]
        new.row, new.row_pile = dict(self.row), dict(self.row_pile)
        new.field = self.field
        new.result = list(self.result) if self.result is not None else None
        new.battle, new.pending_event = self.battle, self.pending_event
        new.node, new.agenda = self.node, list(self.agenda)
        new._legal = self._legal
        return new

    # =========================================================================
    # The canonical dict (spec §8)

    def phase(self) -> str:
        if self.node[0] == "over":
            return "over"
        if self.node[0] == "chance":
            return "chance"
        return self.node[1]

    def _names(self, ms: dict[int, int]) -> dict[str, int]:
        return {self.card(c).name: n for c, n in sorted(ms.items())}

    def to_dict(self) -> dict:
        if self.node[0] == "over":
            current = None
        elif self.node[0] == "chance":
            current = "chance"
        else:
            current = self.node[2]
        players = []
        for p in self.players:
            players.append(
                {
                    "castle_hp": p.castle_hp,
                    "ap": p.ap,
                    "funds": p.funds,
                    "hand": self._names(p.hand),
                    "deck": self._names(p.deck),
                    "flow": self._names(p.flow),
                    "cemetery": self._names(p.cemetery),
                    "slots": [
                        None
                        if s is None
                        else {"card": self.card(s.card).name, "face_up": s.face_up}
                        for s in p.slots
                    ],
                }
            )
        grid = {
            square_name(q): {
                "card": self.card(pc.card).name,
                "owner": pc.owner,
                "damage": pc.damage,
                "ready": pc.ready,
                "moved": pc.moved,
                "face_down": pc.face_down,
                "atk_bonus": pc.atk_bonus,
            }
            for q, pc in sorted(self.grid.items())
        }
        market = {
            "tops": [None if t is None else self.card(t).name for t in self.tops],
            "piles": [self._names(p) for p in self.piles],
            "row": self._names(self.row),
            "row_pile": self._names(self.row_pile),
        }
        field = None
        if self.field is not None:
            fields = self.game.fields
            field = {
                "active": fields[self.field.active].name,
                "remaining": self.field.remaining,
                "revealed": [fields[f].name for f in self.field.revealed],
            }
        return {
            "turn": self.turn,
            "active": self.active,
            "current": current,
            "phase": self.phase(),
            "result": list(self.result) if self.result is not None else None,
            "players": players,
            "grid": grid,
            "market": market,
            "field": field,
        }

    @classmethod
    def from_dict(cls, game: OracleGame, d: dict) -> OracleState:
        """The inverse of to_dict for resting decisions (phase standby1, field, standby2)."""
        if d["phase"] not in ("standby1", "field", "standby2") or d["current"] != d["active"]:
            raise ValueError("from_dict builds resting decisions only (standby1, field, standby2)")
        cards = game.cards

        def ids(names: dict[str, int]) -> dict[int, int]:
            return {cards.by_name(name).id: n for name, n in names.items() if n > 0}

        state = cls(game, _blank=True)
        state.turn, state.active = d["turn"], d["active"]
        state.players = []
        for pd in d["players"]:
            p = Player(pd["castle_hp"], pd["funds"])
            p.ap = pd["ap"]
            p.hand, p.deck = ids(pd["hand"]), ids(pd["deck"])
            p.flow, p.cemetery = ids(pd["flow"]), ids(pd["cemetery"])
            p.slots = [
                None if s is None else Slot(cards.by_name(s["card"]).id, s["face_up"])
                for s in pd["slots"]
            ]
            state.players.append(p)
        state.grid = {
            square(name): Piece(
                cards.by_name(g["card"]).id,
                g["owner"],
                g.get("damage", 0),
                g.get("ready", False),
                g.get("moved", False),
                g.get("face_down", False),
                g.get("atk_bonus", 0),
            )
            for name, g in d["grid"].items()
        }
        m = d["market"]
        state.tops = [None if t is None else cards.by_name(t).id for t in m["tops"]]
        state.piles = [ids(p) for p in m["piles"]]
        state.row, state.row_pile = ids(m["row"]), ids(m["row_pile"])
        state.field = None
        if d.get("field") is not None:
            f = d["field"]
            state.field = FieldState(
                cards.field_by_name(f["active"]).id,
                f["remaining"],
                tuple(cards.field_by_name(n).id for n in f["revealed"]),
            )
        state.result = None
        state.battle = state.pending_event = None
        state.node = ("decide", d["phase"], d["active"])
        state.agenda = []
        return state

    # =========================================================================
    # Information (spec §9)

    def unseen(self, seat: int) -> dict[int, int]:
        """U of `seat`: hand + DECK + face-down events + (setup) events still to deal."""
        p = self.players[seat]
        u: dict[int, int] = {}
        for ms in (p.hand, p.deck, p.to_deal):
            ms_merge(u, ms)
        for slot in p.slots:
            if slot is not None and not slot.face_up:
                ms_add(u, slot.card)
        return u

    def information_view(self, player: int) -> dict:
        """Exactly what `player` knows: equal views iff the player cannot tell two states apart."""
        me, opp = self.players[player], self.players[1 - player]

        def counters(p: Player) -> tuple:
            return (p.castle_hp, p.ap, p.funds, ms_key(p.flow), ms_key(p.cemetery))

        return {
            "viewer": player,
            "turn": self.turn,
            "active": self.active,
            "node": self.node,
            "agenda": tuple(self.agenda),
            "result": tuple(self.result) if self.result is not None else None,
            "battle": self.battle,
            "pending_event": self.pending_event,
            "grid": tuple(sorted(self.grid.items())),
            "market": (
                tuple(self.tops),
                tuple(ms_key(p) for p in self.piles),
                ms_key(self.row),
                ms_key(self.row_pile),
            ),
            "field": self.field,
            "me": counters(me)
            + (ms_key(me.hand), ms_key(me.deck), ms_key(me.to_deal), tuple(me.slots)),
            "opponent": counters(opp)
            + (
                ms_key(self.unseen(1 - player)),
                ms_size(opp.hand),
                ms_size(opp.deck),
                ms_size(opp.to_deal),
                tuple(
                    None if s is None else ("face down",) if not s.face_up else s for s in opp.slots
                ),
            ),
        }

    def resample(self, player: int, rng: random.Random) -> OracleState:
        """A copy where the opponent's hidden split is redrawn uniformly (spec §9)."""
        new = self.clone()
        opp = new.players[1 - player]
        rest = new.unseen(1 - player)

        def draw_event() -> int:
            events = {c: n for c, n in rest.items() if new.card(c).kind == "event"}
            card = ms_draw(events, rng)
            ms_take(rest, card)
            return card

        for s, slot in enumerate(opp.slots):
            if slot is not None and not slot.face_up:
                opp.slots[s] = Slot(draw_event(), face_up=False)
        to_deal: dict[int, int] = {}
        for _ in range(ms_size(opp.to_deal)):
            ms_add(to_deal, draw_event())
        hand: dict[int, int] = {}
        for _ in range(ms_size(opp.hand)):
            ms_add(hand, ms_draw(rest, rng))
        opp.to_deal, opp.hand, opp.deck = to_deal, hand, rest
        new._legal = None
        return new


# ---------------------------------------------------------------------------
# Tools


def format_action(code: int, state_or_cards: Any = None) -> str:
    """The public notation of a code (docs/anabasis-engine.md §7); EVENT
    arguments need a state (the event in the slot), card names a state or a
    CardSet; without them, the bare code."""
    state = state_or_cards if isinstance(state_or_cards, OracleState) else None
    cards = state.game.cards if state else state_or_cards
    if cards is None:
        return f"#{code}"

    def slot_event(slot: int) -> Card | None:
        player = state.current_player() if state is not None else -1
        entry = state.players[player].slots[slot] if player >= 0 and slot < 3 else None
        return state.card(entry.card) if entry is not None else None

    try:
        return notation.format_action(code, cards, slot_event)
    except (IndexError, XenophonError):
        return f"#{code}"


def _oracle_for(game: Any) -> OracleGame:
    """The oracle's side of a public Game (its cards and options)."""
    return OracleGame(game.cards, game.mode)


register_engine("oracle", "anabasis", _oracle_for)

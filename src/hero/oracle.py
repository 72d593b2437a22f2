"""The pure-Python oracle of A Hero incarnation: a slow implementation written to be read.

It implements ``docs/hero-engine.md``, the rules authority and engine spec of
the project (cited below as "spec §n", its decisions as [E-n] and the rules
decisions as [D-n], listed in §13 and §15). The C core is written from the
same spec by someone else and is checked against this file on random games:
legal actions, chance outcomes with their probabilities and the canonical
``to_dict()`` must agree after every action. This module shares nothing with
the C code but the card file (:mod:`xenophon.hero.cards`) and the action
codes (:mod:`xenophon.hero.notation`).

How the flow is modelled
------------------------
The state is the spec's state (§2) almost word for word: ``turn``,
``active``, ``phase``, ``pending``, ``attack``, two :class:`Player` records,
``result`` and the internal ``special_winner``. Who decides, and what, follows
from ``phase`` and ``pending`` by the table of spec §3 (see
:meth:`OracleState.current_player` and :meth:`OracleState._legal_decisions`).

Everything an action sets off runs at once inside :meth:`OracleState.apply`,
until the game needs an answer again. The only things that can interrupt a
resolution are a chance node (a card of ``draw(n)``) and an on_deploy target
choice; both are recorded in ``pending`` with what is needed to go on
(spec §2): a pending draw remembers the source, the user, the effect index
and the target, and :meth:`OracleState._apply_chance` resumes the effect
list from there.

Units are small mutable objects in the rows of their seat. The spec's *refs*
(a pending attack, the target of a suspended effect list) are held here as
references to the unit objects: a unit is *on the field* while it stands in a
row, and a ref to a unit that left the field is GONE (spec §2). The slot a ref
names (``F2``, ``B1``...) is where the unit stands now, so the spec's "indices
right of a removed unit decrease by 1" comes for free. A unit that leaves
the field never returns as the same object (a bounced card is deployed
again as a new unit), and moves between rows happen only in the Action phase
where no ref is alive.

Undo keeps a full copy of the state per applied action.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from xenophon.hero.cards import (
    TOKEN_NAME,
    Deck,
    Effect,
    HeroAvatar,
    HeroCard,
    HeroCardSet,
    load_card_set,
    prebuilt_decks,
)
from xenophon.hero.notation import (
    ABILITY,
    ATTACK,
    AVATAR,
    BACK,
    DEPLOY,
    DRAW,
    END,
    FRONT,
    GUARD,
    MOVE,
    NONE,
    PASS,
    PLAY,
    RETAINER,
    ROW_SIZE,
    TARGET,
    decode,
    encode,
    format_action,
)
from xenophon.kernel.codes import CHANCE, TERMINAL
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
    "TOKEN",
    "END",
    "PASS",
    "MOVE",
    "DEPLOY",
    "PLAY",
    "RETAINER",
    "ABILITY",
    "TARGET",
    "ATTACK",
    "GUARD",
    "DRAW",
    "AVATAR",
    "NONE",
    "FRONT",
    "BACK",
    "encode",
    "decode",
    "Unit",
    "Player",
    "OracleGame",
    "OracleState",
    "perft",
]

# ---------------------------------------------------------------------------
# Small constants

TOKEN = -1  # the card "id" of a Retainer token (spec §2: card id or TOKEN)
ROWS = (FRONT, BACK)
ROW_LETTERS = "FB"
PHASES = ("setup", "draw", "action", "window", "battle", "defend", "over")
AVATAR_TARGET = "avatar"  # the target of an attack on the avatar


# ---------------------------------------------------------------------------
# State pieces (spec §2)


class Unit:
    """A unit on the field: a card, or a Retainer token (card == TOKEN)."""

    __slots__ = ("card", "damage", "used", "can_move", "pump_power", "pump_attack")

    def __init__(
        self,
        card: int,
        damage: int = 0,
        used: bool = False,
        can_move: bool = False,
        pump_power: int = 0,
        pump_attack: int = 0,
    ):
        self.card = card
        self.damage = damage
        self.used = used  # False: standby
        self.can_move = can_move  # [E-27]
        self.pump_power = pump_power
        self.pump_attack = pump_attack

    @property
    def is_token(self) -> bool:
        return self.card == TOKEN

    def copy(self) -> Unit:
        return Unit(
            self.card, self.damage, self.used, self.can_move, self.pump_power, self.pump_attack
        )

    def __repr__(self) -> str:
        return (
            f"Unit({self.card}, damage={self.damage}, used={self.used}, "
            f"can_move={self.can_move}, pump=({self.pump_power}, {self.pump_attack}))"
        )


class Player:
    """Everything one seat has: its avatar, HP, per-turn counters, zones and rows."""

    __slots__ = (
        "avatar",
        "hp",
        "charisma_used",
        "ability_used",
        "hand",
        "deck",
        "graveyard",
        "exile",
        "known",
        "rows",
    )

    def __init__(self, avatar: HeroAvatar):
        self.avatar = avatar
        self.hp = avatar.hp
        self.charisma_used = 0
        self.ability_used = False
        self.hand: dict[int, int] = {}
        self.deck: dict[int, int] = {}
        self.graveyard: dict[int, int] = {}
        self.exile: dict[int, int] = {}
        self.known: dict[int, int] = {}  # copies known to be in the hand (spec §11.1)
        self.rows: tuple[list[Unit], list[Unit]] = ([], [])  # rows[FRONT], rows[BACK]

    def units(self) -> list[Unit]:
        """Front row left to right, then back row left to right."""
        return self.rows[FRONT] + self.rows[BACK]

    def copy(self, memo: dict[int, Unit]) -> Player:
        """A copy; `memo` receives id(old unit) -> new unit, to carry refs over."""
        new = Player.__new__(Player)
        new.avatar, new.hp = self.avatar, self.hp
        new.charisma_used, new.ability_used = self.charisma_used, self.ability_used
        new.hand, new.deck = dict(self.hand), dict(self.deck)
        new.graveyard, new.exile, new.known = (
            dict(self.graveyard),
            dict(self.exile),
            dict(self.known),
        )
        rows: tuple[list[Unit], list[Unit]] = ([], [])
        for row, units in zip(rows, self.rows):
            for unit in units:
                memo[id(unit)] = copied = unit.copy()
                row.append(copied)
        new.rows = rows
        return new


class PendingTarget(NamedTuple):
    """An on_deploy trigger waiting for its controller's TARGET (spec §2, E-6)."""

    source: int  # the card id of the unit that entered
    player: int


class PendingDraw(NamedTuple):
    """An effect list suspended at a card of draw(n) (spec §2, §7)."""

    source: int  # a card id, or the avatar id when `is_ability`
    is_ability: bool
    player: int  # the user `u`, who draws
    effect: int  # index i of the draw(n) effect in the list
    draws_left: int  # k >= 1
    target: Unit | None  # the list's target; None: no target, or GONE


class Attack(NamedTuple):
    """The declared attack, alive in phase `defend` only (spec §2, §6)."""

    attacker: Unit | None  # the active seat's unit; None: GONE
    target: Unit | str | None  # AVATAR_TARGET, the defending seat's unit, or None: GONE


# ---------------------------------------------------------------------------
# The game: card set and the two decks


class OracleGame:
    """A Hero incarnation with one card set and two decks; makes initial states.

    ``OracleGame(cards, deck0, deck1)`` (spec §14). Each deck is a
    :class:`Deck` of `cards` or the name of a prebuilt deck; by default the
    reference set, Crimson Conqueror (seat 0) against Wild Grove (seat 1).
    The two decks may also be passed as one pair: ``OracleGame(cards, (d0, d1))``.
    """

    def __init__(self, cards: HeroCardSet | None = None, deck0: Any = None, deck1: Any = None):
        self.cards = cards if cards is not None else load_card_set()
        if isinstance(deck0, (tuple, list)) and deck1 is None:
            deck0, deck1 = deck0
        decks = []
        for deck, default in ((deck0, "crimson_conqueror"), (deck1, "wild_grove")):
            deck = default if deck is None else deck
            if isinstance(deck, str):
                deck = prebuilt_decks(self.cards)[deck]
            if not isinstance(deck, Deck):
                raise TypeError(f"a deck must be a Deck or a prebuilt deck's name, not {deck!r}")
            if deck.card_set_digest != str(self.cards.digest) or len(deck.counts) != len(
                self.cards.cards
            ):
                raise ValueError(f"deck '{deck.name}' was built for another card set")
            decks.append(deck)
        self.decks: tuple[Deck, Deck] = (decks[0], decks[1])

    def card(self, card_id: int) -> HeroCard:
        return self.cards.cards[card_id]

    def new_initial_state(self) -> OracleState:
        return OracleState(self)

    def state_from_dict(self, d: dict) -> OracleState:
        """A state built from a canonical dict (spec §10), for tests; see OracleState.from_dict."""
        return OracleState.from_dict(self, d)


# ---------------------------------------------------------------------------
# The state


class OracleState(OracleStateBase):
    """One position, with the backend protocol of docs/architecture.md."""

    # -- creation (spec §4) --------------------------------------------------
    def __init__(self, game: OracleGame, _blank: bool = False):
        super().__init__(game)
        if _blank:
            return
        # Turn 0, active 0, phase setup; each seat: its avatar's HP, deck = its
        # decklist, every other zone empty; nothing pending.
        self.turn = 0
        self.active = 0
        self.phase = "setup"
        self.pending: PendingTarget | PendingDraw | None = None
        self.attack: Attack | None = None
        self.result: list[int] | None = None
        self.special_winner: int | None = None
        self.players = [Player(deck.avatar) for deck in game.decks]
        for player, deck in zip(self.players, game.decks):
            player.deck = deck.multiset()
        # Setup draws are chance nodes; with both hand sizes 0 the turn begins at once.
        if self._setup_drawer() is None:
            self._begin_turn()

    # -- small rule helpers ------------------------------------------------------
    def card(self, card_id: int) -> HeroCard:
        return self.game.cards.cards[card_id]

    def _keywords(self, unit: Unit) -> frozenset[str]:
        """A token has no keywords [E-17]."""
        return frozenset() if unit.is_token else self.card(unit.card).keywords

    def _race(self, seat: int, unit: Unit) -> str:
        return self.players[seat].avatar.race if unit.is_token else self.card(unit.card).race

    def _faction(self, seat: int, unit: Unit) -> str:
        return self.players[seat].avatar.faction if unit.is_token else self.card(unit.card).faction

    def _race_bonus(self, seat: int, unit: Unit) -> tuple[int, int]:
        """(power, attack) bonus of a race_bonus avatar for this unit (spec §1)."""
        ability = self.players[seat].avatar.ability
        if ability.kind == "race_bonus" and self._race(seat, unit) == ability.race:
            return ability.power, ability.attack
        return 0, 0

    def power(self, seat: int, unit: Unit) -> int:
        """Printed power (a token: 500) + pumps + race bonus (spec §1, E-26)."""
        printed = 500 if unit.is_token else self.card(unit.card).power
        return printed + unit.pump_power + self._race_bonus(seat, unit)[0]

    def attack_value(self, seat: int, unit: Unit) -> int:
        """Printed attack (a token: 0) + pumps + race bonus (spec §1)."""
        printed = 0 if unit.is_token else self.card(unit.card).attack
        return printed + unit.pump_attack + self._race_bonus(seat, unit)[1]

    def _locate(self, unit: Any) -> tuple[int, int, int] | None:
        """(seat, row, index) of a unit on the field; None if it is not (GONE)."""
        if not isinstance(unit, Unit):
            return None
        for seat in (0, 1):
            for row in ROWS:
                for index, other in enumerate(self.players[seat].rows[row]):
                    if other is unit:
                        return seat, row, index
        return None

    def _on_field(self, unit: Any) -> bool:
        return self._locate(unit) is not None

    def _slot_code(self, me: int, seat: int, row: int, index: int) -> int:
        """The slot code of a unit seen from `me` (spec §8): mine 0..9, the opponent's 10..19."""
        return (0 if seat == me else 10) + row * ROW_SIZE + index

    def _unit_at(self, me: int, slot: int) -> tuple[int, Unit] | None:
        """(seat, unit) at a slot code seen from `me`, or None if the slot is empty."""
        seat = me if slot < 10 else 1 - me
        row, index = divmod(slot % 10, ROW_SIZE)
        units = self.players[seat].rows[row]
        return (seat, units[index]) if index < len(units) else None

    def _setup_drawer(self) -> int | None:
        """Spec §3: seat 0 until its hand is complete, then seat 1; None when both are."""
        for seat in (0, 1):
            player = self.players[seat]
            if ms_size(player.hand) < player.avatar.hand:
                return seat
        return None

    def _drawer(self) -> int:
        """The seat that draws at this chance node (spec §9)."""
        if isinstance(self.pending, PendingDraw):
            return self.pending.player
        if self.phase == "setup":
            drawer = self._setup_drawer()
            assert drawer is not None
            return drawer
        assert self.phase == "draw"
        return self.active

    def _is_chance_node(self) -> bool:
        return self.phase in ("setup", "draw") or isinstance(self.pending, PendingDraw)

    # -- conditions, costs, targets (spec §5) --------------------------------------
    def condition_met(self, user: int, card: HeroCard) -> bool:
        """Spec §5.1: the user's avatar, units and tokens; Neutral counts only in the total."""
        player = self.players[user]
        counts = {"R": 0, "U": 0, "G": 0, "K": 0, "N": 0}
        counts[player.avatar.faction] += 1
        for unit in player.units():
            counts[self._faction(user, unit)] += 1
        return card.condition.is_met(counts)

    def affordable(self, user: int, card: HeroCard) -> bool:
        """Spec §5.1: exactly equal to the charisma is allowed."""
        player = self.players[user]
        return player.charisma_used + card.cost <= player.avatar.charisma

    def _legal_targets(self, user: int, kind: str, effects: tuple[Effect, ...]) -> list[int]:
        """Slot codes (seen from `user`, ascending) of the legal targets of a card or
        ability with target kind `kind` (spec §5). Empty for kind `none`."""
        if kind == "none":
            return []
        limits = [e.args[0] for e in effects if e.name == "destroy_unit"]
        slots = []
        for seat in (user, 1 - user):  # mine first: codes 0..9, 10..19
            if kind == "own_unit" and seat != user:
                continue
            if kind == "enemy_unit" and seat == user:
                continue
            for row in ROWS:
                for index, unit in enumerate(self.players[seat].rows[row]):
                    if "PROTECTION" in self._keywords(unit):
                        continue
                    if any(self.power(seat, unit) > limit for limit in limits):
                        continue
                    slots.append(self._slot_code(user, seat, row, index))
        return slots

    def _use(self, user: int, card_id: int) -> None:
        """Use a card (spec §5): out of the hand, one known copy forgotten, cost paid."""
        player = self.players[user]
        ms_take(player.hand, card_id)
        if player.known.get(card_id, 0) > 0:
            ms_take(player.known, card_id)
        player.charisma_used += self.card(card_id).cost

    # -- the turn (spec §4) -----------------------------------------------------------
    def _begin_turn(self) -> None:
        """[E-10] counter, both totals and flags, row-change flags, A's units standby, draw."""
        self.turn += 1
        self.active = 0 if self.turn % 2 == 1 else 1
        for player in self.players:
            player.charisma_used = 0
            player.ability_used = False
            for unit in player.units():
                unit.can_move = True
        for unit in self.players[self.active].units():
            unit.used = False
        self.phase = "draw"  # a chance node: A draws 1

    def _end_turn(self) -> None:
        """[E-11] damage and pumps cleared, tokens destroyed (with triggers), end check."""
        for player in self.players:
            for unit in player.units():
                unit.damage = 0
                unit.pump_power = unit.pump_attack = 0
        tokens = [
            (seat, unit) for seat in (0, 1) for unit in self.players[seat].units() if unit.is_token
        ]
        self._destroy(tokens)
        self._end_check()
        if self.phase != "over":
            self._begin_turn()

    # -- removal, settle, end of the game (spec §7) ---------------------------------------
    def _remove(self, unit: Unit) -> None:
        """Takes a unit out of its row; the units right of it shift one place left
        (spec §2). Refs to it are GONE from now on: it is no longer on the field."""
        seat, row, index = self._locate(unit)
        del self.players[seat].rows[row][index]

    def _destroy(self, doomed: list[tuple[int, Unit]]) -> None:
        """Settle steps 2 and 3: remove every unit at once (cards to their owner's
        graveyard, tokens cease to exist), then, in the given order, the
        on_enemy_destroyed ability of the other seat's avatar for each [E-12, E-14]."""
        for seat, unit in doomed:
            self._remove(unit)
            if not unit.is_token:
                ms_add(self.players[seat].graveyard, unit.card)
        for seat, _unit in doomed:
            owner = 1 - seat
            ability = self.players[owner].avatar.ability
            if ability.kind != "on_enemy_destroyed":
                continue
            for effect in ability.effects:  # HP only, no nested settle
                x = effect.args[0]
                if effect.name == "heal_avatar":
                    self._heal(owner, x)
                elif effect.name == "lose_hp":
                    self.players[owner].hp -= x
                elif effect.name == "damage_avatar":
                    self.players[seat].hp -= x

    def _heal(self, seat: int, x: int) -> None:
        """Spec §1.1: an avatar's HP never exceeds its starting HP."""
        player = self.players[seat]
        player.hp = min(player.avatar.hp, player.hp + x)

    def _settle(self) -> None:
        """Spec §7 settle: destroy units with damage >= power, triggers, end check."""
        if self.phase == "over":
            return
        doomed = [
            (seat, unit)
            for seat in (0, 1)
            for unit in self.players[seat].units()
            if unit.damage >= self.power(seat, unit)
        ]
        self._destroy(doomed)
        self._end_check()

    def _end_check(self) -> None:
        """Spec §7.3: special victory; else HP <= 0 or an empty deck loses; both lose: a draw."""
        if self.special_winner is not None:
            winner = self.special_winner
            self._finish([1, -1] if winner == 0 else [-1, 1])
            return
        loses = [p.hp <= 0 or not p.deck for p in self.players]
        if loses[0] and loses[1]:
            self._finish([0, 0])
        elif loses[0]:
            self._finish([-1, 1])
        elif loses[1]:
            self._finish([1, -1])

    def _finish(self, result: list[int]) -> None:
        self.result = result
        self.phase = "over"
        self.pending = None
        self.attack = None
        self.special_winner = None

    # -- effects (spec §7) --------------------------------------------------------------
    def _effects_of(self, source: int, is_ability: bool, user: int) -> tuple[Effect, ...]:
        """The effect list of a card, or of the user's avatar ability."""
        if is_ability:
            return self.players[user].avatar.ability.effects
        return self.card(source).effects

    def _resolve(
        self, user: int, source: int, is_ability: bool, target: Unit | None, start: int = 0
    ) -> None:
        """Resolves the effect list of a source of `user` on `target`, from effect
        `start` [E-8]. Stops at a draw (a pending draw) or when the game ends."""
        effects = self._effects_of(source, is_ability, user)
        me = self.players[user]
        for i in range(start, len(effects)):
            effect = effects[i]
            if effect.needs_target:
                located = self._locate(target)
                if located is None:  # GONE: skipped
                    continue
                seat = located[0]
            name, args = effect.name, effect.args
            if name == "damage_unit":
                target.damage += args[0]
                self._settle()
            elif name == "destroy_unit":
                if self.power(seat, target) <= args[0]:  # re-checked now
                    self._destroy([(seat, target)])
                self._settle()
            elif name == "damage_avatar":
                self.players[1 - user].hp -= args[0]
                self._settle()
            elif name == "heal_avatar":
                self._heal(user, args[0])
            elif name == "lose_hp":
                me.hp -= args[0]
                self._settle()
            elif name == "draw":
                if args[0] > 0:  # each card its own chance node
                    kept = target if self._on_field(target) else None
                    self.pending = PendingDraw(source, is_ability, user, i, args[0], kept)
                    return
            elif name == "pump":
                target.pump_power += args[0]
                target.pump_attack += args[1]
            elif name == "bounce":
                self._remove(target)
                if not target.is_token:  # a token ceases to exist
                    owner = self.players[seat]
                    ms_add(owner.hand, target.card)
                    ms_add(owner.known, target.card)
            elif name == "tap":
                target.used = True
            elif name == "untap":
                target.used = False
            elif name == "win_if_units":
                if sum(not unit.is_token for unit in me.units()) >= args[0]:
                    self.special_winner = user
                self._settle()
            else:
                raise AssertionError(f"unknown effect {name}")
            if self.phase == "over":
                return

    def _on_deploy(self, user: int, card: HeroCard) -> None:
        """[E-6] after the unit entered: nothing, at once, or a target choice (or skipped)."""
        if not card.effects:
            return
        if card.target == "none":
            self._resolve(user, card.id, False, None)
        elif self._legal_targets(user, card.target, card.effects):  # the newcomer included
            self.pending = PendingTarget(card.id, user)

    # -- attacks (spec §6) ------------------------------------------------------------------
    def _battle(self, x: Unit, y: Unit) -> None:
        """Attacker X (of A) against the defending unit Y (of N); powers read when dealt."""
        A, N = self.active, 1 - self.active
        seat_of = {id(x): A, id(y): N}
        x_first = "FIRST_STRIKE" in self._keywords(x)
        y_first = "FIRST_STRIKE" in self._keywords(y)
        if x_first != y_first:
            first, other = (x, y) if x_first else (y, x)
            other.damage += self.power(seat_of[id(first)], first)
            self._settle()
            if self.phase == "over":
                return
            if self._on_field(other):
                first.damage += self.power(seat_of[id(other)], other)
                self._settle()
        else:
            x_power, y_power = self.power(A, x), self.power(N, y)
            x.damage += y_power
            y.damage += x_power
            self._settle()

    def _resolve_attack(self, guard: Unit | None) -> None:
        """Step 3 of spec §6, right after `guard` or `pass`; then back to `battle`."""
        attacker, target = self.attack
        N = 1 - self.active
        if guard is not None:
            self._battle(attacker, guard)
        elif not self._on_field(attacker):
            pass  # no battle
        elif target == AVATAR_TARGET:
            self.players[N].hp -= self.attack_value(self.active, attacker)
            self._settle()
        elif self._on_field(target):
            self._battle(attacker, target)  # type: ignore[arg-type]  # a unit, on the field
        if self.phase != "over":
            self.attack = None
            self.phase = "battle"

    def _can_guard(self, guard_row: int, guard: Unit) -> bool:
        """The three restrictions of spec §6 step 2 (attacker and target on the field)."""
        attacker, target = self.attack
        _, attacker_row, _ = self._locate(attacker)
        attacker_keywords = self._keywords(attacker)
        guard_keywords = self._keywords(guard)
        if target != AVATAR_TARGET:
            if guard is target:
                return False
            _, target_row, _ = self._locate(target)
            if target_row == FRONT and guard_row == BACK:
                return False
            if (
                "RANGED" in attacker_keywords
                and attacker_row == FRONT
                and target_row == BACK
                and guard_row == FRONT
            ):
                return False
        if "FLYING" in attacker_keywords and not guard_keywords & {"FLYING", "RANGED"}:
            return False
        return True

    # =========================================================================
    # Legal decisions (spec §3, §5)

    def _legal_decisions(self) -> list[int]:
        me = self.current_player()
        if isinstance(self.pending, PendingTarget):
            card = self.card(self.pending.source)
            return [
                encode(TARGET, 0, slot)
                for slot in self._legal_targets(me, card.target, card.effects)
            ]
        codes: list[int] = []
        phase = self.phase
        if phase in ("action", "battle"):
            codes.append(encode(END))
        if phase in ("window", "defend"):
            codes.append(encode(PASS))
        codes += self._card_codes(me, normal_allowed=phase == "action")
        if phase == "action":
            codes += self._move_codes(me) + self._deploy_codes(me) + self._ability_codes(me)
        if phase == "battle":
            codes += self._attack_codes(me)
        if phase == "defend":
            codes += self._guard_codes(me)
        return sorted(codes)

    def _card_codes(self, me: int, normal_allowed: bool) -> list[int]:
        """PLAY codes of the operations in hand, and a RETAINER code per card in hand."""
        player = self.players[me]
        codes = []
        for card_id in sorted(player.hand):
            card = self.card(card_id)
            if len(player.rows[BACK]) < ROW_SIZE:
                codes.append(encode(RETAINER, card_id, 0))
            if card.is_unit or not (card.timing == "fast" or normal_allowed):
                continue
            if not (self.affordable(me, card) and self.condition_met(me, card)):
                continue
            if card.target == "none":
                codes.append(encode(PLAY, card_id, NONE))
            else:
                codes += [
                    encode(PLAY, card_id, slot)
                    for slot in self._legal_targets(me, card.target, card.effects)
                ]
        return codes

    def _move_codes(self, me: int) -> list[int]:
        player = self.players[me]
        codes = []
        for row in ROWS:
            other_row = player.rows[1 - row]
            for index, unit in enumerate(player.rows[row]):
                if unit.can_move and len(other_row) < ROW_SIZE:
                    codes.append(encode(MOVE, 0, self._slot_code(me, me, row, index)))
        return codes

    def _deploy_codes(self, me: int) -> list[int]:
        player = self.players[me]
        codes = []
        for card_id in sorted(player.hand):
            card = self.card(card_id)
            if (
                not card.is_unit
                or not self.affordable(me, card)
                or not self.condition_met(me, card)
            ):
                continue
            if "BLITZ" in card.keywords and len(player.rows[FRONT]) < ROW_SIZE:
                codes.append(encode(DEPLOY, card_id, FRONT))
            if len(player.rows[BACK]) < ROW_SIZE:
                codes.append(encode(DEPLOY, card_id, BACK))
        return codes

    def _ability_codes(self, me: int) -> list[int]:
        player = self.players[me]
        ability = player.avatar.ability
        if ability.kind != "activated" or player.ability_used:
            return []
        if ability.target == "none":
            return [encode(ABILITY, 0, NONE)]
        return [
            encode(ABILITY, 0, slot)
            for slot in self._legal_targets(me, ability.target, ability.effects)
        ]

    def _attack_codes(self, me: int) -> list[int]:
        """Spec §6 step 1: a standby attacker; from the front: the avatar or any used enemy
        unit; from the back with RANGED: a used enemy front-row unit."""
        enemy = self.players[1 - me]
        codes = []
        for row in ROWS:
            for index, unit in enumerate(self.players[me].rows[row]):
                if unit.used:
                    continue
                if row == BACK and "RANGED" not in self._keywords(unit):
                    continue
                attacker = self._slot_code(me, me, row, index)
                if row == FRONT:
                    codes.append(encode(ATTACK, attacker, AVATAR))
                target_rows = ROWS if row == FRONT else (FRONT,)
                for target_row in target_rows:
                    for t_index, target in enumerate(enemy.rows[target_row]):
                        if target.used:
                            codes.append(
                                encode(
                                    ATTACK,
                                    attacker,
                                    self._slot_code(me, 1 - me, target_row, t_index),
                                )
                            )
        return codes

    def _guard_codes(self, me: int) -> list[int]:
        attacker, target = self.attack
        if not self._on_field(attacker):
            return []
        if target != AVATAR_TARGET and not self._on_field(target):
            return []
        codes = []
        for row in ROWS:
            for index, unit in enumerate(self.players[me].rows[row]):
                if not unit.used and self._can_guard(row, unit):
                    codes.append(encode(GUARD, 0, self._slot_code(me, me, row, index)))
        return codes

    # =========================================================================
    # Applying a decision (spec §5) or a chance outcome (spec §9)

    def _apply_decision(self, me: int, kind: int, x: int, y: int) -> None:
        player = self.players[me]
        if kind == TARGET:
            source = self.pending.source
            self.pending = None
            _, unit = self._unit_at(me, y)
            self._resolve(me, source, False, unit)
        elif kind == END:
            if self.phase == "action":
                self.phase = "window"
            else:
                self._end_turn()
        elif kind == PASS:
            if self.phase == "window":
                self.phase = "battle"
            else:
                self._resolve_attack(None)
        elif kind == MOVE:
            _, unit = self._unit_at(me, y)
            row = FRONT if y < ROW_SIZE else BACK
            self._remove(unit)
            player.rows[1 - row].append(unit)
            unit.can_move = False
        elif kind == DEPLOY:
            card = self.card(x)
            self._use(me, x)
            player.rows[y].append(Unit(x))  # standby, can_move false, no pumps
            self._on_deploy(me, card)
        elif kind == PLAY:
            self._use(me, x)
            ms_add(player.graveyard, x)  # [E-7]
            target: Any = None if y == NONE else self._unit_at(me, y)[1]  # or the avatar
            self._resolve(me, x, False, target)
        elif kind == RETAINER:
            ms_take(player.hand, x)
            if player.known.get(x, 0) > 0:
                ms_take(player.known, x)
            ms_add(player.graveyard, x)
            player.rows[BACK].append(Unit(TOKEN))
        elif kind == ABILITY:
            player.ability_used = True
            target = None if y == NONE else self._unit_at(me, y)[1]
            self._resolve(me, player.avatar.id, True, target)
        elif kind == ATTACK:
            _, attacker = self._unit_at(me, x)
            attacker.used = True
            target = AVATAR_TARGET if y == AVATAR else self._unit_at(me, y)[1]
            self.attack = Attack(attacker, target)
            self.phase = "defend"
        elif kind == GUARD:
            _, guard = self._unit_at(me, y)
            guard.used = True
            self._resolve_attack(guard)
        else:
            raise AssertionError(f"unknown kind {kind}")

    def _apply_chance(self, card_id: int) -> None:
        """DRAW c for the drawer: deck -1, hand +1, settle, then what the node was for."""
        drawer = self._drawer()
        player = self.players[drawer]
        ms_take(player.deck, card_id)
        ms_add(player.hand, card_id)
        self._settle()
        if self.phase == "over":
            return
        if isinstance(self.pending, PendingDraw):
            pending = self.pending
            if pending.draws_left > 1:
                self.pending = pending._replace(draws_left=pending.draws_left - 1)
                return
            self.pending = None
            target = pending.target if self._on_field(pending.target) else None
            self._resolve(
                pending.player, pending.source, pending.is_ability, target, pending.effect + 1
            )
        elif self.phase == "setup":
            if self._setup_drawer() is None:
                self._begin_turn()
        else:  # the Draw phase
            self.phase = "action"

    # =========================================================================
    # The backend protocol (docs/architecture.md)

    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        if self._is_chance_node():
            return CHANCE
        if isinstance(self.pending, PendingTarget):
            return self.pending.player
        if self.phase in ("action", "battle"):
            return self.active
        return 1 - self.active  # window, defend

    def _chance_weights(self) -> list[tuple[int, int]]:
        deck = self.players[self._drawer()].deck
        return [(encode(DRAW, card_id), deck[card_id]) for card_id in sorted(deck)]

    def _describe(self, code: int) -> str:
        try:
            return format_action(code, self.game.cards)
        except ValueError:
            return "not an action code"

    def _play(self, code: int) -> None:
        if self.is_chance():
            self._apply_chance(decode(code)[1])
        else:
            kind, x, y = decode(code)
            self._apply_decision(self.current_player(), kind, x, y)
        self._settle()  # after every action (spec §5)

    def observed_by(self, code: int, seat: int) -> bool:
        """Spec §11.1: whether `seat` is shown which code this is: every
        decision is public, a draw is shown to the drawer only."""
        return self.current_player() != CHANCE or self._drawer() == seat

    def _copy(self) -> OracleState:
        """An independent copy without undo history; refs follow their units."""
        new = OracleState(self.game, _blank=True)
        new.turn, new.active, new.phase = self.turn, self.active, self.phase
        new.result = list(self.result) if self.result is not None else None
        new.special_winner = self.special_winner
        memo: dict[int, Unit] = {}
        new.players = [p.copy(memo) for p in self.players]

        def ref(unit: Any) -> Any:
            if unit is None or unit == AVATAR_TARGET:
                return unit
            return memo.get(id(unit)) if self._on_field(unit) else None

        new.pending = self.pending
        if isinstance(self.pending, PendingDraw):
            new.pending = self.pending._replace(target=ref(self.pending.target))
        new.attack = None
        if self.attack is not None:
            new.attack = Attack(ref(self.attack.attacker), ref(self.attack.target))
        new._legal = self._legal
        return new

    # =========================================================================
    # The canonical dict (spec §10)

    def _names(self, ms: dict[int, int]) -> dict[str, int]:
        return {self.card(c).name: n for c, n in sorted(ms.items())}

    def _slot_of(self, unit: Any) -> str | None:
        """The row slot name of a unit (F1..B5), None when GONE."""
        located = self._locate(unit)
        if located is None:
            return None
        _, row, index = located
        return f"{ROW_LETTERS[row]}{index + 1}"

    def _unit_dict(self, seat: int, unit: Unit) -> dict:
        return {
            "card": TOKEN_NAME if unit.is_token else self.card(unit.card).name,
            "token": unit.is_token,
            "power": self.power(seat, unit),
            "attack": self.attack_value(seat, unit),
            "damage": unit.damage,
            "used": unit.used,
            "can_move": unit.can_move,
            "pump_power": unit.pump_power,
            "pump_attack": unit.pump_attack,
        }

    def to_dict(self) -> dict:
        current = self.current_player()
        pending = None
        if isinstance(self.pending, PendingTarget):
            pending = {
                "kind": "target",
                "source": self.card(self.pending.source).name,
                "player": self.pending.player,
            }
        elif isinstance(self.pending, PendingDraw):
            p: Any = self.pending  # then each player, below
            source = (
                self.players[p.player].avatar.name if p.is_ability else self.card(p.source).name
            )
            located = self._locate(p.target)
            target: Any = (
                None if located is None else {"seat": located[0], "slot": self._slot_of(p.target)}
            )
            pending = {
                "kind": "draw",
                "source": source,
                "ability": p.is_ability,
                "player": p.player,
                "effect": p.effect,
                "draws_left": p.draws_left,
                "target": target,
            }
        attack = None
        if self.attack is not None:
            target = self.attack.target
            attack = {
                "attacker": self._slot_of(self.attack.attacker),
                "target": AVATAR_TARGET if target == AVATAR_TARGET else self._slot_of(target),
            }
        players = []
        for seat, p in enumerate(self.players):
            players.append(
                {
                    "avatar": p.avatar.name,
                    "hp": p.hp,
                    "charisma_used": p.charisma_used,
                    "ability_used": p.ability_used,
                    "hand": self._names(p.hand),
                    "hand_size": ms_size(p.hand),
                    "known": self._names(p.known),
                    "deck": self._names(p.deck),
                    "deck_size": ms_size(p.deck),
                    "graveyard": self._names(p.graveyard),
                    "exile": self._names(p.exile),
                    "front": [self._unit_dict(seat, u) for u in p.rows[FRONT]],
                    "back": [self._unit_dict(seat, u) for u in p.rows[BACK]],
                }
            )
        return {
            "turn": self.turn,
            "active": self.active,
            "current": None if current == TERMINAL else "chance" if current == CHANCE else current,
            "phase": self.phase,
            "result": list(self.result) if self.result is not None else None,
            "pending": pending,
            "attack": attack,
            "players": players,
        }

    @classmethod
    def from_dict(cls, game: OracleGame, d: dict) -> OracleState:
        """The inverse of to_dict, to build test positions.

        Units' ``power`` and ``attack`` are derived and ignored, as are
        ``current``, ``hand_size`` and ``deck_size``; missing unit fields take
        the values of a freshly deployed unit (damage 0, standby, cannot move,
        no pumps). A ref written None (GONE) becomes a unit that is not on the
        field. Nothing else is validated: the caller builds positions that could
        occur (for instance, a deck is never empty in a game that goes on).
        """
        cards = game.cards

        def ids(names: dict[str, int] | None) -> dict[int, int]:
            return {cards.by_name(name).id: n for name, n in (names or {}).items() if n > 0}

        def unit(u: dict) -> Unit:
            token = u["card"] == TOKEN_NAME
            return Unit(
                TOKEN if token else cards.by_name(u["card"]).id,
                u.get("damage", 0),
                u.get("used", False),
                u.get("can_move", False),
                u.get("pump_power", 0),
                u.get("pump_attack", 0),
            )

        state = cls(game, _blank=True)
        state.turn, state.active, state.phase = d["turn"], d["active"], d["phase"]
        state.result = list(d["result"]) if d.get("result") is not None else None
        state.special_winner = None
        state.players = []
        for pd in d["players"]:
            p = Player(cards.avatar_by_name(pd["avatar"]))
            p.hp = pd.get("hp", p.avatar.hp)
            p.charisma_used = pd.get("charisma_used", 0)
            p.ability_used = pd.get("ability_used", False)
            p.hand, p.known = ids(pd.get("hand")), ids(pd.get("known"))
            p.deck, p.graveyard, p.exile = (
                ids(pd.get("deck")),
                ids(pd.get("graveyard")),
                ids(pd.get("exile")),
            )
            p.rows = ([unit(u) for u in pd.get("front", [])], [unit(u) for u in pd.get("back", [])])
            state.players.append(p)

        def at(seat: int, slot: str | None) -> Unit | None:
            if slot is None:
                return Unit(TOKEN)  # a unit that is not on the field
            row = ROW_LETTERS.index(slot[0].upper())
            return state.players[seat].rows[row][int(slot[1:]) - 1]

        state.pending = None
        pend = d.get("pending")
        if pend is not None and pend["kind"] == "target":
            state.pending = PendingTarget(cards.by_name(pend["source"]).id, pend["player"])
        elif pend is not None:
            user = pend["player"]
            source = (
                state.players[user].avatar.id
                if pend["ability"]
                else cards.by_name(pend["source"]).id
            )
            target: Any = (
                None
                if pend["target"] is None
                else at(pend["target"]["seat"], pend["target"]["slot"])
            )  # or the avatar
            state.pending = PendingDraw(
                source, pend["ability"], user, pend["effect"], pend["draws_left"], target
            )
        state.attack = None
        if d.get("attack") is not None:
            a = d["attack"]
            target = (
                AVATAR_TARGET if a["target"] == AVATAR_TARGET else at(1 - state.active, a["target"])
            )
            state.attack = Attack(at(state.active, a["attacker"]), target)
        return state

    # =========================================================================
    # Information (spec §11)

    def information_view(self, player: int) -> dict:
        """What `player` knows: the canonical dict without the other seat's hand and
        deck. Two states have equal views iff `player` cannot tell them apart."""
        view = self.to_dict()
        other = view["players"][1 - player]
        other["hand"] = None
        other["deck"] = None
        return view

    def unseen(self, seat: int) -> dict[int, int]:
        """U of `seat` (spec §11): its hand minus the known copies, plus its deck."""
        p = self.players[seat]
        u = dict(p.deck)
        for card_id, n in p.hand.items():
            rest = n - p.known.get(card_id, 0)
            if rest:
                ms_add(u, card_id, rest)
        return u

    def resample(self, player: int, rng: random.Random | int | None = None) -> OracleState:
        """A copy where the other seat's hand and deck are redrawn (spec §11): the hand
        keeps its known copies plus a uniform sample of the unseen multiset U."""
        if not isinstance(rng, random.Random):
            rng = random.Random(rng)
        new = self.clone()
        other = new.players[1 - player]
        copies = [
            card_id for card_id, n in sorted(self.unseen(1 - player).items()) for _ in range(n)
        ]
        rng.shuffle(copies)
        hidden_in_hand = ms_size(other.hand) - ms_size(other.known)
        hand = dict(other.known)
        deck: dict[int, int] = {}
        for card_id in copies[:hidden_in_hand]:
            ms_add(hand, card_id)
        for card_id in copies[hidden_in_hand:]:
            ms_add(deck, card_id)
        other.hand, other.deck = hand, deck
        new._legal = None
        return new


def _oracle_for(game: Any) -> OracleGame:
    """The oracle's side of a public Game (its cards and options)."""
    return OracleGame(game.cards, *game.decks)


register_engine("oracle", "hero", _oracle_for)

"""A Hero incarnation in words for one seat (xenophon.kernel.narration): attacks and
their outcome, damage to units and avatars, units destroyed, cards played,
and what each phase and window asks."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from string import ascii_lowercase
from typing import Any

from xenophon.hero.cards import FACTION_NAMES
from xenophon.hero.names import UnitNames
from xenophon.hero.notation import (
    ABILITY,
    ATTACK,
    AVATAR,
    DEPLOY,
    FRONT,
    GUARD,
    MOVE,
    PLAY,
    RETAINER,
    ROW_SIZE,
    SLOT_HELP,
    TARGET,
    parse_slot,
    slot_name,
)
from xenophon.hero.render import PHASE_WORDS, render_state
from xenophon.kernel.codes import decode
from xenophon.kernel.errors import NotationError, shown
from xenophon.kernel.game import CHANCE, State, count_text, plural
from xenophon.kernel.narration import HIDDEN, Narrator, clamp_hp, gained, legal_summary

ROWS = ("front", "back")
#: the notation's examples (xenophon.hero.notation), which name units by
#: slots, as the seat writes units where they have letters
LETTERED_EXAMPLES = {
    "attack F1 > op.F2": "attack a > op.b",
    "attack F1 > avatar": "attack a > avatar",
    "move F1": "move b",
    "guard B1": "guard c",
    "target op.F2": "target op.b",
    "SLOT": "UNIT",
    "one slot": "one unit",
    SLOT_HELP: "a unit is its letter on the board (a, b, ...; the opponent's op.a, ...) "
    "or its place, F1-F5 or B1-B5 (op.F1-op.B5)",
    "a slot is missing": "a unit is missing",
    "is not a slot:": "is not a unit:",
}
LETTERED_EXAMPLE = re.compile("|".join(re.escape(example) for example in LETTERED_EXAMPLES))
ASKED = {
    "action": "deploy units, play operations, change a unit's row or use your avatar's "
    "ability; 'end' goes to the battle phase (the opponent may answer first)",
    "battle": "attack with a standby unit ('attack F1 > op.F2' or 'attack F1 > avatar'), "
    "use a fast operation, or 'end' your turn",
}


@dataclass(frozen=True)
class Cause:
    """What a step's effect comes from: `source` in words ('your Fireball'),
    its `actor`, its effects and the unit it targets, (owner, letter)."""

    source: str
    actor: int
    effects: Any
    target: tuple[int, str] | None


@dataclass(frozen=True)
class UnitFate:
    """One unit's change in a step: its owner and letter, the unit before
    and after (None: not on the field), its rows and slot as the owner names
    it (after the step, or before it when it left) and whether it left for
    the hand."""

    owner: int
    letter: str
    old: dict | None
    new: dict | None
    old_row: int | None
    new_row: int | None
    slot: str
    to_hand: bool = False

    @property
    def key(self) -> tuple[int, str]:
        return (self.owner, self.letter)


def _placed(view: dict, names: UnitNames, owner: int) -> dict[str, tuple[int, int, dict]]:
    """{letter: (row, index, unit)} of `owner`'s units."""
    return {
        names.name(owner, row, index): (row, index, unit)
        for row in (0, 1)
        for index, unit in enumerate(view["players"][owner][ROWS[row]])
    }


def unit_fates(before: dict, after: dict, old: UnitNames, new: UnitNames) -> list[UnitFate]:
    """The units a step changed, moved, brought or took away (their letters
    followed by xenophon.hero.names), each owner's in letter order."""
    fates = []
    for owner in (0, 1):
        was, now = _placed(before, old, owner), _placed(after, new, owner)
        old_info, new_info = before["players"][owner], after["players"][owner]
        back = gained(old_info.get("known"), new_info.get("known")) + gained(
            old_info.get("hand"), new_info.get("hand")
        )
        for letter in sorted(set(was) | set(now)):
            row0, index0, unit0 = was.get(letter, (None, None, None))
            row1, index1, unit1 = now.get(letter, (None, None, None))
            if unit1 is not None and unit0 is not None:
                if row0 == row1 and all(unit0[k] == unit1[k] for k in WATCHED):
                    continue
            at = (row1, index1) if unit1 is not None else (row0, index0)
            to_hand = unit1 is None and unit0 is not None and back[unit0["card"]] > 0
            if to_hand:
                back[unit0["card"]] -= 1  # type: ignore[index]  # unit0 is a unit when to_hand
            slot = slot_name(at[0] * ROW_SIZE + at[1])  # type: ignore[operator]
            fates.append(UnitFate(owner, letter, unit0, unit1, row0, row1, slot, to_hand))
    return fates


#: what a unit's change is told by (the rest, such as whether it may move, is shown on the board)
WATCHED = ("card", "power", "attack", "damage", "used")


def player_healed_by_ability(
    before: dict, after: dict, player: int, fates: list[UnitFate], cards: Any
) -> bool:
    """Whether `player`'s avatar gained HP in a step that destroyed an enemy
    unit, with an ability that heals it then (Night Queen's)."""
    avatar = cards.avatar_by_name(after["players"][player]["avatar"])
    return (
        avatar.ability.kind == "on_enemy_destroyed"
        and after["players"][player]["hp"] > before["players"][player]["hp"]
        and any(f.owner != player and f.new is None and not f.to_hand for f in fates)
    )


def pump_text(args: Any) -> str:
    """'+1000 power and +1 attack' ('+500 power': a part of 0 is not said)."""
    parts = [f"+{n} {word}" for n, word in zip(args, ("power", "attack")) if n]
    return " and ".join(parts) or "nothing"


def letter_age(letter: str, next_letter: int) -> int:
    """How many letters ago `letter` was given, when `next_letter` is next."""
    return (next_letter - 1 - ascii_lowercase.index(letter)) % len(ascii_lowercase)


class HeroNarrator(Narrator):
    folded_kinds = frozenset({"draw"})
    card_forms = "card a, card op.a: a unit by its letter; card F1: by its slot"

    def __init__(self, state: State, seat: int):
        super().__init__(state, seat)
        self.cards = state.game.cards
        # the units' letters after each step (xenophon.hero.names); whether
        # the seat's words name units by them rather than by their slots
        self.history = [UnitNames()]

    @property
    def names(self) -> UnitNames:
        return self.history[-1]

    def rewind(self, steps: int) -> None:
        del self.history[steps + 1 :]

    def read_move(self, text: str) -> str:
        return self.names.notation(text, self.seat) if self.lettered else text

    def refusal(self, message: str) -> str:
        if not self.lettered:
            return message
        return LETTERED_EXAMPLE.sub(lambda match: LETTERED_EXAMPLES[match.group(0)], message)

    def labels(self, state: State) -> dict[str, str]:
        names = self.names.covering(state.view(self.seat))
        found = {}
        for owner in (0, 1):
            for row, letters in enumerate(names.rows[owner]):
                for index, letter in enumerate(letters):
                    slot = slot_name(row * ROW_SIZE + index)
                    anchor = f"unit:{'me' if owner == self.seat else 'op'}:{slot}"
                    found[anchor] = letter if owner == self.seat else f"op.{letter}"
        return found

    def board(self, state: State, color: bool = False) -> str:
        game = state.game
        names = self.names.covering(state.view(self.seat)) if self.lettered else None
        decks = game.decks  # type: ignore[attr-defined]  # a Hero game's
        return render_state(state.to_dict(), self.cards, decks, self.seat, color, names)

    def chance_phrase(self, kind: str, names: list[str] | None, count: int) -> str:
        if names is None:
            return f"the opponent draws {plural(count, 'card')} {HIDDEN}"
        return f"you draw {count_text(Counter(names))}"

    # -- steps ------------------------------------------------------------------
    def events(self, before: dict, after: dict, actor: int, text: str | None) -> list[str]:
        mover = None if actor == CHANCE else actor
        lines: list[str] = []
        if actor != CHANCE and text and text.startswith("guard "):
            # named as it stood before the guard (it may not survive it)
            lines.append(self._guard_line(before, actor, text.split()[1]))
        old_names = self.names.covering(before)
        self.history.append(self.names.after(before, after, mover, text))
        if actor != CHANCE and text and text.startswith("attack"):
            lines.append(self._attack_line(after, actor))
        fates = every = unit_fates(before, after, old_names, self.names)
        cause = self._cause(before, after, old_names, mover, text)
        entering = [fate for fate in fates if fate.old is None]
        ended = before["turn"] != after["turn"]
        for fate in entering:
            lines += self._fate_lines(fate, before, after, mover, text, ended)
        fates = [fate for fate in fates if fate.old is not None]
        if cause is not None:
            lines.append(self._effect_line(cause, fates))
            fates = [fate for fate in fates if fate.key != cause.target]
        for fate in fates:
            lines += self._fate_lines(fate, before, after, mover, text, ended)
        for player in (0, 1):
            lines += self._hp_lines(before["players"][player], after["players"][player], player)
            if player_healed_by_ability(before, after, player, every, self.cards):
                lines[-1] += " by its ability (an enemy unit was destroyed)"
        return lines

    def _cause(
        self, before: dict, after: dict, names: UnitNames, actor: int | None, text: str | None
    ) -> Cause | None:
        """The card or ability whose effect this step resolves, with the unit
        it targets (None: the step resolves no effect)."""
        if actor is None or not text:
            return None
        words = text.split()
        target = None
        if " on " in text:
            head, _, ref = text.rpartition(" on ")
            words, target = head.split(), self._target_key(names, actor, ref)
        kind = words[0]
        if kind == "play":
            card = self.cards.by_name(" ".join(words[1:]))
            return Cause(f"{self.whose(actor)} {card.name}", actor, card.effects, target)
        if kind == "ability":
            avatar = self.cards.avatar_by_name(before["players"][actor]["avatar"])
            source = f"{self.whose(actor)} avatar {avatar.name}'s ability"
            return Cause(source, actor, avatar.ability.effects, target)
        if kind == "target":
            pending = before.get("pending") or {}
            card = self.cards.by_name(pending.get("source", ""))
            unit = self._newest(names, before, actor, card.name)
            source = f"{self.whose(actor)} {card.name}" + (f" ({unit})" if unit else "")
            return Cause(source, actor, card.effects, self._target_key(names, actor, words[1]))
        if kind == "deploy":
            card = self.cards.by_name(" ".join(words[1:-1]))
            if card.effects and card.target == "none":
                unit = self._newest(self.names, after, actor, card.name)
                source = f"{self.whose(actor)} {card.name}" + (f" ({unit})" if unit else "")
                return Cause(source, actor, card.effects, None)
        return None

    def _target_key(self, names: UnitNames, actor: int, ref: str) -> tuple[int, str] | None:
        """(owner, letter) of the unit `actor` names `ref` (a slot from its side)."""
        owner = 1 - actor if ref.startswith("op.") else actor
        letter = names.at_slot(owner, ref.removeprefix("op."))
        return (owner, letter) if letter else None

    def _newest(self, names: UnitNames, view: dict, owner: int, card: str) -> str | None:
        """The label of `owner`'s unit of `card` that entered last (a deploy
        waiting for its effect's target)."""
        found = [
            (letter_age(letter, names.next_letter[owner]), row, index)
            for row, units in enumerate(view["players"][owner][r] for r in ROWS)
            for index, unit in enumerate(units)
            if unit["card"] == card
            for letter in [names.name(owner, row, index)]
        ]
        if not found:
            return None
        _, row, index = min(found)
        return self._label(owner, slot_name(row * ROW_SIZE + index), names)

    def _effect_line(self, cause: Cause, fates: list[UnitFate]) -> str:
        """'the opponent's Shadow Assassin (op.c) deals 1000 damage to your Sky
        Scout (b): it is destroyed': the source, what each effect does, and
        the outcome for the unit it targeted."""
        fate = next((f for f in fates if f.key == cause.target), None)
        unit = self._fate_name(fate) if fate else "a unit no longer there"
        owner = cause.target[0] if cause.target else None
        phrases = [
            self._effect_phrase(effect, cause.actor, unit if i == 0 else "it", owner)
            for i, effect in enumerate(cause.effects)
        ]
        said = {effect.name for effect in cause.effects}
        outcome = self._outcome(fate, said) if fate else ""
        return f"{cause.source} {' and '.join(phrases)}" + (f": {outcome}" if outcome else "")

    def _effect_phrase(self, effect: Any, actor: int, unit: str, owner: int | None) -> str:
        args = effect.args
        other = 1 - actor
        phrases = {
            "damage_unit": lambda: f"deals {args[0]} damage to {unit}",
            "destroy_unit": lambda: f"destroys {unit} (power {args[0]} at most)",
            "pump": lambda: f"gives {unit} {pump_text(args)} until the end of the turn",
            "bounce": lambda: (
                f"returns {unit} to {self.whose(actor if owner is None else owner)} hand"
            ),
            "tap": lambda: f"makes {unit} used",
            "untap": lambda: f"makes {unit} standby",
            "damage_avatar": lambda: f"takes {args[0]} HP from {self.whose(other)} avatar",
            "heal_avatar": lambda: f"gives {self.whose(actor)} avatar {args[0]} HP",
            "lose_hp": lambda: f"costs {self.whose(actor)} avatar {args[0]} HP",
            "draw": lambda: f"draws {plural(args[0], 'card')} for {self.who(actor)}",
            "win_if_units": lambda: (
                f"wins the game for {self.who(actor)} if {self.who(actor)} control "
                f"{args[0]} or more units that are not tokens"
            ),
        }
        return phrases[effect.name]()

    def _outcome(self, fate: UnitFate, said: set[str]) -> str:
        """What became of a unit in one step, in a few words (not what the
        effects `said` already)."""
        if fate.new is None:
            if fate.to_hand:
                return "" if "bounce" in said else "it returns to the hand"
            if "bounce" in said:
                return "a token ceases to exist"
            return "" if "destroy_unit" in said else "it is destroyed"
        old, new = fate.old, fate.new
        if old is None:
            return "it enters the field"
        told = []
        if (new["power"], new["attack"]) != (old["power"], old["attack"]):
            told.append(f"now {new['power']}/{new['attack']} (was {old['power']}/{old['attack']})")
        if new["damage"] > old["damage"]:
            told.append(f"damage {new['damage']} of power {new['power']}")
        if new["used"] != old["used"] and not {"tap", "untap"} & said:
            told.append("now used" if new["used"] else "now standby")
        return ", ".join(told)

    def _fate_name(self, fate: UnitFate) -> str:
        """'your Sky Scout (b)': a unit as the seat names it."""
        unit = fate.new or fate.old or {}
        card = f"{unit.get('card', 'unit')}{' token' if unit.get('token') else ''}"
        return f"{self.whose(fate.owner)} {card} ({self._fate_label(fate)})"

    def _fate_label(self, fate: UnitFate) -> str:
        label = fate.letter if self.lettered else fate.slot
        return label if fate.owner == self.seat else f"op.{label}"

    def _fate_lines(
        self,
        fate: UnitFate,
        before: dict,
        after: dict,
        actor: int | None,
        text: str | None,
        ended: bool,
    ) -> list[str]:
        """The lines for one unit's change in a step not told by its effect's line."""
        name = self._fate_name(fate)
        if fate.old is None:
            row = "front" if fate.new_row == 0 else "back"
            return [f"{name} enters the {row} row"]
        if fate.new is None:
            if fate.to_hand:
                return [f"{name} returns to the hand"]
            if fate.old.get("token") and ended:
                return [f"{name} is gone (a token lasts until the end of the turn)"]
            return [f"{name} is destroyed"]
        lines = []
        old, new = fate.old, fate.new
        moved_by_text = text is not None and text.startswith("move ") and actor == fate.owner
        if fate.new_row is not None and fate.new_row != fate.old_row and not moved_by_text:
            lines.append(f"{name} moves to the {ROWS[fate.new_row]} row")
        if (new["power"], new["attack"]) != (old["power"], old["attack"]):
            lines.append(
                f"{name} is now {new['power']}/{new['attack']} (was {old['power']}/{old['attack']})"
            )
        if new["damage"] > old["damage"]:
            lines.append(
                f"{name} takes {new['damage'] - old['damage']} damage "
                f"(power {new['power']}, damage {new['damage']})"
            )
        return lines

    def _attack_line(self, after: dict, actor: int) -> str:
        attack = after.get("attack") or {}
        attacker = self._unit_named(after, actor, attack.get("attacker"))
        return f"{attacker} attacks {self._target_named(after, 1 - actor, attack.get('target'))}"

    def _guard_line(self, before: dict, actor: int, slot: str) -> str:
        """'the opponent's Forest Guardian (op.d) guards the opponent's Wolf
        Pack (op.k)': `actor`'s unit on `slot` takes the attack's target's place."""
        guarded = self._target_named(before, actor, (before.get("attack") or {}).get("target"))
        return f"{self._unit_named(before, actor, slot)} guards {guarded}"

    def _target_named(self, view: dict, owner: int, target: str | None) -> str:
        """An attack's target, `owner`'s avatar or unit (a slot as the owner names it)."""
        if target == "avatar":
            return f"{self.whose(owner)} avatar"
        return self._unit_named(view, owner, target)

    def _unit_named(self, view: dict, owner: int, ref: str | None) -> str:
        """'the opponent's Great Bear (op.F1)' for the unit `ref` (a slot of
        its owner's, as the owner names it) of `owner`."""
        if not ref:
            return f"{self.whose(owner)} unit (gone)"
        unit = unit_at(view["players"][owner], parse_slot(ref, theirs=False))
        name = unit["card"] if unit else "unit"
        return f"{self.whose(owner)} {name} ({self._label(owner, ref)})"

    def _label(self, owner: int, slot: str, names: UnitNames | None = None) -> str:
        """The unit `owner` calls `slot` as the seat names it: its letter (or
        its slot), with op. for the opponent's (`names`: the letters to use,
        by default the latest)."""
        names = names or self.names
        label = (names.at_slot(owner, slot) if self.lettered else None) or slot
        return label if owner == self.seat else f"op.{label}"

    def as_seen(self, text: str, actor: int) -> str:
        """A move with its units named as on the seat's board: by their
        letters, or by slots from the seat's side (the notation names them
        from the mover's side)."""
        if self.lettered:
            return self.names.words(text, actor, self.seat)
        if actor == self.seat:
            return text
        return re.sub(
            r"\b(op\.)?([FB][1-5])\b",
            lambda m: m.group(2) if m.group(1) else f"op.{m.group(2)}",
            text,
        )

    def _hp_lines(self, old: dict, new: dict, player: int) -> list[str]:
        change = new["hp"] - old["hp"]
        if change == 0:
            return []
        avatar = self.cards.avatar_by_name(new["avatar"])
        verb = f"loses {-change}" if change < 0 else f"gains {change}"
        return [
            f"{self.whose(player)} avatar {avatar.name} {verb} HP "
            f"({clamp_hp(new['hp'])}/{avatar.hp})"
        ]

    # -- cards and rules ----------------------------------------------------------
    def card_lines(self, state: State, word: str) -> list[str]:
        if self.lettered:
            try:
                word = self.names.slot_for(word, self.seat)
            except NotationError as error:
                raise KeyError(str(error)) from None
        lines = HeroCards(state, self.seat).lines(state, word)
        return [self.as_seen(line, self.seat) for line in lines]

    def why_illegal(self, state: State, code: int) -> str | None:
        reason = why_illegal(state, code, self.seat)
        return self.as_seen(reason, self.seat) if reason else None

    # -- phases, prompt, end --------------------------------------------------
    def phase_line(self, view: dict) -> str | None:
        if view["phase"] not in ("action", "battle"):
            return None
        return f"-- turn {view['turn']}, {self.whose(view['active'])} {view['phase']} phase --"

    def asking(self, state: State) -> str:
        view = state.view(self.seat)
        phase = view["phase"]
        # the answers named as 'moves' names them: units by their letters
        legal = self.as_seen(legal_summary(state), self.seat)
        if view.get("pending"):
            return f"Choose a target for the card just used. Legal: {legal}."
        if phase in ASKED:
            asked = ASKED[phase]
            if self.lettered:
                asked = asked.replace("F1", "a").replace("op.F2", "op.b")
            return f"{phase.capitalize()}: {asked}."
        if phase == "window":
            return (
                "The opponent ended their Action phase: this is your window to use a fast "
                f"operation or the Retainer, or 'pass'. Legal: {legal}."
            )
        if phase == "defend":
            attack = self._attack_line(view, view["active"])
            return (
                f"{attack[0].upper()}{attack[1:]}: 'guard UNIT' with a standby unit, use a "
                f"fast operation or the Retainer, or 'pass'. Legal: {legal}."
            )
        return f"{PHASE_WORDS[phase].capitalize()}. Legal: {legal}."

    def asks_again(self, state: State) -> bool:
        view = state.view(self.seat)
        return view["phase"] in ("window", "defend") or bool(view.get("pending"))

    def end_reason(self, view: dict) -> str:
        reasons = []
        for player, info in enumerate(view["players"]):
            if info["hp"] <= 0:
                reasons.append(f"{self.whose(player)} avatar's HP fell to 0")
            elif info["deck_size"] == 0:
                reasons.append(f"{self.whose(player)} deck ran out")
        winner = 0 if view["result"][0] > 0 else 1
        if not reasons and view["result"][0] != 0:
            reasons.append(f"{self.whose(winner)} special victory")
        return " and ".join(reasons) or "the game ended"


__all__ = ["HeroNarrator"]


# -- cards on demand ------------------------------------------------------------------
KEYWORD_TEXT = {
    "RANGED": "may attack used enemy front-row units from the back row (never the avatar); "
    "from the front row, its attack on a back-row unit cannot be guarded by "
    "front-row units",
    "BLITZ": "may be deployed to the front row",
    "FIRST_STRIKE": "against a unit without FIRST_STRIKE, deals its damage first",
    "FLYING": "can be guarded only by units with FLYING or RANGED",
    "PROTECTION": "cannot be the target of card effects or avatar abilities, anyone's",
    "HORDE": "any number of copies in a deck",
}
EFFECT_TEXT = {
    "damage_unit": "deals {0} damage to the unit",
    "destroy_unit": "destroys the unit if its power is at most {0}",
    "damage_avatar": "the opponent's avatar loses {0} HP",
    "heal_avatar": "your avatar gains {0} HP (up to its starting HP)",
    "lose_hp": "your avatar loses {0} HP",
    "draw": "you draw {0}",
    "pump": "+{0} power and +{1} attack until the end of the turn",
    "bounce": "returns the unit to its owner's hand (a token ceases to exist)",
    "tap": "makes the unit used",
    "untap": "makes the unit standby",
    "win_if_units": "you win if you then control {0} or more units that are not tokens",
}
#: what a card's condition asks, said under a card or once in the rules
CONDITION_NOTE = (
    "your field (avatar, units, tokens) must hold a card of each listed colour and as "
    "many cards in all as the symbols and the number"
)
TARGET_TEXT = {
    "none": "",
    "unit": "a unit",
    "own_unit": "a unit of yours",
    "enemy_unit": "an enemy unit",
}


def effects_text(effects: Any, target: str) -> str:
    on = f"on {TARGET_TEXT[target]}: " if TARGET_TEXT.get(target) else ""
    return on + "; ".join(EFFECT_TEXT[e.name].format(*e.args) for e in effects)


class HeroCards:
    """`card NAME` and `card SLOT` for one seat."""

    def __init__(self, state: State, seat: int):
        self.cards = state.game.cards
        self.seat = seat

    def lines(self, state: State, word: str) -> list[str]:
        """A card's stats and text; KeyError naming what is unknown."""
        if any(ch.isdigit() for ch in word):  # card names hold no digit
            try:
                slot = parse_slot(word)
            except NotationError as error:
                raise KeyError(str(error)) from None
            return self.on_field(state.view(self.seat), slot)
        try:
            return self.stats(self.cards.by_name(word))
        except KeyError:
            pass
        try:
            return self.avatar(self.cards.avatar_by_name(word))
        except KeyError:
            raise KeyError(f"no card, avatar or slot '{shown(word)}'") from None

    def stats(self, card: Any, with_note: bool = True) -> list[str]:
        """A card's lines; `with_note`: with what a condition means (the
        rules say it once for all the cards)."""
        condition = card.condition.text or "none"
        head = (
            f"{card.name} ({FACTION_NAMES[card.faction]} {card.kind}, cost {card.cost}, "
            f"condition {condition})"
        )
        if card.is_unit:
            lines = [head, f"  {card.race}  power {card.power}  attack {card.attack}"]
        else:
            lines = [
                head,
                f"  {card.timing} operation"
                + (
                    " (your Action phase only)"
                    if card.timing == "normal"
                    else " (also in the windows)"
                ),
            ]
        lines += [f"  {k}: {KEYWORD_TEXT[k]}" for k in sorted(card.keywords)]
        if card.effects:
            when = "when deployed, " if card.trigger == "on_deploy" else ""
            lines.append(f"  {when}{effects_text(card.effects, card.target)}")
        if card.condition.total and with_note:
            lines.append(f"  condition: {CONDITION_NOTE}")
        return lines

    def avatar(self, avatar: Any) -> list[str]:
        lines = [
            f"{avatar.name} (avatar, {FACTION_NAMES[avatar.faction]}, {avatar.race})",
            f"  HP {avatar.hp}  hand {avatar.hand}  charisma {avatar.charisma} a turn",
        ]
        ability = avatar.ability
        if ability.kind == "activated":
            lines.append(
                "  once a turn in your Action phase, free: "
                + effects_text(ability.effects, ability.target)
            )
        elif ability.kind == "on_enemy_destroyed":
            lines.append(
                "  whenever an enemy unit or token is destroyed: "
                + effects_text(ability.effects, "none")
            )
        elif ability.kind == "race_bonus":
            lines.append(
                f"  your {ability.race} units get +{ability.power} power and "
                f"+{ability.attack} attack"
            )
        lines.append(
            "  Retainer: discard a card in a window or your turn for a 500-power "
            "token of your avatar's race in your back row"
        )
        return lines

    def on_field(self, view: dict, slot: int) -> list[str]:
        player = self.seat if slot < 10 else 1 - self.seat
        unit = unit_at(view["players"][player], slot)
        if unit is None:
            raise KeyError(f"no unit in {slot_name(slot)}")
        state = "used" if unit["used"] else "standby"
        head = [
            f"{slot_name(slot)}: {self.whose(player)}, power {unit['power']}, attack "
            f"{unit['attack']}, damage {unit['damage']}, {state}"
        ]
        if unit.get("token"):
            return head + [
                "  a Retainer token (power 500 before bonuses, attack 0, no keywords; gone at "
                "the end of the turn)"
            ]
        return head + self.stats(self.cards.by_name(unit["card"]))

    def whose(self, player: int) -> str:
        return "yours" if player == self.seat else "the opponent's"


# -- why a move is not legal --------------------------------------------------------------
def unit_at(info: dict, slot: int) -> dict | None:
    """The unit in a player's slot (slot codes 0..9 of that player's, or
    10..19 of the other's, counted the same way), or None when it is empty."""
    row, index = divmod(slot % 10, 5)
    units = info[ROWS[row]]
    return units[index] if index < len(units) else None


def faction_counts(view: dict, player: int, cards: Any) -> Counter:
    """The cards of each faction on a player's field: avatar, units, tokens
    (a token counts as its avatar's faction)."""
    info = view["players"][player]
    avatar = cards.avatar_by_name(info["avatar"])
    counts = Counter([avatar.faction])
    for row in ROWS:
        for unit in info[row]:
            counts[
                avatar.faction if unit.get("token") else cards.by_name(unit["card"]).faction
            ] += 1
    return counts


def why_illegal(state: State, code: int, seat: int) -> str | None:
    """The rule that keeps a well-formed move of `seat` from being legal now,
    in one sentence (None when no single rule says it)."""
    view = state.view(seat)
    kind, x, y = decode(code)
    cards = state.game.cards
    me = view["players"][seat]
    phase = view["phase"]
    if kind in (DEPLOY, PLAY, RETAINER):
        card = cards.cards[x]
        if me["hand"].get(card.name, 0) == 0:
            return f"{card.name} is not in your hand"
        if kind == RETAINER:
            return "your back row is full (5 units)" if len(me["back"]) >= 5 else None
        return _why_not_use(view, me, card, kind, y, seat, cards, phase)
    if kind == MOVE:
        return _why_not_move(me, y)
    if kind == ATTACK:
        return _why_not_attack(view, me, x, y, seat, cards)
    if kind == GUARD:
        return _why_not_guard(view, me, y, seat, cards)
    if kind == ABILITY:
        return _why_not_ability(view, me, seat, cards)
    if kind == TARGET:
        pending = view.get("pending")
        if not pending or view["current"] != seat:
            return "no card of yours is waiting for a target"
        return "that is not a legal target of the card waiting for one"
    return None


def _why_not_use(
    view: dict, me: dict, card: Any, kind: int, row: int, seat: int, cards: Any, phase: str
) -> str | None:
    if kind == DEPLOY and not card.is_unit:
        return f"{card.name} is an operation: 'play {card.name}'"
    if kind == PLAY and card.is_unit:
        return f"{card.name} is a unit: 'deploy {card.name} back'"
    own_action = phase == "action" and view["active"] == seat
    if (kind == DEPLOY or card.timing == "normal") and not own_action:
        return f"{card.name} is used only in your own Action phase"
    charisma = cards.avatar_by_name(me["avatar"]).charisma
    if me["charisma_used"] + card.cost > charisma:
        return (
            f"{card.name} costs {card.cost} charisma and you have "
            f"{charisma - me['charisma_used']} of {charisma} left this turn"
        )
    counts = faction_counts(view, seat, cards)
    if not card.condition.is_met(counts):
        have = ", ".join(f"{FACTION_NAMES[f]} {n}" for f, n in sorted(counts.items()))
        return (
            f"its condition {card.condition.text} is unmet: your field holds "
            f"{plural(sum(counts.values()), 'card')} ({have})"
        )
    if kind == DEPLOY:
        if row == FRONT and "BLITZ" not in card.keywords:
            return f"{card.name} has no BLITZ: units are deployed to the back row"
        if len(me[ROWS[row]]) >= 5:
            return f"your {ROWS[row]} row is full (5 units)"
        return None
    return f"that is not a legal target of {card.name} ({effects_text(card.effects, card.target)})"


def _why_not_move(me: dict, slot: int) -> str | None:
    unit = unit_at(me, slot)
    if unit is None:
        return f"you have no unit in {slot_name(slot)}"
    if not unit["can_move"]:
        return (
            f"{unit['card']} cannot change row this turn (once a turn, not in the turn "
            "it was deployed, never a Retainer)"
        )
    row = slot // 5
    if len(me[ROWS[1 - row]]) >= 5:
        return f"your {ROWS[1 - row]} row is full"
    return None


def _why_not_attack(
    view: dict, me: dict, source: int, target: int, seat: int, cards: Any
) -> str | None:
    if view["phase"] != "battle" or view["active"] != seat:
        return "attacks are declared in your own battle phase ('end' your Action phase first)"
    unit = unit_at(me, source)
    if unit is None:
        return f"you have no unit in {slot_name(source)}"
    row = source // 5
    if unit["used"]:
        return f"{unit['card']} in {slot_name(source)} is used (it attacked or guarded)"
    ranged = not unit.get("token") and "RANGED" in cards.by_name(unit["card"]).keywords
    if row == 1 and not ranged:
        return "from the back row only RANGED units attack"
    if target == AVATAR:
        return "only front-row units attack the avatar" if row == 1 else None
    victim = unit_at(view["players"][1 - seat], target)
    if victim is None:
        return f"the opponent has no unit in {slot_name(target)}"
    if not victim["used"]:
        return f"{victim['card']} is standby: only used units (or the avatar) can be attacked"
    if row == 1 and (target % 10) // 5 == 1:
        return "from the back row a RANGED unit attacks only front-row units"
    return None


def _why_not_guard(view: dict, me: dict, slot: int, seat: int, cards: Any) -> str | None:
    attack = view.get("attack")
    if view["phase"] != "defend" or view["active"] == seat or not attack:
        return "a guard is declared only when the opponent attacks (in its defend window)"
    unit = unit_at(me, slot)
    if unit is None:
        return f"you have no unit in {slot_name(slot)}"
    if unit["used"]:
        return f"{unit['card']} in {slot_name(slot)} is used: only standby units guard"
    if not attack.get("attacker") or not attack.get("target"):
        return "the attacker or its target is gone: nobody can guard this attack"
    if attack["target"] != "avatar" and parse_slot(attack["target"], theirs=False) == slot:
        return f"{unit['card']} is the target: another unit must guard it"
    attacker_slot = parse_slot(attack["attacker"], theirs=False)
    attacker = unit_at(view["players"][1 - seat], attacker_slot)
    attacker_keywords = _keywords(attacker, cards)
    guard_keywords = _keywords(unit, cards)
    guard_row = slot // 5
    target_row = (
        None if attack["target"] == "avatar" else parse_slot(attack["target"], theirs=False) // 5
    )
    if target_row == 0 and guard_row == 1:
        return "a back-row unit cannot guard a front-row unit"
    if "FLYING" in attacker_keywords and not {"FLYING", "RANGED"} & guard_keywords:
        return "the attacker has FLYING: only units with FLYING or RANGED guard it"
    if (
        "RANGED" in attacker_keywords
        and attacker_slot // 5 == 0
        and target_row == 1
        and guard_row == 0
    ):
        return "a RANGED front-row attacker on a back-row unit cannot be guarded by front-row units"
    return None


def _keywords(unit: dict | None, cards: Any) -> set[str]:
    """A unit's keywords (a token has none)."""
    if unit is None or unit.get("token"):
        return set()
    return set(cards.by_name(unit["card"]).keywords)


def _why_not_ability(view: dict, me: dict, seat: int, cards: Any) -> str | None:
    avatar = cards.avatar_by_name(me["avatar"])
    ability = avatar.ability
    if ability.kind != "activated":
        return f"{avatar.name} has no ability to use besides the Retainer ('retainer CARD')"
    if view["phase"] != "action" or view["active"] != seat:
        return f"{avatar.name}'s ability is used only in your own Action phase"
    if me["ability_used"]:
        return f"{avatar.name}'s ability is used once a turn, and you used it this turn"
    return (
        f"that is not a legal target of {avatar.name}'s ability "
        f"({effects_text(ability.effects, ability.target)})"
    )

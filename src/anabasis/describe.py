"""Anabasis in words for one seat (xenophon.kernel.narration): attacks and strikes,
damage, cards destroyed, purchases, events set and activated, field cards,
and what each phase asks."""

from __future__ import annotations

from collections import Counter
from typing import Any

from xenophon.anabasis.notation import (
    ATTACK,
    BUY,
    BUY_PLACE,
    EVADE,
    EVENT,
    FILES,
    MOVE,
    PLACE,
    READY,
    SET,
    SQUARE,
    parse_square,
    square_name,
)
from xenophon.anabasis.render import CEMETERY_LIMITS, PHASE_WORDS
from xenophon.kernel.codes import decode
from xenophon.kernel.errors import shown
from xenophon.kernel.game import CHANCE, State, count_text, plural
from xenophon.kernel.narration import HIDDEN, Narrator, clamp_hp, legal_summary

TURN_LIMIT = 200
PHASE_NAMES = {"standby1": "Standby 1", "field": "Field", "standby2": "Standby 2"}
ASKED = {
    "standby1": "buy, place or set cards; 'end' goes to the field phase",
    "field": "move, attack, ready or use an own-turn event; 'end' goes to standby 2",
    "standby2": "buy, place or set cards; 'end' ends your turn",
}
CHANCE_WORDS = {
    "deal": "dealt face down",
    "reveal": "the market turns up",
    "field": "the field card is",
    "strike": "strike",
}


#: what an event does to the battle under way, which no square shows
EVENT_WORDS = {
    "evasion": [
        "the attack is cancelled (no strike, no counter-strike); {target} may move, "
        "free, to an empty square of its pattern"
    ],
    "ambush": ["{target} strikes the attacker first; no counter-strike follows"],
    "fortify": ["the attack on {target} is not rolled and deals no damage"],
}


class AnabasisNarrator(Narrator):
    folded_kinds = frozenset({"deal", "reveal", "draw", "field"})
    card_forms = "card SQUARE: what stands there; card N: your event slot N"

    def __init__(self, state: State, seat: int):
        super().__init__(state, seat)
        self.cards = state.game.cards
        self.mode = state.game.mode  # type: ignore[attr-defined]  # an Anabasis game's
        self.last_attack: tuple[int, str] | None = None  # (attacker's seat, its text)
        self.last_activation: tuple[int, str] | None = None  # (its seat, the event's name)
        self.strikes = 0  # the strikes of the battle under way, to name each
        self.ambush = False  # whether that battle's defender answered with an Ambush

    # -- chance -----------------------------------------------------------------
    def chance_phrase(self, kind: str, names: list[str] | None, count: int) -> str:
        if kind == "draw":
            if names is None:
                return f"the opponent draws {plural(count, 'card')} {HIDDEN}"
            return f"you draw {count_text(Counter(names))}"
        if kind == "deal":
            if names is None:
                return f"the opponent is dealt {plural(count, 'event')} {HIDDEN}"
            return f"your event slots are dealt {', '.join(names)}"
        if kind == "strike":
            return f"{self.strike_name()}: {', '.join(names or ['?'])}"
        return f"{CHANCE_WORDS.get(kind, kind)} {count_text(Counter(names or []))}"

    def strike_name(self) -> str:
        """The battle's strikes in order: the attacker's, then the target's
        counter-strike; after an Ambush, the target's first."""
        self.strikes += 1
        order = ("ambush strike", "strike") if self.ambush else ("strike", "counter-strike")
        return order[min(self.strikes, 2) - 1]

    # -- steps ------------------------------------------------------------------
    def events(self, before: dict, after: dict, actor: int, text: str | None) -> list[str]:
        lines: list[str] = []
        if actor != CHANCE and text is not None:
            lines += self._action_lines(before, after, actor, text)
        elif actor != CHANCE:
            lines += self._hidden_action_lines(before, after, actor)
        grid = self._grid_lines(before["grid"], after["grid"], text)
        castles = self._castle_lines(before, after)
        activations = self._slot_lines(before, after, text, grid + castles)
        if any(" activated " in line for line in activations):
            lines += activations
        elif before["phase"] == "nullify" and self.last_activation:
            lines.append(self.resolved(before, after, grid + castles))
            lines += activations
        else:
            lines += grid + castles + activations
        if after["field"] and (
            not before["field"] or after["field"]["active"] != before["field"]["active"]
        ):
            field = after["field"]
            lines.append(f"field card now: {field['active']} ({field['remaining']} turns)")
        return lines

    def _action_lines(self, before: dict, after: dict, actor: int, text: str) -> list[str]:
        words = text.split()
        if words[0] == "buy":
            spent = before["players"][actor]["funds"] - after["players"][actor]["funds"]
            onto = len(words) > 2 and words[-1][-1].isdigit()  # 'buy Village a1'
            name = " ".join(words[1:-1] if onto else words[1:])
            whose = "your" if actor == self.seat else "their"
            return [
                f"{self.who(actor)} bought {name} for {spent} funds "
                f"({after['players'][actor]['funds']} left)"
                + (
                    f" and stood it on {words[-1]}, face down until {whose} next Standby 1"
                    if onto
                    else ""
                )
            ]
        if words[0] == "attack":
            self.last_attack = (actor, text)
            self.strikes, self.ambush = 0, False
            source, _, target = words[1].partition("x")
            attacker = before["grid"].get(source)
            victim = before["grid"].get(target)
            what = (
                f"{self.whose(victim['owner'])} {victim['card']} on {target}"
                if victim
                else f"{self.whose(1 - actor)} castle"
            )
            return [
                f"{self.whose(actor)} {attacker['card'] if attacker else '?'} on {source} "
                f"attacks {what}"
            ]
        return []

    def _hidden_action_lines(self, before: dict, after: dict, actor: int) -> list[str]:
        """An action of the opponent's the seat saw only the kind of: a set event."""
        lines = []
        for number, (old, new) in enumerate(
            zip(before["players"][actor]["slots"], after["players"][actor]["slots"]), start=1
        ):
            if old is None and new is not None and not new["face_up"]:
                lines.append(f"{self.who(actor)} set an event face down in slot {number}")
        return lines

    def _grid_lines(self, before: dict, after: dict, text: str | None) -> list[str]:
        lines = []
        gone = {
            q: e
            for q, e in before.items()
            if q not in after or (after[q]["card"], after[q]["owner"]) != (e["card"], e["owner"])
        }
        came = {
            q: e
            for q, e in after.items()
            if q not in before or (before[q]["card"], before[q]["owner"]) != (e["card"], e["owner"])
        }
        for q, entry in gone.items():
            moved_to = next(
                (
                    t
                    for t, e in came.items()
                    if (e["card"], e["owner"], e["damage"])
                    == (entry["card"], entry["owner"], entry["damage"])
                ),
                None,
            )
            if moved_to is not None:
                came.pop(moved_to)
                if text != f"move {q}-{moved_to}":
                    lines.append(
                        f"{self.whose(entry['owner'])} {entry['card']} moves from {q} to {moved_to}"
                    )
            else:
                lines.append(f"{self.whose(entry['owner'])} {entry['card']} on {q} is destroyed")
        for q, entry in came.items():
            if text is None or q not in text:
                lines.append(f"{self.whose(entry['owner'])} {entry['card']} appears on {q}")
        for q, entry in after.items():
            old = before.get(q)
            if old is None or q in came:
                continue
            hurt = entry["damage"] - old["damage"]
            if hurt > 0:
                left = self.cards.by_name(entry["card"]).hp - entry["damage"]
                lines.append(
                    f"{self.whose(entry['owner'])} {entry['card']} on {q} takes "
                    f"{hurt} damage ({left} HP left)"
                )
            bonus = entry["atk_bonus"] - old["atk_bonus"]
            if bonus > 0:
                lines.append(
                    f"{self.whose(entry['owner'])} {entry['card']} on {q} gets "
                    f"+{bonus} ATK until the end of the turn"
                )
        return lines

    def activated(self, player: int, name: str) -> list[str]:
        """Keeps the event just activated; a Nullify's line on what it cancelled."""
        effect = self.cards.by_name(name).effect
        cancelled = self.last_activation
        self.last_activation = (player, name)
        if effect == "ambush":
            self.ambush = True
        if effect != "nullify" or cancelled is None:
            return []
        if self.cards.by_name(cancelled[1]).effect == "ambush":
            self.ambush = False
        return [f"{self.whose(cancelled[0])} {cancelled[1]} is cancelled: it has no effect"]

    def resolved(self, before: dict, after: dict, outcome: list[str]) -> str:
        """The line of an event that takes effect as its Nullify window
        closes unanswered: the event, then what it did."""
        player, name = self.last_activation  # type: ignore[misc]
        done = self.event_outcome(player, name, before, after) + outcome
        if not done and self.cards.by_name(name).effect == "flood":
            done = ["no character stood on that rank"]
        return f"{self.whose(player)} {name} takes effect" + (
            f": {'; '.join(done)}" if done else ""
        )

    def event_outcome(self, player: int, name: str, before: dict, after: dict) -> list[str]:
        """What an event does that the board's and castles' lines do not say."""
        effect = self.cards.by_name(name).effect
        mine, theirs = before["players"][player], after["players"][player]
        gains = {
            "forced_march": ("AP", "ap"),
            "windfall": ("funds", "funds"),
        }
        if effect in gains:
            word, key = gains[effect]
            return [f"{self.who(player)} gain {theirs[key] - mine[key]} {word} ({theirs[key]} now)"]
        attacked = self._attacked()
        return [text.format(target=attacked) for text in EVENT_WORDS.get(effect, [])]

    def _attacked(self) -> str:
        """The battle's target as the last attack named it."""
        if self.last_attack is None:
            return "the target"
        target = self.last_attack[1].split()[1].partition("x")[2]
        return f"the target on {target}"

    def _castle_lines(self, before: dict, after: dict) -> list[str]:
        lines = []
        for player in (0, 1):
            old = before["players"][player]["castle_hp"]
            new = after["players"][player]["castle_hp"]
            if new < old:
                lines.append(
                    f"{self.whose(player)} castle takes {old - new} damage (HP {clamp_hp(new)})"
                )
        return lines

    def _slot_lines(
        self, before: dict, after: dict, text: str | None, outcome: list[str]
    ) -> list[str]:
        """Events set and activated; an activation's line says what it did:
        its `outcome` (the step's lines on the board and the castles) and
        what the board does not show."""
        lines = []
        # an activation's target, as its move names it ('event 3 rank 6': rank 6)
        words = text.split() if text else []
        target = f" on {' '.join(words[2:])}" if words[:1] == ["event"] and len(words) > 2 else ""
        for player in (0, 1):
            pairs = zip(before["players"][player]["slots"], after["players"][player]["slots"])
            for number, (old, new) in enumerate(pairs, start=1):
                if old is not None and new is not None and not old["face_up"] and new["face_up"]:
                    said = target if words[1:2] == [str(number)] else ""
                    done = self.activated(player, new["card"])
                    if after["phase"] != "nullify":  # else it takes effect as the window closes
                        done += self.event_outcome(player, new["card"], before, after) + outcome
                    lines.append(
                        f"{self.who(player)} activated {new['card']}{said} (slot {number})"
                        + (f": {'; '.join(done)}" if done else "")
                    )
                elif (
                    old is None
                    and new is not None
                    and player == self.seat
                    and not new["face_up"]
                    and before["phase"] != "chance"
                ):
                    lines.append(f"you set {new['card']} face down in slot {number}")
        return lines

    # -- cards and rules ----------------------------------------------------------
    def card_lines(self, state: State, word: str) -> list[str]:
        return AnabasisCards(state, self.seat).lines(state, word)

    def why_illegal(self, state: State, code: int) -> str | None:
        return why_illegal(state, code, self.seat)

    def moves_note(self, texts: list[str]) -> list[str]:
        placed = {
            " ".join(t.split()[1:-1])
            for t in texts
            if t.startswith("buy ") and SQUARE.match(t.split()[-1])
        }
        bought = {t.partition(" ")[2] for t in texts if t.startswith("buy ")}
        if not placed & bought:
            return []
        return [
            "'buy CARD' puts the card in your flow (drawn in a later turn); 'buy CARD "
            "SQUARE', for a territory of the market row, stands it on that square of your "
            "home zone at once, face down until your next Standby 1, for 1 AP more."
        ]

    # -- phases, prompt, end --------------------------------------------------
    def phase_line(self, view: dict) -> str | None:
        name = PHASE_NAMES.get(view["phase"])
        if name is None:
            return None
        return f"-- turn {view['turn']}, {self.whose(view['active'])} {name} --"

    def asking(self, state: State) -> str:
        view = state.view(self.seat)
        phase = view["phase"]
        if phase in ASKED:
            me = view["players"][self.seat]
            left = f"{me['ap']} AP and {me['funds']} funds left"
            return f"{PHASE_NAMES[phase]} ({left}): {ASKED[phase]}."
        if phase == "response":
            attack = self.last_attack[1] if self.last_attack else "an attack"
            return (
                f"The opponent's {attack} is declared: answer with a face-down response "
                f"event, or 'pass'. Legal: {legal_summary(state)}."
            )
        if phase == "nullify":
            return self.nullify_question(state, view)
        if phase == "evade":
            return (
                f"Your character evaded the attack: 'evade SQUARE' moves it there for "
                f"free, 'pass' leaves it where it is. "
                f"Legal: {legal_summary(state)}."
            )
        return f"{PHASE_WORDS[phase].capitalize()}. Legal: {legal_summary(state)}."

    def asks_again(self, state: State) -> bool:
        return state.view(self.seat)["phase"] in ("response", "nullify", "evade")

    def nullify_question(self, state: State, view: dict) -> str:
        name = self.last_activation[1] if self.last_activation else "an event"
        whose = self.whose(self.last_activation[0]) if self.last_activation else "an"
        held = [
            number
            for number, slot in enumerate(view["players"][self.seat]["slots"], start=1)
            if slot and not slot["face_up"] and self.cards.by_name(slot["card"]).effect == "nullify"
        ]
        answer = (
            f"'event {held[0]}' with your Nullify cancels it, 'pass' lets it happen"
            if held
            else "you hold no Nullify: 'pass' lets it happen"
        )
        legal = legal_summary(state)
        return f"Nullify window: {whose} {name} was activated; {answer}. Legal: {legal}."

    def end_reason(self, view: dict) -> str:
        reasons = []
        limit = CEMETERY_LIMITS[self.mode]
        for player, info in enumerate(view["players"]):
            if info["castle_hp"] <= 0:
                reasons.append(f"{self.whose(player)} castle was taken")
            counted = sum(
                n
                for name, n in info["cemetery"].items()
                if self.cards.by_name(name).kind != "event"
            )
            if counted >= limit:
                reasons.append(
                    f"{self.whose(player)} cemetery holds {counted} characters "
                    f"and territories (the limit is {limit})"
                )
        if not reasons and view["turn"] >= TURN_LIMIT:
            reasons.append(f"the turn limit ({TURN_LIMIT}) was reached")
        return " and ".join(reasons) or "the game ended"


__all__ = ["AnabasisNarrator"]


# -- cards on demand ------------------------------------------------------------------
KEYWORD_TEXT = {
    "ARMORED": "each strike on it deals 1 less damage, at least 1 (Flood and Sabotage ignore it)",
    "CHARGE": "+1 ATK on the main strike of an attack declared after it moved this turn",
    "SIEGE": "double damage on strikes at territories and castles (x3 with a critical hit)",
    "COMMAND": "your other characters on the 8 squares around it get +10 HIT on every strike",
}
EFFECT_TEXT = {
    "flood": "own turn, on a rank: every character on the rank, both players', takes {n} "
    "damage (not a strike)",
    "rally": "own turn, on one of your characters: +{n} ATK on each of its strikes until the "
    "End phase",
    "forced_march": "own turn: you gain {n} AP",
    "windfall": "own turn: you gain {n} funds (at most 99)",
    "sabotage": "own turn, on an enemy territory: it takes {n} damage (not an attack)",
    "evasion": "response, when your character is attacked: the attack is cancelled and the "
    "character may move to a free square",
    "ambush": "response, when your character is attacked: it strikes first and takes no "
    "counter-strike",
    "fortify": "response, when your castle or territory is attacked: the attack deals no damage",
    "nullify": "response, when the opponent activates an event: that event's effect is cancelled",
}
FIELD_TEXT = {
    "hit": "{n:+d} HIT on every strike, both players'",
    "income_funds": "the active player's Standby-1 funds income {n:+d}",
    "move_cost": "a move costs {n} AP instead of 1",
    "price": "market prices {n:+d} (at least 1)",
    "attack_cost": "an attack always costs {n} AP",
}


def pattern_squares(pattern: Any, square: int, owner: int) -> set[int]:
    """The board squares a pattern reaches from `square` for `owner` (seat 1
    turns the diagram by 180 degrees)."""
    sign = 1 if owner == 0 else -1
    reached = set()
    for df, dr in pattern.offsets:
        f, r = square % 7 + sign * df, square // 7 + sign * dr
        if 0 <= f < 7 and 0 <= r < 6:
            reached.add(r * 7 + f)
    return reached


def pattern_diagram(card: Any) -> list[str]:
    """The move (m) and attack (a) patterns of a character around it (C),
    forward (towards the opponent) up; * where both reach."""
    offsets = set(card.move.offsets) | set(card.attack.offsets)
    reach = max([max(abs(df), abs(dr)) for df, dr in offsets] + [1])
    rows = []
    for dr in range(reach, -reach - 1, -1):
        cells = [
            _mark(
                (df, dr) in card.move.offsets, (df, dr) in card.attack.offsets, (df, dr) == (0, 0)
            )
            for df in range(-reach, reach + 1)
        ]
        rows.append("    " + " ".join(cells))
    return rows


def _mark(moves: bool, attacks: bool, centre: bool) -> str:
    if centre:
        return "C"
    return "*" if moves and attacks else "m" if moves else "a" if attacks else "."


class AnabasisCards:
    """`card NAME`, `card SQUARE` and `card SLOT` (an event slot) for one seat."""

    def __init__(self, state: State, seat: int):
        self.cards = state.game.cards
        self.seat = seat

    def lines(self, state: State, word: str) -> list[str]:
        """A card's stats, text and patterns; KeyError naming what is unknown."""
        view = state.view(self.seat)
        if word.isascii() and word.isdigit():
            return self.in_slot(view, word)
        if SQUARE.match(word.lower()):
            entry = view["grid"].get(word.lower())
            castles = {square_name(square): owner for owner, square in CASTLE_SQUARES.items()}
            if entry is None and word.lower() in castles:
                owner = castles[word.lower()]
                hp = clamp_hp(view["players"][owner]["castle_hp"])
                whose = "your" if owner == self.seat else "the opponent's"
                return [f"on {word.lower()}: {whose} castle, {hp} HP left"]
            if entry is None:
                raise KeyError(f"no card stands on {word.lower()}")
            return self.on_board(view, word.lower(), entry)
        try:
            return self.stats(self.cards.by_name(word))
        except KeyError:
            pass
        try:
            field = self.cards.field_by_name(word)
        except KeyError:
            raise KeyError(f"no card or square '{shown(word)}'") from None
        return [
            f"{field.name} (field card, {field.duration} turns)",
            "  " + FIELD_TEXT[field.effect].format(n=field.amount),
        ]

    def in_slot(self, view: dict, word: str) -> list[str]:
        """The event in one of the seat's slots (`card 2`)."""
        slots = view["players"][self.seat]["slots"]
        number = int(word) if len(word) <= 2 else 0
        if not 1 <= number <= len(slots):
            raise KeyError(f"no event slot {shown(word)}: your slots are 1 to {len(slots)}")
        slot = slots[number - 1]
        if slot is None:
            raise KeyError(f"your event slot {number} is empty")
        state = "spent, face up" if slot["face_up"] else "face down"
        return [f"your slot {number} ({state}):"] + self.stats(self.cards.by_name(slot["card"]))

    def stats(self, card: Any, diagram: bool = True) -> list[str]:
        """Stats and text; for a character its patterns around it (`diagram`)."""
        if card.kind == "character":
            pile = f"pile {card.pile}" if card.pile else "starting card"
            lines = [
                f"{card.name} (character, {pile}, cost {card.cost})",
                f"  HP {card.hp}  ATK {card.atk}  HIT {card.hit}%  CRIT {card.crit}%",
            ]
            lines += [f"  {k}: {KEYWORD_TEXT[k]}" for k in sorted(card.keywords)]
            if not diagram:
                return lines
            lines += ["  move (m) and attack (a) from C, forward up; * both:"]
            return lines + pattern_diagram(card)
        if card.kind == "territory":
            return [
                f"{card.name} (territory, cost {card.cost})",
                f"  HP {card.hp}  income each Standby 1: +{card.ap_income} AP, "
                f"+{card.funds_income} funds (face up only)",
            ]
        return [
            f"{card.name} (event, cost {card.cost})",
            "  " + EFFECT_TEXT[card.effect].format(n=card.amount),
        ]

    def on_board(self, view: dict, name: str, entry: dict) -> list[str]:
        card = self.cards.by_name(entry["card"])
        owner = "yours" if entry["owner"] == self.seat else "the opponent's"
        lines = [
            f"on {name}: {owner}, {card.hp - entry['damage']} of {card.hp} HP left"
            + (f", +{entry['atk_bonus']} ATK (Rally)" if entry["atk_bonus"] else "")
        ]
        lines += self.stats(card, diagram=False)
        if card.kind == "character":
            lines += ["  where it can move (m) and attack (a) from here; * both:"]
            lines += self.board_diagram(card, parse_square(name), entry["owner"])
        return lines

    def board_diagram(self, card: Any, square: int, owner: int) -> list[str]:
        """The board from the seat's side, the card's reach marked on it."""
        moves = pattern_squares(card.move, square, owner)
        attacks = pattern_squares(card.attack, square, owner)
        files = range(7) if self.seat == 0 else range(6, -1, -1)
        ranks = range(5, -1, -1) if self.seat == 0 else range(6)
        lines = ["      " + " ".join(FILES[f] for f in files)]
        for rank in ranks:
            cells = [
                _mark(rank * 7 + f in moves, rank * 7 + f in attacks, rank * 7 + f == square)
                for f in files
            ]
            lines.append(f"    {rank + 1} " + " ".join(cells))
        return lines


# -- why a move is not legal --------------------------------------------------------------
TIMING = {
    BUY: ("standby1", "standby2"),
    BUY_PLACE: ("standby1", "standby2"),
    PLACE: ("standby1", "standby2"),
    SET: ("standby1", "standby2"),
    MOVE: ("field",),
    ATTACK: ("field",),
    READY: ("field",),
    EVADE: ("evade",),
}
CASTLE_SQUARES = {0: 3, 1: 38}
HOME_RANKS = {0: (0, 1), 1: (4, 5)}


def why_illegal(state: State, code: int, seat: int) -> str | None:
    """The rule that keeps a well-formed move of `seat` from being legal now,
    in one sentence (None when no single rule says it)."""
    view = state.view(seat)
    kind, x, y = decode(code)
    cards = state.game.cards
    phase = view["phase"]
    if kind in TIMING and phase not in TIMING[kind]:
        allowed = " or ".join(PHASE_NAMES.get(p, p) for p in TIMING[kind])
        return (
            f"that is done in {allowed}, and this is {PHASE_NAMES.get(phase, PHASE_WORDS[phase])}"
        )
    me = view["players"][seat]
    if kind in (BUY, BUY_PLACE):
        return _why_not_buy(view, me, cards.cards[x], y if kind == BUY_PLACE else None, seat, cards)
    if kind == PLACE:
        card = cards.cards[x]
        if me["hand"].get(card.name, 0) == 0:
            return f"{card.name} is not in your hand"
        if card.kind == "event":
            return f"{card.name} is an event: events are set ('set {card.name}'), not placed"
        return _why_not_stand(view, me, y, seat)
    if kind == SET:
        card = cards.cards[x]
        if me["hand"].get(card.name, 0) == 0:
            return f"{card.name} is not in your hand"
        if card.kind != "event":
            return f"{card.name} is a {card.kind}: only events are set"
        if all(slot is not None for slot in me["slots"]):
            return "your three event slots are full (spent events leave at your next Standby 1)"
    if kind in (MOVE, ATTACK, READY):
        return _why_not_character(view, me, kind, x, y, seat, cards)
    if kind == EVENT:
        return _why_not_event(me, x, phase, cards)
    return None


def _field_amount(view: dict, effect: str, cards: Any) -> int | None:
    field = view["field"]
    if not field:
        return None
    card = cards.field_by_name(field["active"])
    return card.amount if card.effect == effect else None


def _why_not_buy(
    view: dict, me: dict, card: Any, square: int | None, seat: int, cards: Any
) -> str | None:
    market = view["market"]
    if card.name not in market["tops"] and market["row"].get(card.name, 0) == 0:
        return f"{card.name} is not face up in the market"
    price = max(1, card.cost + (_field_amount(view, "price", cards) or 0))
    if price > me["funds"]:
        return f"{card.name} costs {price} funds and you have {me['funds']}"
    if square is not None:
        if card.kind != "territory":
            return f"only territories are bought onto the board; {card.name} is a {card.kind}"
        return _why_not_stand(view, me, square, seat)
    return None


def _why_not_stand(view: dict, me: dict, square: int, seat: int) -> str | None:
    name = square_name(square)
    if me["ap"] < 1:
        return "placing a card costs 1 AP and you have 0"
    if square // 7 not in HOME_RANKS[seat]:
        low, high = (r + 1 for r in HOME_RANKS[seat])
        return f"{name} is outside your home zone (ranks {low}-{high})"
    if square in CASTLE_SQUARES.values():
        return f"{name} is a castle"
    if name in view["grid"]:
        return f"{name} is taken by {view['grid'][name]['card']}"
    return None


def _why_not_character(
    view: dict, me: dict, kind: int, source: int, target: int, seat: int, cards: Any
) -> str | None:
    name = square_name(source)
    entry = view["grid"].get(name)
    if entry is None or entry["owner"] != seat or cards.by_name(entry["card"]).kind != "character":
        return f"you have no character on {name}"
    card = cards.by_name(entry["card"])
    if kind == READY:
        if entry["ready"]:
            return f"{card.name} on {name} is ready already"
        return "readying costs 1 AP and you have 0" if me["ap"] < 1 else None
    if not entry["ready"]:
        return f"{card.name} on {name} is exhausted (it attacked); 'ready {name}' for 1 AP"
    goal = square_name(target)
    if kind == MOVE:
        if target not in pattern_squares(card.move, source, seat):
            return f"{goal} is not in {card.name}'s move pattern ('card {name}' shows it)"
        if goal in view["grid"] or target in CASTLE_SQUARES.values():
            return f"{goal} is not empty"
        cost = _field_amount(view, "move_cost", cards) or 1
        return f"a move costs {cost} AP and you have {me['ap']}" if me["ap"] < cost else None
    if target not in pattern_squares(card.attack, source, seat):
        return f"{goal} is not in {card.name}'s attack pattern ('card {name}' shows it)"
    victim = view["grid"].get(goal)
    if target != CASTLE_SQUARES[1 - seat] and (victim is None or victim["owner"] == seat):
        return f"there is nothing of the opponent's to attack on {goal}"
    mud = _field_amount(view, "attack_cost", cards)
    cost = mud if mud is not None else (0 if entry["moved"] else 1)
    if me["ap"] < cost:
        return f"this attack costs {cost} AP and you have {me['ap']}"
    return None


def _why_not_event(me: dict, slot: int, phase: str, cards: Any) -> str | None:
    entry = me["slots"][slot]
    if entry is None:
        return f"slot {slot + 1} is empty"
    if entry["face_up"]:
        return f"{entry['card']} in slot {slot + 1} is spent"
    card = cards.by_name(entry["card"])
    if card.timing == "own-turn" and phase != "field":
        return f"{card.name} is used in your Field phase"
    if card.timing == "response" and phase not in ("response", "nullify"):
        return f"{card.name} is a response: it answers the opponent's attack or event"
    if card.timing == "response":
        return f"{card.name} does not answer this ({EFFECT_TEXT[card.effect].split(':')[0]})"
    return f"{card.name} has no such target ({EFFECT_TEXT[card.effect]})"

// xenophon._core.hero: the int-level backend over the C core
// (src/engine_c/hero/hero.h). Thin: it copies the plain data of the card set and
// decks (HeroCardSet.core_data) into C specs and builds (and reads) the canonical
// dict of docs/hero-engine.md §10; the undo history, the code checks and the
// rest of the protocol that both games share are in backend.hpp. The rules
// live only in the C core.
#include <array>
#include <cctype>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "backend.hpp"
#include "core_functions.h"
#include "dict_reader.hpp"
#include "registration.hpp"
#include "hero/hero.h"

namespace py = pybind11;

namespace {

struct Tables : xen::TablesBase<HeroTables, Tables> {
    std::array<std::string, 2> avatar_names;
    std::array<std::string, 2> deck_names;
};
using TablesPtr = std::shared_ptr<Tables>;

// The card set and the two decks as plain data, built by the Python side in the
// core's numbering (xenophon.hero.cards.HeroCardSet.core_data: the vocabulary's
// one owner, which also numbers the races and checks the decks against the set):
// a card is (name, [is_unit, faction, cost, the condition's R, U, G, K counts,
// its number, race, power, attack, keyword bits, fast, target], effects), a seat
// (deck name, avatar name, [faction, hp, hand, charisma, race, ability, target,
// bonus race, bonus power, bonus attack], effects, the deck's count of every
// card id), an effect (opcode, a, b). The C core checks the numbers' ranges.
using EffectData = std::vector<std::tuple<int, int, int>>;
using CardData = std::tuple<std::string, std::vector<int>, EffectData>;
using SeatData =
    std::tuple<std::string, std::string, std::vector<int>, EffectData, std::vector<int>>;
constexpr size_t CARD_NUMBERS = 14, AVATAR_NUMBERS = 10;

int effect_specs(const EffectData &effects, HeroEffectSpec *out, const std::string &where) {
    if (effects.size() > HERO_MAX_EFFECTS)
        throw py::value_error(where + ": more than " + std::to_string(HERO_MAX_EFFECTS) +
                              " effects");
    int n = 0;
    for (const auto &[op, a, b] : effects) out[n++] = HeroEffectSpec{op, a, b};
    return n;
}

HeroCardSpec card_spec(const CardData &card) {
    const auto &[name, n, effects] = card;
    std::string where = "card '" + name + "'";
    if (n.size() != CARD_NUMBERS)
        throw py::value_error(where + ": a card's data holds " + std::to_string(CARD_NUMBERS) +
                              " numbers");
    HeroCardSpec s{};
    s.is_unit = n[0];
    s.faction = n[1];
    s.cost = n[2];
    for (int k = 0; k < 4; k++) s.cond_colours[k] = n[3 + k];
    s.cond_generic = n[7];
    s.race = n[8];
    s.power = n[9];
    s.attack = n[10];
    s.keywords = n[11];
    s.fast = n[12];
    s.target = n[13];
    s.n_effects = effect_specs(effects, s.effects, where);
    return s;
}

HeroAvatarSpec avatar_spec(const std::vector<int> &n, const EffectData &effects,
                           const std::string &where) {
    if (n.size() != AVATAR_NUMBERS)
        throw py::value_error(where + ": an avatar's data holds " + std::to_string(AVATAR_NUMBERS) +
                              " numbers");
    HeroAvatarSpec s{};
    s.faction = n[0];
    s.hp = n[1];
    s.hand = n[2];
    s.charisma = n[3];
    s.race = n[4];
    s.ability = n[5];
    s.target = n[6];
    s.bonus_race = n[7];
    s.bonus_power = n[8];
    s.bonus_attack = n[9];
    s.n_effects = effect_specs(effects, s.effects, where);
    return s;
}

TablesPtr make_tables(const std::pair<std::vector<CardData>, std::vector<SeatData>> &data) {
    const auto &[cards, seat_data] = data;
    int n_cards = static_cast<int>(cards.size());
    if (n_cards > HERO_MAX_CARDS)
        throw py::value_error("card set not supported: " + std::to_string(n_cards) +
                              " cards, at most " + std::to_string(HERO_MAX_CARDS));
    if (seat_data.size() != 2) throw py::value_error("the data holds two seats");
    auto tables = std::make_shared<Tables>();
    std::vector<HeroCardSpec> specs;
    for (const auto &card : cards) {
        specs.push_back(card_spec(card));
        tables->card_names.push_back(std::get<0>(card));
    }
    HeroAvatarSpec seats[2];
    int counts[2][HERO_MAX_CARDS] = {};
    for (int p = 0; p < 2; p++) {
        const auto &[deck_name, avatar_name, numbers, effects, deck_counts] = seat_data[p];
        std::string where = "deck " + std::to_string(p) + " ('" + deck_name + "')";
        if (static_cast<int>(deck_counts.size()) != n_cards)
            throw py::value_error(where + ": " + std::to_string(deck_counts.size()) +
                                  " card counts for a set of " + std::to_string(n_cards) +
                                  " cards");
        for (int c = 0; c < n_cards; c++) counts[p][c] = deck_counts[c];
        seats[p] = avatar_spec(numbers, effects, "avatar '" + avatar_name + "'");
        tables->avatar_names[p] = avatar_name;
        tables->deck_names[p] = deck_name;
    }
    char err[256] = "";
    if (hero_tables_init(tables->t.get(), specs.data(), n_cards, seats, counts, err, sizeof err) !=
        0) {
        // The core names an entry by index ("card 3: ...", "seat 1: ..."): name it instead.
        std::string message = err;
        size_t colon = message.find(": ");
        int index = -1;
        bool names_entry = message.rfind("card ", 0) == 0 || message.rfind("seat ", 0) == 0;
        if (colon != std::string::npos && names_entry)
            index = std::stoi(message.substr(5, colon - 5));
        if (index >= 0 && message[0] == 'c')
            message = "card '" + tables->card_names[index] + "'" + message.substr(colon);
        else if (index >= 0)
            message = "deck " + std::to_string(index) + " ('" + tables->deck_names[index] +
                      "', avatar '" + tables->avatar_names[index] + "')" + message.substr(colon);
        throw py::value_error("card set not supported by the C core: " + message);
    }
    return tables;
}

const char *PHASE_NAMES[] = {"setup", "draw", "action", "window", "battle", "defend", "over"};

std::string slot_name(int slot) {
    int rel = slot % 10;
    return std::string(rel < 5 ? "F" : "B") + std::to_string(rel % 5 + 1);
}

// The Hero C core as backend.hpp sees it.
struct Hero {
    using PyTables = Tables;
    using CTables = HeroTables;
    using State = HeroState;
    using Undo = HeroUndo;
    static constexpr int max_outcomes = HERO_MAX_CARDS;
    static constexpr const char *a_state = "a Hero state";
    static constexpr const char *invalid_state = "not a valid Hero state for these tables: ";
    static constexpr const XenGameApi *api = &hero_game_api;
    static constexpr const XenFeatureSet *feature_set = &hero_feature_set;
    static constexpr bool has_network = true;
    static std::vector<std::string> net_input_names(const Tables &tables) {
        std::vector<std::string> names;
        xen::card_zone_names(tables, HERO_NET_ZONES, hero_net_zone_names, names);
        return names;
    }
    static constexpr auto net_inputs = hero_net_inputs;
    static constexpr auto evaluate_net = hero_evaluate_net;
    static constexpr auto policy_logits = hero_policy_logits;
    XEN_CORE_FUNCTIONS(hero)
};
using CoreState = xen::CoreStateT<Hero>;

// ------------------------------------------------------------ to_dict

py::dict unit(const CoreState &s, int slot) {
    const HeroState &st = s.st;
    const Tables &tables = *s.tables;
    py::dict u;
    bool token = st.card[slot] == HERO_TOKEN;
    u["card"] = token ? std::string("Retainer") : tables.card_names[st.card[slot]];
    u["token"] = token;
    u["power"] = hero_power(s.t(), &st, slot);
    u["attack"] = hero_attack(s.t(), &st, slot);
    u["damage"] = st.damage[slot];
    u["used"] = (st.flags[slot] & HERO_F_USED) != 0;
    u["can_move"] = (st.flags[slot] & HERO_F_CAN_MOVE) != 0;
    u["pump_power"] = st.pump_power[slot];
    u["pump_attack"] = st.pump_attack[slot];
    return u;
}

py::list row(const CoreState &s, int rr) {
    py::list units;
    for (int i = 0; i < s.st.row_n[rr]; i++) units.append(unit(s, rr * 5 + i));
    return units;
}

py::object pending(const CoreState &s) {
    const HeroState &st = s.st;
    const Tables &tables = *s.tables;
    if (st.pend_kind == HERO_PEND_NONE) return py::none();
    py::dict p;
    if (st.pend_kind == HERO_PEND_TARGET) {
        p["kind"] = "target";
        p["source"] = tables.card_names[st.pend_source];
        p["player"] = static_cast<int>(st.pend_player);
        return p;
    }
    p["kind"] = "draw";
    p["source"] = st.pend_ability ? tables.avatar_names[st.pend_player]
                                  : tables.card_names[st.pend_source];
    p["ability"] = st.pend_ability != 0;
    p["player"] = static_cast<int>(st.pend_player);
    p["effect"] = static_cast<int>(st.pend_effect);
    p["draws_left"] = st.draws_left;
    if (st.pend_target == HERO_REF_NONE) {
        p["target"] = py::none();
    } else {
        py::dict target;
        target["seat"] = st.pend_target / 10;
        target["slot"] = slot_name(st.pend_target);
        p["target"] = target;
    }
    return p;
}

py::object attack(const CoreState &s) {
    const HeroState &st = s.st;
    if (st.phase != HERO_PH_DEFEND) return py::none();
    py::dict a;
    a["attacker"] = st.att_from == HERO_REF_NONE ? py::object(py::none())
                                                 : py::object(py::str(slot_name(st.att_from)));
    a["target"] = st.att_to == HERO_REF_NONE     ? py::object(py::none())
                  : st.att_to == HERO_REF_AVATAR ? py::object(py::str("avatar"))
                                                 : py::object(py::str(slot_name(st.att_to)));
    return a;
}

py::dict to_dict(const CoreState &s) {
    const HeroState &st = s.st;
    const Tables &tables = *s.tables;
    py::dict d;
    d["turn"] = st.turn;
    d["active"] = static_cast<int>(st.active);
    int current = hero_current_player(&st);
    d["current"] = current == XEN_CHANCE     ? py::object(py::str("chance"))
                   : current == XEN_TERMINAL ? py::object(py::none())
                                             : py::object(py::int_(current));
    d["phase"] = PHASE_NAMES[st.phase];
    if (st.phase == HERO_PH_OVER) {
        auto r = s.returns();
        py::list result;
        result.append(static_cast<int>(r[0]));
        result.append(static_cast<int>(r[1]));
        d["result"] = result;
    } else {
        d["result"] = py::none();
    }
    d["pending"] = pending(s);
    d["attack"] = attack(s);
    py::list players;
    for (int p = 0; p < 2; p++) {
        py::dict pd;
        pd["avatar"] = tables.avatar_names[p];
        pd["hp"] = st.hp[p];
        pd["charisma_used"] = static_cast<int>(st.charisma_used[p]);
        pd["ability_used"] = st.ability_used[p] != 0;
        pd["hand"] = s.multiset(st.hand[p]);
        pd["hand_size"] = static_cast<int>(st.hand_n[p]);
        pd["known"] = s.multiset(st.known[p]);
        pd["deck"] = s.multiset(st.deck[p]);
        pd["deck_size"] = static_cast<int>(st.deck_n[p]);
        pd["graveyard"] = s.multiset(st.grave[p]);
        pd["exile"] = py::dict();  // E-18: always empty, not stored
        pd["front"] = row(s, p * 2);
        pd["back"] = row(s, p * 2 + 1);
        players.append(pd);
    }
    d["players"] = players;
    return d;
}

// ------------------------------------------------------------ from_dict
//
// A state from a canonical dict (spec §10), as the oracle's
// OracleGame.state_from_dict: every phase (setup, draw, action, window,
// battle, defend, over) with or without a pending target or draw. The same
// defaults as the oracle for what a hand-written dict may leave out (a
// player's hp: the avatar's; charisma_used 0; ability_used false; multisets
// and rows empty; a unit: damage 0, standby, cannot move, no pumps); names
// are matched ignoring case and surrounding spaces. Derived keys (`current`,
// `hand_size`, `deck_size`, a unit's `token`, `power`, `attack`) may be left
// out; when given they must agree with the state. Anything the C state cannot
// hold or that breaks its invariants is a ValueError naming the key: unknown
// names and keys, a foreign avatar, more than 5 units in a row, a non-empty
// exile (E-18), cards not conserved against the tables' decklists, known >
// hand, refs to empty slots, an attack outside `defend`, a pending draw that
// no effect could have left, a game going on with a seat at HP <= 0, an empty
// deck or a unit with damage >= power, a decision node without legal action.
// The state is then checked by hero_state_check (hash included).

struct DictReader : xen::StrictReader {
    const Tables &tb;
    const HeroTables *t;
    std::vector<std::string> folded_cards;

    explicit DictReader(const Tables &tables) : tb(tables), t(tables.t.get()) {
        for (const auto &name : tb.card_names) folded_cards.push_back(fold(py::str(name)));
    }

    int card(const py::handle &name, const std::string &where) const {
        text(name, where);
        std::string wanted = fold(name);
        for (size_t c = 0; c < folded_cards.size(); c++)
            if (folded_cards[c] == wanted) return static_cast<int>(c);
        fail(where, "unknown card " + repr(name));
    }

    // A multiset {name: count}; None or a missing key is empty, counts of 0 are dropped.
    void multiset(const py::handle &o, uint8_t *counts, const std::string &where) const {
        if (o.is_none()) return;
        std::vector<bool> seen(HERO_MAX_CARDS, false);
        for (auto item : dict(o, where)) {
            std::string at = where + "[" + repr(item.first) + "]";
            int c = card(item.first, at);
            if (seen[c]) fail(where, "card '" + tb.card_names[c] + "' named twice");
            seen[c] = true;
            counts[c] = static_cast<uint8_t>(integer(item.second, at, 0, 255));
        }
    }

    // "F1".."B5" of `seat` (a unit there) -> absolute slot.
    static int slot(const HeroState &s, const py::handle &o, int seat, const std::string &where) {
        std::string name = text(o, where);
        char row = name.size() == 2
                       ? static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])))
                       : 0;
        if ((row != 'F' && row != 'B') || name[1] < '1' || name[1] > '5')
            fail(where, "a slot F1..F5 or B1..B5 is needed, not " + repr(o));
        int rr = seat * 2 + (row == 'B'), i = name[1] - '1';
        if (i >= s.row_n[rr])
            fail(where, "slot " + name + " of seat " + std::to_string(seat) + " holds no unit");
        return rr * 5 + i;
    }
};

// The range read for hp, damage, pumps and turn (int32 fields); hero_state_check
// bounds them further where the rules need it.
const int64_t BIG = 1000000000;

CoreState from_dict(Tables &tables, const py::dict &d) {
    const Tables &tb = tables;
    const HeroTables *t = tb.t.get();
    DictReader r(tb);
    using R = DictReader;
    CoreState out{tables.shared_from_this(), {}, {}};
    HeroState &s = out.st;
    std::memset(&s, 0, sizeof s);

    R::only_keys(d,
                 {"turn", "active", "current", "phase", "result", "pending", "attack", "players"},
                 "the dict");
    std::string phase_name = R::text(R::required(d, "phase", "the dict"), "phase");
    int phase = -1;
    for (int ph = HERO_PH_SETUP; ph <= HERO_PH_OVER; ph++)
        if (phase_name == PHASE_NAMES[ph]) phase = ph;
    if (phase < 0) R::fail("phase", "unknown phase '" + phase_name + "'");
    s.phase = static_cast<uint8_t>(phase);
    s.turn = static_cast<int32_t>(R::integer(R::required(d, "turn", "the dict"), "turn", 0, BIG));
    s.active = static_cast<uint8_t>(
        R::integer(R::required(d, "active", "the dict"), "active", 0, 1));
    const bool over = phase == HERO_PH_OVER;

    py::object result = R::optional(d, "result");
    if (over != !result.is_none())
        R::fail("result",
                over ? "a game over needs its result" : "a result in a game that goes on");
    if (over) {
        py::list rl = R::list(result, "result");
        int r0 = rl.size() == 2 ? static_cast<int>(R::integer(rl[0], "result[0]", -1, 1)) : 2;
        int r1 = rl.size() == 2 ? static_cast<int>(R::integer(rl[1], "result[1]", -1, 1)) : 2;
        s.result = r0 == 1 && r1 == -1   ? XEN_RES_WIN0
                   : r0 == -1 && r1 == 1 ? XEN_RES_WIN1
                   : r0 == 0 && r1 == 0  ? XEN_RES_DRAW
                                         : XEN_RES_NONE;
        if (s.result == XEN_RES_NONE)
            R::fail("result", "[1, -1], [-1, 1] or [0, 0] is needed, not " + R::repr(result));
    }

    // ---- players
    py::list players = R::list(R::required(d, "players", "the dict"), "players");
    if (players.size() != 2) R::fail("players", "two players are needed");
    for (int p = 0; p < 2; p++) {
        std::string where = "players[" + std::to_string(p) + "]";
        py::dict pd = R::dict(players[p], where);
        R::only_keys(pd,
                     {"avatar", "hp", "charisma_used", "ability_used", "hand", "hand_size", "known",
                      "deck", "deck_size", "graveyard", "exile", "front", "back"},
                     where);
        const HeroSeat &seat = t->seat[p];
        py::object avatar = R::required(pd, "avatar", where);
        R::text(avatar, where + ".avatar");
        if (R::fold(avatar) != R::fold(py::str(tb.avatar_names[p])))
            R::fail(where + ".avatar", R::repr(avatar) + ", but the tables give seat " +
                                           std::to_string(p) + " the avatar '" +
                                           tb.avatar_names[p] + "'");
        s.hp[p] = static_cast<int32_t>(R::field_or(pd, "hp", where, -BIG, seat.hp, seat.hp));
        s.charisma_used[p] = static_cast<uint8_t>(
            R::field_or(pd, "charisma_used", where, 0, seat.charisma, 0));
        py::object ability = R::optional(pd, "ability_used");
        if (!ability.is_none()) s.ability_used[p] = R::boolean(ability, where + ".ability_used");
        r.multiset(R::optional(pd, "hand"), s.hand[p], where + ".hand");
        r.multiset(R::optional(pd, "known"), s.known[p], where + ".known");
        r.multiset(R::optional(pd, "deck"), s.deck[p], where + ".deck");
        r.multiset(R::optional(pd, "graveyard"), s.grave[p], where + ".graveyard");
        uint8_t exile[HERO_MAX_CARDS] = {0};
        r.multiset(R::optional(pd, "exile"), exile, where + ".exile");
        for (int c = 0; c < HERO_MAX_CARDS; c++)
            if (exile[c])
                R::fail(where + ".exile",
                        "the exile zone is always empty (E-18: no effect exiles)");
        for (int k = 0; k < 2; k++) {
            const char *row_key = k == 0 ? "front" : "back";
            std::string row_where = where + "." + row_key;
            py::object row_obj = R::optional(pd, row_key);
            if (row_obj.is_none()) continue;
            py::list row = R::list(row_obj, row_where);
            if (row.size() > HERO_ROW_SIZE)
                R::fail(row_where, std::to_string(row.size()) + " units, a row holds at most 5");
            int rr = p * 2 + k;
            s.row_n[rr] = static_cast<uint8_t>(row.size());
            for (size_t i = 0; i < row.size(); i++) {
                int at = rr * 5 + static_cast<int>(i);
                std::string uw = row_where + "[" + std::to_string(i) + "]";
                py::dict u = R::dict(row[i], uw);
                R::only_keys(u,
                             {"card", "token", "power", "attack", "damage", "used", "can_move",
                              "pump_power", "pump_attack"},
                             uw);
                py::object name = R::required(u, "card", uw);
                R::text(name, uw + ".card");
                if (R::fold(name) == "retainer") {
                    s.card[at] = HERO_TOKEN;
                } else {
                    int c = r.card(name, uw + ".card");
                    if (!t->card[c].is_unit)
                        R::fail(uw + ".card", "'" + tb.card_names[c] + "' is not a unit");
                    s.card[at] = static_cast<uint8_t>(c);
                }
                s.damage[at] = static_cast<int32_t>(R::field_or(u, "damage", uw, 0, BIG, 0));
                s.pump_power[at] = static_cast<int32_t>(
                    R::field_or(u, "pump_power", uw, 0, BIG, 0));
                s.pump_attack[at] = static_cast<int32_t>(
                    R::field_or(u, "pump_attack", uw, 0, BIG, 0));
                py::object v = R::optional(u, "used");
                if (!v.is_none() && R::boolean(v, uw + ".used")) s.flags[at] |= HERO_F_USED;
                v = R::optional(u, "can_move");
                if (!v.is_none() && R::boolean(v, uw + ".can_move")) s.flags[at] |= HERO_F_CAN_MOVE;
                // the derived keys, when given, must agree
                v = R::optional(u, "token");
                if (!v.is_none() && R::boolean(v, uw + ".token") != (s.card[at] == HERO_TOKEN))
                    R::fail(uw + ".token", "does not match the card " + R::repr(name));
                v = R::optional(u, "power");
                if (!v.is_none() &&
                    R::integer(v, uw + ".power", 0, 2 * BIG) != hero_power(t, &s, at))
                    R::fail(uw + ".power", R::repr(v) +
                                               ", but printed power + pumps + race bonus is " +
                                               std::to_string(hero_power(t, &s, at)));
                v = R::optional(u, "attack");
                if (!v.is_none() &&
                    R::integer(v, uw + ".attack", 0, 2 * BIG) != hero_attack(t, &s, at))
                    R::fail(uw + ".attack", R::repr(v) +
                                                ", but printed attack + pumps + race bonus is " +
                                                std::to_string(hero_attack(t, &s, at)));
                if (!over && s.damage[at] >= hero_power(t, &s, at))
                    R::fail(uw, "damage " + std::to_string(s.damage[at]) + " >= power " +
                                    std::to_string(hero_power(t, &s, at)) +
                                    ": the unit would have been destroyed");
            }
        }
        // Conservation against the tables' decklist, known <= hand, sizes.
        int field[HERO_MAX_CARDS] = {0}, hand_n = 0, deck_n = 0;
        for (int at = p * 10; at < p * 10 + 10; at++)
            if (at % 5 < s.row_n[at / 5] && s.card[at] != HERO_TOKEN) field[s.card[at]]++;
        for (int c = 0; c < t->n_cards; c++) {
            int sum = s.hand[p][c] + s.deck[p][c] + s.grave[p][c] + field[c];
            if (sum != seat.decklist[c])
                R::fail(where, "'" + tb.card_names[c] + "': hand " + std::to_string(s.hand[p][c]) +
                                   " + deck " + std::to_string(s.deck[p][c]) + " + graveyard " +
                                   std::to_string(s.grave[p][c]) + " + field " +
                                   std::to_string(field[c]) + " = " + std::to_string(sum) +
                                   ", but the deck of seat " + std::to_string(p) + " ('" +
                                   tb.deck_names[p] + "') has " + std::to_string(seat.decklist[c]) +
                                   " (every card of the decklist is in exactly one zone)");
            if (s.known[p][c] > s.hand[p][c])
                R::fail(where + ".known",
                        "'" + tb.card_names[c] + "' known " + std::to_string(s.known[p][c]) +
                            " times, but the hand holds " + std::to_string(s.hand[p][c]));
            hand_n += s.hand[p][c];
            deck_n += s.deck[p][c];
        }
        s.hand_n[p] = static_cast<uint8_t>(hand_n);
        s.deck_n[p] = static_cast<uint8_t>(deck_n);
        if (R::field_or(pd, "hand_size", where, 0, 255, hand_n) != hand_n)
            R::fail(where + ".hand_size", "the hand holds " + std::to_string(hand_n) + " cards");
        if (R::field_or(pd, "deck_size", where, 0, 255, deck_n) != deck_n)
            R::fail(where + ".deck_size", "the deck holds " + std::to_string(deck_n) + " cards");
    }

    // ---- pending
    py::object pending = R::optional(d, "pending");
    if (!pending.is_none()) {
        if (over) R::fail("pending", "nothing is pending in a game over");
        py::dict pd = R::dict(pending, "pending");
        std::string kind = R::text(R::required(pd, "kind", "pending"), "pending.kind");
        int player = static_cast<int>(R::field(pd, "player", "pending", 0, 1));
        s.pend_player = static_cast<uint8_t>(player);
        if (kind == "target") {
            R::only_keys(pd, {"kind", "source", "player"}, "pending");
            if (phase != HERO_PH_ACTION || player != s.active)
                R::fail("pending",
                        "an on_deploy target is chosen by the active player in the action phase");
            int c = r.card(R::required(pd, "source", "pending"), "pending.source");
            const HeroCard &k = t->card[c];
            if (!k.is_unit || k.effects.n == 0 || k.effects.target == HERO_TG_NONE)
                R::fail("pending.source",
                        "'" + tb.card_names[c] + "' has no on_deploy effect with a target");
            s.pend_kind = HERO_PEND_TARGET;
            s.pend_source = static_cast<uint8_t>(c);
        } else if (kind == "draw") {
            R::only_keys(pd,
                         {"kind", "source", "ability", "player", "effect", "draws_left", "target"},
                         "pending");
            bool is_ability = R::boolean(R::required(pd, "ability", "pending"), "pending.ability");
            py::object source = R::required(pd, "source", "pending");
            const HeroEffects *fx;
            if (is_ability) {
                R::text(source, "pending.source");
                if (R::fold(source) != R::fold(py::str(tb.avatar_names[player])))
                    R::fail("pending.source",
                            "an ability draw's source is the avatar of its player, '" +
                                tb.avatar_names[player] + "'");
                // an ability's effect list to point into: only an activated one has one to draw from
                if (t->seat[player].ability != HERO_AB_ACTIVATED)
                    R::fail("pending.source",
                            "'" + tb.avatar_names[player] + "' has no activated ability");
                fx = &t->seat[player].ability_fx;
            } else {
                int c = r.card(source, "pending.source");
                fx = &t->card[c].effects;
                s.pend_source = static_cast<uint8_t>(c);
            }
            int effect = static_cast<int>(
                R::field(pd, "effect", "pending", 0, HERO_MAX_EFFECTS - 1));
            if (effect >= fx->n || fx->fx[effect].op != HERO_FX_DRAW || fx->fx[effect].a < 1)
                R::fail("pending.effect", "effect " + std::to_string(effect) + " of " +
                                              R::repr(source) + " is not a draw(n) with n >= 1");
            s.pend_kind = HERO_PEND_DRAW;
            s.pend_ability = is_ability;
            s.pend_effect = static_cast<uint8_t>(effect);
            s.draws_left = static_cast<int32_t>(
                R::field(pd, "draws_left", "pending", 1, fx->fx[effect].a));
            py::object target = R::required(pd, "target", "pending");
            s.pend_target = HERO_REF_NONE;
            if (!target.is_none()) {
                py::dict td = R::dict(target, "pending.target");
                R::only_keys(td, {"seat", "slot"}, "pending.target");
                int seat = static_cast<int>(R::field(td, "seat", "pending.target", 0, 1));
                py::object where = R::required(td, "slot", "pending.target");
                if (!where
                         .is_none()) {  // a slot of None: a unit that is GONE, as the oracle reads it
                    s.pend_target = static_cast<uint8_t>(
                        R::slot(s, where, seat, "pending.target.slot"));
                }
            }
        } else {
            R::fail("pending.kind", "'target' or 'draw' is needed, not '" + kind + "'");
        }
    }

    // ---- attack (phase defend only)
    py::object attack = R::optional(d, "attack");
    if ((phase == HERO_PH_DEFEND) != !attack.is_none())
        R::fail("attack", phase == HERO_PH_DEFEND ? "the defend phase needs the declared attack"
                                                  : "an attack exists only in the defend phase");
    if (!attack.is_none()) {
        py::dict ad = R::dict(attack, "attack");
        R::only_keys(ad, {"attacker", "target"}, "attack");
        py::object from = R::required(ad, "attacker", "attack"),
                   to = R::required(ad, "target", "attack");
        s.att_from = from.is_none()
                         ? static_cast<uint8_t>(HERO_REF_NONE)
                         : static_cast<uint8_t>(R::slot(s, from, s.active, "attack.attacker"));
        if (to.is_none()) s.att_to = HERO_REF_NONE;
        else if (py::isinstance<py::str>(to) && R::fold(to) == "avatar") s.att_to = HERO_REF_AVATAR;
        else s.att_to = static_cast<uint8_t>(R::slot(s, to, 1 - s.active, "attack.target"));
    }

    hero_rekey(t, &s);
    if (const char *why = hero_state_check(t, &s))
        throw py::value_error(std::string("from_dict: not a valid Hero state: ") + why);

    if (d.contains("current")) {  // derived: when given, it must agree
        py::object current = d["current"], expected = to_dict(out)["current"];
        bool same = current.is_none() ? expected.is_none()
                    : py::isinstance<py::str>(expected)
                        ? py::isinstance<py::str>(current) && current.equal(expected)
                        : !expected.is_none() && py::isinstance<py::int_>(current) &&
                              !py::isinstance<py::bool_>(current) && current.equal(expected);
        if (!same)
            R::fail("current",
                    R::repr(current) + ", but phase, pending and active give " + R::repr(expected));
    }
    if (!over && out.legal_actions().empty())
        R::fail(
            "pending",
            "a decision node without a legal action (an on_deploy target needs a legal target)");
    return out;
}

}  // namespace

void bind_hero(py::module_ &m) {
    xen::bind_constants<Hero>(m, {{"END", HERO_END},
                                  {"PASS", HERO_PASS},
                                  {"MOVE", HERO_MOVE},
                                  {"DEPLOY", HERO_DEPLOY},
                                  {"PLAY", HERO_PLAY},
                                  {"RETAINER", HERO_RETAINER},
                                  {"ABILITY", HERO_ABILITY},
                                  {"TARGET", HERO_TARGET},
                                  {"ATTACK", HERO_ATTACK},
                                  {"GUARD", HERO_GUARD},
                                  {"DRAW", HERO_DRAW}});
    m.attr("NO_TARGET") = static_cast<int>(HERO_NO_TARGET);
    m.attr("AVATAR_SLOT") = static_cast<int>(HERO_AVATAR_SLOT);
    m.attr("MAX_ACTIONS") = static_cast<int>(XEN_MAX_ACTIONS);
    // The core's numbering of the card vocabulary and its limits, by the C
    // names of hero.h: the binding reads no names (core_data numbers them), this
    // is for the test tying xenophon.hero.cards' order to the enums.
    py::dict enums;
#define HERO_ENUM(name) std::make_pair(#name, static_cast<int>(name))
    for (const auto &[name, value] : {HERO_ENUM(HERO_R),
                                      HERO_ENUM(HERO_U),
                                      HERO_ENUM(HERO_G),
                                      HERO_ENUM(HERO_K),
                                      HERO_ENUM(HERO_N),
                                      HERO_ENUM(HERO_KW_RANGED),
                                      HERO_ENUM(HERO_KW_BLITZ),
                                      HERO_ENUM(HERO_KW_FIRST_STRIKE),
                                      HERO_ENUM(HERO_KW_FLYING),
                                      HERO_ENUM(HERO_KW_PROTECTION),
                                      HERO_ENUM(HERO_KW_HORDE),
                                      HERO_ENUM(HERO_TG_NONE),
                                      HERO_ENUM(HERO_TG_UNIT),
                                      HERO_ENUM(HERO_TG_OWN_UNIT),
                                      HERO_ENUM(HERO_TG_ENEMY_UNIT),
                                      HERO_ENUM(HERO_AB_NONE),
                                      HERO_ENUM(HERO_AB_ACTIVATED),
                                      HERO_ENUM(HERO_AB_ON_ENEMY_DESTROYED),
                                      HERO_ENUM(HERO_AB_RACE_BONUS),
                                      HERO_ENUM(HERO_FX_DAMAGE_UNIT),
                                      HERO_ENUM(HERO_FX_DESTROY_UNIT),
                                      HERO_ENUM(HERO_FX_DAMAGE_AVATAR),
                                      HERO_ENUM(HERO_FX_HEAL_AVATAR),
                                      HERO_ENUM(HERO_FX_LOSE_HP),
                                      HERO_ENUM(HERO_FX_DRAW),
                                      HERO_ENUM(HERO_FX_PUMP),
                                      HERO_ENUM(HERO_FX_BOUNCE),
                                      HERO_ENUM(HERO_FX_TAP),
                                      HERO_ENUM(HERO_FX_UNTAP),
                                      HERO_ENUM(HERO_FX_WIN_IF_UNITS),
                                      HERO_ENUM(HERO_MAX_CARDS),
                                      HERO_ENUM(HERO_MAX_EFFECTS),
                                      HERO_ENUM(HERO_MAX_DECK),
                                      HERO_ENUM(HERO_MAX_NUMBER)})
        enums[name] = value;
#undef HERO_ENUM
    m.attr("ENUMS") = enums;

    xen::bind_game_api<Hero>(m);
    auto tables_cls = xen::bind_tables<Hero>(
        m, "Card tables of one Hero game: a card set and the two decks.");
    tables_cls
        .def(py::init(&make_tables), py::arg("data").noconvert(),
             "The tables of HeroCardSet.core_data(deck0, deck1): the card set and both seats.")
        .def_property_readonly("avatar_names",
                               [](const Tables &t) {
                                   return std::vector<std::string>(t.avatar_names.begin(),
                                                                   t.avatar_names.end());
                               })
        .def_property_readonly("deck_names", [](const Tables &t) {
            return std::vector<std::string>(t.deck_names.begin(), t.deck_names.end());
        });

    xen::bind_batch<Hero>(m);  // after Tables: its signature names them

    py::class_<CoreState> cls(m, "CoreState", "The C core's Hero state (backend protocol).");
    xen::bind_backend(cls);
    cls.def_static(
           "initial",
           [](Tables &tables, py::object seed) {
               // The initial state is the first setup chance node: it has no randomness of
               // its own, so `seed` (accepted for symmetry with Game(seed=...)) is unused.
               (void)seed;
               return CoreState::initial(tables);
           },
           py::arg("tables"), py::arg("seed") = py::none())
        .def("to_dict", &to_dict)
        .def_static("from_dict", &from_dict, py::arg("tables"), py::arg("d"),
                    "A state from a canonical dict (spec §10), any phase, as the oracle's "
                    "state_from_dict; ValueError for what the C state cannot hold");
    xen::bind_network<Hero>(tables_cls, cls);
}

XEN_REGISTER_BINDING("hero", "A Hero incarnation C core", bind_hero);

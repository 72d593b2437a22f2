// xenophon._core.anabasis: the int-level backend over the C core
// (src/engine_c/anabasis/anabasis.h). Thin: it copies the card set's plain data
// (CardSet.core_data) into C specs and builds the canonical dict of docs/anabasis-engine.md §8; the undo
// history, the code checks and the rest of the protocol that both games share
// are in backend.hpp. The rules live only in the C core.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "anabasis/anabasis.h"
#include "backend.hpp"
#include "core_functions.h"
#include "check.h"
#include "dict_reader.hpp"
#include "registration.hpp"

namespace py = pybind11;

namespace {

struct Tables : xen::TablesBase<AnaTables, Tables> {
    std::vector<std::string> field_names;
    std::string mode;
};
using TablesPtr = std::shared_ptr<Tables>;

// The card set as plain data, built by the Python side in the core's numbering
// (xenophon.anabasis.cards.CardSet.core_data: the vocabulary's one owner):
// a card is (name, [kind, cost, copies, start_copies, pile, hp, atk, hit, crit,
// keywords, ap_income, funds_income, effect, amount], move offsets, attack
// offsets), a field card (name, duration, effect, amount).
using CardData = std::tuple<std::string, std::vector<int>, std::vector<int>, std::vector<int>>;
using FieldData = std::tuple<std::string, int, int, int>;
constexpr size_t CARD_NUMBERS = 14;

AnaCardSpec card_spec(const std::vector<int> &n) {
    if (n.size() != CARD_NUMBERS)
        throw py::value_error("a card's data holds " + std::to_string(CARD_NUMBERS) + " numbers");
    AnaCardSpec s{};
    s.kind = n[0];
    s.cost = n[1];
    s.copies = n[2];
    s.start_copies = n[3];
    s.pile = n[4];
    s.hp = n[5];
    s.atk = n[6];
    s.hit = n[7];
    s.crit = n[8];
    s.keywords = n[9];
    s.ap_income = n[10];
    s.funds_income = n[11];
    s.effect = n[12];
    s.amount = n[13];
    return s;
}

TablesPtr make_tables(const std::pair<std::vector<CardData>, std::vector<FieldData>> &card_set,
                      const std::string &mode) {
    int mode_id;
    if (mode == "standard") mode_id = ANA_STANDARD;
    else if (mode == "expert") mode_id = ANA_EXPERT;
    else throw py::value_error("unknown mode '" + mode + "' (standard or expert)");
    auto tables = std::make_shared<Tables>();
    tables->mode = mode;
    const auto &[cards, field_cards] = card_set;
    std::vector<AnaCardSpec> specs;
    for (const auto &[name, numbers, move, attack] : cards) {
        AnaCardSpec s = card_spec(numbers);
        s.move = move.data();  // `cards` outlives ana_tables_init
        s.attack = attack.data();
        s.n_move = static_cast<int>(move.size() / 2);
        s.n_attack = static_cast<int>(attack.size() / 2);
        specs.push_back(s);
        tables->card_names.push_back(name);
    }
    std::vector<AnaFieldSpec> fields;
    for (const auto &[name, duration, effect, amount] : field_cards) {
        fields.push_back(AnaFieldSpec{duration, effect, amount});
        tables->field_names.push_back(name);
    }
    char err[200] = "";
    if (ana_tables_init(tables->t.get(), specs.data(), static_cast<int>(specs.size()),
                        fields.data(), static_cast<int>(fields.size()), mode_id, err,
                        sizeof err) != 0)
        throw py::value_error(std::string("card set not supported: ") + err);
    return tables;
}

std::string square_name(int q) {
    return std::string(1, static_cast<char>('a' + q % ANA_FILES)) +
           std::to_string(q / ANA_FILES + 1);
}

// The Anabasis C core as backend.hpp sees it.
struct Anabasis {
    using PyTables = Tables;
    using CTables = AnaTables;
    using State = AnaState;
    using Undo = AnaUndo;
    static constexpr int max_outcomes = ANA_MAX_OUTCOMES;
    static constexpr const char *a_state = "an Anabasis state";
    static constexpr const char *invalid_state = "not a valid Anabasis state: ";
    static constexpr const XenGameApi *api = &ana_game_api;
    static constexpr const XenFeatureSet *feature_set = &ana_feature_set;
    static constexpr bool has_network = true;
    static std::vector<std::string> net_input_names(const Tables &tables) {
        std::vector<std::string> names;
        xen::card_zone_names(tables, ANA_NET_CARD_ZONES, ana_net_zone_names, names);
        for (int z = 0; z < ANA_NET_SQUARE_ZONES; z++)
            for (int q = 0; q < ANA_SQUARES; q++)
                names.push_back(std::string(ana_net_zone_names[ANA_NET_CARD_ZONES + z]) + ":" +
                                square_name(q));
        return names;
    }
    static constexpr auto net_inputs = ana_net_inputs;
    static constexpr auto evaluate_net = ana_evaluate_net;
    static constexpr auto policy_logits = ana_policy_logits;
    XEN_CORE_FUNCTIONS(ana)
};
using CoreState = xen::CoreStateT<Anabasis>;

py::dict pile_multiset(const CoreState &s, int pile) {
    py::dict d;
    for (int i = 0; i < s.t()->pile_size[pile]; i++) {
        int c = s.t()->pile_cards[pile][i];
        if (s.st.unseen[c]) d[py::str(s.tables->card_names[c])] = s.st.unseen[c];
    }
    return d;
}

py::object card_name(const CoreState &s, int c) {
    if (c == ANA_NONE) return py::none();
    return py::str(s.tables->card_names[c]);
}

const char *PHASE_NAMES[] = {"standby1", "field", "standby2", "response",
                             "nullify",  "evade", "chance",   "over"};

py::dict to_dict(const CoreState &s) {
    const AnaState &st = s.st;
    const Tables &tables = *s.tables;
    py::dict d;
    d["turn"] = st.turn;
    d["active"] = st.active;
    int current = ana_current_player(&st);
    d["current"] = current == XEN_CHANCE     ? py::object(py::str("chance"))
                   : current == XEN_TERMINAL ? py::object(py::none())
                                             : py::object(py::int_(current));
    d["phase"] = PHASE_NAMES[ana_phase(&st)];
    if (ana_is_terminal(&st)) {
        int r[2];
        ana_returns(&st, r);
        py::list result;
        result.append(r[0]);
        result.append(r[1]);
        d["result"] = result;
    } else {
        d["result"] = py::none();
    }
    py::list players;
    for (int p = 0; p < 2; p++) {
        const AnaPlayer &pl = st.pl[p];
        py::dict pd;
        pd["castle_hp"] = pl.castle_hp;
        pd["ap"] = pl.ap;
        pd["funds"] = pl.funds;
        pd["hand"] = s.multiset(pl.hand);
        pd["deck"] = s.multiset(pl.deck);
        pd["flow"] = s.multiset(pl.flow);
        pd["cemetery"] = s.multiset(pl.cemetery);
        py::list slots;
        for (int k = 0; k < ANA_SLOTS; k++) {
            if (pl.slot[k] == ANA_NONE) {
                slots.append(py::none());
                continue;
            }
            py::dict slot;
            slot["card"] = card_name(s, pl.slot[k]);
            slot["face_up"] = static_cast<bool>((pl.slot_up >> k) & 1);
            slots.append(slot);
        }
        pd["slots"] = slots;
        players.append(pd);
    }
    d["players"] = players;
    py::dict grid;
    for (int q = 0; q < ANA_SQUARES; q++) {
        if (st.sq_card[q] == ANA_NONE) continue;
        py::dict cell;
        cell["card"] = card_name(s, st.sq_card[q]);
        cell["owner"] = static_cast<int>((st.occ[1] >> q) & 1);
        cell["damage"] = st.sq_damage[q];
        cell["ready"] = static_cast<bool>((st.ready >> q) & 1);
        cell["moved"] = static_cast<bool>((st.moved >> q) & 1);
        cell["face_down"] = static_cast<bool>((st.face_down >> q) & 1);
        cell["atk_bonus"] = st.sq_bonus[q];
        grid[py::str(square_name(q))] = cell;
    }
    d["grid"] = grid;
    py::dict market;
    py::list tops, piles;
    for (int i = 0; i < 3; i++) {
        tops.append(card_name(s, st.top[i]));
        piles.append(pile_multiset(s, i));
    }
    market["tops"] = tops;
    market["piles"] = piles;
    py::dict row;
    for (int i = 0; i < ANA_ROW_SIZE && st.row[i] != ANA_NONE; i++) {
        py::str name(tables.card_names[st.row[i]]);
        row[name] = (row.contains(name) ? row[name].cast<int>() : 0) + 1;
    }
    market["row"] = row;
    market["row_pile"] = pile_multiset(s, ANA_PILE_ROW);
    d["market"] = market;
    if (st.field_n == 0) {
        d["field"] = py::none();
    } else {
        py::dict field;
        field["active"] = tables.field_names[st.field_rev[st.field_idx]];
        field["remaining"] = st.field_left;
        py::list revealed;
        for (int i = 0; i < st.field_n; i++) revealed.append(tables.field_names[st.field_rev[i]]);
        field["revealed"] = revealed;
        d["field"] = field;
    }
    return d;
}

// ------------------------------------------------------------ from_dict
//
// A resting position (phase standby1, field or standby2, the active player to
// move) from a canonical dict (spec §8), as the oracle's state_from_dict: a
// dict does not hold a pending battle, event or chance node. The reader only
// parses (xen::StrictReader: types, and the ranges of the C fields; keys it
// does not read are ignored); whether the position holds together is
// ana_state_check's, run on the result. The history is not checked.

struct Reader : xen::StrictReader {
    const Tables &tb;
    const AnaTables *t;

    explicit Reader(const Tables &tables) : tb(tables), t(tables.t.get()) {}

    static int index_of(const std::vector<std::string> &names, const py::handle &name,
                        const std::string &where, const char *what) {
        std::string wanted = text(name, where);
        for (size_t i = 0; i < names.size(); i++)
            if (names[i] == wanted) return static_cast<int>(i);
        fail(where, std::string("unknown ") + what + " " + repr(name));
    }

    int card(const py::handle &name, const std::string &where) const {
        return index_of(tb.card_names, name, where, "card");
    }

    int field_card(const py::handle &name, const std::string &where) const {
        return index_of(tb.field_names, name, where, "field card");
    }

    // {card: count}: what count(c, n, where) says of each entry.
    template <class Count>
    void entries(const py::handle &o, const std::string &where, Count count) const {
        for (auto item : dict(o, where)) {
            std::string at = where + "[" + repr(item.first) + "]";
            count(card(item.first, at), integer(item.second, at, 1, 255), at);
        }
    }

    void multiset(const py::handle &o, uint8_t *counts, const std::string &where) const {
        entries(o, where, [&](int c, long long n, const std::string &) {
            counts[c] = static_cast<uint8_t>(n);
        });
    }

    // A market pile's face-down cards into unseen: the state keeps one count per
    // card, and a card's pile is in the tables, so each must be of this pile.
    void pile(const py::handle &o, int pile, uint8_t *unseen, const std::string &where) const {
        entries(o, where, [&](int c, long long n, const std::string &at) {
            if (t->card[c].pile != pile)
                fail(at, "'" + tb.card_names[c] + "' is not a card of this pile");
            unseen[c] = static_cast<uint8_t>(n);
        });
    }

    static int square(const py::handle &name, const std::string &where) {
        std::string sq = text(name, where);
        if (sq.size() != 2 || sq[0] < 'a' || sq[0] > 'g' || sq[1] < '1' || sq[1] > '6')
            fail(where, "a square a1..g6 is needed, not " + repr(name));
        return (sq[1] - '1') * ANA_FILES + (sq[0] - 'a');
    }
};

void read_slots(const Reader &r, const py::handle &o, AnaPlayer &pl, const std::string &where) {
    py::list slots = r.list_of(o, ANA_SLOTS, where);
    for (int k = 0; k < ANA_SLOTS; k++) {
        pl.slot[k] = ANA_NONE;
        if (slots[k].is_none()) continue;
        std::string at = where + "[" + std::to_string(k) + "]";
        py::dict slot = r.dict(slots[k], at);
        pl.slot[k] = static_cast<uint8_t>(r.card(r.required(slot, "card", at), at + ".card"));
        if (r.boolean(r.required(slot, "face_up", at), at + ".face_up"))
            pl.slot_up = static_cast<uint8_t>(pl.slot_up | (1 << k));
    }
}

void read_player(const Reader &r, const py::handle &o, AnaPlayer &pl, const std::string &where) {
    py::dict pd = r.dict(o, where);
    pl.castle_hp = static_cast<int16_t>(r.field(pd, "castle_hp", where, INT16_MIN, INT16_MAX));
    pl.ap = static_cast<uint16_t>(r.field(pd, "ap", where, 0, UINT16_MAX));
    pl.funds = static_cast<uint8_t>(r.field(pd, "funds", where, 0, UINT8_MAX));
    r.multiset(r.required(pd, "hand", where), pl.hand, where + ".hand");
    r.multiset(r.required(pd, "deck", where), pl.deck, where + ".deck");
    r.multiset(r.required(pd, "flow", where), pl.flow, where + ".flow");
    r.multiset(r.required(pd, "cemetery", where), pl.cemetery, where + ".cemetery");
    pl.hand_n = static_cast<uint16_t>(xen_multiset_total(pl.hand, ANA_MAX_CARDS));
    pl.deck_n = static_cast<uint16_t>(xen_multiset_total(pl.deck, ANA_MAX_CARDS));
    for (int c = 0; c < r.t->n_cards; c++)
        if (r.t->card[c].kind != ANA_EVENT_CARD)
            pl.cem_cards = static_cast<uint16_t>(pl.cem_cards + pl.cemetery[c]);
    read_slots(r, r.required(pd, "slots", where), pl, where + ".slots");
}

void read_grid(const Reader &r, const py::handle &o, AnaState &s) {
    for (auto item : r.dict(o, "grid")) {
        std::string where = "grid[" + r.repr(item.first) + "]";
        int q = r.square(item.first, where);
        py::dict cell = r.dict(item.second, where);
        int c = r.card(r.required(cell, "card", where), where + ".card");
        int owner = static_cast<int>(r.field(cell, "owner", where, 0, 1));
        s.sq_card[q] = static_cast<uint8_t>(c);
        s.sq_damage[q] = static_cast<uint8_t>(r.field(cell, "damage", where, 0, UINT8_MAX));
        s.sq_bonus[q] = static_cast<uint16_t>(r.field(cell, "atk_bonus", where, 0, UINT16_MAX));
        uint64_t bit = 1ULL << q;
        s.occ[owner] |= bit;
        if (r.t->card[c].kind == ANA_CHARACTER) s.chars |= bit;
        if (r.boolean(r.required(cell, "ready", where), where + ".ready")) s.ready |= bit;
        if (r.boolean(r.required(cell, "moved", where), where + ".moved")) s.moved |= bit;
        if (r.boolean(r.required(cell, "face_down", where), where + ".face_down"))
            s.face_down |= bit;
    }
}

void read_market(const Reader &r, const py::handle &o, AnaState &s) {
    py::dict market = r.dict(o, "market");
    py::list tops = r.list_of(r.required(market, "tops", "market"), 3, "market.tops");
    py::list piles = r.list_of(r.required(market, "piles", "market"), 3, "market.piles");
    for (int i = 0; i < 3; i++) {
        std::string at = "market.tops[" + std::to_string(i) + "]";
        if (!tops[i].is_none()) s.top[i] = static_cast<uint8_t>(r.card(tops[i], at));
        r.pile(piles[i], i, s.unseen, "market.piles[" + std::to_string(i) + "]");
    }
    r.pile(r.required(market, "row_pile", "market"), ANA_PILE_ROW, s.unseen, "market.row_pile");
    std::vector<int> row;
    r.entries(r.required(market, "row", "market"), "market.row",
              [&](int c, long long n, const std::string &) {
                  if (row.size() + static_cast<size_t>(n) > ANA_ROW_SIZE)
                      r.fail("market.row", "at most 5 cards in the row");
                  row.insert(row.end(), static_cast<size_t>(n), c);
              });
    std::sort(row.begin(), row.end());
    for (size_t i = 0; i < row.size(); i++) s.row[i] = static_cast<uint8_t>(row[i]);
    for (int c = 0; c < r.t->n_cards; c++) {
        int pile = r.t->card[c].pile;
        if (s.unseen[c]) s.pile_n[pile] = static_cast<uint16_t>(s.pile_n[pile] + s.unseen[c]);
    }
}

void read_field(const Reader &r, const py::handle &o, AnaState &s) {
    if (o.is_none()) return;
    py::dict field = r.dict(o, "field");
    py::list revealed = r.list(r.required(field, "revealed", "field"), "field.revealed");
    if (revealed.size() > ANA_MAX_FIELDS)
        r.fail("field.revealed", "at most 16 field cards are revealed");
    int active = r.field_card(r.required(field, "active", "field"), "field.active");
    bool found = false;
    for (size_t i = 0; i < revealed.size(); i++) {
        int f = r.field_card(revealed[i], "field.revealed[" + std::to_string(i) + "]");
        s.field_rev[i] = static_cast<uint8_t>(f);
        if (f == active && !found) s.field_idx = static_cast<uint8_t>(i);
        found = found || f == active;
    }
    if (!found) r.fail("field.active", "the active field card is not one of the revealed");
    s.field_n = static_cast<uint8_t>(revealed.size());
    s.field_left = static_cast<uint8_t>(r.field(field, "remaining", "field", 0, UINT8_MAX));
}

CoreState from_dict(Tables &tables, const py::dict &d) {
    Reader r(tables);
    std::string phase = r.text(r.required(d, "phase", "the dict"), "phase");
    int stage = phase == "standby1"   ? ANA_SG_STANDBY1
                : phase == "field"    ? ANA_SG_FIELD
                : phase == "standby2" ? ANA_SG_STANDBY2
                                      : -1;
    if (stage < 0) r.fail("phase", "only phases standby1, field and standby2");
    CoreState out{tables.shared_from_this(), {}, {}};
    AnaState &s = out.st;
    std::memset(&s, 0, sizeof s);
    std::memset(s.sq_card, ANA_NONE, sizeof s.sq_card);
    std::memset(s.top, ANA_NONE, sizeof s.top);
    std::memset(s.row, ANA_NONE, sizeof s.row);
    s.stage = static_cast<uint8_t>(stage);
    s.turn = static_cast<uint8_t>(r.field(d, "turn", "the dict", 0, UINT8_MAX));
    s.active = static_cast<uint8_t>(r.field(d, "active", "the dict", 0, 1));
    py::object current = r.required(d, "current", "the dict");
    if (!r.required(d, "result", "the dict").is_none() || !py::isinstance<py::int_>(current) ||
        py::isinstance<py::bool_>(current) || r.integer(current, "current", 0, 1) != s.active)
        r.fail("current", "the active player must be to move in a game not over");
    py::list players = r.list_of(r.required(d, "players", "the dict"), 2, "players");
    for (int p = 0; p < 2; p++)
        read_player(r, players[p], s.pl[p], "players[" + std::to_string(p) + "]");
    read_grid(r, r.required(d, "grid", "the dict"), s);
    read_market(r, r.required(d, "market", "the dict"), s);
    read_field(r, r.required(d, "field", "the dict"), s);
    ana_rekey(r.t, &s);
    if (const char *why = ana_state_check(r.t, &s))
        throw py::value_error(std::string("from_dict: not a valid Anabasis state: ") + why);
    return out;
}

}  // namespace

void bind_anabasis(py::module_ &m) {
    xen::bind_constants<Anabasis>(m, {{"END", ANA_END},
                                      {"PASS", ANA_PASS},
                                      {"BUY", ANA_BUY},
                                      {"BUY_PLACE", ANA_BUY_PLACE},
                                      {"PLACE", ANA_PLACE},
                                      {"SET", ANA_SET},
                                      {"MOVE", ANA_MOVE},
                                      {"ATTACK", ANA_ATTACK},
                                      {"READY", ANA_READY},
                                      {"EVENT", ANA_EVENT},
                                      {"EVADE", ANA_EVADE},
                                      {"DEAL", ANA_DEAL},
                                      {"REVEAL", ANA_REVEAL},
                                      {"FIELD", ANA_FIELD},
                                      {"DRAW", ANA_DRAW},
                                      {"STRIKE", ANA_STRIKE}});
    m.attr("MAX_TURNS") = py::int_(static_cast<int>(ANA_MAX_TURNS));

    auto tables_cls = xen::bind_tables<Anabasis>(
        m, "Card tables of one Anabasis game (built once per game).");
    tables_cls
        .def(py::init(&make_tables), py::arg("card_set").noconvert(), py::arg("mode") = "standard")
        .def_property_readonly("mode", [](const Tables &t) { return t.mode; })
        .def_property_readonly("field_names", [](const Tables &t) { return t.field_names; });
    xen::bind_game_api<Anabasis>(m);
    xen::bind_batch<Anabasis>(m);

    py::class_<CoreState> cls(m, "CoreState", "The C core's Anabasis state (backend protocol).");
    xen::bind_backend(cls);
    xen::bind_network<Anabasis>(tables_cls, cls);
    cls.def_static("initial", &CoreState::initial, py::arg("tables"))
        .def("to_dict", &to_dict)
        .def_static("from_dict", &from_dict, py::arg("tables"), py::arg("d"),
                    "A resting position (standby1, field, standby2) from a canonical dict")
        .def("is_ok", [](const CoreState &s) { return ana_state_is_ok(s.t(), &s.st) != 0; })
        .def(
            "cards_conserved",
            [](const CoreState &s) { return ana_cards_conserved(s.t(), &s.st) != 0; },
            "every copy of every card is somewhere exactly once (states reached by play)")
        .def(
            "random_games",
            [](const CoreState &s, int n_games, uint64_t seed) {
                py::gil_scoped_release release;
                return ana_random_games(s.t(), &s.st, n_games, seed);
            },
            py::arg("n_games").noconvert(), py::arg("seed").noconvert(),
            "Play n_games uniformly random games from this state (a copy); total codes applied");
}

XEN_REGISTER_BINDING("anabasis", "Anabasis C core", bind_anabasis);

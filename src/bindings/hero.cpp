// xenophon._core.hero: the int-level backend over the C core
// (src/engine_c/hero.h). Thin: it reads the Python card set and decks of
// xenophon.hero.cards into plain C specs, keeps the undo history, checks
// codes and builds the canonical dict of docs/hero-engine.md §10. The rules
// live only in the C core.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "game_api.h"
#include "hero.h"

namespace py = pybind11;

namespace {

struct Tables {
    std::unique_ptr<HeroTables> t{new HeroTables()};
    std::vector<std::string> card_names;
    std::array<std::string, 2> avatar_names;
    std::array<std::string, 2> deck_names;
};
using TablesPtr = std::shared_ptr<Tables>;

int index_of(const std::vector<std::string> &names, const std::string &name, const std::string &what,
             const std::string &where) {
    for (size_t i = 0; i < names.size(); i++)
        if (names[i] == name) return static_cast<int>(i);
    throw py::value_error(where + ": unknown " + what + " '" + name + "'");
}

const std::vector<std::string> FACTIONS = {"R", "U", "G", "K", "N"};
const std::vector<std::string> KEYWORDS = {"RANGED", "BLITZ", "FIRST_STRIKE", "FLYING",
                                           "PROTECTION", "HORDE"};
const std::vector<std::string> TARGETS = {"none", "unit", "own_unit", "enemy_unit"};
const std::vector<std::string> ABILITIES = {"none", "activated", "on_enemy_destroyed",
                                            "race_bonus"};

// Race ids by first appearance: avatars, then cards (spec §14).
struct Races {
    std::map<std::string, int> ids;
    int id(const std::string &race) {
        auto it = ids.find(race);
        if (it != ids.end()) return it->second;
        int next = static_cast<int>(ids.size());
        ids[race] = next;
        return next;
    }
};

int read_effects(const py::handle &effects, HeroEffectSpec *out, const std::string &where) {
    int n = 0;
    for (auto e : effects) {
        if (n >= HERO_MAX_EFFECTS)
            throw py::value_error(where + ": more than " + std::to_string(HERO_MAX_EFFECTS) + " effects");
        HeroEffectSpec &spec = out[n++];
        spec.op = e.attr("opcode").cast<int>();
        auto args = e.attr("args").cast<std::vector<int>>();
        if (args.size() > 2) throw py::value_error(where + ": an effect with more than 2 arguments");
        spec.a = args.size() > 0 ? args[0] : 0;
        spec.b = args.size() > 1 ? args[1] : 0;
    }
    return n;
}

HeroCardSpec read_card(const py::handle &card, Races &races) {
    std::string where = "card '" + card.attr("name").cast<std::string>() + "'";
    HeroCardSpec s{};
    std::string kind = card.attr("kind").cast<std::string>();
    if (kind != "unit" && kind != "operation") throw py::value_error(where + ": unknown kind '" + kind + "'");
    s.is_unit = kind == "unit";
    s.faction = index_of(FACTIONS, card.attr("faction").cast<std::string>(), "faction", where);
    s.cost = card.attr("cost").cast<int>();
    py::object condition = card.attr("condition");
    auto colours = condition.attr("colours").cast<std::vector<int>>();
    if (colours.size() != 4) throw py::value_error(where + ": a condition has 4 colour counts");
    for (int k = 0; k < 4; k++) s.cond_colours[k] = colours[k];
    s.cond_generic = condition.attr("generic").cast<int>();
    if (s.is_unit) {
        s.race = races.id(card.attr("race").cast<std::string>());
        s.power = card.attr("power").cast<int>();
        s.attack = card.attr("attack").cast<int>();
    }
    for (auto kw : card.attr("keywords"))
        s.keywords |= 1 << index_of(KEYWORDS, kw.cast<std::string>(), "keyword", where);
    py::object timing = card.attr("timing");
    s.fast = !timing.is_none() && timing.cast<std::string>() == "fast";
    s.target = index_of(TARGETS, card.attr("target").cast<std::string>(), "target kind", where);
    s.n_effects = read_effects(card.attr("effects"), s.effects, where);
    return s;
}

HeroAvatarSpec read_avatar(const py::handle &avatar, Races &races) {
    std::string where = "avatar '" + avatar.attr("name").cast<std::string>() + "'";
    HeroAvatarSpec s{};
    s.faction = index_of(FACTIONS, avatar.attr("faction").cast<std::string>(), "faction", where);
    s.hp = avatar.attr("hp").cast<int>();
    s.hand = avatar.attr("hand").cast<int>();
    s.charisma = avatar.attr("charisma").cast<int>();
    s.race = races.id(avatar.attr("race").cast<std::string>());
    py::object ability = avatar.attr("ability");
    s.ability = index_of(ABILITIES, ability.attr("kind").cast<std::string>(), "ability kind", where);
    s.target = index_of(TARGETS, ability.attr("target").cast<std::string>(), "target kind", where);
    s.n_effects = read_effects(ability.attr("effects"), s.effects, where);
    if (s.ability == HERO_AB_RACE_BONUS) {
        s.bonus_race = races.id(ability.attr("race").cast<std::string>());
        s.bonus_power = ability.attr("power").cast<int>();
        s.bonus_attack = ability.attr("attack").cast<int>();
    }
    return s;
}

TablesPtr make_tables(const py::object &card_set, const py::object &deck0, const py::object &deck1) {
    for (const py::object *d : {&deck0, &deck1})
        if (!py::hasattr(*d, "counts") || !py::hasattr(*d, "avatar") ||
            !py::hasattr(*d, "card_set_digest"))
            throw py::value_error("decks must be Deck objects of xenophon.hero.cards (load_deck, "
                                  "build_deck or prebuilt_decks)");
    if (!py::hasattr(card_set, "cards") || !py::hasattr(card_set, "avatars"))
        throw py::value_error("card_set must be a HeroCardSet of xenophon.hero.cards (load_card_set)");
    auto tables = std::make_shared<Tables>();
    py::list cards(card_set.attr("cards")), avatars(card_set.attr("avatars"));
    int n_cards = static_cast<int>(cards.size());
    if (n_cards > HERO_MAX_CARDS)
        throw py::value_error("card set not supported: " + std::to_string(n_cards) + " cards, at most " +
                              std::to_string(HERO_MAX_CARDS));
    Races races;
    std::vector<HeroAvatarSpec> avatar_specs;
    for (auto a : avatars) avatar_specs.push_back(read_avatar(a, races));
    std::vector<HeroCardSpec> specs;
    for (auto c : cards) {
        specs.push_back(read_card(c, races));
        tables->card_names.push_back(c.attr("name").cast<std::string>());
    }
    std::string digest = py::str(card_set.attr("digest")).cast<std::string>();
    HeroAvatarSpec seats[2];
    int counts[2][HERO_MAX_CARDS] = {};
    const py::object *decks[2] = {&deck0, &deck1};
    for (int p = 0; p < 2; p++) {
        const py::object &deck = *decks[p];
        std::string name = py::str(deck.attr("name")).cast<std::string>();
        std::string where = "deck " + std::to_string(p) + " ('" + name + "')";
        if (py::str(deck.attr("card_set_digest")).cast<std::string>() != digest)
            throw py::value_error(where + " was built for another card set");
        auto deck_counts = deck.attr("counts").cast<std::vector<int>>();
        if (static_cast<int>(deck_counts.size()) != n_cards)
            throw py::value_error(where + ": " + std::to_string(deck_counts.size()) +
                                  " card counts for a set of " + std::to_string(n_cards) + " cards");
        for (int c = 0; c < n_cards; c++) counts[p][c] = deck_counts[c];
        int avatar_id = deck.attr("avatar").attr("id").cast<int>();
        std::string avatar_name = deck.attr("avatar").attr("name").cast<std::string>();
        if (avatar_id < 0 || avatar_id >= static_cast<int>(avatar_specs.size()) ||
            py::str(avatars[avatar_id].attr("name")).cast<std::string>() != avatar_name)
            throw py::value_error(where + ": avatar '" + avatar_name + "' is not in the card set");
        seats[p] = avatar_specs[avatar_id];
        tables->avatar_names[p] = avatar_name;
        tables->deck_names[p] = name;
    }
    char err[256] = "";
    if (hero_tables_init(tables->t.get(), specs.data(), n_cards, seats, counts, err, sizeof err) != 0) {
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
            message = "deck " + std::to_string(index) + " ('" + tables->deck_names[index] + "', avatar '" +
                      tables->avatar_names[index] + "')" + message.substr(colon);
        throw py::value_error("card set not supported by the C core: " + message);
    }
    return tables;
}

// The capsule keeps the Tables alive: its context holds a heap shared_ptr.
py::object tables_capsule(const TablesPtr &tables) {
    PyObject *capsule = PyCapsule_New(tables->t.get(), "xenophon.tables", [](PyObject *o) {
        delete static_cast<TablesPtr *>(PyCapsule_GetContext(o));
    });
    if (!capsule) throw py::error_already_set();
    PyCapsule_SetContext(capsule, new TablesPtr(tables));
    return py::reinterpret_steal<py::object>(capsule);
}

const char *PHASE_NAMES[] = {"setup", "draw", "action", "window", "battle", "defend", "over"};

std::string slot_name(int slot) {
    int rel = slot % 10;
    return std::string(rel < 5 ? "F" : "B") + std::to_string(rel % 5 + 1);
}

struct CoreState {
    TablesPtr tables;
    HeroState st{};
    std::vector<HeroUndo> history;

    const HeroTables *t() const { return tables->t.get(); }

    std::vector<int> legal_actions() const {
        std::array<uint16_t, HERO_MAX_ACTIONS> buf;
        int n = hero_legal_actions(t(), &st, buf.data());
        return std::vector<int>(buf.begin(), buf.begin() + n);
    }

    std::vector<std::pair<int, uint32_t>> chance_weights(uint32_t *total) const {
        std::array<uint16_t, HERO_MAX_CARDS> codes;
        std::array<uint32_t, HERO_MAX_CARDS> weights;
        int n = hero_chance_outcomes(t(), &st, codes.data(), weights.data(), total);
        std::vector<std::pair<int, uint32_t>> out;
        for (int i = 0; i < n; i++) out.emplace_back(codes[i], weights[i]);
        return out;
    }

    void apply(int code) {
        if (code < 0 || code > 0xFFFF || !hero_is_legal(t(), &st, static_cast<uint16_t>(code)))
            throw py::value_error("illegal action code " + std::to_string(code));
        history.emplace_back();
        hero_apply(t(), &st, static_cast<uint16_t>(code), &history.back());
    }

    void undo() {
        if (history.empty()) throw py::index_error("no action to undo");
        hero_undo(t(), &st, &history.back());
        history.pop_back();
    }

    CoreState clone() const { return CoreState{tables, st, {}}; }

    std::vector<double> returns() const {
        int r[2];
        hero_returns(&st, r);
        return {static_cast<double>(r[0]), static_cast<double>(r[1])};
    }

    py::dict multiset(const uint8_t *counts) const {
        py::dict d;
        for (int c = 0; c < t()->n_cards; c++)
            if (counts[c]) d[py::str(tables->card_names[c])] = counts[c];
        return d;
    }

    py::dict unit(int slot) const {
        py::dict u;
        bool token = st.card[slot] == HERO_TOKEN;
        u["card"] = token ? std::string("Retainer") : tables->card_names[st.card[slot]];
        u["token"] = token;
        u["power"] = hero_power(t(), &st, slot);
        u["attack"] = hero_attack(t(), &st, slot);
        u["damage"] = st.damage[slot];
        u["used"] = (st.flags[slot] & HERO_F_USED) != 0;
        u["can_move"] = (st.flags[slot] & HERO_F_CAN_MOVE) != 0;
        u["pump_power"] = st.pump_power[slot];
        u["pump_attack"] = st.pump_attack[slot];
        return u;
    }

    py::list row(int rr) const {
        py::list units;
        for (int i = 0; i < st.row_n[rr]; i++) units.append(unit(rr * 5 + i));
        return units;
    }

    py::object pending() const {
        if (st.pend_kind == HERO_PEND_NONE) return py::none();
        py::dict p;
        if (st.pend_kind == HERO_PEND_TARGET) {
            p["kind"] = "target";
            p["source"] = tables->card_names[st.pend_source];
            p["player"] = static_cast<int>(st.pend_player);
            return p;
        }
        p["kind"] = "draw";
        p["source"] = st.pend_ability ? tables->avatar_names[st.pend_player]
                                      : tables->card_names[st.pend_source];
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

    py::object attack() const {
        if (st.phase != HERO_PH_DEFEND) return py::none();
        py::dict a;
        a["attacker"] = st.att_from == HERO_REF_NONE ? py::object(py::none())
                                                     : py::object(py::str(slot_name(st.att_from)));
        a["target"] = st.att_to == HERO_REF_NONE     ? py::object(py::none())
                      : st.att_to == HERO_REF_AVATAR ? py::object(py::str("avatar"))
                                                     : py::object(py::str(slot_name(st.att_to)));
        return a;
    }

    py::dict to_dict() const {
        py::dict d;
        d["turn"] = st.turn;
        d["active"] = static_cast<int>(st.active);
        int current = hero_current_player(&st);
        d["current"] = current == HERO_CHANCE     ? py::object(py::str("chance"))
                       : current == HERO_TERMINAL ? py::object(py::none())
                                                  : py::object(py::int_(current));
        d["phase"] = PHASE_NAMES[st.phase];
        if (st.phase == HERO_PH_OVER) {
            auto r = returns();
            py::list result;
            result.append(static_cast<int>(r[0]));
            result.append(static_cast<int>(r[1]));
            d["result"] = result;
        } else {
            d["result"] = py::none();
        }
        d["pending"] = pending();
        d["attack"] = attack();
        py::list players;
        for (int p = 0; p < 2; p++) {
            py::dict pd;
            pd["avatar"] = tables->avatar_names[p];
            pd["hp"] = st.hp[p];
            pd["charisma_used"] = static_cast<int>(st.charisma_used[p]);
            pd["ability_used"] = st.ability_used[p] != 0;
            pd["hand"] = multiset(st.hand[p]);
            pd["hand_size"] = static_cast<int>(st.hand_n[p]);
            pd["known"] = multiset(st.known[p]);
            pd["deck"] = multiset(st.deck[p]);
            pd["deck_size"] = static_cast<int>(st.deck_n[p]);
            pd["graveyard"] = multiset(st.grave[p]);
            pd["exile"] = py::dict();   // E-18: always empty, not stored
            pd["front"] = row(p * 2);
            pd["back"] = row(p * 2 + 1);
            players.append(pd);
        }
        d["players"] = players;
        return d;
    }
};

int check_player(int player) {
    if (player != 0 && player != 1) throw py::value_error("player must be 0 or 1");
    return player;
}

CoreState from_bytes(const TablesPtr &tables, const py::bytes &data) {
    std::string raw = data;
    if (raw.size() != sizeof(HeroState))
        throw py::value_error("a Hero state is " + std::to_string(sizeof(HeroState)) + " bytes, got " +
                              std::to_string(raw.size()));
    CoreState s{tables, {}, {}};
    std::memcpy(&s.st, raw.data(), sizeof(HeroState));
    if (const char *why = hero_state_check(tables->t.get(), &s.st))
        throw py::value_error(std::string("not a valid Hero state for these tables: ") + why);
    return s;
}

}  // namespace

void bind_hero(py::module_ &m) {
    m.attr("CHANCE") = static_cast<int>(HERO_CHANCE);
    m.attr("TERMINAL") = static_cast<int>(HERO_TERMINAL);
    const std::pair<const char *, int> kinds[] = {
        {"END", HERO_END}, {"PASS", HERO_PASS}, {"MOVE", HERO_MOVE}, {"DEPLOY", HERO_DEPLOY},
        {"PLAY", HERO_PLAY}, {"RETAINER", HERO_RETAINER}, {"ABILITY", HERO_ABILITY},
        {"TARGET", HERO_TARGET}, {"ATTACK", HERO_ATTACK}, {"GUARD", HERO_GUARD}, {"DRAW", HERO_DRAW}};
    py::dict kind_numbers;
    for (const auto &k : kinds) {
        m.attr(k.first) = k.second;
        kind_numbers[k.first] = k.second;
    }
    m.attr("KINDS") = kind_numbers;
    m.attr("NO_TARGET") = static_cast<int>(HERO_NO_TARGET);
    m.attr("AVATAR_SLOT") = static_cast<int>(HERO_AVATAR_SLOT);
    m.attr("MAX_ACTIONS") = static_cast<int>(HERO_MAX_ACTIONS);
    m.attr("STATE_SIZE") = sizeof(HeroState);

    m.def("game_api", []() {
        auto *api = const_cast<XenGameApi *>(&hero_game_api);
        PyObject *capsule = PyCapsule_New(api, "xenophon.game_api", nullptr);
        if (!capsule) throw py::error_already_set();
        return py::reinterpret_steal<py::object>(capsule);
    }, "PyCapsule 'xenophon.game_api' holding the Hero XenGameApi (for the search).");

    py::class_<Tables, TablesPtr>(m, "Tables", "Card tables of one Hero game: a card set and the two decks.")
        .def(py::init(&make_tables), py::arg("card_set"), py::arg("deck0"), py::arg("deck1"))
        .def("capsule", &tables_capsule,
             "PyCapsule 'xenophon.tables' holding the HeroTables pointer (keeps the tables alive).")
        .def_property_readonly("card_names", [](const Tables &t) { return t.card_names; })
        .def_property_readonly("avatar_names", [](const Tables &t) {
            return std::vector<std::string>(t.avatar_names.begin(), t.avatar_names.end());
        })
        .def_property_readonly("deck_names", [](const Tables &t) {
            return std::vector<std::string>(t.deck_names.begin(), t.deck_names.end());
        });

    py::class_<CoreState>(m, "CoreState", "The C core's Hero state (backend protocol).")
        .def_static("initial", [](const TablesPtr &tables, py::object seed) {
            // The initial state is the first setup chance node: it has no randomness of
            // its own, so `seed` (accepted for symmetry with Game(seed=...)) is unused.
            (void)seed;
            CoreState s{tables, {}, {}};
            hero_initial_state(tables->t.get(), &s.st);
            return s;
        }, py::arg("tables"), py::arg("seed") = py::none())
        .def_property_readonly("tables", [](const CoreState &s) { return s.tables; })
        .def("current_player", [](const CoreState &s) { return hero_current_player(&s.st); })
        .def("is_chance", [](const CoreState &s) {
            return !hero_is_terminal(&s.st) && hero_is_chance(&s.st) != 0;
        })
        .def("is_terminal", [](const CoreState &s) { return hero_is_terminal(&s.st) != 0; })
        .def("legal_actions", &CoreState::legal_actions)
        .def("chance_outcomes", [](const CoreState &s) {
            uint32_t total = 0;
            std::vector<std::pair<int, double>> out;
            for (auto &cw : s.chance_weights(&total))
                out.emplace_back(cw.first, static_cast<double>(cw.second) / static_cast<double>(total));
            return out;
        })
        .def("chance_weights", [](const CoreState &s) {
            uint32_t total = 0;
            auto w = s.chance_weights(&total);
            return py::make_tuple(w, total);
        }, "([(code, weight)], total): the exact integer weights of the chance outcomes")
        .def("apply", &CoreState::apply, py::arg("code"))
        .def("undo", &CoreState::undo)
        .def("history_size", [](const CoreState &s) { return s.history.size(); })
        .def("returns", &CoreState::returns)
        .def("to_dict", &CoreState::to_dict)
        .def("clone", &CoreState::clone)
        .def("__copy__", &CoreState::clone)
        .def("hash", [](const CoreState &s) { return s.st.hash; })
        .def("hash_from_scratch", [](const CoreState &s) { return hero_hash_from_scratch(s.t(), &s.st); })
        .def("check", [](const CoreState &s) -> py::object {
            const char *why = hero_state_check(s.t(), &s.st);
            return why ? py::object(py::str(why)) : py::object(py::none());
        }, "None when every invariant of the state holds, else what is broken")
        .def("information_set_key", [](const CoreState &s, int player) {
            return hero_information_set_key(s.t(), &s.st, check_player(player));
        }, py::arg("player"))
        .def("resample", [](const CoreState &s, int player, uint64_t seed) {
            XenRng rng;
            xen_rng_seed(&rng, seed);
            CoreState out{s.tables, s.st, {}};
            hero_resample(s.t(), &out.st, check_player(player), &rng);
            return out;
        }, py::arg("player"), py::arg("seed"))
        .def("to_bytes", [](const CoreState &s) {
            return py::bytes(reinterpret_cast<const char *>(&s.st), sizeof(HeroState));
        })
        .def_static("from_bytes", &from_bytes, py::arg("tables"), py::arg("data"))
        .def("evaluate", [](const CoreState &s, int player) {
            return hero_evaluate(s.t(), &s.st, check_player(player));
        }, py::arg("player"))
        .def("playout_action", [](const CoreState &s, uint64_t seed) {
            if (hero_is_terminal(&s.st) || hero_is_chance(&s.st)) throw py::value_error("not a decision node");
            XenRng rng;
            xen_rng_seed(&rng, seed);
            return static_cast<int>(hero_playout_action(s.t(), &s.st, &rng));
        }, py::arg("seed"))
        .def("sample_chance", [](const CoreState &s, uint64_t seed) {
            if (hero_is_terminal(&s.st) || !hero_is_chance(&s.st)) throw py::value_error("not a chance node");
            XenRng rng;
            xen_rng_seed(&rng, seed);
            return static_cast<int>(hero_sample_chance(s.t(), &s.st, &rng));
        }, py::arg("seed"))
        .def("turn", [](const CoreState &s) { return s.st.turn; })
        .def("perft", [](const CoreState &s, int depth) {
            HeroState copy = s.st;
            py::gil_scoped_release release;
            return hero_perft(s.t(), &copy, depth);
        }, py::arg("depth"))
        .def("random_actions", [](const CoreState &s, uint64_t n, uint64_t seed) {
            py::gil_scoped_release release;
            return hero_random_actions(s.t(), &s.st, n, seed);
        }, py::arg("n"), py::arg("seed"),
           "Play n random codes from a copy of this state (new games from it when one ends)")
        .def("apply_undo_pairs", [](const CoreState &s, uint64_t n, uint64_t seed) {
            py::gil_scoped_release release;
            return hero_apply_undo_pairs(s.t(), &s.st, n, seed);
        }, py::arg("n"), py::arg("seed"))
        .def_static("state_size", []() { return sizeof(HeroState); })
        .def("__eq__", [](const CoreState &a, const CoreState &b) {
            return a.tables == b.tables && std::memcmp(&a.st, &b.st, sizeof(HeroState)) == 0;
        })
        .def("__hash__", [](const CoreState &s) { return static_cast<py::ssize_t>(s.st.hash >> 1); });
}

// What the bindings of the games share (each xenophon._core.GAME).
//
// Both games expose their C core (src/engine_c) to Python as the same
// int-level backend protocol: a Tables class built from the Python card data,
// and a CoreState class holding a plain C state plus an undo history, with
// checked apply/undo, chance outcomes, hashes, information sets, the PyCapsules
// the Cython search runs on, and the speed loops (C calls with the GIL
// released). That part is written once here, as templates over a small traits
// struct per game that names the game's C types and functions:
//
//   struct Game {
//       using PyTables;               // the binding's Tables, derived from TablesBase<CTables, Tables>
//       using CTables, State, Undo;   // the C core's types
//       max_outcomes;                 // buffer size for chance_outcomes
//       a_state, invalid_state;       // wording of the from_bytes errors
//       api;                          // the game's XenGameApi
//       feature_set;                  // its learned evaluation's features (learned.h)
//       XEN_CORE_FUNCTIONS(prefix)    // the core's C functions (core_functions.h)
//   };
//
// Each game's file (src/bindings/GAME.cpp) keeps only what is its own:
// reading the card set's data into C specs, the canonical dict (to_dict,
// from_dict), the signature of CoreState.initial, and its extra methods.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "learned.h"
#include "network.h"
#include "game_api.h"
#include "tensors.hpp"

namespace xen {

namespace py = pybind11;

// The C tables of one game and the names of its cards; a game's Tables (Self)
// adds the rest. Functions take the tables by reference (arguments.hpp) and
// keep them by their owner, shared_from_this().
template <class CTables, class Self> struct TablesBase : std::enable_shared_from_this<Self> {
    using xen_bound_class = void;
    std::unique_ptr<CTables> t{new CTables()};
    std::vector<std::string> card_names;
    // The floats of the information-state and observation tensors (tensors.hpp), once known.
    mutable int tensor_sizes[2] = {-1, -1};

    TablesBase() = default;
    // A deep copy (Tables.with_weights: the same cards, other weights).
    TablesBase(const TablesBase &other) : t(new CTables(*other.t)), card_names(other.card_names) {}
    TablesBase &operator=(const TablesBase &) = delete;
};

inline int check_player(int player) {
    if (player != 0 && player != 1) throw py::value_error("player must be 0 or 1");
    return player;
}

template <class Game> struct CoreStateT {
    using xen_bound_class = void;
    using State = typename Game::State;
    using Tables = typename Game::PyTables;
    using TablesPtr = std::shared_ptr<Tables>;

    TablesPtr tables;
    State st{};
    std::vector<typename Game::Undo> history;

    const typename Game::CTables *t() const { return tables->t.get(); }

    static CoreStateT initial(Tables &tables) {
        CoreStateT s{tables.shared_from_this(), {}, {}};
        Game::initial_state(tables.t.get(), &s.st);
        return s;
    }

    // Never at a terminal state (a core's chance predicate alone need not say so).
    bool is_chance() const { return !Game::is_terminal(&st) && Game::is_chance(&st) != 0; }

    std::vector<int> legal_actions() const {
        std::array<XenCode, XEN_MAX_ACTIONS> buf;
        int n = Game::legal_actions(t(), &st, buf.data());
        return std::vector<int>(buf.begin(), buf.begin() + n);
    }

    std::vector<std::pair<int, uint32_t>> chance_weights(uint32_t *total) const {
        std::array<uint16_t, Game::max_outcomes> codes;
        std::array<uint32_t, Game::max_outcomes> weights;
        int n = Game::chance_outcomes(t(), &st, codes.data(), weights.data(), total);
        std::vector<std::pair<int, uint32_t>> out;
        for (int i = 0; i < n; i++) out.emplace_back(codes[i], weights[i]);
        return out;
    }

    bool is_legal(int code) const {
        return code >= 0 && code <= 0xFFFF && Game::is_legal(t(), &st, static_cast<uint16_t>(code));
    }

    void apply(int code) {
        if (!is_legal(code)) throw py::value_error("illegal action code " + std::to_string(code));
        history.emplace_back();
        Game::apply(t(), &st, static_cast<uint16_t>(code), &history.back());
    }

    void undo() {
        if (history.empty()) throw py::index_error("no action to undo");
        Game::undo(t(), &st, &history.back());
        history.pop_back();
    }

    CoreStateT clone() const { return CoreStateT{tables, st, {}}; }

    std::vector<double> returns() const {
        int r[2];
        Game::returns(&st, r);
        return {static_cast<double>(r[0]), static_cast<double>(r[1])};
    }

    // {card name: count} of a per-card count array of the state.
    py::dict multiset(const uint8_t *counts) const {
        py::dict d;
        for (int c = 0; c < t()->n_cards; c++)
            if (counts[c]) d[py::str(tables->card_names[c])] = counts[c];
        return d;
    }

    // The bytes of a state as a C state, unchecked (only the size is).
    static State raw_state(const py::bytes &data) {
        std::string raw = data;
        if (raw.size() != sizeof(State))
            throw py::value_error(std::string(Game::a_state) + " is " +
                                  std::to_string(sizeof(State)) + " bytes, got " +
                                  std::to_string(raw.size()));
        State st;
        std::memcpy(&st, raw.data(), sizeof(State));
        return st;
    }

    // Every state the game's check accepts, and only those: the check holds
    // what the core needs to play on a state (src/engine_c/check.h).
    static CoreStateT from_bytes(Tables &tables, const py::bytes &data) {
        CoreStateT s{tables.shared_from_this(), raw_state(data), {}};
        if (const char *why = Game::state_check(tables.t.get(), &s.st))
            throw py::value_error(std::string(Game::invalid_state) + why);
        return s;
    }

    // The bytes with the stored hash (the first 8 bytes) and hidden sums (the
    // last 16) replaced by those of the others: lets the fuzz targets' mutated
    // states get past the key tests of from_bytes to the checks behind them.
    static py::bytes rehashed(const Tables &tables, const py::bytes &data) {
        State st = raw_state(data);
        Game::rekey(tables.t.get(), &st);
        return py::bytes(reinterpret_cast<const char *>(&st), sizeof(State));
    }
};

// CHANCE, TERMINAL, the action kinds (each a constant, and all in KINDS) and STATE_SIZE.
template <class Game>
void bind_constants(py::module_ &m, std::initializer_list<std::pair<const char *, int>> kinds) {
    m.attr("CHANCE") = py::int_(static_cast<int>(XEN_CHANCE));
    m.attr("TERMINAL") = py::int_(static_cast<int>(XEN_TERMINAL));
    py::dict kind_numbers;
    for (const auto &k : kinds) {
        m.attr(k.first) = py::int_(k.second);
        kind_numbers[k.first] = k.second;
    }
    m.attr("KINDS") = kind_numbers;
    m.attr("STATE_SIZE") = py::int_(sizeof(typename Game::State));
}

// The game's XenGameApi with the learned evaluation in place of the hand-set one.
template <class Game> const XenGameApi *learned_api() {
    static const XenGameApi api = [] {
        XenGameApi a = *Game::api;
        a.evaluate = [](const void *t, const void *s, int player) {
            return Game::evaluate_learned(static_cast<const typename Game::CTables *>(t),
                                          static_cast<const typename Game::State *>(s), player);
        };
        return a;
    }();
    return &api;
}

// The game's XenGameApi with the sparse-input network (network.h) in place of
// the hand-set evaluation, and its policy head's logits (priors=net) (a game
// with Game::has_network only).
template <class Game> const XenGameApi *network_api() {
    static const XenGameApi api = [] {
        XenGameApi a = *Game::api;
        a.evaluate = [](const void *t, const void *s, int player) {
            return Game::evaluate_net(static_cast<const typename Game::CTables *>(t),
                                      static_cast<const typename Game::State *>(s), player);
        };
        a.policy_logits = [](const void *t, const void *s, int count, const XenCode *codes,
                             double *out) {
            return Game::policy_logits(static_cast<const typename Game::CTables *>(t),
                                       static_cast<const typename Game::State *>(s), count, codes,
                                       out);
        };
        return a;
    }();
    return &api;
}

template <class Game> const XenGameApi *network_api_of() {
    if constexpr (Game::has_network) return network_api<Game>();
    else return nullptr;
}

// m.game_api(evaluation): the game's XenGameApi for the C search, its leaves
// scored by the hand-set evaluation ("hand"), the tables' weights ("learned")
// or the tables' network ("net").
template <class Game> void bind_game_api(py::module_ &m) {
    m.def(
        "game_api",
        [](const std::string &evaluation) {
            const XenGameApi *api;
            if (evaluation == "hand") api = Game::api;
            else if (evaluation == "learned") api = learned_api<Game>();
            else if (evaluation == "net" && Game::has_network) api = network_api_of<Game>();
            else throw py::value_error("unknown evaluation '" + evaluation + "' (hand or learned)");
            PyObject *capsule = PyCapsule_New(const_cast<XenGameApi *>(api), "xenophon.game_api",
                                              nullptr);
            if (!capsule) throw py::error_already_set();
            return py::reinterpret_steal<py::object>(capsule);
        },
        py::arg("evaluation") = "hand",
        "The game interface for the C search (a PyCapsule named xenophon.game_api).");
}

// The names of the tables' features: the scalars, then each card group by card.
template <class Game>
std::vector<std::string> feature_names(const typename Game::PyTables &tables) {
    const XenFeatureSet *set = Game::feature_set;
    std::vector<std::string> names(set->scalar_names, set->scalar_names + set->n_scalar);
    for (int g = 0; g < set->n_card_groups; g++)
        for (int c = 0; c < tables.t->n_cards; c++)
            names.push_back(std::string(set->card_group_names[g]) + ":" + tables.card_names[c]);
    return names;
}

// Checks that every number of `values` is finite ("what i" names the first that is not).
inline void check_finite(const std::vector<double> &values, const std::string &what) {
    for (size_t i = 0; i < values.size(); i++)
        if (!std::isfinite(values[i]))
            throw py::value_error(what + " " + std::to_string(i) + " is not a finite number");
}

// Copies a network's hidden layer (learned.h; one entry per unit, each unit's
// weights one per feature) into the C evaluation, stored feature by feature.
inline void set_network(XenLearnedEval &e, size_t n,
                        const std::vector<std::vector<double>> &weights,
                        const std::vector<double> &bias, const std::vector<double> &phase,
                        const std::vector<double> &output) {
    size_t h = weights.size();
    if (h > XEN_MAX_HIDDEN)
        throw py::value_error("at most " + std::to_string(XEN_MAX_HIDDEN) + " hidden units, not " +
                              std::to_string(h));
    if (bias.size() != h || phase.size() != h || output.size() != h)
        throw py::value_error("the network has " + std::to_string(h) +
                              " hidden units, its biases " + std::to_string(bias.size()) +
                              ", phase weights " + std::to_string(phase.size()) +
                              " and output weights " + std::to_string(output.size()));
    check_finite(bias, "hidden bias");
    check_finite(phase, "hidden phase weight");
    check_finite(output, "output weight");
    for (size_t j = 0; j < h; j++) {
        if (weights[j].size() != n)
            throw py::value_error("hidden unit " + std::to_string(j) + " has " +
                                  std::to_string(weights[j].size()) + " weights, the tables " +
                                  std::to_string(n) + " features");
        check_finite(weights[j], "hidden unit " + std::to_string(j) + " weight");
    }
    e.n_hidden = static_cast<int>(h);
    for (size_t j = 0; j < h; j++) {
        e.hidden_bias[j] = bias[j];
        e.hidden_phase[j] = phase[j];
        e.output[j] = output[j];
        for (size_t i = 0; i < n; i++) e.hidden_weights[i][j] = weights[j][i];
    }
}

// Copies weights (one per feature, opening and ending, and a hidden layer or
// none) into the C tables; nothing changes when they are refused.
template <class Game>
void set_weights(typename Game::PyTables &tables, const std::vector<double> &opening,
                 const std::vector<double> &ending, int taper_turns,
                 const std::vector<std::vector<double>> &hidden_weights,
                 const std::vector<double> &hidden_bias, const std::vector<double> &hidden_phase,
                 const std::vector<double> &output) {
    size_t n = feature_names<Game>(tables).size();
    if (opening.size() != n || ending.size() != n)
        throw py::value_error("the tables have " + std::to_string(n) + " features, the weights " +
                              std::to_string(opening.size()) + " and " +
                              std::to_string(ending.size()));
    if (taper_turns < 1) throw py::value_error("taper_turns must be at least 1");
    check_finite(opening, "weight");
    check_finite(ending, "weight");
    XenLearnedEval e = XenLearnedEval();
    set_network(e, n, hidden_weights, hidden_bias, hidden_phase, output);
    e.n_features = static_cast<int>(n);
    e.taper_turns = taper_turns;
    std::copy(opening.begin(), opening.end(), e.opening);
    std::copy(ending.begin(), ending.end(), e.ending);
    tables.t->learned = e;
}

// The loaded hidden layer as set_weights takes it, or None.
inline py::object network_of(const XenLearnedEval &e) {
    if (e.n_features == 0 || e.n_hidden == 0) return py::none();
    std::vector<std::vector<double>> weights(e.n_hidden, std::vector<double>(e.n_features));
    for (int j = 0; j < e.n_hidden; j++)
        for (int i = 0; i < e.n_features; i++) weights[j][i] = e.hidden_weights[i][j];
    return py::make_tuple(weights, std::vector<double>(e.hidden_bias, e.hidden_bias + e.n_hidden),
                          std::vector<double>(e.hidden_phase, e.hidden_phase + e.n_hidden),
                          std::vector<double>(e.output, e.output + e.n_hidden));
}

// The Tables class with what both games have (capsule, card_names); the game adds
// its constructor and other properties.
template <class Game>
py::class_<typename Game::PyTables, std::shared_ptr<typename Game::PyTables>>
bind_tables(py::module_ &m, const char *doc) {
    using Tables = typename Game::PyTables;
    using TablesPtr = std::shared_ptr<Tables>;
    py::class_<Tables, TablesPtr> cls(m, "Tables", doc);
    cls.def(
           "capsule",
           [](Tables &tables) {
               // The capsule keeps the tables alive: its context holds a heap shared_ptr.
               PyObject *capsule = PyCapsule_New(
                   tables.t.get(), "xenophon.tables",
                   [](PyObject *o) { delete static_cast<TablesPtr *>(PyCapsule_GetContext(o)); });
               if (!capsule) throw py::error_already_set();
               PyCapsule_SetContext(capsule, new TablesPtr(tables.shared_from_this()));
               return py::reinterpret_steal<py::object>(capsule);
           },
           "The tables for the C search (a PyCapsule named xenophon.tables; it keeps the tables alive).")
        .def_property_readonly("card_names", [](const Tables &t) { return t.card_names; })
        .def_property_readonly("feature_names", &feature_names<Game>,
                               "The learned evaluation's features, in order (learned.h).")
        .def("set_weights", &set_weights<Game>, py::arg("opening"), py::arg("ending"),
             py::arg("taper_turns").noconvert(),
             py::arg("hidden_weights") = std::vector<std::vector<double>>(),
             py::arg("hidden_bias") = std::vector<double>(),
             py::arg("hidden_phase") = std::vector<double>(),
             py::arg("output") = std::vector<double>(),
             "Loads the learned evaluation's weights into these tables (the hidden layer's "
             "arguments one entry per unit; none: the linear value alone).")
        .def(
            "with_weights",
            [](const Tables &tables, const std::vector<double> &opening,
               const std::vector<double> &ending, int taper_turns,
               const std::vector<std::vector<double>> &hidden_weights,
               const std::vector<double> &hidden_bias, const std::vector<double> &hidden_phase,
               const std::vector<double> &output) {
                auto copy = std::make_shared<Tables>(tables);
                set_weights<Game>(*copy, opening, ending, taper_turns, hidden_weights, hidden_bias,
                                  hidden_phase, output);
                return copy;
            },
            py::arg("opening"), py::arg("ending"), py::arg("taper_turns").noconvert(),
            py::arg("hidden_weights") = std::vector<std::vector<double>>(),
            py::arg("hidden_bias") = std::vector<double>(),
            py::arg("hidden_phase") = std::vector<double>(),
            py::arg("output") = std::vector<double>(),
            "A copy of these tables with other weights (states of either play on both).")
        .def_property_readonly(
            "network", [](const Tables &tables) { return network_of(tables.t->learned); },
            "(hidden_weights, hidden_bias, hidden_phase, output) of the loaded hidden layer, "
            "or None")
        .def_property_readonly_static(
            "max_hidden", [](py::object) { return XEN_MAX_HIDDEN; },
            "The most hidden units a network may have (learned.h).")
        .def_property_readonly(
            "weights",
            [](const Tables &tables) -> py::object {
                const XenLearnedEval &e = tables.t->learned;
                if (e.n_features == 0) return py::none();
                return py::make_tuple(std::vector<double>(e.opening, e.opening + e.n_features),
                                      std::vector<double>(e.ending, e.ending + e.n_features),
                                      e.taper_turns);
            },
            "(opening, ending, taper_turns) of the loaded weights, or None");
    bind_tables_tensors<Game>(cls);
    return cls;
}

// The CoreState methods of the backend protocol that both games share.
template <class Game> void bind_backend(py::class_<CoreStateT<Game>> &cls) {
    using CoreState = CoreStateT<Game>;
    using State = typename Game::State;
    cls.def_property_readonly("tables", [](const CoreState &s) { return s.tables; })
        .def("current_player", [](const CoreState &s) { return Game::current_player(&s.st); })
        .def("is_chance", [](const CoreState &s) { return s.is_chance(); })
        .def("is_terminal", [](const CoreState &s) { return Game::is_terminal(&s.st) != 0; })
        .def("legal_actions", &CoreState::legal_actions)
        .def("chance_outcomes",
             [](const CoreState &s) {
                 uint32_t total = 0;
                 std::vector<std::pair<int, double>> out;
                 for (auto &cw : s.chance_weights(&total))
                     out.emplace_back(cw.first,
                                      static_cast<double>(cw.second) / static_cast<double>(total));
                 return out;
             })
        .def(
            "chance_weights",
            [](const CoreState &s) {
                uint32_t total = 0;
                auto w = s.chance_weights(&total);
                return py::make_tuple(w, total);
            },
            "([(code, weight)], total): the exact integer weights of the chance outcomes")
        .def("apply", &CoreState::apply, py::arg("code").noconvert())
        .def("undo", &CoreState::undo)
        .def("history_size", [](const CoreState &s) { return s.history.size(); })
        .def("returns", &CoreState::returns)
        .def("clone", &CoreState::clone)
        .def("__copy__", &CoreState::clone)
        .def("hash", [](const CoreState &s) { return s.st.hash; })
        .def(
            "turn", [](const CoreState &s) { return static_cast<int>(s.st.turn); },
            "The turn counter (what the search's cut-off and the learned evaluation's phase read)")
        .def("hash_from_scratch",
             [](const CoreState &s) { return Game::hash_from_scratch(s.t(), &s.st); })
        .def(
            "check",
            [](const CoreState &s) -> py::object {
                const char *why = Game::state_check(s.t(), &s.st);
                return why ? py::object(py::str(why)) : py::object(py::none());
            },
            "None when every invariant of the state holds, else what is broken")
        .def(
            "evaluate",
            [](const CoreState &s, int player) {
                return Game::evaluate(s.t(), &s.st, check_player(player));
            },
            py::arg("player").noconvert(),
            "Static evaluation in [-1, 1] for `player` (public information only).")
        .def(
            "evaluate_learned",
            [](const CoreState &s, int player) {
                return Game::evaluate_learned(s.t(), &s.st, check_player(player));
            },
            py::arg("player").noconvert(),
            "The learned evaluation in [-1, 1] for `player` (the hand-set one "
            "while the tables have no weights).")
        .def(
            "features",
            [](const CoreState &s, int player) {
                std::array<double, XEN_MAX_FEATURES> x;
                int n = Game::features(s.t(), &s.st, check_player(player), x.data());
                return std::vector<double>(x.begin(), x.begin() + n);
            },
            py::arg("player").noconvert(),
            "The learned evaluation's features for `player` (Tables.feature_names).")
        .def(
            "information_set_key",
            [](const CoreState &s, int player) {
                return Game::information_set_key(s.t(), &s.st, check_player(player));
            },
            py::arg("player").noconvert())
        .def(
            "information_set_key_from_scratch",
            [](const CoreState &s, int player) {
                return Game::information_set_key_from_scratch(s.t(), &s.st, check_player(player));
            },
            py::arg("player").noconvert(),
            "information_set_key recomputed over every card id (the incremental "
            "one reads the hidden sums apply keeps).")
        .def(
            "observed_by",
            [](const CoreState &s, int code, int seat) {
                if (!s.is_legal(code)) throw py::value_error("not a legal code here");
                return Game::observed_by(s.t(), &s.st, static_cast<XenCode>(code),
                                         check_player(seat)) != 0;
            },
            py::arg("code").noconvert(), py::arg("seat").noconvert(),
            "True if `seat` is shown which action or outcome `code` is (spec: What each player sees)")
        .def(
            "resample",
            [](const CoreState &s, int player, uint64_t seed) {
                check_player(player);
                XenRng rng;
                xen_rng_seed(&rng, seed);
                CoreState out{s.tables, s.st, {}};
                Game::resample(s.t(), &out.st, player, &rng);
                return out;
            },
            py::arg("player").noconvert(), py::arg("seed").noconvert())
        .def(
            "sample_chance",
            [](const CoreState &s, uint64_t seed) {
                if (!s.is_chance()) throw py::value_error("not a chance node");
                XenRng rng;
                xen_rng_seed(&rng, seed);
                return static_cast<int>(Game::sample_chance(s.t(), &s.st, &rng));
            },
            py::arg("seed").noconvert())
        .def(
            "random_decision",
            [](const CoreState &s, uint64_t seed) {
                if (s.is_chance() || Game::is_terminal(&s.st))
                    throw py::value_error("not a decision node");
                XenRng rng;
                xen_rng_seed(&rng, seed);
                return static_cast<int>(Game::random_decision(s.t(), &s.st, &rng));
            },
            py::arg("seed").noconvert(),
            "legal_actions()[i] for i drawn below their number by the core's generator from "
            "`seed`, without listing them (the random walks' and uniform playouts' pick)")
        .def(
            "playout_action",
            [](const CoreState &s, uint64_t seed) {
                if (s.is_chance() || Game::is_terminal(&s.st))
                    throw py::value_error("not a decision node");
                XenRng rng;
                xen_rng_seed(&rng, seed);
                return static_cast<int>(Game::playout_action(s.t(), &s.st, &rng));
            },
            py::arg("seed").noconvert(),
            "the playout policy's code, drawn by the core's generator from `seed`")
        .def("to_bytes",
             [](const CoreState &s) {
                 return py::bytes(reinterpret_cast<const char *>(&s.st), sizeof(State));
             })
        .def_static("from_bytes", &CoreState::from_bytes, py::arg("tables"), py::arg("data"))
        .def_static(
            "rehashed", &CoreState::rehashed, py::arg("tables"), py::arg("data"),
            "data (a state's bytes) with its hash and hidden sums recomputed from the other bytes "
            "(for fuzzing)")
        .def_static("state_size", []() { return sizeof(State); })
        // The speed loops: C calls on a copy of the state, the GIL released.
        .def(
            "perft",
            [](const CoreState &s, int depth) {
                State copy = s.st;
                py::gil_scoped_release release;
                return Game::perft(s.t(), &copy, depth);
            },
            py::arg("depth").noconvert())
        .def(
            "random_actions",
            [](const CoreState &s, uint64_t n, uint64_t seed) {
                py::gil_scoped_release release;
                return Game::random_actions(s.t(), &s.st, n, seed);
            },
            py::arg("n").noconvert(), py::arg("seed").noconvert(),
            "Apply n random codes from this state (a copy), restarting here when a game ends")
        .def(
            "random_actions_unkeyed",
            [](const CoreState &s, uint64_t n, uint64_t seed) {
                py::gil_scoped_release release;
                return Game::random_actions_unkeyed(s.t(), &s.st, n, seed);
            },
            py::arg("n").noconvert(), py::arg("seed").noconvert(),
            "random_actions applied without keeping the hash and keys, as playouts apply")
        .def(
            "apply_undo_pairs",
            [](const CoreState &s, uint64_t n, uint64_t seed) {
                py::gil_scoped_release release;
                return Game::apply_undo_pairs(s.t(), &s.st, n, seed);
            },
            py::arg("n").noconvert(), py::arg("seed").noconvert())
        .def(
            "__eq__",
            [](const CoreState &a, const CoreState &b) {
                return a.tables == b.tables && std::memcmp(&a.st, &b.st, sizeof(State)) == 0;
            },
            py::is_operator())  // another type: NotImplemented, so `state == None` is False
        .def("__hash__",
             [](const CoreState &s) { return static_cast<py::ssize_t>(s.st.hash >> 1); });
    bind_state_tensors<Game>(cls);
}

// The sparse-input network (network.h) of a game with Game::has_network: its
// raw inputs' names, a copy of the tables holding a network, and a state's
// raw inputs and value under it.
// The names of `zones` zones of one input per card id (zone z, card c:
// z * n_cards + c), "zone:card", appended to `names`.
template <class Tables>
void card_zone_names(const Tables &tables, int zones, const char *const *zone_names,
                     std::vector<std::string> &names) {
    for (int z = 0; z < zones; z++)
        for (int c = 0; c < tables.t->n_cards; c++)
            names.push_back(std::string(zone_names[z]) + ":" + tables.card_names[c]);
}

template <class Game>
std::vector<std::string> net_input_names(const typename Game::PyTables &tables) {
    return Game::net_input_names(tables);
}

// Checks a flat row-major matrix of rows x cols finite numbers.
inline void check_matrix(const std::vector<double> &values, size_t rows, size_t cols,
                         const std::string &what) {
    if (values.size() != rows * cols)
        throw py::value_error(what + " has " + std::to_string(values.size()) + " numbers, not " +
                              std::to_string(rows) + " x " + std::to_string(cols));
    check_finite(values, what);
}

// The SIMD path named (network_int.h), "auto" the fastest this machine runs.
inline int network_path(const std::string &name) {
    if (name == "auto") return xen_net_best_path();
    for (int path = 0; path < XEN_NET_PATHS; path++)
        if (name == xen_net_path_names[path]) {
            if (!xen_net_path_runs(path))
                throw py::value_error("this machine cannot run the network's " + name + " path");
            return path;
        }
    throw py::value_error("no network path '" + name + "' (auto, portable, avx2 or avx512)");
}

template <class Game>
void set_network(typename Game::PyTables &tables, int hidden, int taper_turns,
                 const std::vector<double> &opening, const std::vector<double> &ending,
                 const std::vector<double> &bias, const std::vector<double> &phase,
                 const std::vector<double> &output, const std::vector<double> &w_own,
                 const std::vector<double> &w_enemy, const std::vector<double> &w_feature,
                 const std::vector<double> &policy, const std::vector<double> &policy_bias,
                 const std::string &path) {
    int simd = network_path(path);
    size_t n_in = net_input_names<Game>(tables).size(), n_f = feature_names<Game>(tables).size();
    if (hidden < 1 || hidden > XEN_NET_MAX_HIDDEN)
        throw py::value_error("a network has 1 to " + std::to_string(XEN_NET_MAX_HIDDEN) +
                              " hidden units, not " + std::to_string(hidden));
    if (taper_turns < 1) throw py::value_error("taper_turns must be at least 1");
    size_t h = static_cast<size_t>(hidden);
    check_matrix(opening, n_f, 1, "opening");
    check_matrix(ending, n_f, 1, "ending");
    check_matrix(bias, h, 1, "bias");
    check_matrix(phase, h, 1, "phase");
    check_matrix(output, h, 1, "output");
    check_matrix(w_own, n_in, h, "w_own");
    check_matrix(w_enemy, n_in, h, "w_enemy");
    check_matrix(w_feature, n_f, h, "w_feature");
    // the policy head: none (no priors from it), or 1 to XEN_NET_MAX_BUCKETS rows
    size_t buckets = policy_bias.size();
    if (buckets > XEN_NET_MAX_BUCKETS)
        throw py::value_error("a network's policy head has at most " +
                              std::to_string(XEN_NET_MAX_BUCKETS) + " buckets, not " +
                              std::to_string(buckets));
    check_matrix(policy, buckets, h, "policy");
    check_finite(policy_bias, "policy_bias");
    XenNetwork &n = tables.t->network;
    n = XenNetwork();
    n.n_hidden = hidden;
    n.n_inputs = static_cast<int>(n_in);
    n.n_features = static_cast<int>(n_f);
    n.taper_turns = taper_turns;
    std::copy(opening.begin(), opening.end(), n.opening);
    std::copy(ending.begin(), ending.end(), n.ending);
    std::copy(bias.begin(), bias.end(), n.bias);
    std::copy(phase.begin(), phase.end(), n.phase);
    std::copy(output.begin(), output.end(), n.output);
    for (size_t i = 0; i < n_in; i++)
        for (size_t j = 0; j < h; j++) {
            n.side[i * 2 * h + j] = static_cast<float>(w_own[i * h + j]);
            n.side[i * 2 * h + h + j] = static_cast<float>(w_enemy[i * h + j]);
        }
    for (size_t k = 0; k < n_f; k++)
        for (size_t j = 0; j < h; j++)
            n.feature[k * h + j] = static_cast<float>(w_feature[k * h + j]);
    n.n_buckets = static_cast<int>(buckets);
    std::copy(policy_bias.begin(), policy_bias.end(), n.policy_bias);
    for (size_t i = 0; i < buckets * h; i++) n.policy[i] = static_cast<float>(policy[i]);
    xen_net_quantise(&n, simd);
}

template <class Game>
void bind_network(
    py::class_<typename Game::PyTables, std::shared_ptr<typename Game::PyTables>> &tables_cls,
    py::class_<CoreStateT<Game>> &state_cls) {
    using Tables = typename Game::PyTables;
    using CoreState = CoreStateT<Game>;
    tables_cls
        .def_property_readonly("net_input_names", &net_input_names<Game>,
                               "The raw inputs of one side for the network, in order (network.h).")
        .def(
            "with_network",
            [](const Tables &tables, int hidden, int taper_turns,
               const std::vector<double> &opening, const std::vector<double> &ending,
               const std::vector<double> &bias, const std::vector<double> &phase,
               const std::vector<double> &output, const std::vector<double> &w_own,
               const std::vector<double> &w_enemy, const std::vector<double> &w_feature,
               const std::vector<double> &policy, const std::vector<double> &policy_bias,
               const std::string &path) {
                auto copy = std::make_shared<Tables>(tables);
                set_network<Game>(*copy, hidden, taper_turns, opening, ending, bias, phase, output,
                                  w_own, w_enemy, w_feature, policy, policy_bias, path);
                return copy;
            },
            py::arg("hidden").noconvert(), py::arg("taper_turns").noconvert(), py::arg("opening"),
            py::arg("ending"), py::arg("bias"), py::arg("phase"), py::arg("output"),
            py::arg("w_own"), py::arg("w_enemy"), py::arg("w_feature"),
            py::arg("policy") = std::vector<double>(),
            py::arg("policy_bias") = std::vector<double>(), py::arg("path") = "auto",
            "A copy of these tables holding a network (matrices flat, row-major: one row per "
            "input, feature or policy bucket, one column per hidden unit; no policy head: "
            "no policy logits), its value on the SIMD `path` (auto: the fastest here).")
        .def_property_readonly(
            "network_path",
            [](const Tables &tables) -> py::object {
                const XenNetwork &n = tables.t->network;
                if (n.n_hidden == 0) return py::none();
                return py::str(xen_net_path_names[n.path]);
            },
            "The SIMD path the network's value runs (network_int.h), or None without one.");
    state_cls
        .def(
            "net_inputs",
            [](const CoreState &s, int player) {
                std::array<double, XEN_NET_MAX_INPUTS> x;
                int n = Game::net_inputs(s.t(), &s.st, check_player(player), x.data());
                return std::vector<double>(x.begin(), x.begin() + n);
            },
            py::arg("player").noconvert(),
            "Seat `player`'s side of this world as the network's raw inputs.")
        .def(
            "evaluate_net",
            [](const CoreState &s, int player) {
                return Game::evaluate_net(s.t(), &s.st, check_player(player));
            },
            py::arg("player").noconvert(),
            "The network's value in [-1, 1] for `player` (the hand-set one while the tables "
            "hold no network).")
        .def(
            "policy_logits",
            [](const CoreState &s, const std::vector<int> &codes) -> py::object {
                if (codes.size() > XEN_MAX_ACTIONS)
                    throw py::value_error("at most " + std::to_string(XEN_MAX_ACTIONS) + " codes");
                std::vector<XenCode> c;
                for (int code : codes) {
                    if (code < 0 || code > 0xFFFF) throw py::value_error("not a move code");
                    c.push_back(static_cast<XenCode>(code));
                }
                std::vector<double> out(c.size());
                if (!Game::policy_logits(s.t(), &s.st, static_cast<int>(c.size()), c.data(),
                                         out.data()))
                    return py::none();
                return py::cast(out);
            },
            py::arg("codes").noconvert(),
            "The network policy head's logit of each move code for the player to move "
            "(network.h), or None while the tables hold no network or nobody decides here.");
}

}  // namespace xen

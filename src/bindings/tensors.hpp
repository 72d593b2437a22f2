// The tensors of both games in Python (docs/tensors.md): each state's
// information-state and observation tensors as numpy arrays the C core writes
// into (a new array, or one the caller passes: no copy), the layout of the
// tables, and Batch: N games stepped in one call with their tensors written
// into one buffer. Templates over a game's traits, as backend.hpp.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "arguments.hpp"
#include "game_api.h"
#include "rng.h"
#include "tensor.h"

namespace xen {

namespace py = pybind11;

enum TensorKind { INFORMATION_STATE = 0, OBSERVATION = 1 };

inline TensorKind tensor_kind(const std::string &name) {
    if (name == "information_state") return INFORMATION_STATE;
    if (name == "observation") return OBSERVATION;
    throw py::value_error("unknown tensor '" + name + "' (information_state or observation)");
}

// Writes seat `player`'s tensor of the kind into out (nullptr: counts); its size.
template <class Game>
int write_tensor(const typename Game::CTables *t, const typename Game::State *st, int player,
                 TensorKind kind, float *out) {
    return kind == OBSERVATION ? Game::observation_tensor(t, st, player, out)
                               : Game::information_state_tensor(t, st, player, out);
}

// The floats of a tensor of the tables (counted once, on the initial state).
template <class Game> int tensor_size(const typename Game::PyTables &tables, TensorKind kind) {
    int &size = tables.tensor_sizes[kind];
    if (size < 0) {
        typename Game::State st;
        Game::initial_state(tables.t.get(), &st);
        size = write_tensor<Game>(tables.t.get(), &st, 0, kind, nullptr);
    }
    return size;
}

// `out` as a writable C-contiguous float32 array of `size` floats, or a new one when None.
inline py::array_t<float> tensor_buffer(const py::object &out, int size) {
    if (out.is_none()) return py::array_t<float>(size);
    if (!py::isinstance<py::array_t<float, py::array::c_style>>(out))
        throw py::value_error("out must be a C-contiguous numpy array of float32");
    auto array = out.cast<py::array_t<float, py::array::c_style>>();
    if (array.size() != size)
        throw py::value_error("out must hold " + std::to_string(size) + " floats, not " +
                              std::to_string(array.size()));
    if (!array.writeable()) throw py::value_error("out is read-only");
    return array;
}

// CoreState.information_state_tensor / observation_tensor.
template <class Game, class Cls> void bind_state_tensors(Cls &cls) {
    using CoreState = typename Cls::type;
    for (TensorKind kind : {INFORMATION_STATE, OBSERVATION}) {
        const char *name = kind == OBSERVATION ? "observation_tensor" : "information_state_tensor";
        cls.def(
            name,
            [kind](const CoreState &s, int player, const py::object &out) {
                if (player != 0 && player != 1) throw py::value_error("player must be 0 or 1");
                auto array = tensor_buffer(out, tensor_size<Game>(*s.tables, kind));
                write_tensor<Game>(s.t(), &s.st, player, kind, array.mutable_data());
                return array;
            },
            py::arg("player").noconvert(), py::arg("out") = py::none(),
            "`player`'s tensor (docs/tensors.md) as float32, written by the C core into `out` "
            "when given (no copy) or into a new array");
    }
}

// Tables.tensor_layout and the two sizes.
template <class Game, class Cls> void bind_tables_tensors(Cls &cls) {
    using Tables = typename Game::PyTables;
    cls.def_property_readonly(
           "tensor_layout",
           [](const Tables &tables) {
               std::array<XenTensorBlock, XEN_MAX_TENSOR_BLOCKS> blocks;
               int n = Game::tensor_layout(tables.t.get(), blocks.data());
               py::list out;
               for (int i = 0; i < n && i < XEN_MAX_TENSOR_BLOCKS; i++)
                   out.append(py::make_tuple(blocks[i].name, blocks[i].offset, blocks[i].size,
                                             blocks[i].remembered != 0));
               return out;
           },
           "The information-state tensor's blocks: (name, offset, size, remembered); the "
           "observation tensor is the blocks that are not remembered, in the same order")
        .def(
            "tensor_size",
            [](const Tables &tables, const std::string &kind) {
                return tensor_size<Game>(tables, tensor_kind(kind));
            },
            py::arg("kind"), "The floats of a tensor (information_state or observation)");
}

// N games stepped together (docs/tensors.md, "Batches"). Each game rests at a
// decision: after the decisions of step(), chance is drawn with the game's
// own generator, and a game that ends is started again (its returns are in
// `rewards` and `dones` for that step). The arrays are numpy arrays the C
// loop writes into; they are overwritten by every step.
template <class Game> struct BatchT {
    using xen_bound_class = void;
    using State = typename Game::State;
    using Tables = typename Game::PyTables;
    using TablesPtr = std::shared_ptr<Tables>;

    TablesPtr tables;
    TensorKind kind;
    std::vector<State> states;
    std::vector<XenRng> rngs;
    std::vector<XenTensorMarks> marks;  // per game: what its row's spans set (tensor.h)
    std::vector<XenCode> codes;         // [n, XEN_MAX_ACTIONS]: the legal codes, our own copy
    std::vector<int> n_codes;           // [n]: how many
    py::array_t<float> tensors;         // [n, size]: the tensor of the player to move
    py::array_t<int32_t> players;       // [n]
    py::array_t<float> rewards;         // [n, 2]
    py::array_t<uint8_t> dones;         // [n]
    py::array_t<int32_t> legal;         // [n, XEN_MAX_ACTIONS]: legal codes, ascending
    py::array_t<int32_t> n_legal;       // [n]
    int size;
    int threads;

    // About 20 KB a game (a row of each array, the state, its codes): at most
    // 1.3 GB, where any int went on to ask for more memory than a machine has.
    static constexpr int max_games = 1 << 16;

    BatchT(Tables &tables_, int n, uint64_t seed, const std::string &kind_name, int threads_)
        : tables(tables_.shared_from_this()), kind(tensor_kind(kind_name)), threads(threads_) {
        if (n < 1 || n > max_games)
            throw py::value_error("a batch holds 1 to " + std::to_string(max_games) +
                                  " games, not " + std::to_string(n));
        if (threads < 1 || threads > 64) throw py::value_error("threads must be 1 to 64");
        size = tensor_size<Game>(*tables, kind);
        states.resize(n);
        rngs.resize(n);
        marks.assign(n, XenTensorMarks{});  // invalid: each row's first write zeroes it whole
        codes.resize(static_cast<size_t>(n) * XEN_MAX_ACTIONS);
        n_codes.resize(n);
        tensors = py::array_t<float>({n, size});
        players = py::array_t<int32_t>(n);
        rewards = py::array_t<float>({n, 2});
        dones = py::array_t<uint8_t>(n);
        legal = py::array_t<int32_t>({n, static_cast<int>(XEN_MAX_ACTIONS)});
        n_legal = py::array_t<int32_t>(n);
        for (int i = 0; i < n; i++) xen_rng_seed(&rngs[i], seed + static_cast<uint64_t>(i));
        ptrs = pointers();
        {
            py::gil_scoped_release release;
            for (int i = 0; i < n; i++) {
                ptrs.rewards[2 * i] = ptrs.rewards[2 * i + 1] = 0.0f;
                ptrs.dones[i] = 0;
                restart(i);
                report(i, ptrs);
            }
        }
        // read-only to Python: the rows' spans are not zeroed again (tensor.h,
        // "Marks"), so a row the caller changed would spoil the next tensors
        for (py::array *array :
             {static_cast<py::array *>(&tensors), static_cast<py::array *>(&players),
              static_cast<py::array *>(&rewards), static_cast<py::array *>(&dones),
              static_cast<py::array *>(&legal), static_cast<py::array *>(&n_legal)})
            array->attr("flags").attr("writeable") = false;
    }

    struct Pointers {
        float *tensors, *rewards;
        int32_t *players, *legal, *n_legal;
        uint8_t *dones;
    };
    Pointers ptrs;  // the arrays' data, taken while they were writeable

    Pointers pointers() {
        return {tensors.mutable_data(), rewards.mutable_data(), players.mutable_data(),
                legal.mutable_data(),   n_legal.mutable_data(), dones.mutable_data()};
    }

    const typename Game::CTables *t() const { return tables->t.get(); }

    // Draws chance until a decision or the end.
    void settle(int i) {
        State *st = &states[i];
        while (!Game::is_terminal(st) && Game::is_chance(st))
            Game::apply(t(), st, Game::sample_chance(t(), st, &rngs[i]), nullptr);
    }

    void restart(int i) {
        Game::initial_state(t(), &states[i]);
        settle(i);
    }

    // The arrays' row i from game i.
    void report(int i, const Pointers &p) {
        const State *st = &states[i];
        int player = Game::current_player(st);
        p.players[i] = player;
        xen_tensor_marks_now = &marks[i];
        write_tensor<Game>(t(), st, player, kind, p.tensors + static_cast<size_t>(i) * size);
        xen_tensor_marks_now = nullptr;
        XenCode *legal_codes = &codes[static_cast<size_t>(i) * XEN_MAX_ACTIONS];
        int n = Game::legal_actions(t(), st, legal_codes);
        int32_t *row = p.legal + static_cast<size_t>(i) * XEN_MAX_ACTIONS;
        for (int k = 0; k < n; k++) row[k] = legal_codes[k];
        p.n_legal[i] = n_codes[i] = n;
    }

    // Whether `code` is legal in game i: one of the codes its report listed
    // (ascending), not the numpy array, which the caller may have changed.
    bool listed(int i, int64_t code) const {
        const XenCode *first = &codes[static_cast<size_t>(i) * XEN_MAX_ACTIONS];
        const XenCode *last = first + n_codes[i];
        return code >= 0 && code <= 0xFFFF &&
               std::binary_search(first, last, static_cast<XenCode>(code));
    }

    // `actions`: an array (or sequence) of integers, one per game.
    void step(const py::object &actions) {
        py::array given = integer_array(actions, "action codes");
        int n = static_cast<int>(states.size());
        if (given.ndim() != 1 || given.shape(0) != n)
            throw py::value_error("step takes one action code per game (" + std::to_string(n) +
                                  ")");
        // an unsigned code past the int64 range turns negative here: illegal as well
        auto codes_in = py::array_t<int64_t, py::array::forcecast>::ensure(given);
        // checked and copied here: the caller's array may change once the GIL is released
        std::vector<XenCode> chosen(n);
        for (int i = 0; i < n; i++) {
            if (!listed(i, codes_in.at(i)))
                throw py::value_error("game " + std::to_string(i) + ": illegal action code " +
                                      py::str(given.attr("item")(i)).cast<std::string>());
            chosen[i] = static_cast<XenCode>(codes_in.at(i));
        }
        const XenCode *a = chosen.data();
        const Pointers p = ptrs;
        py::gil_scoped_release release;
        // games [k n / m, (k + 1) n / m) on thread k of m: each game is its own
        int m = threads < n ? threads : n;
        std::vector<std::thread> helpers;
        for (int k = 1; k < m; k++)
            helpers.emplace_back(
                [this, a, p, k, n, m] { step_games(a, p, k * n / m, (k + 1) * n / m); });
        step_games(a, p, 0, n / m);
        for (auto &helper : helpers) helper.join();
    }

    void step_games(const XenCode *a, const Pointers &p, int begin, int end) {
        for (int i = begin; i < end; i++) {
            State *st = &states[i];
            Game::apply(t(), st, a[i], nullptr);
            settle(i);
            p.rewards[2 * i] = p.rewards[2 * i + 1] = 0.0f;
            p.dones[i] = Game::is_terminal(st) != 0;
            if (p.dones[i]) {
                int r[2];
                Game::returns(st, r);
                p.rewards[2 * i] = static_cast<float>(r[0]);
                p.rewards[2 * i + 1] = static_cast<float>(r[1]);
                restart(i);
            }
            report(i, p);
        }
    }
};

template <class Game> void bind_batch(py::module_ &m) {
    using Batch = BatchT<Game>;
    py::class_<Batch> cls(m, "Batch",
                          "N games stepped in one call (docs/tensors.md): after each step, "
                          "tensors[i] is the tensor of players[i], the player to move in game i");
    cls.attr("max_games") = py::int_(Batch::max_games);
    cls.def(py::init<typename Batch::Tables &, int, uint64_t, const std::string &, int>(),
            py::arg("tables"), py::arg("n").noconvert(), py::arg("seed").noconvert(),
            py::arg("tensor") = "observation", py::arg("threads").noconvert() = 1,
            "n games (1 to Batch.max_games) seeded seed, seed + 1, ...; step() splits them "
            "over `threads` threads")
        .def("step", &Batch::step, py::arg("actions"),
             "Plays actions[i] in game i, draws chance, restarts the games that ended")
        .def_readonly("tensors", &Batch::tensors)
        .def_readonly("players", &Batch::players)
        .def_readonly("rewards", &Batch::rewards)
        .def_readonly("dones", &Batch::dones)
        .def_readonly("legal", &Batch::legal)
        .def_readonly("n_legal", &Batch::n_legal)
        .def(
            "state_bytes",
            [](const Batch &b, int i) {
                if (i < 0 || i >= static_cast<int>(b.states.size()))
                    throw py::index_error("no game " + std::to_string(i));
                return py::bytes(reinterpret_cast<const char *>(&b.states[i]),
                                 sizeof(typename Game::State));
            },
            py::arg("i").noconvert(), "Game i's state as bytes (CoreState.from_bytes reads them)");
}

}  // namespace xen

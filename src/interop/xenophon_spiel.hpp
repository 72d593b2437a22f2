// xenophon_spiel.hpp - the native OpenSpiel game over a xenophon C core,
// written once as templates over a game's `Core` struct: the game's own file
// (src/engine_c/GAME/openspiel.cc) declares that struct (its tables and state
// types, OpenSpiel name, chance bound and the core functions of
// core_functions.h) and registers it with XEN_SPIEL_GAME(Core).
//
// Built by xenophon.interop.native (g++ -std=c++20 -shared, against the
// headers shipped in the open-spiel wheel, with src/engine_c/*/*.c compiled in)
// and loaded with RTLD_GLOBAL after pyspiel, so that REGISTER_SPIEL_GAME adds
// each game as "xenophon_GAME" to pyspiel's registry.
//
// Tables: the card tables are built by xenophon in Python (TOML loading,
// validation) and handed over as the game parameter "tables", the address of
// the tables of a live xenophon Game, written in hex as 0x...
// (`Game.tables.capsule()`'s pointer; the prefix keeps OpenSpiel's parser from
// reading it as an int when a game string is parsed back). The Python side keeps
// that Game alive for as long as the OpenSpiel game is used.
//
// States: the C core's POD state; Clone is a struct copy. Action ids are the
// core's 16-bit codes (decisions and chance outcomes alike). The information
// state string of a player is the core's 64-bit information-set key in 11
// printable characters (short enough for std::string's inline buffer).
// Serialize / DeserializeState use the state's bytes in hex, the same bytes
// as xenophon's State.to_bytes(). ResampleFromInfostate calls the core's
// resample, seeded from the rng OpenSpiel passes in. The information-state
// and observation tensors are the core's (docs/tensors.md), written straight
// into the span OpenSpiel passes; their sizes are counted once per game.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "open_spiel/spiel.h"
#include "open_spiel/spiel_utils.h"

#include "codes.h"
#include "core_functions.h"
#include "rng.h"

namespace xenophon_spiel {

using open_spiel::Action;
using open_spiel::ActionsAndProbs;
using open_spiel::GameParameter;
using open_spiel::GameParameters;
using open_spiel::GameRegisterer;
using open_spiel::GameType;
using open_spiel::Player;

// Clones made so far by every game of the library (the memory benchmark counts
// OpenSpiel's tree nodes by them: its ISMCTS with one random rollout clones
// once per node it creates). Defined in xenophon_spiel.cc.
extern std::atomic<long long> clones;

// The state size each registered game was compiled with, by OpenSpiel name,
// for the loader's check (xenophon_spiel_state_size). Defined in xenophon_spiel.cc.
void register_state_size(const char *name, size_t size);

constexpr int kMaxActions = 1024;  // XEN_MAX_ACTIONS: every core's bound
static_assert(XEN_MAX_ACTIONS <= kMaxActions);

template <class Core> GameType MakeGameType() {
    return GameType{Core::kName,
                    Core::kLongName,
                    GameType::Dynamics::kSequential,
                    GameType::ChanceMode::kExplicitStochastic,
                    GameType::Information::kImperfectInformation,
                    GameType::Utility::kZeroSum,
                    GameType::RewardModel::kTerminal,
                    /*max_num_players=*/2,
                    /*min_num_players=*/2,
                    /*provides_information_state_string=*/true,
                    /*provides_information_state_tensor=*/true,
                    /*provides_observation_string=*/true,
                    /*provides_observation_tensor=*/true,
                    /*parameter_specification=*/{{"tables", GameParameter(std::string())}},
                    /*default_loadable=*/false};
}

template <class Core> class Game;

template <class Core> class State : public open_spiel::State {
  public:
    using CoreState = typename Core::CoreState;

    State(std::shared_ptr<const open_spiel::Game> game, const typename Core::Tables *tables)
        : open_spiel::State(std::move(game)), tables_(tables) {
        std::memset(&s_, 0, sizeof s_);
    }

    Player CurrentPlayer() const override { return Core::current_player(&s_); }

    std::vector<Action> LegalActions() const override {
        uint16_t codes[kMaxActions];
        int n = Core::legal_actions(tables_, &s_, codes);
        return std::vector<Action>(codes, codes + n);
    }

    ActionsAndProbs ChanceOutcomes() const override {
        uint16_t codes[Core::kMaxOutcomes];
        uint32_t weights[Core::kMaxOutcomes], total = 0;
        int n = Core::chance_outcomes(tables_, &s_, codes, weights, &total);
        ActionsAndProbs out;
        out.reserve(n);
        for (int i = 0; i < n; i++) out.emplace_back(codes[i], double(weights[i]) / double(total));
        return out;
    }

    std::string ActionToString(Player player, Action action) const override {
        // kind:x:y of the 16-bit code; xenophon's notation lives in Python
        return std::to_string(XEN_KIND(action)) + ":" + std::to_string(XEN_X(action)) + ":" +
               std::to_string(XEN_Y(action));
    }

    std::string ToString() const override { return Serialize(); }

    bool IsTerminal() const override { return CurrentPlayer() == open_spiel::kTerminalPlayerId; }

    std::vector<double> Returns() const override {
        int r[2];
        Core::returns(&s_, r);
        return {double(r[0]), double(r[1])};
    }

    std::string InformationStateString(Player player) const override {
        static const char digits[] =
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/";
        uint64_t key = Core::information_set_key(tables_, &s_, player);
        std::string out(11, '0');
        for (int i = 10; i >= 0; i--, key >>= 6) out[i] = digits[key & 63];
        return out;
    }

    std::string ObservationString(Player player) const override {
        return InformationStateString(player);
    }

    void InformationStateTensor(Player player, absl::Span<float> values) const override {
        CheckTensor(player, values, game_->InformationStateTensorSize());
        Core::information_state_tensor(tables_, &s_, player, values.data());
    }

    void ObservationTensor(Player player, absl::Span<float> values) const override {
        CheckTensor(player, values, game_->ObservationTensorSize());
        Core::observation_tensor(tables_, &s_, player, values.data());
    }

    std::unique_ptr<open_spiel::State> Clone() const override {
        clones.fetch_add(1, std::memory_order_relaxed);
        return std::make_unique<State>(*this);
    }

    // A world `player` cannot tell from this one; it has no recorded history.
    std::unique_ptr<open_spiel::State>
    ResampleFromInfostate(int player, std::function<double()> rng) const override {
        auto out = std::make_unique<State>(game_, tables_);
        out->s_ = s_;
        XenRng xen;
        xen_rng_seed(&xen, uint64_t(rng() * 9007199254740992.0));
        Core::resample(tables_, &out->s_, player, &xen);
        return out;
    }

    std::string Serialize() const override {
        static const char hex[] = "0123456789abcdef";
        const auto *bytes = reinterpret_cast<const unsigned char *>(&s_);
        std::string out(2 * sizeof s_, '0');
        for (size_t i = 0; i < sizeof s_; i++) {
            out[2 * i] = hex[bytes[i] >> 4];
            out[2 * i + 1] = hex[bytes[i] & 15];
        }
        return out;
    }

    bool SetFromHex(const std::string &text) {
        if (text.size() != 2 * sizeof s_) return false;
        auto *bytes = reinterpret_cast<unsigned char *>(&s_);
        for (size_t i = 0; i < sizeof s_; i++) {
            int hi = HexDigit(text[2 * i]), lo = HexDigit(text[2 * i + 1]);
            if (hi < 0 || lo < 0) return false;
            bytes[i] = uint8_t(hi << 4 | lo);
        }
        return true;
    }

    void SetInitial() { Core::initial_state(tables_, &s_); }

  protected:
    void DoApplyAction(Action action) override {
        Core::apply(tables_, &s_, uint16_t(action), nullptr);
    }

  private:
    static void CheckTensor(Player player, absl::Span<float> values, int size) {
        SPIEL_CHECK_GE(player, 0);
        SPIEL_CHECK_LT(player, 2);
        SPIEL_CHECK_EQ(static_cast<int>(values.size()), size);
    }

    static int HexDigit(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    const typename Core::Tables *tables_;
    CoreState s_;
};

template <class Core> class Game : public open_spiel::Game {
  public:
    explicit Game(const GameParameters &params)
        : open_spiel::Game(MakeGameType<Core>(), params),
          tables_(reinterpret_cast<const typename Core::Tables *>(
              std::stoull(ParameterValue<std::string>("tables", "0"), nullptr, 0))) {
        if (tables_ == nullptr)
            open_spiel::SpielFatalError(
                std::string(Core::kName) +
                " needs the game parameter tables=<0x address of xenophon's "
                "tables>; load it through xenophon.interop.native");
        CoreState s;
        Core::initial_state(tables_, &s);
        information_state_size_ = Core::information_state_tensor(tables_, &s, 0, nullptr);
        observation_size_ = Core::observation_tensor(tables_, &s, 0, nullptr);
    }

    std::vector<int> InformationStateTensorShape() const override {
        return {information_state_size_};
    }
    std::vector<int> ObservationTensorShape() const override { return {observation_size_}; }

    int NumDistinctActions() const override { return 1 << 16; }
    int MaxChanceOutcomes() const override { return 1 << 16; }
    int NumPlayers() const override { return 2; }
    double MinUtility() const override { return -1; }
    double MaxUtility() const override { return 1; }
    absl::optional<double> UtilitySum() const override { return 0; }
    // A bound, not tight: both games end (turn limit, deck-out) well before it.
    int MaxGameLength() const override { return 100000; }

    std::unique_ptr<open_spiel::State> NewInitialState() const override {
        auto state = std::make_unique<State<Core>>(shared_from_this(), tables_);
        state->SetInitial();
        return state;
    }

    std::unique_ptr<open_spiel::State> DeserializeState(const std::string &text) const override {
        auto state = std::make_unique<State<Core>>(shared_from_this(), tables_);
        if (!state->SetFromHex(text))
            open_spiel::SpielFatalError(std::string("not a serialised ") + Core::kName + " state");
        return state;
    }

  private:
    using CoreState = typename Core::CoreState;
    const typename Core::Tables *tables_;
    int information_state_size_ = 0, observation_size_ = 0;  // floats (counted once)
};

template <class Core>
std::shared_ptr<const open_spiel::Game> Factory(const GameParameters &params) {
    return std::shared_ptr<const open_spiel::Game>(new Game<Core>(params));
}

// Registers a game with OpenSpiel and its state size with the loader's check;
// written once at namespace scope of xenophon_spiel in the game's own file.
// The registrars are file-local: OpenSpiel names its registrar by a per-file
// counter, the same in every game's file.
struct StateSizeRegisterer {
    StateSizeRegisterer(const char *name, size_t size) { register_state_size(name, size); }
};

#define XEN_SPIEL_GAME(Core) \
    namespace { \
    REGISTER_SPIEL_GAME(MakeGameType<Core>(), Factory<Core>); \
    StateSizeRegisterer Core##_state_size(Core::kName, sizeof(typename Core::CoreState)); \
    }

}  // namespace xenophon_spiel

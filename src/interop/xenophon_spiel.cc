// xenophon_spiel.cc - what the native OpenSpiel games of xenophon share at
// run time: the clone counter and the loader's entry points. Each game's
// OpenSpiel game is its own file, src/engine_c/GAME/openspiel.cc, over the
// templates of xenophon_spiel.hpp.
#include <map>
#include <string>

#include "xenophon_spiel.hpp"

namespace xenophon_spiel {

std::atomic<long long> clones{0};

// Filled by the games' static registrations, before the loader asks.
static std::map<std::string, size_t> &state_sizes() {
    static std::map<std::string, size_t> sizes;
    return sizes;
}

void register_state_size(const char *name, size_t size) { state_sizes()[name] = size; }

}  // namespace xenophon_spiel

extern "C" {
// For the loader: the state size this library was compiled with for the game of
// that OpenSpiel name (0 for a name it does not register).
size_t xenophon_spiel_state_size(const char *name) {
    const auto &sizes = xenophon_spiel::state_sizes();
    auto found = sizes.find(name);
    return found == sizes.end() ? 0 : found->second;
}
// Clones made so far by the games of this library (see `clones`).
long long xenophon_spiel_clones(void) { return xenophon_spiel::clones.load(); }
}

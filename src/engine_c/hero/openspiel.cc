// openspiel.cc - this game as a native OpenSpiel game ("xenophon_hero") over
// its C core: the core's types, names and functions for the templates of
// src/interop/xenophon_spiel.hpp, and their registration. Compiled only by
// xenophon.interop.native, with OpenSpiel's headers (not part of the extension).
#include "xenophon_spiel.hpp"

#include "hero.h"

namespace xenophon_spiel {

struct HeroCore {
    using Tables = HeroTables;
    using CoreState = HeroState;
    static constexpr const char *kName = "xenophon_hero";
    static constexpr const char *kLongName = "A Hero incarnation (xenophon C core)";
    static constexpr int kMaxOutcomes = HERO_MAX_CARDS;
    XEN_CORE_FUNCTIONS(hero)
};

XEN_SPIEL_GAME(HeroCore)

}  // namespace xenophon_spiel

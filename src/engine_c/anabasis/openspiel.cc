// openspiel.cc - this game as a native OpenSpiel game ("xenophon_anabasis") over
// its C core: the core's types, names and functions for the templates of
// src/interop/xenophon_spiel.hpp, and their registration. Compiled only by
// xenophon.interop.native, with OpenSpiel's headers (not part of the extension).
#include "xenophon_spiel.hpp"

#include "anabasis.h"

namespace xenophon_spiel {

struct AnabasisCore {
    using Tables = AnaTables;
    using CoreState = AnaState;
    static constexpr const char *kName = "xenophon_anabasis";
    static constexpr const char *kLongName = "Anabasis (xenophon C core)";
    static constexpr int kMaxOutcomes = ANA_MAX_OUTCOMES;
    XEN_CORE_FUNCTIONS(ana)
};

XEN_SPIEL_GAME(AnabasisCore)

}  // namespace xenophon_spiel

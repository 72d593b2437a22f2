// The xenophon._core extension: what both cores share (the action-code layout,
// the protocol constants), and one submodule per game, each bound in its own
// file (src/bindings/GAME.cpp), which registers itself with XEN_REGISTER_BINDING.
#include <pybind11/pybind11.h>

#include "codes.h"
#include "learned.h"
#include "network.h"
#include "registration.hpp"

namespace py = pybind11;

namespace xen {

std::vector<Binding> &bindings() {
    static std::vector<Binding> registered;  // filled before main, in link order
    return registered;
}

}  // namespace xen

PYBIND11_MODULE(_core, m) {
    m.doc() = "C rules cores of xenophon (docs/architecture.md; each game's engine doc)";
    m.attr("CODE_KIND_SHIFT") = py::int_(static_cast<int>(XEN_KIND_SHIFT));
    m.attr("CODE_FIELD_BITS") = py::int_(static_cast<int>(XEN_FIELD_BITS));
    m.attr("CHANCE") = py::int_(static_cast<int>(XEN_CHANCE));
    m.attr("TERMINAL") = py::int_(static_cast<int>(XEN_TERMINAL));
    m.attr("MAX_ACTIONS") = py::int_(static_cast<int>(XEN_MAX_ACTIONS));
    m.attr("MAX_HIDDEN_UNITS") = py::int_(static_cast<int>(XEN_MAX_HIDDEN));
    m.attr("MAX_NETWORK_HIDDEN") = py::int_(static_cast<int>(XEN_NET_MAX_HIDDEN));
    m.attr("MAX_NETWORK_BUCKETS") = py::int_(static_cast<int>(XEN_NET_MAX_BUCKETS));
    m.attr("NETWORK_PATH") = py::str(xen_net_path_names[xen_net_best_path()]);
    for (const auto &binding : xen::bindings()) {
        py::module_ game = m.def_submodule(binding.name, binding.doc);
        binding.bind(game);
    }
}

// How a game's binding file joins xenophon._core: at load time it adds its
// name and bind function to a list module.cpp reads (as OpenSpiel's
// REGISTER_SPIEL_GAME), so the extension's module names no game.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

namespace xen {

struct Binding {
    const char *name;  // the submodule: xenophon._core.NAME
    const char *doc;
    void (*bind)(pybind11::module_ &m);
};

// The registered bindings (a function-local static: filled safely from any
// translation unit's static initialisation).
std::vector<Binding> &bindings();

struct RegisterBinding {
    RegisterBinding(const char *name, const char *doc, void (*bind)(pybind11::module_ &m)) {
        bindings().push_back({name, doc, bind});
    }
};

}  // namespace xen

#define XEN_REGISTER_BINDING(name, doc, bind) \
    static const ::xen::RegisterBinding xen_binding_##bind(name, doc, bind)

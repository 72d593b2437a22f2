// The xenophon._core extension: one submodule per game, each bound in its own file.
#include <pybind11/pybind11.h>

namespace py = pybind11;

void bind_anabasis(py::module_ &m);
void bind_hero(py::module_ &m);

PYBIND11_MODULE(_core, m) {
    m.doc() = "C rules cores of xenophon (see docs/anabasis-engine.md, docs/hero-engine.md)";
    py::module_ anabasis = m.def_submodule("anabasis", "Anabasis C core");
    bind_anabasis(anabasis);
    py::module_ hero = m.def_submodule("hero", "A Hero incarnation C core");
    bind_hero(hero);
}

"""Build of xenophon: the C rules core, its pybind11 bindings and the Cython search.

The C core (src/engine_c) is compiled once into a static library that both the
pybind11 module (xenophon._core) and the Cython search modules link against,
so the rules exist in exactly one compiled copy per extension and never twice
in source.
"""
from __future__ import annotations

import glob
import os

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup

ENGINE_DIR = "src/engine_c"
C_FLAGS = ["-O3", "-std=c11", "-fPIC", "-Wall", "-Wextra", "-Wno-unused-parameter"]
if os.environ.get("XENOPHON_DEBUG"):
    # Debug builds check the incremental hash and state invariants after every undo.
    C_FLAGS = ["-O1", "-g", "-std=c11", "-fPIC", "-Wall", "-Wextra", "-DXENOPHON_DEBUG"]

engine_sources = sorted(glob.glob(f"{ENGINE_DIR}/*.c"))
engine_library = ("xenophon_engine", {"sources": engine_sources, "cflags": C_FLAGS,
                                       "include_dirs": [ENGINE_DIR]})

core_extension = Pybind11Extension(
    "xenophon._core",
    sources=sorted(glob.glob("src/bindings/*.cpp")),
    include_dirs=[ENGINE_DIR],
    cxx_std=17,
    extra_compile_args=["-O3"],
    depends=["src/bindings/backend.hpp"] + sorted(glob.glob(f"{ENGINE_DIR}/*.h")),
)

ext_modules = [core_extension]


def search_extensions():
    """The Cython search modules, if any exist yet."""
    pyx_files = sorted(glob.glob("src/search/*.pyx"))
    if not pyx_files:
        return []
    from Cython.Build import cythonize
    from setuptools import Extension

    extensions = [
        Extension(
            "xenophon.search." + os.path.splitext(os.path.basename(path))[0],
            sources=[path],
            include_dirs=[ENGINE_DIR, "src/search"],
            extra_compile_args=["-O3"],
        )
        for path in pyx_files
    ]
    return cythonize(extensions, language_level=3, include_path=[ENGINE_DIR],
                     compiler_directives={"boundscheck": False, "wraparound": False})


ext_modules += search_extensions()

setup(
    packages=[
        "xenophon", "xenophon.anabasis", "xenophon.hero", "xenophon.reference",
        "xenophon.search", "xenophon.interop", "xenophon.cli",
    ],
    package_dir={"xenophon": "src", "xenophon.cli": "cli"},
    package_data={"xenophon": ["py.typed", "data/*.json", "data/*/*.toml", "data/*/*/*.toml"],
                  "xenophon.search": ["*.pxd"]},
    libraries=[engine_library],
    ext_modules=ext_modules,
    zip_safe=False,
)

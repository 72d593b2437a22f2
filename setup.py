"""Build of xenophon: the C rules core, its pybind11 bindings and the Cython search.

The C cores (src/engine_c) are compiled once into static libraries, one per
game, that both the pybind11 module (xenophon._core) and the Cython search
modules link against, so the rules exist in exactly one compiled copy per
extension and never twice in source.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import platform

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup

ENGINE_DIR = "src/engine_c"
C_FLAGS = ["-O3", "-std=c11", "-fPIC", "-Wall", "-Wextra", "-Wno-unused-parameter"]
if os.environ.get("XENOPHON_DEBUG"):
    # Debug builds check the incremental hash and state invariants after every
    # apply and undo, with assert: -UNDEBUG undoes the -DNDEBUG of Python's CFLAGS.
    C_FLAGS = ["-O1", "-g", "-std=c11", "-fPIC", "-Wall", "-Wextra", "-DXENOPHON_DEBUG", "-UNDEBUG"]

# XENOPHON_SANITIZE=1: AddressSanitizer + UndefinedBehaviorSanitizer in the C
# core, the bindings and the search (docs/sanitizers.md). Every undefined
# behaviour aborts (no recovery), so a report fails the run. Python itself is
# not instrumented: load such a build with the sanitizer runtimes preloaded
# (.ci/sanitizers does). Python's own CFLAGS carry -fwrapv, which would make
# signed overflow defined and hide it from UBSan: -fno-wrapv undoes that.
SANITIZE_FLAGS = [
    "-fsanitize=address,undefined",
    "-fno-omit-frame-pointer",
    "-fno-sanitize-recover=undefined",
    "-fno-wrapv",
]
SANITIZE = bool(os.environ.get("XENOPHON_SANITIZE"))
OPT_FLAGS = ["-O1", "-g"] if SANITIZE else ["-O3"]
EXTRA_FLAGS = SANITIZE_FLAGS if SANITIZE else []
if SANITIZE:
    C_FLAGS = [flag for flag in C_FLAGS if not flag.startswith("-O")] + OPT_FLAGS + EXTRA_FLAGS
# Its own build folder (build/sanitize, build/debug, build/sanitize-debug):
# setuptools reuses up-to-date objects of build/, which would mix optimised,
# debug and instrumented code in one build.
DEBUG = bool(os.environ.get("XENOPHON_DEBUG"))
BUILD_BASE = "build/" + "-".join(
    name for name, on in (("sanitize", SANITIZE), ("debug", DEBUG)) if on
)
BUILD_OPTIONS = {"build": {"build_base": BUILD_BASE}} if SANITIZE or DEBUG else {}
# The move generators count legal codes with popcounts (src/engine_c/runs.h),
# which gcc makes calls into libgcc unless the target has POPCNT: on x86-64
# it is asked for (every x86-64 processor since 2008-2009 has it, the
# x86-64-v2 level); other targets have a popcount instruction already.
if platform.machine().lower() in ("x86_64", "amd64"):
    C_FLAGS.append("-mpopcnt")
    OPT_FLAGS.append("-mpopcnt")

# The kernel's headers are at the top of src/engine_c, each game's core in its
# own folder with the same file names as the other's: one static library per
# game (an archive keeps member names without their folder). A game's core is
# found by its folder (one holding the game interface's adapter.c), so adding a
# game edits nothing here.
GAME_CORES = sorted(
    os.path.basename(os.path.dirname(path)) for path in glob.glob(f"{ENGINE_DIR}/*/adapter.c")
)
engine_sources = sorted(glob.glob(f"{ENGINE_DIR}/*/*.c"))
engine_headers = sorted(glob.glob(f"{ENGINE_DIR}/**/*.h", recursive=True))
# obj_deps "": every object of a library depends on every header, so that a
# changed header (a struct's layout: learned.h's XEN_MAX_FEATURES sizes the
# tables) recompiles the objects instead of archiving stale ones beside new ones
engine_libraries = [
    (
        f"xenophon_{game}",
        {
            "sources": sorted(glob.glob(f"{ENGINE_DIR}/{game}/*.c")),
            "obj_deps": {"": engine_headers},
            "cflags": C_FLAGS,
            "include_dirs": [ENGINE_DIR],
        },
    )
    for game in GAME_CORES
]
# What the extensions are built from besides their own sources: build_ext
# relinks an extension only when one of these is newer than it, and the
# static library's sources must count (else a change to a .c file of the core
# leaves an extension with the old core linked in).
ENGINE_DEPENDS = engine_sources + engine_headers

core_extension = Pybind11Extension(
    "xenophon._core",
    sources=sorted(glob.glob("src/bindings/*.cpp")),
    include_dirs=[ENGINE_DIR],
    cxx_std=17,
    extra_compile_args=OPT_FLAGS + EXTRA_FLAGS,
    extra_link_args=EXTRA_FLAGS,
    depends=sorted(glob.glob("src/bindings/*.hpp")) + ENGINE_DEPENDS,
)

ext_modules = [core_extension]


def search_extensions():
    """The Cython search modules, if any exist yet."""
    pyx_files = sorted(glob.glob("src/search/*.pyx"))
    if not pyx_files:
        return []
    from Cython.Build import cythonize
    from setuptools import Extension

    SEARCH_PARTS = sorted(glob.glob("src/search/*.pxi") + glob.glob("src/search/*.h"))
    extensions = [
        Extension(
            "xenophon.search." + os.path.splitext(os.path.basename(path))[0],
            sources=[path],
            include_dirs=[ENGINE_DIR, "src/search"],
            # the parts a search module includes (ismcts.pyx: its .pxi and atomics.h)
            depends=ENGINE_DEPENDS + SEARCH_PARTS,
            extra_compile_args=OPT_FLAGS + EXTRA_FLAGS,
            extra_link_args=EXTRA_FLAGS,
        )
        for path in pyx_files
    ]
    return cythonize(
        extensions,
        language_level=3,
        include_path=[ENGINE_DIR],
        compiler_directives={"boundscheck": False, "wraparound": False},
    )


ext_modules += search_extensions()

# Every folder that ships is declared: the Python floors (and each game's
# package) as packages, and the data folders (card sets and decks, the C
# sources the OpenSpiel bridge compiles, the web page) as namespace packages
# holding only data, so the build has nothing importable left undeclared
# (docs/architecture.md). Both are found by walking src/, so a game's folders
# need no line here.
PYTHON_PACKAGES = sorted(
    os.path.basename(os.path.dirname(path)) for path in glob.glob("src/*/__init__.py")
)
#: the files each data tree ships, by the patterns of its files' names
DATA_PATTERNS = {
    # card sets, weights and networks, each game's page code
    "data": ("*.json", "*.toml", "*.npz", "*.js", "*.css"),
    "engine_c": ("*.c", "*.cc", "*.h"),
    "web/static": ("*",),
}


def data_folders() -> dict[str, list[str]]:
    """{dotted folder under src/: the patterns of the files it ships}, for
    every folder of a data tree holding such files."""
    folders = {}
    for tree, patterns in DATA_PATTERNS.items():
        for folder, _subfolders, files in os.walk(f"src/{tree}"):
            shipped = [
                pattern
                for pattern in patterns
                if any(fnmatch.fnmatch(name, pattern) for name in files)
            ]
            if shipped:
                folders[os.path.relpath(folder, "src").replace(os.sep, ".")] = shipped
    return dict(sorted(folders.items()))


DATA_FOLDERS = data_folders()

setup(
    packages=["xenophon", "xenophon.cli"]
    + [f"xenophon.{name}" for name in PYTHON_PACKAGES + list(DATA_FOLDERS)],
    package_dir={"xenophon": "src", "xenophon.cli": "cli"},
    # the C core's sources ship too: the OpenSpiel bridge (xenophon.interop.native)
    # compiles them with its wrapper on the user's machine
    package_data={
        "xenophon": ["py.typed"],
        "xenophon.interop": ["*.cc", "*.hpp"],
        **{f"xenophon.{name}": patterns for name, patterns in DATA_FOLDERS.items()},
    },
    libraries=engine_libraries,
    ext_modules=ext_modules,
    include_package_data=False,  # package_data lists what ships; sources stay out
    zip_safe=False,
    options=BUILD_OPTIONS,
)

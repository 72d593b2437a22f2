"""Games as plugins: what one game contributes to the shared floors, and the
registry that finds the installed games.

A game lives in its own folders (its package ``xenophon.GAME``, its C core in
``src/engine_c/GAME/``, its data in ``src/data/GAME/``); its module
``xenophon.GAME.plugin`` declares one `GamePlugin`, and one line of
pyproject.toml registers it::

    [project.entry-points."xenophon.games"]
    GAME = "xenophon.GAME.plugin:PLUGIN"

The shared modules (the registry of specs, narration, the search's defaults,
the web page, the lab, OpenSpiel) ask `plugins()` and never name a game. The
games come in the order of their names, wherever they are listed (help
texts, error messages, the catalogue of a page).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xenophon.kernel.errors import XenophonError

if TYPE_CHECKING:  # the game API imports this module
    from xenophon.kernel.game import Game, State
    from xenophon.kernel.narration import Narrator

#: the entry-point group a game registers its plugin in
ENTRY_POINT_GROUP = "xenophon.games"


@dataclass(frozen=True)
class CliFlag:
    """The command-line flag (``--OPTION``) of one of a game's options."""

    option: str
    help: str
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    #: checks the flag's text before the game reads it: raises ValueError
    #: with the message a user reads (None: the game's own checks suffice)
    check: Callable[[str], None] | None = None


@dataclass(frozen=True)
class BalanceSides:
    """What a balance study (xenophon.lab.balance) compares in a game.

    Either its sides play against each other (`matchups`: cell (row,
    column) is the row side's score against the column side, `spec(first,
    second)` the game of `first` in seat 0 against `second`), or each side
    is one variant of the game played from both seats (a row a side, a
    column a seat, `spec(side)` its game)."""

    #: what the matrix compares, as the help says it ("decks")
    compares: str
    #: what a cell's score means, as the table's title says it
    meaning: str
    #: the sides a study has unless told of more
    default_sides: Callable[[], tuple[str, ...]]
    matchups: bool
    spec: Callable[..., str]
    #: the sides a user may add (the balance command's --decks), and the
    #: check of each (raises SpecError); None when the game takes none
    extra_sides: str | None = None
    check_extra_side: Callable[[str, tuple[str, ...]], None] | None = None


@dataclass(frozen=True)
class PageControl:
    """One control of the web page's new-game form, for one of a game's
    options (the request carries it under the option's name): a choice
    among `choices` (one select), or `len(defaults)` text fields joined by
    `separator`, each suggesting `suggestions` (free text: names or files)."""

    option: str
    label: str
    #: the value shown at first, one per field (a choice has one field)
    defaults: tuple[str, ...]
    choices: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()
    separator: str = ""
    #: each text field's width in characters (the browser's default if absent)
    sizes: tuple[int, ...] = ()

    def as_message(self) -> dict[str, Any]:
        """The control as the page's first message describes it."""
        return {
            "option": self.option,
            "label": self.label,
            "defaults": list(self.defaults),
            "choices": list(self.choices),
            "suggestions": list(self.suggestions),
            "separator": self.separator,
            "sizes": list(self.sizes),
        }


@dataclass(frozen=True)
class OpenSpielNames:
    """The game's names in OpenSpiel's registry."""

    python: str  # the Python game over our API (xenophon.interop.openspiel)
    native: str  # the C++ game over the C core (xenophon.interop.native)


@dataclass(frozen=True)
class GamePlugin:
    """Everything one game contributes to the shared floors."""

    #: the name on the command line, in specs and in records ("GAME")
    name: str
    #: the name people read ("A Game of Cards")
    title: str
    #: the game's class: `factory(seed=, engine=, **options)`
    factory: Callable[..., Game]
    #: the options a game takes besides its seed and engine, in the order
    #: they are listed, each with the text it takes when unset ("" is the
    #: reference card set); OpenSpiel's parameters are these
    options: Mapping[str, str]
    #: {option: check(game name, value)}, run in this order on the options
    #: given (each raises SpecError; the values themselves, such as a
    #: mode's name, are checked by the game)
    option_checks: Mapping[str, Callable[[str, Any], None]]
    #: the narrator of a position for a seat (xenophon.kernel.narration)
    narrator: Callable[[State, int], Narrator]
    #: the page's card data of a game, the anchors of a move's text, and
    #: whether an opponent's move is written from the mover's side (its
    #: anchors then flip sides on the viewer's board)
    catalogue: Callable[[Game], dict[str, Any]]
    anchors: Callable[[str], list[str]]
    mirrored_notation: bool
    #: the controls of the page's new-game form for the game's options
    #: (its modes, its decks...), made when a page opens
    page_controls: Callable[[], tuple[PageControl, ...]]
    #: the folder of the game's page code, in the game's data folder:
    #: ``board.js`` (draws its board and card details, registered with the
    #: page's ``registerBoard``) and ``board.css`` (their styles), served
    #: at ``/games/GAME/`` (docs/web.md, "Games on the page")
    page_code: Callable[[], Path]
    balance: BalanceSides
    openspiel: OpenSpielNames
    #: the search's evaluation unless told ("hand" or "learned"), and the
    #: playout turns before each evaluation scores a leaf
    default_evaluation: str
    cutoff_turns: Mapping[str, int]
    #: the modules of the engines other than the C core ({"oracle": module});
    #: each registers itself with xenophon.kernel.game.register_engine when imported
    engines: Mapping[str, str]
    #: the module whose `feature_side(state, player)` computes the learned
    #: evaluation's features on the oracle (their reference)
    reference_features: str
    #: the tournament spec of a benchmark position's game, from its options
    #: (xenophon.lab.benchmarks)
    benchmark_spec: Callable[[Mapping[str, Any]], str]
    #: search settings at equal time against OpenSpiel, where they differ
    #: from the defaults (docs/benchmarks.md)
    best_at_equal_time: Mapping[str, Any]
    #: the ways a game spec is written, for help texts ("GAME", "GAME:mode=x")
    spec_forms: tuple[str, ...]
    #: the rules as a player reads them (`xenophon rules GAME`): how to win,
    #: a turn step by step, the cards of a game of it
    rules: Callable[[Game], list[str]]
    #: a spec with every option written, and what its values may be
    spec_example: str | None = None
    spec_example_note: str | None = None
    #: what the message of a spec option that is not key=value adds
    spec_hint: str = ""
    #: the options whose value is a list: after 'OPTION=A', a bare ',B' is its next item
    list_options: tuple[str, ...] = ()
    #: options as text (a spec, flags, OpenSpiel parameters) to values, and back
    option_from_text: Mapping[str, Callable[[str], Any]] = field(default_factory=dict)
    option_as_text: Mapping[str, Callable[[Any], str]] = field(default_factory=dict)
    #: the command-line flags of the game's own options (the shared ones,
    #: such as --cards, are the command line's)
    cli_flags: tuple[CliFlag, ...] = ()
    #: a guided first game (`xenophon learn GAME`): the opening of the rules
    #: (how to win, the board, a turn step by step), and by phase (the view's
    #: "phase") what a decision there asks and how it is typed
    intro: Callable[[Game], list[str]] | None = None
    lessons: Mapping[str, str] = field(default_factory=dict)
    #: the names of a game's pieces at its start, for a game whose notation
    #: names pieces by names that follow them through the game's steps
    #: (xenophon.kernel.naming); None: the engine's notation is the player's
    piece_names: Callable[[], Any] | None = None
    #: the codes of the legal moves of the player to move that spend a card
    #: for nothing; a search with `futile_moves=skip` (xenophon.search.bots)
    #: leaves them out of its root unless every legal move is one. It reads
    #: only what that player sees. None: the game names none
    futile_moves: Callable[[State], list[int]] | None = None
    #: the search's tree options where its settings leave them to the game
    #: (the default preset's; xenophon.search.settings.GAME_TREE_OPTIONS,
    #: e.g. {"root_policy": "auto"}): a rule becomes a game's default once it
    #: has won that game's match; an option not named is the v2 preset's
    tree_defaults: Mapping[str, str] = field(default_factory=dict)
    #: the squares each piece on a seat's board reaches, by its anchor
    #: ({"sq:c2": {"move": ["sq:c3"], "attack": ["sq:c3", "sq:c4"]}}), from the game
    #: and that seat's view, as the terminal's `card SQUARE` marks them; the
    #: page shows them when a piece is selected. None: no piece has a reach
    page_reach: Callable[[Game, dict[str, Any]], dict[str, dict[str, list[str]]]] | None = None


class PluginError(XenophonError):
    """The installed games cannot be read (a broken or duplicate registration)."""


def _loaded(entry: metadata.EntryPoint) -> GamePlugin:
    plugin = entry.load()
    if not isinstance(plugin, GamePlugin):
        raise PluginError(f"the game plugin '{entry.name}' ({entry.value}) is not a GamePlugin")
    if plugin.name != entry.name:
        raise PluginError(
            f"the game plugin '{entry.name}' ({entry.value}) declares the game '{plugin.name}'"
        )
    return plugin


@cache
def plugins() -> tuple[GamePlugin, ...]:
    """The installed games, in the order of their names (read once)."""
    found: dict[str, GamePlugin] = {}
    values: dict[str, str] = {}
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in values:
            if entry.value == values[entry.name]:
                continue  # the same registration seen twice on the path
            raise PluginError(
                f"the game '{entry.name}' is registered twice ({values[entry.name]}"
                f" and {entry.value})"
            )
        values[entry.name] = entry.value
        found[entry.name] = _loaded(entry)
    if not found:
        raise PluginError(
            f"no game is registered (entry points '{ENTRY_POINT_GROUP}'): "
            "install the package (pip install .)"
        )
    return tuple(found[name] for name in sorted(found))


def find_plugin(name: str) -> GamePlugin | None:
    """The plugin of the game called `name`, or None."""
    return next((plugin for plugin in plugins() if plugin.name == name), None)


def game_names() -> tuple[str, ...]:
    return tuple(plugin.name for plugin in plugins())


def game_titles(conjunction: str) -> str:
    """The games' titles for a sentence: 'A and B', 'A, B or C' (`conjunction` 'or')."""
    titles = [plugin.title for plugin in plugins()]
    if len(titles) == 1:
        return titles[0]
    return ", ".join(titles[:-1]) + f" {conjunction} " + titles[-1]

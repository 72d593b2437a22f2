"""What Anabasis contributes to the shared floors (xenophon.kernel.plugin),
registered in pyproject.toml under the entry points "xenophon.games"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xenophon.anabasis import catalogue
from xenophon.anabasis.describe import AnabasisNarrator
from xenophon.anabasis.futile import futile_moves
from xenophon.anabasis.game import MODES, Game
from xenophon.anabasis.rules import LESSONS, intro_lines, rules_lines
from xenophon.kernel.cardfile import packaged_data
from xenophon.kernel.plugin import BalanceSides, CliFlag, GamePlugin, OpenSpielNames, PageControl
from xenophon.kernel.registry import SpecError, check_cards

NAME = "anabasis"


def check_mode(name: str, mode: Any) -> None:
    if not isinstance(mode, str):
        raise SpecError(f"{name} option 'mode' must be standard or expert")


def mode_spec(mode: str) -> str:
    return f"{NAME}:mode={mode}"


def benchmark_spec(options: Mapping[str, Any]) -> str:
    """A benchmark position's game as a tournament spec (its mode)."""
    return mode_spec(options.get("mode", "standard"))


PLUGIN = GamePlugin(
    name=NAME,
    title="Anabasis",
    factory=Game,
    options={"mode": "standard", "cards": ""},
    option_checks={"mode": check_mode, "cards": check_cards},
    narrator=AnabasisNarrator,
    catalogue=catalogue.card_data,
    anchors=catalogue.anchors,
    mirrored_notation=False,  # squares are the same for both seats
    page_controls=lambda: (PageControl("mode", "Mode", defaults=("standard",), choices=MODES),),
    page_code=lambda: packaged_data(NAME, "web"),
    page_reach=catalogue.reach,
    rules=rules_lines,
    intro=intro_lines,
    lessons=LESSONS,
    balance=BalanceSides(
        compares="seats and modes",
        meaning="the column seat's score in the row mode",
        default_sides=lambda: MODES,
        matchups=False,
        spec=mode_spec,
    ),
    openspiel=OpenSpielNames(python="python_xenophon_anabasis", native="xenophon_anabasis"),
    default_evaluation="learned",  # it won its match against the hand-set one
    cutoff_turns={"hand": 4, "learned": 4},
    engines={"oracle": "xenophon.anabasis.oracle"},
    reference_features="xenophon.anabasis.oracle_features",
    benchmark_spec=benchmark_spec,
    # 15 times the iterations of the 2,000 the defaults were tuned at pay for
    # longer playouts (docs/benchmarks.md)
    best_at_equal_time={"cutoff_turns": 8},
    spec_forms=(NAME, mode_spec("expert")),
    cli_flags=(CliFlag("mode", "Anabasis mode (default standard)", choices=MODES),),
    futile_moves=futile_moves,
    # sequential halving from 10,000 iterations on: it won its GSPRT here
    # (issue 47, docs/search.md "The root by budget")
    tree_defaults={"root_policy": "auto"},
)

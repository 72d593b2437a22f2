"""The bot registry: every kind of player a spec string can name, above both
the search (`xenophon.search.bots`) and the optional interop with OpenSpiel
(`xenophon.interop.native`), so that neither imports the other.

A spec is ``kind:option=value,...`` (``"ismcts:iterations=2000"``,
``"pimc:worlds=8,iterations=2000"``, ``"greedy"``, ``"random"``,
``"cheat:iterations=2000"``, and with OpenSpiel ``"openspiel:iterations=2000"``),
one of `xenophon play`'s calibrated levels, ``"level:normal"`` (`xenophon.play.levels`:
the bot the level's Elo on the ladder was measured with), or an external player: a
program, ``"cmd:./my_bot --depth 3"``, or a Python class, ``"python:my_module:MyPlayer"``
(`xenophon.play.external`, docs/players.md).
Its options are the bot's settings (``time`` for ``time_limit``), checked
against the ranges in `xenophon.search.bots.SETTINGS`; a spec that gives a
time and no iterations searches for that time only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xenophon.interop.native import OpenSpielISMCTSBot
from xenophon.kernel.errors import shown
from xenophon.kernel.evaluation import resolve
from xenophon.kernel.registry import SpecError, parse_spec
from xenophon.play.external import ExternalPlayer, is_external, parse_external
from xenophon.play.levels import LEVELS, LevelBot, level_named
from xenophon.search import bots

BOT_KINDS = ("random", "greedy", "ismcts", "pimc", "cheat", "openspiel", "level")
#: the head of a level's spec: level:NAME
LEVEL_KIND = "level:"
#: what a spec writes for a setting of another name
SPEC_NAMES = {"time_limit": "time", "evaluation": "eval"}
#: the settings OpenSpiel's bot takes (its class lives with the optional interop)
OPENSPIEL_SETTINGS = ("iterations", "time_limit", "c_uct")


def _bot_kind(name: str) -> tuple[Callable[..., Any], tuple[str, ...]]:
    """The constructor of a bot kind and the settings its spec may give."""
    kinds: dict[str, tuple[Callable[..., Any], tuple[str, ...]]] = {
        "random": (bots.RandomBot, bots.RandomBot.settings),
        "greedy": (bots.GreedyBot, bots.GreedyBot.settings),
        "ismcts": (bots.ISMCTSBot, bots.ISMCTSBot.settings),
        "pimc": (bots.PIMCBot, bots.PIMCBot.settings),
        "cheat": (bots.CheatingUCTBot, bots.CheatingUCTBot.settings),
        "openspiel": (OpenSpielISMCTSBot, OPENSPIEL_SETTINGS),
    }
    if name not in kinds:
        raise SpecError(
            f"unknown bot '{shown(name)}' ({', '.join(BOT_KINDS[:-1])}, level:NAME, or "
            "cmd:PROGRAM ARGS, python:MODULE:CLASS)"
        )
    return kinds[name]


def bot_settings(spec: str) -> tuple[str, dict[str, Any]]:
    """A bot spec's kind and its settings, converted and checked
    (SpecError or SettingError naming the spec and the option)."""
    name, texts = parse_spec(spec, "bot")
    _, allowed = _bot_kind(name)
    spec_names = {SPEC_NAMES.get(setting, setting): setting for setting in allowed}
    settings: dict[str, Any] = {}
    for key, text in texts.items():
        if key not in spec_names:
            offered = ", ".join(spec_names) or "none"
            raise SpecError(
                f"bot '{shown(spec)}': {name} has no option '{shown(key)}' (its options: {offered})"
            )
        setting = spec_names[key]
        settings[setting] = bots.SETTINGS[setting].parse(
            f"bot '{shown(spec)}': '{shown(key)}'", text
        )
    if "time_limit" in settings and "iterations" not in settings:
        settings["iterations"] = None  # a time alone: search for that time only
    return name, settings


def make_bot(spec: str, seed: int):
    """A bot from its spec, e.g. 'ismcts:iterations=2000,workers=2' or
    'cmd:./my_bot' (an external player, checked here: its program found, its
    class loaded; its child process starts at its first decision)."""
    if is_external(spec):
        return ExternalPlayer(parse_external(spec), seed)
    if spec.strip().startswith(LEVEL_KIND):
        return level_bot(spec, seed)
    name, settings = bot_settings(spec)
    constructor, _ = _bot_kind(name)
    try:
        return constructor(seed=seed, **settings)
    except bots.SettingError as error:  # settings that do not fit together
        raise bots.SettingError(f"bot '{shown(spec)}': {error}") from None


def level_bot(spec: str, seed: int) -> LevelBot:
    """The bot of a calibrated level, 'level:normal' (SpecError for a name
    that is no level)."""
    name = spec.strip()[len(LEVEL_KIND) :].strip()
    level = level_named(name)
    if level is None:
        raise SpecError(f"bot '{shown(spec)}': no level '{shown(name)}' ({', '.join(LEVELS)})")
    return LevelBot(level, seed)


def bot_in_full(spec: str, game: Any) -> dict[str, Any]:
    """What a bot spec plays as in `game`, every setting written out (the
    game's own defaults resolved), for a results file to keep: the spec, and
    the search settings of a search bot or a level's search."""
    if is_external(spec):
        return {"spec": spec, "program": True}
    bot = make_bot(spec, 0)
    if isinstance(bot, LevelBot):
        bot = bot.search_for(game.name)
    search_settings = getattr(bot, "search_settings", None)
    if search_settings is None:
        return {"spec": spec}
    settings = search_settings.for_game(game)
    full = settings.as_dict()
    full["cutoff_turns"] = settings.cutoff_for(game)
    full["evaluation"] = resolve(game, settings.evaluation)
    return {"spec": spec, "settings": full}

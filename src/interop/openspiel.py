"""Every game in OpenSpiel's Python game API.

Registers each game with ``pyspiel.register_game`` under the Python name its
plugin gives (``python_xenophon_GAME``), so that OpenSpiel's Python
algorithms (its Python ISMCTS among them) run on our exact rules, through
our public API:

>>> from xenophon.interop import openspiel                      # doctest: +SKIP
>>> game = pyspiel.load_game(openspiel.GAME_NAMES[GAMES[0]])    # doctest: +SKIP
>>> game = openspiel.spiel_game(xenophon_game)     # or wrap a Game you hold

What OpenSpiel sees:

- actions are our 16-bit action codes (chance outcomes too); their strings
  are our notation;
- chance nodes are explicit, with the outcomes of ``chance_outcomes()``;
- a player's information-state string (and observation string) is its
  information-set key in hex: equal exactly when the player cannot tell two
  states apart (each game's engine doc, "What each player sees"). It keys
  what the player knows now, not a replay of the history;
- the information-state tensor and the observation tensor are the C core's
  (docs/tensors.md), written straight into the observer's numpy array; the
  observer's ``dict`` names each block of the tensor (views of it). The
  information-state tensor, like the string, holds what the player knows
  now: equal exactly when the key is;
- ``resample_from_infostate(player, sampler)`` is our ``resample``: a world
  the player cannot tell from this one, with an empty action history;
- ``clone()`` copies the position (OpenSpiel deep-copies the attributes).

Needs OpenSpiel: ``pip install 'xenophon[openspiel]'``. Importing this module
without it raises XenophonError.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.game import Game, State
from xenophon.kernel.plugin import GamePlugin, plugins
from xenophon.kernel.registry import game_from_texts, game_options_as_text

try:
    import pyspiel
except ImportError:  # pragma: no cover - depends on the environment
    raise XenophonError("OpenSpiel is not installed: pip install 'xenophon[openspiel]'") from None

#: OpenSpiel's name of each game (its plugin's)
GAME_NAMES = {plugin.name: plugin.openspiel.python for plugin in plugins()}
MAX_GAME_LENGTH = 100_000  # a bound, not tight: turn limit and deck-out end games long before

#: OpenSpiel's parameters of each game: its options as text (GamePlugin.options)
DEFAULT_PARAMETERS = {plugin.name: dict(plugin.options) for plugin in plugins()}


def _game_type(name: str) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAMES[name],
        long_name=f"{name} (xenophon, Python API)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULT_PARAMETERS[name],
    )


GAME_INFO = pyspiel.GameInfo(
    num_distinct_actions=1 << 16,  # action codes are 16 bits
    max_chance_outcomes=1 << 16,
    num_players=2,
    min_utility=-1.0,
    max_utility=1.0,
    utility_sum=0.0,
    max_game_length=MAX_GAME_LENGTH,
)


def _xenophon_game(name: str, params: dict[str, Any]) -> Game:
    """The xenophon Game named by OpenSpiel game parameters."""
    return game_from_texts(name, {key: str(value) for key, value in params.items()})


def _parameters(game: Game) -> dict[str, Any]:
    """The OpenSpiel game parameters that name a xenophon Game."""
    return {**game_options_as_text(game), "cards": game.cards.path}


class _Position:
    """Holds the xenophon State inside an OpenSpiel state; OpenSpiel clones
    states by deep-copying their attributes, which copies the position only
    (the Game and its tables are shared)."""

    __slots__ = ("state",)

    def __init__(self, state: State):
        self.state = state

    def __deepcopy__(self, memo: dict) -> _Position:
        return _Position(self.state.copy())


class SpielGame(pyspiel.Game):
    """One of our games as an OpenSpiel Python game; `xgame` is the xenophon Game."""

    def __init__(
        self,
        params: dict[str, Any] | None = None,
        *,
        name: str | None = None,
        xgame: Game | None = None,
    ):
        name = xgame.name if xgame is not None else name
        if name not in GAME_NAMES:
            raise XenophonError(f"unknown game '{name}' ({' or '.join(GAME_NAMES)})")
        self.xgame = xgame if xgame is not None else _xenophon_game(name, dict(params or {}))
        if self.xgame.engine != "c":
            raise XenophonError("OpenSpiel plays the C engine (it needs resample)")
        super().__init__(_game_type(name), GAME_INFO, _parameters(self.xgame))

    def new_initial_state(self) -> SpielState:
        return SpielState(self, self.xgame.new_initial_state())

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        return _Observer(self.xgame, iig_obs_type)


class SpielState(pyspiel.State):
    """An OpenSpiel state over a xenophon State (`state.xstate`)."""

    def __init__(self, game: SpielGame, xstate: State):
        super().__init__(game)
        self._position = _Position(xstate)

    @property
    def xstate(self) -> State:
        return self._position.state

    def current_player(self) -> int:
        return self.xstate.current_player  # CHANCE = -1, TERMINAL = -4, as in OpenSpiel

    def _legal_actions(self, player: int) -> list[int]:
        return self.xstate.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        # the backend's int-level outcomes (docs/architecture.md): no notation needed
        return self.xstate.chance_probabilities()

    def _apply_action(self, action: int) -> None:
        self.xstate.apply_code(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.xstate.format_code(int(action))

    def is_terminal(self) -> bool:
        return self.xstate.is_terminal()

    def returns(self) -> list[float]:
        return self.xstate.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> SpielState:
        seed = int(probability_sampler() * 2**53)
        return SpielState(self.get_game(), self.xstate.resample(player_id, random.Random(seed)))

    def __str__(self) -> str:
        return json.dumps(self.xstate.to_dict(), sort_keys=True)


class _Observer:
    """The player's view: its information-set key as the string, and the C
    core's tensor (information state with perfect recall, else observation)
    written into ``tensor``, whose blocks ``dict`` names."""

    def __init__(self, xgame: Game, iig_obs_type: Any):
        if iig_obs_type is not None and (
            not iig_obs_type.public_info
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError("only the player's own view (public and private) is provided")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        self.kind = "information_state" if perfect_recall else "observation"
        self.tensor = np.zeros(xgame.tables.tensor_size(self.kind), dtype=np.float32)
        self.dict = tensor_blocks(xgame, self.kind, self.tensor)

    def set_from(self, state: SpielState, player: int) -> None:
        getattr(state.xstate.backend, f"{self.kind}_tensor")(player, self.tensor)

    def string_from(self, state: SpielState, player: int) -> str:
        return f"{state.xstate.information_set_key(player):016x}"


def tensor_blocks(game: Game, kind: str, tensor: np.ndarray) -> dict[str, np.ndarray]:
    """Views of `tensor` (a tensor of `kind`) by block name (docs/tensors.md)."""
    blocks, offset = {}, 0
    for name, _, size, remembered in game.tables.tensor_layout:
        if kind == "observation" and remembered:
            continue
        blocks[name] = tensor[offset : offset + size]
        offset += size
    return blocks


def _factory(plugin: GamePlugin) -> type[SpielGame]:
    """The class OpenSpiel makes the game of `plugin` with, from its parameters."""

    def __init__(self: SpielGame, params: dict[str, Any] | None = None) -> None:
        SpielGame.__init__(self, params, name=plugin.name)

    return type(
        f"{plugin.name.title()}SpielGame",
        (SpielGame,),
        {
            "__init__": __init__,
            "__doc__": f"``{plugin.openspiel.python}``: parameters {' and '.join(plugin.options)}.",
        },
    )


#: OpenSpiel's factory of each game (OpenSpiel's registry keeps them until the
#: process exits)
FACTORIES = {plugin.name: _factory(plugin) for plugin in plugins()}


def register() -> None:
    """Registers every game with OpenSpiel (once; importing this module does it)."""
    registered = set(pyspiel.registered_names())
    for name, factory in FACTORIES.items():
        if GAME_NAMES[name] not in registered:
            pyspiel.register_game(_game_type(name), factory)


def spiel_game(game: Game) -> SpielGame:
    """An OpenSpiel game over this xenophon Game (sharing its tables)."""
    return SpielGame(xgame=game)


def spiel_state(game: SpielGame, state: State) -> SpielState:
    """An OpenSpiel state at a copy of this position (with an empty OpenSpiel history)."""
    return SpielState(game, state.copy())


register()

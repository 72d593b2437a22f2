"""A learning agent for xenophon: OpenSpiel's JAX DQN trained by self-play on
the C core's information-state tensor, its learning curve measured against
`random` and `greedy`, and a player class that `xenophon match` can run
(docs/worked-example.md). Needs the `train` extra: pip install 'xenophon[train]'.

Train (resumable: run it again with the same --out and it goes on from the
last checkpoint; a tqdm bar on a terminal, quiet when piped):

    python examples/dqn_agent.py --game hero --out hero-dqn --minutes 20

Play it (the class loads the agent from $XENOPHON_DQN, default ./hero-dqn):

    XENOPHON_DQN=hero-dqn xenophon match \
        "python[startup=60]:examples/dqn_agent.py:DQNPlayer" level:beginner --game hero

The actions: OpenSpiel's DQN has one output per action, and xenophon's action
codes are 16 bits; a game uses few of them (Hero's 40-card decks a few
hundred), so each code gets a slot the first time training meets it, up to
SLOTS; the table is saved with the agent. A code without a slot (never met
in training, or past SLOTS) is not chosen while one with a slot is legal.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

#: the most distinct action codes the agent can tell apart (its outputs)
SLOTS = 512
#: the tensor the agent reads (docs/tensors.md)
TENSOR = "information_state"
#: the network and learning settings (OpenSpiel's DQN arguments)
SETTINGS = {
    "hidden_layers_sizes": [128, 128],
    "replay_buffer_capacity": 50_000,
    "batch_size": 128,
    "learning_rate": 1e-3,
    "update_target_network_every": 1_000,
    "learn_every": 16,
    "min_buffer_size_to_learn": 2_000,
    "epsilon_start": 0.9,
    "epsilon_end": 0.05,
    "epsilon_decay_duration": 200_000,
    "optimizer_str": "adam",
    "loss_str": "huber",
}


class ActionSlots:
    """Action code <-> the agent's output slot."""

    def __init__(self, codes: list[int] | None = None):
        self.codes = list(codes or [])
        self.slot_of = {code: slot for slot, code in enumerate(self.codes)}

    def slots(self, codes: list[int], grow: bool) -> list[int]:
        """The slots of the codes that have one (new codes get one when `grow`)."""
        for code in codes:
            if grow and code not in self.slot_of and len(self.codes) < SLOTS:
                self.slot_of[code] = len(self.codes)
                self.codes.append(code)
        return [self.slot_of[code] for code in codes if code in self.slot_of]


def make_agents(size: int, seed: int) -> list[Any]:
    """One DQN per seat (OpenSpiel's JAX DQN)."""
    from open_spiel.python.jax import dqn

    return [
        dqn.DQN(
            player_id=seat,
            state_representation_size=size,
            num_actions=SLOTS,
            seed=seed * 2 + seat,
            **SETTINGS,
        )
        for seat in range(2)
    ]


def time_step(state: Any, slots: ActionSlots, grow: bool) -> Any:
    """OpenSpiel's TimeStep of a xenophon state at a decision or the end."""
    from open_spiel.python.rl_environment import StepType, TimeStep

    last = state.is_terminal()
    tensors = [getattr(state.backend, f"{TENSOR}_tensor")(seat) for seat in range(2)]
    player = -4 if last else state.current_player  # OpenSpiel's terminal player id
    legal = [[], []]
    if not last:
        legal[player] = slots.slots(state.legal_actions(), grow)
    rewards = [float(r) for r in state.returns()] if last else [0.0, 0.0]
    return TimeStep(
        observations={"info_state": tensors, "legal_actions": legal, "current_player": player},
        rewards=rewards,
        discounts=[1.0, 1.0],
        step_type=StepType.LAST if last else StepType.MID,
    )


def settle(state: Any, rng: random.Random) -> None:
    while state.is_chance():
        state.apply_code(state.sample_chance(rng).code)


def train_episode(game: Any, agents: list[Any], slots: ActionSlots, rng: random.Random) -> int:
    """One self-play game, both seats learning: its decisions."""
    state = game.new_initial_state()
    settle(state, rng)
    decisions = 0
    while not state.is_terminal():
        step = time_step(state, slots, grow=True)
        seat = state.current_player
        output = agents[seat].step(step)
        state.apply_code(slots.codes[int(output.action)])
        settle(state, rng)
        decisions += 1
    final = time_step(state, slots, grow=False)
    for agent in agents:
        agent.step(final)
    return decisions


class AgentBot:
    """A trained agent as an in-process bot (choose(state) -> Move), greedy."""

    def __init__(self, agents: list[Any], slots: ActionSlots, seed: int = 0):
        self.agents, self.slots = agents, slots
        self.rng = random.Random(seed)
        self.name = "dqn"

    def choose(self, state: Any) -> Any:
        tensor = getattr(state.backend, f"{TENSOR}_tensor")(state.current_player)
        code = self.choose_code(state.current_player, tensor, state.legal_actions())
        return next(move for move in state.legal_moves() if move.code == code)

    def choose_code(self, seat: int, tensor: Any, codes: list[int]) -> int:
        known = [code for code in codes if code in self.slots.slot_of]
        if not known:
            return self.rng.choice(codes)
        slots = [self.slots.slot_of[code] for code in known]
        action, _ = self.agents[seat].act_epsilon_greedy(np.asarray(tensor), slots, 0.0)
        return self.slots.codes[int(action)]


def win_rate(game_name: str, bot: AgentBot, opponent: str, games: int, seed: int) -> float:
    """The agent's score against a built-in bot, seats alternating (a draw 1/2)."""
    from xenophon.kernel.registry import game_from_spec
    from xenophon.lab.tournament import play_out
    from xenophon.play.players import make_bot

    points = 0.0
    for k in range(games):
        seat, deal = k % 2, seed + k // 2
        players: list[Any] = [None, None]
        players[seat] = bot
        players[1 - seat] = make_bot(opponent, deal)
        record = play_out(game_from_spec(game_name, seed=deal), players, deal, seat)
        points += (record.returns[seat] + 1) / 2
    return points / games


def save(out: Path, agents: list[Any], slots: ActionSlots, meta: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for seat, agent in enumerate(agents):
        agent.save((out / f"seat{seat}").resolve())
    meta["slots"] = slots.codes
    (out / "agent.json").write_text(json.dumps(meta, indent=1) + "\n")


def load(out: Path) -> tuple[list[Any], ActionSlots, dict[str, Any]]:
    meta = json.loads((out / "agent.json").read_text())
    agents = make_agents(meta["tensor_size"], meta["seed"])
    for seat, agent in enumerate(agents):
        agent.load((out / f"seat{seat}").resolve())
    return agents, ActionSlots(meta["slots"]), meta


def train(args: argparse.Namespace) -> dict[str, Any]:
    from tqdm import tqdm

    from xenophon.kernel.registry import make_game

    out = Path(args.out)
    game = make_game(args.game)
    if (out / "agent.json").exists():
        agents, slots, meta = load(out)
        if meta["game"] != args.game:
            raise SystemExit(f"{out} holds a {meta['game']} agent, not {args.game}")
    else:
        size = game.tables.tensor_size(TENSOR)
        agents, slots = make_agents(size, args.seed), ActionSlots()
        meta = {"game": args.game, "tensor_size": size, "seed": args.seed, "episodes": 0,
                "decisions": 0, "seconds": 0.0, "curve": []}  # fmt: skip
    rng = random.Random(args.seed * 1_000_003 + meta["episodes"])
    if not meta["curve"]:
        meta["curve"].append(evaluate(args, AgentBot(agents, slots), meta))
    started = time.monotonic()
    budget = args.minutes * 60
    bar = tqdm(total=args.episodes, initial=meta["episodes"], unit="game", disable=None)
    while meta["episodes"] < args.episodes and time.monotonic() - started < budget:
        begun = time.monotonic()
        meta["decisions"] += train_episode(game, agents, slots, rng)
        meta["episodes"] += 1
        meta["seconds"] = round(meta["seconds"] + time.monotonic() - begun, 1)
        bar.update(1)
        if meta["episodes"] % args.eval_every == 0:
            meta["curve"].append(evaluate(args, AgentBot(agents, slots), meta))
            save(out, agents, slots, meta)
    bar.close()
    if not meta["curve"] or meta["curve"][-1]["episodes"] != meta["episodes"]:
        meta["curve"].append(evaluate(args, AgentBot(agents, slots), meta))
    save(out, agents, slots, meta)
    return meta


def evaluate(args: argparse.Namespace, bot: AgentBot, meta: dict[str, Any]) -> dict[str, Any]:
    """A point of the learning curve: the score against random and greedy."""
    row = {
        "episodes": meta["episodes"],
        "training_seconds": meta["seconds"],
        "vs_random": win_rate(args.game, bot, "random", args.eval_games, 10_000),
        "vs_greedy": win_rate(args.game, bot, "greedy", args.eval_games, 20_000),
    }
    print(json.dumps(row), file=sys.stderr, flush=True)
    return row


class DQNPlayer:
    """The trained agent as a `python:` player (docs/players.md): it asks
    for the information-state tensor and answers with its greedy choice.
    The agent is loaded from $XENOPHON_DQN (default ./hero-dqn)."""

    tensor = TENSOR

    def __init__(self) -> None:
        import os

        agents, slots, _ = load(Path(os.environ.get("XENOPHON_DQN", "hero-dqn")))
        self.bot = AgentBot(agents, slots)
        self.seat = 0

    def new_game(self, game: str, seat: int, options: dict, seed: int) -> None:
        self.seat = seat
        self.bot.rng = random.Random(seed)

    def choose(self, view: dict, legal_moves: list[str], tensor: list, codes: list[int]) -> str:
        code = self.bot.choose_code(self.seat, np.asarray(tensor, dtype=np.float32), codes)
        return legal_moves[codes.index(code)]


def main() -> None:
    parser = argparse.ArgumentParser(description="Train OpenSpiel's JAX DQN on a xenophon game.")
    parser.add_argument("--game", default="hero")
    parser.add_argument("--out", default="hero-dqn", help="the agent's folder (resumed if there)")
    parser.add_argument("--minutes", type=float, default=20.0, help="training time this run")
    parser.add_argument("--episodes", type=int, default=1_000_000, help="self-play games in all")
    parser.add_argument("--eval-every", type=int, default=200, help="games between curve points")
    parser.add_argument("--eval-games", type=int, default=40, help="games per opponent per point")
    parser.add_argument("--seed", type=int, default=1)
    meta = train(parser.parse_args())
    print(json.dumps({k: v for k, v in meta.items() if k != "slots"}, indent=1))


if __name__ == "__main__":
    main()

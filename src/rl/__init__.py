"""Reinforcement-learning environments over the C cores (docs/tensors.md).

- `xenophon.rl.aec`: a PettingZoo AEC environment of either game, two agents,
  each observing its tensor and an action mask;
- `xenophon.rl.single`: a Gymnasium environment in which one agent plays a
  seat against a built-in player (a level, ``random``, ``greedy``...).

Actions are the games' 16-bit action codes (the notation's codes), so the
action space is Discrete(65536) and the mask marks the legal codes. Chance
is drawn by the environment from its seed. Needs ``pip install 'xenophon[rl]'``.
"""

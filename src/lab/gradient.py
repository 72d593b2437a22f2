"""Training by gradient with vetted libraries: JAX differentiates a loss
written in `jax.numpy`, and optax's Adam steps the parameters. Both come with
the `train` extra (`pip install '.[train]'`; docs/learning.md says why JAX
and not PyTorch). Without it, training stops with one line saying so.

JAX runs here on the CPU in its default single precision: the weights files
hold floats, and the C evaluation sums in float.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from xenophon.kernel.errors import XenophonError

ADAM_BETAS = (0.9, 0.999)
ADAM_EPSILON = 1e-8
INSTALL_HINT = "training needs the train extra (JAX and optax): pip install '.[train]'"


class TrainingUnavailable(XenophonError):
    """The train extra is not installed."""


def jax_modules() -> tuple[ModuleType, ModuleType, ModuleType]:
    """(jax, jax.numpy, optax), or TrainingUnavailable in one line."""
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError:
        raise TrainingUnavailable(INSTALL_HINT) from None
    return jax, jnp, optax


def as_float32(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {key: np.asarray(value, dtype=np.float32) for key, value in arrays.items()}


class AdamTrainer:
    """Adam (optax) on a loss over a dict of parameter arrays; each step is
    one compiled call: the loss's gradient (JAX), the update, the new
    parameters. `loss(params, *data)` is written with `jax.numpy`; the data
    are arrays, and each new shape of them compiles the step once more."""

    def __init__(
        self,
        loss: Callable[..., Any],
        params: dict[str, np.ndarray],
        rate: float,
    ) -> None:
        jax, _, optax = jax_modules()
        self._optax = optax
        self._optimizer = optax.adam(rate, b1=ADAM_BETAS[0], b2=ADAM_BETAS[1], eps=ADAM_EPSILON)
        self._params = jax.device_put(as_float32(params))
        self._state = self._optimizer.init(self._params)
        self._step = jax.jit(self._update(jax.grad(loss)))
        self._jit = jax.jit
        self._compiled: dict[Callable[..., Any], Callable[..., Any]] = {}

    def _update(self, gradient: Callable[..., Any]) -> Callable[..., Any]:
        def update(params: Any, state: Any, *data: Any) -> tuple[Any, Any]:
            updates, state = self._optimizer.update(gradient(params, *data), state, params)
            return self._optax.apply_updates(params, updates), state

        return update

    def step(self, *data: Any) -> None:
        self._params, self._state = self._step(self._params, self._state, *data)

    def evaluate(self, function: Callable[..., Any], *data: Any) -> Any:
        """`function(params, *data)` at the current parameters, compiled
        (once per function and shape of data) as the step is."""
        if function not in self._compiled:
            self._compiled[function] = self._jit(function)
        return self._compiled[function](self._params, *data)

    def params(self) -> dict[str, np.ndarray]:
        """A float64 numpy copy of the current parameters."""
        return {key: np.asarray(value, dtype=np.float64) for key, value in self._params.items()}

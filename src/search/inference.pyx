# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Opponent-move inference: worlds weighted by how likely the opponent's
observed decisions are in them (policy-based inference, Rebstock, Solinas,
Buro & Sturtevant 2019), over the C game interface.

Each world (a *particle*) is drawn at the start of an observation window
with the game's own `resample` (uniform among the states the searcher cannot
tell apart there), then the window's steps are replayed in it:

- a step the searcher saw (its own decisions, the opponent's public ones,
  chance it was shown) is applied with its code; an opponent decision
  multiplies the particle's weight by its probability under the likelihood
  model, given the opponent's view in that particle;
- a step hidden from the searcher (the opponent's draws, the event it set
  face down) is drawn in the particle among the codes that leave the
  searcher's view as it was (its information-set key after the step):
  chance by its own sampler (rejecting what does not fit), an opponent
  decision by the model, the weight multiplied by the model's probability of
  the fitting codes.

After every step the particle must give the searcher the information-set key
it had after that step, so a particle is a whole line consistent with all the
searcher saw, and its weight is the likelihood of the opponent's decisions in
it. Nothing else is read: the result depends on the searcher's keys, the
codes it was shown, the start state's view (through `resample`) and the seed.

Likelihood models (a parameter): ``UNIFORM``, each legal decision equally
likely (what a random opponent would do; the weights then only count the
opponent's choices), and ``GREEDY``, a softmax over the static evaluation
one action ahead from the mover's side, with a temperature, mixed with
uniform so that one move the model finds poor does not rule a world out.
"""
from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memcmp
from libc.math cimport exp
from cpython.pycapsule cimport PyCapsule_GetPointer

from game_api cimport (XenCode, XenGameApi, XenRng, xen_rng_seed, xen_rng_below, xen_rng_unit,
                       XEN_CHANCE, XEN_TERMINAL, XEN_MAX_ACTIONS)

cdef enum:
    HIDDEN = -1                # a step's code the searcher was not shown
    CHANCE_TRIES = 64          # draws of a hidden chance step before the particle is dropped
    DRAW_FACTOR = 32           # worlds drawn at the window's start per particle wanted, at most

#: the likelihood models, by name (their numbers are this module's)
MODELS = {"uniform": 0, "greedy": 1}
# the share of the uniform distribution mixed into the greedy model
cdef double GREEDY_UNIFORM_SHARE = 0.1


cdef struct Model:
    int kind
    double temperature


cdef void policy(const XenGameApi *api, const void *tables, const char *state, int player,
                 const XenCode *legal, int n, const Model *model, char *scratch,
                 double *out) noexcept nogil:
    """The model's probability of each of the `n` legal decisions of `player`."""
    cdef int i
    cdef double total = 0.0, best = -1e300
    cdef double rets[2]
    if model.kind == 0 or n == 1:
        for i in range(n):
            out[i] = 1.0 / n
        return
    for i in range(n):
        memcpy(scratch, state, api.state_size)
        api.apply(tables, scratch, legal[i])
        if api.current_player(tables, scratch) == XEN_TERMINAL:
            api.returns(tables, scratch, rets)
            out[i] = rets[player]
        else:
            out[i] = api.evaluate(tables, scratch, player)
        if out[i] > best:
            best = out[i]
    for i in range(n):
        out[i] = exp((out[i] - best) / model.temperature)
        total += out[i]
    for i in range(n):
        out[i] = (1 - GREEDY_UNIFORM_SHARE) * out[i] / total + GREEDY_UNIFORM_SHARE / n


cdef double replay_hidden_decision(const XenGameApi *api, const void *tables, char *world,
                                   int player, int searcher, uint64_t key_after,
                                   const Model *model, XenRng *rng, XenCode *legal,
                                   double *probabilities, char *scratch) noexcept nogil:
    """Draws a decision the searcher did not see among those that fit its key
    after it, by the model; returns the model's probability of the fitting
    ones (0: none fits)."""
    cdef int n = api.legal_actions(tables, world, legal), i, chosen = -1
    cdef double fitting = 0.0, r
    policy(api, tables, world, player, legal, n, model, scratch, probabilities)
    for i in range(n):
        memcpy(scratch, world, api.state_size)
        api.apply(tables, scratch, legal[i])
        if api.information_set_key(tables, scratch, searcher) != key_after:
            probabilities[i] = 0.0
        fitting += probabilities[i]
    if fitting <= 0.0:
        return 0.0
    r = xen_rng_unit(rng) * fitting
    for i in range(n):
        if probabilities[i] > 0.0:
            chosen = i
            r -= probabilities[i]
            if r < 0.0:
                break
    api.apply(tables, world, legal[chosen])
    return fitting


cdef bint replay_hidden_chance(const XenGameApi *api, const void *tables, char *world,
                               int searcher, uint64_t key_after, XenRng *rng,
                               char *scratch) noexcept nogil:
    """Draws a chance outcome the searcher was not shown, by its true
    probability among those that fit the searcher's key after it (rejection);
    False when none was found."""
    cdef int attempt
    for attempt in range(CHANCE_TRIES):
        memcpy(scratch, world, api.state_size)
        api.apply(tables, scratch, api.sample_chance(tables, scratch, rng))
        if api.information_set_key(tables, scratch, searcher) == key_after:
            memcpy(world, scratch, api.state_size)
            return True
    return False


cdef double replay(const XenGameApi *api, const void *tables, char *world, int searcher,
                   const int *codes, const uint64_t *keys, int n_steps, const Model *model,
                   XenRng *rng, XenCode *legal, double *probabilities,
                   char *scratch) noexcept nogil:
    """Replays the window in `world`; returns the particle's weight (0: it
    contradicts what the searcher saw)."""
    cdef double weight = 1.0
    cdef int k, i, n, player
    for k in range(n_steps):
        player = api.current_player(tables, world)
        if player == XEN_TERMINAL:
            return 0.0
        if codes[k] == HIDDEN:
            if player == XEN_CHANCE:
                if not replay_hidden_chance(api, tables, world, searcher, keys[k], rng, scratch):
                    return 0.0
            else:
                weight *= replay_hidden_decision(api, tables, world, player, searcher, keys[k],
                                                 model, rng, legal, probabilities, scratch)
                if weight <= 0.0:
                    return 0.0
            continue
        n = api.legal_actions(tables, world, legal)
        i = 0
        while i < n and legal[i] != codes[k]:
            i += 1
        if i == n:
            return 0.0                  # the code shown is not legal in this world
        if player != XEN_CHANCE and player != searcher:
            policy(api, tables, world, player, legal, n, model, scratch, probabilities)
            weight *= probabilities[i]
        api.apply(tables, world, <XenCode>codes[k])
        if api.information_set_key(tables, world, searcher) != keys[k]:
            return 0.0
    return weight


def infer_worlds(api_capsule, tables_capsule, bytes start, list steps, int searcher,
                 int particles, str model, double temperature, uint64_t seed):
    """`particles` worlds consistent with the window `steps` — (code, or None
    when the searcher was not shown it; the searcher's information-set key
    after the step) — replayed from `start`, the state at the window's start,
    resampled from the searcher's view there; returns (worlds as bytes,
    weights), the weights summing to 1, or ([], []) when no particle fits.
    Worlds that contradict the window are drawn again, up to DRAW_FACTOR
    draws per particle in all (cards revealed later, such as a face-down
    event played, rule most early draws out)."""
    cdef const XenGameApi *api = <const XenGameApi *>PyCapsule_GetPointer(
        api_capsule, b"xenophon.game_api")
    cdef const void *tables = PyCapsule_GetPointer(tables_capsule, b"xenophon.tables")
    cdef int n_steps = len(steps), k, draws = 0
    cdef Model m
    cdef XenRng rng
    cdef double weight
    if model not in MODELS:
        raise ValueError(f"unknown likelihood model '{model}' ({', '.join(MODELS)})")
    if <size_t>len(start) != api.state_size:
        raise ValueError(f"a {api.name.decode()} state is {api.state_size} bytes, "
                         f"got {len(start)}")
    if temperature <= 0:
        raise ValueError("the likelihood model's temperature must be above 0")
    m.kind = MODELS[model]
    m.temperature = temperature
    xen_rng_seed(&rng, seed)
    cdef int *codes = <int *>malloc(max(1, n_steps) * sizeof(int))
    cdef uint64_t *keys = <uint64_t *>malloc(max(1, n_steps) * sizeof(uint64_t))
    cdef char *world = <char *>malloc(api.state_size)
    cdef char *scratch = <char *>malloc(api.state_size)
    cdef XenCode *legal = <XenCode *>malloc(XEN_MAX_ACTIONS * sizeof(XenCode))
    cdef double *probabilities = <double *>malloc(XEN_MAX_ACTIONS * sizeof(double))
    worlds, weights = [], []
    try:
        if not (codes and keys and world and scratch and legal and probabilities):
            raise MemoryError("cannot allocate the inference's buffers")
        for k in range(n_steps):
            code, key = steps[k]
            codes[k] = HIDDEN if code is None else code
            keys[k] = key
        while len(worlds) < particles and draws < particles * DRAW_FACTOR:
            draws += 1
            memcpy(world, <const char *>start, api.state_size)
            with nogil:
                api.resample(tables, world, searcher, &rng)
                weight = replay(api, tables, world, searcher, codes, keys, n_steps, &m, &rng,
                                legal, probabilities, scratch)
            if weight > 0.0:
                worlds.append(world[:api.state_size])
                weights.append(weight)
    finally:
        free(codes)
        free(keys)
        free(world)
        free(scratch)
        free(legal)
        free(probabilities)
    total = sum(weights)
    return worlds, [w / total for w in weights]

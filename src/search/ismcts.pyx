# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Information-set Monte Carlo tree search over the C game interface.

One search serves both games: it sees a game only through its XenGameApi
(game_api.h), a tables pointer and states as fixed-size byte blocks.

Each iteration samples a world consistent with the searcher's information
(``resample``, or one of the weighted worlds of opponent-move inference,
``xenophon.search.world_sampling``), then descends a tree whose nodes are keyed by (player to
move, that player's information-set key): the searcher's choices depend only
on what it knows, and each opponent decision on what the opponent would know
in that world (Cowling, Powley & Whitehouse 2012). Chance is sampled with its
true probabilities and is not stored. Selection is UCB1 over the node's
actions; untried ones are taken first, at random. A node's legal actions
follow from its player's information, and are part of its key too, so they
are the same at every visit: each action's availability count (the
subset-armed bandit's) is the node's visit count. A new node is added per
iteration, recording only the action it tries, and its value is estimated by a playout,
cut off after a number of turns and scored by the game's static evaluation
(the game's playout policy, or uniformly random actions with
``uniform_playouts``, as OpenSpiel's random rollouts for benchmarks).

Tree options (all off in the bots' ``v1`` preset): selection on values
scaled to each node's range or spread (``value_scaling``), edges that take
the value of the node they lead to and new actions that descend into a node
another order reached (``transpositions``), and a progressive bias from the
playout policy or the network's policy head (``prior_weight``, ``priors``);
docs/search.md describes them. The root
may instead share its iterations by sequential halving (``root_policy``,
``Halving``).

With ``resample=False`` the same code is a perfect-information UCT keyed by
the full state hash: the PIMC baseline runs it on sampled worlds, the cheating
reference on the true state.

Parallel search: each worker grows its own tree (root parallelism: their
root statistics are summed), or several workers share one tree
(``SharedTree``: tree parallelism with virtual loss). In a shared tree the
node table is allocated whole (it never moves), nodes are created and
expanded under a spinlock and published with release stores after they are
filled in, and statistics change by atomic adds; a worker that selects an
action counts a visit and a loss for it at once (the virtual loss) and puts
the true return in its place when it backs up, so that the other worker's
concurrent descents spread over other actions (Chaslot, Winands & van den
Herik 2008; Enzenberger & Müller 2009).

Memory: nodes live in one arena whose size is capped; when it is full the
search keeps iterating without creating nodes (the playout starts at the
frontier), so it never grows past the cap and never fails.
"""
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy
from libc.math cimport sqrt, log, exp
from cpython.pycapsule cimport PyCapsule_GetPointer

from game_api cimport (XenCode, XenGameApi, XenRng, xen_rng_seed, xen_rng_next, xen_rng_below,
                       xen_rng_unit, XEN_CHANCE, XEN_TERMINAL, XEN_MAX_ACTIONS)

# the search's parts, in the order their declarations depend on each other
include "atomics.pxi"
include "clock.pxi"
include "params.pxi"
include "nodes.pxi"
include "arena.pxi"
include "table.pxi"
include "growth.pxi"
include "fused.pxi"
include "keys.pxi"
include "proofs.pxi"
include "selection.pxi"
include "chance.pxi"
include "halving.pxi"
include "pv.pxi"
include "iteration.pxi"
include "worker.pxi"

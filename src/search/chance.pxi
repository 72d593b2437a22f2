# Chance in the descent: sampled, or stratified along each edge's visits.
# (included by ismcts.pyx: one extension, one compilation unit)
#
# With CHANCE_STRATIFIED, the chance outcomes that follow a tree action
# before the next decision are stratified along that action's visits: its
# visits come in blocks of STRATA, and within a block each of the STRATA
# equal parts of [0, 1) holds the point of one visit, in an order drawn at
# random for the block (a hash of the action, the block and the chance node's
# place after the action), at a random place within the part. So over an
# action's visits each chance node's outcomes come in their true proportions
# (within one a block), and a 60% strike after an attack hits in about 5 of
# its first 8 visits, not in a random number of them: one unlucky draw does
# not decide the move's value. Each visit's point is uniform on [0, 1), so
# each outcome keeps its true probability.
#
# The order within a block is random, not a low-discrepancy sequence's
# (frac(n * alpha) was tried first): the visits of one action are shared
# out by the selection above and below it, and a deterministic sequence read
# at the visits one path takes is no longer spread (in the Catapult-and-Rally
# puzzle, a root move whose line reached the strike at every second visit of
# its attack read a slow sweep of points, runs of misses then runs of hits,
# and its value fell from 0.82 to 0.69 where the solver proves 0.84).
#
# The cores' chance interface (`sample_chance(tables, state, rng)`) is kept:
# the point steers the generator handed to it, whose next output's high 32
# bits are the point's (`steered_rng`). Both cores draw a chance outcome with
# one xen_rng_below(rng, total) over its weights in ascending order of codes
# (its high 32 bits times the total), so the point is the outcome's inverse
# distribution function; a core drawing otherwise would still get a uniform
# generator, only not stratified.

cdef enum:
    STRATA = 8              # the visits of a block, and the parts of [0, 1) they share
    STRATIFIED_CHANCES = 8  # chance nodes after an action stratified (the others sampled)
# the inverses of xoshiro256**'s multipliers 9 and 5 modulo 2^64
cdef uint64_t INVERSE_9 = 0x8e38e38e38e38e39ULL
cdef uint64_t INVERSE_5 = 0xcccccccccccccccdULL


cdef inline uint64_t rotate_right(uint64_t x, int k) noexcept nogil:
    return (x >> k) | (x << (64 - k))


cdef void steered_rng(XenRng *out, double point, XenRng *rng) noexcept nogil:
    """A generator whose next output has the high 32 bits of `point` (in [0, 1))
    and random low bits, and whose other state words come from `rng`.
    xoshiro256** outputs rotl(s[1] * 5, 7) * 9, which s[1] alone decides."""
    cdef uint64_t high = <uint64_t>(point * 4294967296.0)
    cdef uint64_t wanted = (min(high, <uint64_t>0xFFFFFFFF) << 32) | (xen_rng_next(rng) >> 32)
    out.s[0] = xen_rng_next(rng)
    out.s[1] = rotate_right(wanted * INVERSE_9, 7) * INVERSE_5
    out.s[2] = xen_rng_next(rng)
    out.s[3] = xen_rng_next(rng) | 1     # never the all-zero state


cdef int stratum(uint64_t block, int place) noexcept nogil:
    """The part of [0, 1) of the visit at `place` of a block (`block`: a hash
    of the action, the block's number and the chance node's place): its rank
    among the hashes of the block's STRATA places, a random permutation."""
    cdef int other, rank = 0
    cdef uint64_t own = mix64(block + <uint64_t>place)
    cdef uint64_t theirs
    for other in range(STRATA):
        theirs = mix64(block + <uint64_t>other)
        rank += theirs < own or (theirs == own and other < place)
    return rank


cdef XenCode stratified_chance(const XenGameApi *api, const void *tables, const void *world,
                               uint64_t edge, uint32_t visits, int k,
                               XenRng *rng) noexcept nogil:
    """The k-th chance node after an action of `edge` (its hash) at its
    `visits`-th visit: its outcome at the visit's point of the action's strata."""
    cdef XenRng steered
    cdef uint64_t block
    cdef double point
    if k >= STRATIFIED_CHANCES:
        return api.sample_chance(tables, world, rng)
    block = mix64(edge ^ mix64((<uint64_t>(visits // STRATA) << 8) | <uint64_t>k))
    point = (stratum(block, visits % STRATA) + xen_rng_unit(rng)) / STRATA
    steered_rng(&steered, point, rng)
    return api.sample_chance(tables, world, &steered)


def stratified_outcomes(api_capsule, tables_capsule, bytes state, uint64_t edge, int visits,
                        int k, uint64_t seed):
    """The outcome codes the k-th chance node after an action (its hash
    `edge`) takes at the action's visits 0 to visits - 1, in `state` each
    time (a chance node): what CHANCE_STRATIFIED draws there, for the tests."""
    cdef const XenGameApi *api = <const XenGameApi *>PyCapsule_GetPointer(
        api_capsule, b"xenophon.game_api")
    cdef const void *tables = PyCapsule_GetPointer(tables_capsule, b"xenophon.tables")
    cdef XenRng rng
    cdef int visit
    if <size_t>len(state) != api.state_size or \
            api.current_player(tables, <const char *>state) != XEN_CHANCE:
        raise ValueError("stratified_outcomes needs a chance node of the game")
    xen_rng_seed(&rng, seed)
    return [stratified_chance(api, tables, <const char *>state, edge, visit, k, &rng)
            for visit in range(visits)]

# Fused nodes (OPPONENT_FUSED): the other player's nodes keyed by what the
# searcher knows only.
# (included by ismcts.pyx: one extension, one compilation unit)

# -- fused nodes (OPPONENT_FUSED) ---------------------------------------------
# The other player's nodes keyed by what the searcher knows only: every hidden
# hand the searcher cannot tell apart shares one node, whose actions are the
# union of those legal in the worlds that reached it (single-observer ISMCTS
# with availability counts, Cowling, Powley & Whitehouse 2012). A node's
# FusedStat block is sorted by code, holds FUSED_LEAST or a power of two
# statistics and is moved to a block twice as large when it fills.

cdef inline FusedStat *fused_stats_of(const Tree *tree, const Node *node) noexcept nogil:
    return <FusedStat *>(tree.arena + <size_t>node.body.stats * ARENA_ALIGN)


cdef inline int fused_capacity(int count) noexcept nogil:
    cdef int capacity = FUSED_LEAST
    while capacity < count:
        capacity *= 2
    return capacity


cdef bint fused_include(Tree *tree, Node *node, const XenCode *legal, int n) noexcept nogil:
    """Adds the codes of `legal` (ascending) that the node lacks, keeping its
    statistics sorted; False when the arena is full."""
    cdef FusedStat *old = fused_stats_of(tree, node)
    cdef FusedStat *dest
    cdef int count = node.n_actions, missing = 0, i = 0, j, k
    for j in range(n):
        while i < count and old[i].code < legal[j]:
            i += 1
        if i >= count or old[i].code != legal[j]:
            missing += 1
    if missing == 0:
        return True
    dest = old
    if count == 0 or count + missing > fused_capacity(count):
        dest = <FusedStat *>tree_alloc(tree, fused_capacity(count + missing) * sizeof(FusedStat))
        if dest == NULL:
            return False
    # merged from the ends, so that the block may be its own destination
    i = count - 1
    j = n - 1
    k = count + missing - 1
    while k >= 0:
        if j < 0 or (i >= 0 and old[i].code > legal[j]):
            dest[k] = old[i]
            i -= 1
        elif i >= 0 and old[i].code == legal[j]:
            dest[k] = old[i]
            i -= 1
            j -= 1
        else:
            dest[k].visits = 0
            dest[k].available = 0
            dest[k].value_sum = 0
            dest[k].code = legal[j]
            dest[k].unused = 0
            j -= 1
        k -= 1
    node.body.stats = <uint32_t>((<char *>dest - tree.arena) // ARENA_ALIGN)
    node.n_actions = count + missing
    return True


cdef int fused_select(Tree *tree, Node *node, const XenCode *legal, int n, const Params *p,
                      XenRng *rng, bint *new_leaf) noexcept nogil:
    """UCB1 with availability counts over the fused node's actions legal in
    this world (`legal`, ascending): untried ones first (uniformly at random),
    else the greatest mean + c * sqrt(ln(available) / visits). Counts this
    visit as available for each of them. Returns the index in `legal` of the
    choice (`new_leaf`: never tried before), -1 when the arena is full."""
    cdef FusedStat *stats
    cdef int i, k = 0
    cdef Pick pick = Pick(-1, 0, 0, -1e300)
    if not fused_include(tree, node, legal, n):
        return -1
    stats = fused_stats_of(tree, node)
    for i in range(n):
        while stats[k].code < legal[i]:
            k += 1
        stats[k].available += 1
        if stats[k].visits == 0:
            pick_untried(&pick, i, rng)
        elif pick.untried == 0:
            pick_scored(&pick, i, stats[k].value_sum / stats[k].visits
                        + p.c_uct * sqrt(log(<double>stats[k].available) / stats[k].visits), rng)
    new_leaf[0] = pick.untried > 0
    return pick.best


cdef FusedStat *fused_find(const Tree *tree, const Node *node, uint32_t code) noexcept nogil:
    """The fused node's statistic of `code` (which it holds)."""
    cdef FusedStat *stats = fused_stats_of(tree, node)
    cdef int low = 0, high = node.n_actions - 1, middle
    while low < high:
        middle = (low + high) // 2
        if stats[middle].code < code:
            low = middle + 1
        else:
            high = middle
    return stats + low

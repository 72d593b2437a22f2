# Selection: UCB1 over a node's actions with its options (value scaling,
# transpositions, priors), and the forced root visits.
# (included by ismcts.pyx: one extension, one compilation unit)

cdef struct Pick:
    # the choice of select_action and fused_select, as the actions go by
    int best           # -1: none yet
    int untried        # untried actions seen (those come first)
    int ties           # tried actions seen at the best score
    double best_score


cdef inline void pick_untried(Pick *pick, int i, XenRng *rng) noexcept nogil:
    """Reservoir sampling: each untried action seen so far equally likely."""
    pick.untried += 1
    if xen_rng_below(rng, pick.untried) == 0:
        pick.best = i


cdef inline void pick_scored(Pick *pick, int i, double score, XenRng *rng) noexcept nogil:
    """The greatest score, ties broken uniformly at random."""
    if score > pick.best_score:
        pick.best_score = score
        pick.best = i
        pick.ties = 1
    elif score == pick.best_score:
        pick.ties += 1
        if xen_rng_below(rng, pick.ties) == 0:
            pick.best = i


cdef inline double action_value(const Tree *tree, const Node *node, const ActionStat *stat,
                                bint transpositions, uint32_t *confidence) noexcept nogil:
    """A tried action's mean return for the node's player, and (`confidence`)
    the visits behind it. With transpositions, an action that always led to
    the same node takes that node's value and visits (UCT2 of Childs, Brodeur
    & Kocsis 2008): what was found there by any path, e.g. by another order
    of the same turn's actions, counts for every edge into it."""
    cdef const Node *child
    cdef double value
    if transpositions and stat.child != 0 and stat.child != AMBIGUOUS_CHILD:
        child = node_at(tree, stat.child)
        if child.visits > 0:      # in a shared tree, until its first back-up ends
            confidence[0] = child.visits
            value = child.value_sum / child.visits
            return value if child.player == node.player else -value
    confidence[0] = stat.visits
    return stat.value_sum / stat.visits


cdef void value_range(const Tree *tree, const Node *node, const ActionStat *stats, int n,
                      bint transpositions, double *low, double *scale) noexcept nogil:
    """The least of the node's tried actions' values and the span up to the
    greatest (`scale`; 1 when they are all equal), so that (value - low) /
    scale spans [0, 1] at every node, whatever the spread of its game's values."""
    cdef int i
    cdef uint32_t confidence
    cdef double value, least = 1e300, most = -1e300
    for i in range(n):
        if stats[i].visits > 0:
            value = action_value(tree, node, &stats[i], transpositions, &confidence)
            least = min(least, value)
            most = max(most, value)
    if most > least:
        low[0] = least
        scale[0] = most - least


cdef inline double spread(const Node *node) noexcept nogil:
    """The standard deviation of the returns backed up through the node (at
    least MIN_SPREAD): the noise its children's means are compared against."""
    cdef double mean = node.value_sum / node.visits
    cdef double variance = node.value_sq_sum / node.visits - mean * mean
    return max(MIN_SPREAD, sqrt(max(0.0, variance)))


cdef int select_action(const Tree *tree, const Node *node, const ActionStat *stats, int n,
                       const Params *p, XenRng *rng) noexcept nogil:
    """UCB1 over the (expanded) node's `n` actions, untried ones first
    (uniformly at random), ties broken at random; -1 when n is 0. Every action
    was available at each of the node's visits, this one included. Options:
    values scaled to the node's range, transpositions (`action_value`), and
    a progressive bias prior_weight * prior / (visits + 1); with the solver
    option, the actions proven lost are left out unless all are. Scaling makes one
    exploration constant fit games whose values spread differently: SCALE_RANGE
    maps the tried actions' values to [0, 1] (MuZero's min-max normalisation,
    per node), SCALE_SPREAD divides them by the node's standard deviation."""
    cdef int i
    cdef Pick pick = Pick(-1, 0, 0, -1e300)
    cdef double score, mean, low = 0.0, scale = 1.0
    cdef double log_available = log(<double>(node.visits + 1))
    cdef uint32_t confidence
    if p.value_scaling == SCALE_RANGE:
        value_range(tree, node, stats, n, p.transpositions, &low, &scale)
    elif p.value_scaling == SCALE_SPREAD:
        scale = spread(node)
    cdef bint skip_lost = skips_lost(node, p)
    for i in range(n):
        if skip_lost and is_lost(&stats[i]):
            continue
        if stats[i].visits == 0:
            pick_untried(&pick, i, rng)
        elif pick.untried == 0:
            mean = (action_value(tree, node, &stats[i], p.transpositions, &confidence)
                    - low) / scale
            score = mean + p.c_uct * sqrt(log_available / confidence)
            if p.prior_weight > 0:
                score += p.prior_weight * stats[i].prior / (stats[i].visits + 1)
            pick_scored(&pick, i, score, rng)
    return pick.best


cdef int forced_select(const Tree *tree, const Node *root, const ActionStat *stats, int n,
                       const Params *p, XenRng *rng) noexcept nogil:
    """The root's least visited action while it has fewer visits than its
    forced share (FORCED_VISITS), else UCB1's choice: every root move's
    visits grow with the square root of the root's, so none is left behind
    by the first that got ahead, and most visits still go to the best."""
    cdef int i, least = 0
    if n == 0:
        return -1
    for i in range(1, n):
        if stats[i].visits < stats[least].visits:
            least = i
    if stats[least].visits > 0 and \
            stats[least].visits * stats[least].visits * <double>n < FORCED_VISITS * root.visits:
        return least
    return select_action(tree, root, stats, n, p, rng)

# How the tree grows: a node created, then expanded at its second visit
# (with its priors).
# (included by ismcts.pyx: one extension, one compilation unit)

cdef Node *tree_create(Tree *tree, Local *local, uint64_t key, int player, int n_actions,
                       uint8_t expanded, uint32_t first_code, bint *created) noexcept nogil:
    """The node of `key`: a new one with `n_actions` actions, marked
    `expanded` (False, or FUSED_NODE with no actions yet) and trying
    `first_code` first, or (`created` False) the one another worker of a
    shared tree made meanwhile; NULL when the tree is full. The node is
    filled in before its slot is published."""
    cdef Node *node
    cdef Node *found
    created[0] = False
    if tree.full:
        return NULL
    node = <Node *>local_alloc(tree, local, sizeof(Node))
    if node == NULL:
        return NULL
    node.key = key
    node.visits = 0
    node.n_actions = n_actions
    node.player = player
    node.expanded = expanded
    node.proven = PROVEN_NONE
    node.proven_index = 0
    node.value_sum = 0
    node.value_sq_sum = 0
    node.body.first_code = first_code
    tree_lock(tree)
    if tree.shared:
        found = tree_find(tree, key)
        if found != NULL:
            tree_unlock(tree)
            give_back(tree, local, node)
            return found
    if (tree.n_nodes + 1) * 2 > tree.table.mask + 1 and not tree_grow(tree):
        tree.full = True
        tree_unlock(tree)
        give_back(tree, local, node)
        return NULL
    slot_insert(tree.table.slots, tree.table.mask, key,
                <uint32_t>((<char *>node - tree.arena) // ARENA_ALIGN + 1))
    tree.n_nodes += 1
    tree_unlock(tree)
    created[0] = True
    return node


cdef ActionStat *tree_expand(Tree *tree, Local *local, const Node *node, const XenCode *legal,
                             int n) noexcept nogil:
    """The statistics for `node`, one ActionStat per action (`legal`, its
    n_actions actions), carrying over the first try's returns (every visit
    so far was one); NULL when the arena is full. expand_node attaches them."""
    cdef size_t size = (<size_t>n * sizeof(ActionStat) + ARENA_ALIGN - 1) & ~(
        <size_t>ARENA_ALIGN - 1)
    cdef ActionStat *stats = <ActionStat *>local_alloc(tree, local, size)
    cdef XenCode first_code = <XenCode>node.body.first_code
    cdef int i
    if stats == NULL:
        return NULL
    for i in range(n):
        stats[i].visits = 0
        stats[i].value_sum = 0
        stats[i].child = 0
        stats[i].prior = 0
        if node.visits > 0 and legal[i] == first_code:
            stats[i].visits = node.visits
            stats[i].value_sum = node.value_sum
    return stats


cdef bint expand_node(const XenGameApi *api, const void *tables, const void *world,
                      Tree *tree, Local *local, Node *node, const XenCode *legal, int n,
                      const Params *p, XenRng *rng) noexcept nogil:
    """Expands the node at its second visit: its statistics (and priors,
    with `prior_weight`) are filled in, then attached and the node marked
    expanded, in a shared tree under the lock unless another worker expanded
    it meanwhile (a node's body changes only there, just before the mark).
    False when the arena is full."""
    cdef ActionStat *stats = tree_expand(tree, local, node, legal, n)
    if stats == NULL:
        return False
    if p.prior_weight > 0 and not (p.net_priors and set_net_priors(api, tables, world, stats,
                                                                   legal, n)):
        set_priors(api, tables, world, stats, legal, n, rng)
    tree_lock(tree)
    if tree.shared and node.expanded:
        tree_unlock(tree)
        give_back(tree, local, stats)
        return True
    node.body.stats = <uint32_t>((<char *>stats - tree.arena) // ARENA_ALIGN)
    xen_store_release8(&node.expanded, True)      # published after its statistics
    tree_unlock(tree)
    return True


cdef void set_priors(const XenGameApi *api, const void *tables, const void *world,
                     ActionStat *stats, const XenCode *legal, int n, XenRng *rng) noexcept nogil:
    """Each action's prior: its share of PRIOR_SAMPLES draws of the playout
    policy in this world, smoothed by one draw each (so none is 0). Called
    at a node's expansion; the world is one its player cannot tell from the
    position, so the prior reads nothing that player does not know."""
    cdef int draw, low, high, middle
    cdef XenCode code
    for draw in range(PRIOR_SAMPLES):
        code = api.playout_action(tables, world, rng)
        low = 0
        high = n - 1
        while low <= high:            # `legal` is ascending
            middle = (low + high) // 2
            if legal[middle] < code:
                low = middle + 1
            elif legal[middle] > code:
                high = middle - 1
            else:
                stats[middle].prior += 1
                break
    for draw in range(n):
        stats[draw].prior = (stats[draw].prior + 1) / (PRIOR_SAMPLES + n)


cdef bint set_net_priors(const XenGameApi *api, const void *tables, const void *world,
                         ActionStat *stats, const XenCode *legal, int n) noexcept nogil:
    """Each action's prior: the softmax over the node's actions of the
    network policy head's logits (priors=net), computed on this world for
    its player to move, from that player's side as the value is. False (no
    prior set) when the tables hold no network: the playout policy's then."""
    cdef double logits[XEN_MAX_ACTIONS]
    cdef double top, total = 0.0
    cdef int i
    if api.policy_logits == NULL or n == 0 or not api.policy_logits(tables, world, n, legal,
                                                                     logits):
        return False
    top = logits[0]
    for i in range(1, n):
        if logits[i] > top:
            top = logits[i]
    for i in range(n):
        logits[i] = exp(logits[i] - top)
        total += logits[i]
    for i in range(n):
        stats[i].prior = <float>(logits[i] / total)
    return True

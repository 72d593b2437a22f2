# One iteration: sample a world, descend, expand, play out, back up.
# (included by ismcts.pyx: one extension, one compilation unit)

cdef double playout(const XenGameApi *api, const void *tables, void *world, Params *p,
                    XenRng *rng) noexcept nogil:
    """Plays on with the game's playout policy (or uniformly at random, with
    `p.uniform`), cut off after `p.cutoff_turns` turns and scored by this
    table's evaluation; returns the value for player 0. The loop is the
    core's (walks.h): nothing in it reads a hash or an information-set key,
    so the moves skip their upkeep (apply_unkeyed): `world` is discarded
    afterwards."""
    return api.playout(tables, world, rng, p.cutoff_turns, p.max_playout_actions, p.uniform,
                       api.evaluate)


cdef int restrict_actions(XenCode *legal, int n, const XenCode *allowed,
                          int n_allowed) noexcept nogil:
    """Keeps in `legal` (ascending) only the codes also in `allowed` (ascending)."""
    cdef int i = 0, j = 0, kept = 0
    while i < n and j < n_allowed:
        if legal[i] < allowed[j]:
            i += 1
        elif legal[i] > allowed[j]:
            j += 1
        else:
            legal[kept] = legal[i]
            kept += 1
            i += 1
            j += 1
    return kept


cdef struct Worlds:
    # the sampler's worlds (`n` full states, one after another) and the
    # running sums of their probabilities; n = 0: the game's uniform resample
    char *states
    double *cumulative
    int n


cdef void sample_world(const XenGameApi *api, const void *tables, const char *root,
                       char *world, const Params *p, const Worlds *worlds,
                       XenRng *rng) noexcept nogil:
    """The iteration's world: one of the sampler's worlds drawn by its
    probability, else the root resampled from the searcher's view (or the
    root itself, for the perfect-information searches)."""
    cdef int low = 0, high
    cdef double r
    if worlds.n > 0:
        high = worlds.n - 1
        r = xen_rng_unit(rng) * worlds.cumulative[high]
        while low < high:               # the first world whose running sum exceeds r
            if worlds.cumulative[(low + high) // 2] > r:
                high = (low + high) // 2
            else:
                low = (low + high) // 2 + 1
        memcpy(world, worlds.states + <size_t>low * api.state_size, api.state_size)
        return
    memcpy(world, root, api.state_size)
    if p.resample:
        api.resample(tables, world, p.searcher, rng)


cdef void iterate(const XenGameApi *api, const void *tables, const char *root, char *world,
                  Tree *tree, Params *p, XenRng *rng, PathStep *path, XenCode *legal,
                  const XenCode *root_allowed, int n_root_allowed,
                  const Worlds *worlds, Halving *halving, Local *local) noexcept nogil:
    """One iteration: sample a world, descend, expand, play out, back up.
    At the root, only `root_allowed` moves are searched when there are any,
    and with ROOT_HALVING, `halving` chooses the root action."""
    cdef int depth = 0, player, n, index, k, chances = 0, root_turn, leaf_turn
    cdef uint32_t step, first_code
    cdef double value0 = 0.0
    cdef double rets[2]
    cdef uint64_t key
    cdef Node *node
    cdef ActionStat *stats
    cdef bint new_leaf, created, tries_first, probing = False
    sample_world(api, tables, root, world, p, worlds, rng)
    root_turn = leaf_turn = api.turn(tables, world)
    while True:
        player = api.current_player(tables, world)
        if player == XEN_TERMINAL:
            api.returns(tables, world, rets)
            value0 = rets[0]
            break
        if player == XEN_CHANCE:
            api.apply(tables, world, chance_outcome(api, tables, world, tree, path, depth,
                                                    chances, p, rng))
            chances += 1
            continue
        n = api.legal_actions(tables, world, legal)
        if depth == 0 and n_root_allowed > 0:
            n = restrict_actions(legal, n, root_allowed, n_root_allowed)
        if n == 1 and depth > 0:
            # a forced decision (e.g. a window with only `pass`) needs no node
            api.apply(tables, world, legal[0])
            continue
        if depth >= MAX_PATH:
            value0 = playout(api, tables, world, p, rng)
            break
        # a fused node's key leaves its actions out: they differ between worlds
        key = node_key(api, tables, world, player, key_viewer(p, player), p.resample, legal,
                       0 if fused(p, player) else n)
        if depth == 0:
            key ^= p.root_salt
        node = tree_find(tree, key)
        if node == NULL:
            if probing:
                # the new action's target is no node yet: it is the new leaf
                value0 = playout(api, tables, world, p, rng)
                break
            # below the root, a new node records only the action it tries, at random
            tries_first = depth > 0 and not fused(p, player)
            first_code = legal[xen_rng_below(rng, n)] if tries_first else 0
            if fused(p, player):
                node = tree_create(tree, local, key, player, 0, FUSED_NODE, 0, &created)
            else:
                node = tree_create(tree, local, key, player, n, False, first_code, &created)
            if node == NULL:
                value0 = playout(api, tables, world, p, rng)
                break
            if created and tries_first:
                path[depth].node = <size_t>(<char *>node - tree.arena)
                path[depth].index = FIRST_TRY
                depth += 1
                api.apply(tables, world, <XenCode>first_code)
                leaf_turn = api.turn(tables, world)
                if p.transpositions:
                    probing = True
                    continue
                value0 = playout(api, tables, world, p, rng)
                break
        if probing:
            local.transpositions += 1
            probing = False
        if node.expanded == FUSED_NODE:
            # -1: the tree is full
            index = fused_select(tree, node, legal, n, p, rng, &new_leaf)
            step = legal[index] if index >= 0 else 0    # a code: the node's block may move
        else:
            if not xen_load_acquire8(&node.expanded) and \
                    not expand_node(api, tables, world, tree, local, node, legal, n, p, rng):
                value0 = playout(api, tables, world, p, rng)     # the tree is full
                break
            stats = stats_of(tree, node)
            # -1: no root move allowed
            if p.solver and xen_load_acquire8(&node.proven) == PROVEN_WIN:
                index = node.proven_index       # nothing is searched below a proven win
            elif depth == 0 and p.root_policy == ROOT_HALVING:
                index = halving_select(halving, tree, node, stats, n, p)
            elif depth == 0 and p.root_policy == ROOT_FORCED:
                index = forced_select(tree, node, stats, n, p, rng)
            else:
                index = select_action(tree, node, stats, n, p, rng)
            new_leaf = index >= 0 and stats[index].visits == 0
            if index >= 0 and tree.shared and depth > 0:
                # the virtual loss: counted now, so that the other workers'
                # descents meanwhile see this action visited and lost (the
                # root is the worker's own: root_salt)
                xen_atomic_add_u32(&stats[index].visits, 1)
                xen_atomic_add_float(&stats[index].value_sum, -VIRTUAL_LOSS)
            step = index
        if index < 0:
            value0 = playout(api, tables, world, p, rng)
            break
        path[depth].node = <size_t>(<char *>node - tree.arena)
        path[depth].index = step
        depth += 1
        chances = 0
        api.apply(tables, world, legal[index])
        leaf_turn = api.turn(tables, world)
        if p.solver and node.expanded != FUSED_NODE:
            note_proof(api, tables, world, node, stats, n, index, local, depth == 1)
        if new_leaf:
            if p.transpositions:
                # where the action leads to a node already in the tree (another
                # order of the same actions), the iteration goes on from there
                probing = True
                continue
            value0 = playout(api, tables, world, p, rng)
            break
    local.path_steps += depth
    local.turn_steps += <uint64_t>(leaf_turn - root_turn)
    if leaf_turn - root_turn > local.most_turns:
        local.most_turns = leaf_turn - root_turn
    if tree.shared:
        back_up_shared(tree, path, depth, value0, p)
    else:
        back_up(tree, path, depth, value0, p.transpositions)


cdef XenCode chance_outcome(const XenGameApi *api, const void *tables, const void *world,
                            const Tree *tree, const PathStep *path, int depth, int k,
                            const Params *p, XenRng *rng) noexcept nogil:
    """The outcome of a chance node met in the descent, the k-th since the
    last tree action: sampled, or with CHANCE_STRATIFIED stratified along
    that action's visits (chance.pxi; not after a node's first try or a
    fused node's action, which keep no visits of their own here)."""
    cdef const Node *node
    cdef const ActionStat *stat
    if p.chance == CHANCE_STRATIFIED and depth > 0 and path[depth - 1].index != FIRST_TRY:
        node = <const Node *>(tree.arena + path[depth - 1].node)
        if node.expanded != FUSED_NODE:
            stat = stats_of(tree, node) + path[depth - 1].index
            return stratified_chance(api, tables, world,
                                     mix64(node.key ^ p.chance_salt) + path[depth - 1].index,
                                     stat.visits, k, rng)
    return api.sample_chance(tables, world, rng)


cdef void back_up(Tree *tree, const PathStep *path, int depth, double value0,
                  bint transpositions) noexcept nogil:
    """Adds the return (`value0`, for player 0) to each node and action on the
    path (back_up_step)."""
    cdef int k
    for k in range(depth):
        back_up_step(tree, path, k, depth, value0, transpositions)


cdef inline void back_up_step(Tree *tree, const PathStep *path, int k, int depth, double value0,
                              bint transpositions) noexcept nogil:
    """Adds the return to the path's k-th node and action, where no other
    worker writes; with transpositions, also notes the node the action led
    to (the next step's), or that it led to several."""
    cdef uint32_t child
    cdef Node *node = <Node *>(tree.arena + path[k].node)
    cdef ActionStat *stat
    cdef FusedStat *fused_stat
    cdef double value = value0 if node.player == 0 else -value0
    node.visits += 1
    node.value_sum += value
    node.value_sq_sum += value * value
    if node.expanded == FUSED_NODE:
        fused_stat = fused_find(tree, node, path[k].index)
        fused_stat.visits += 1
        fused_stat.value_sum += value
        return
    if path[k].index == FIRST_TRY:
        return
    stat = stats_of(tree, node) + path[k].index
    stat.visits += 1
    stat.value_sum += value
    if transpositions and k + 1 < depth:
        child = <uint32_t>(path[k + 1].node // ARENA_ALIGN + 1)
        if stat.child == 0:
            stat.child = child
        elif stat.child != child:
            stat.child = AMBIGUOUS_CHILD


cdef void back_up_shared(Tree *tree, const PathStep *path, int depth, double value0,
                         const Params *p) noexcept nogil:
    """back_up in a shared tree (which has no fused nodes): atomic adds, and
    each action's virtual loss replaced by the return (its visit was counted
    when it was selected); the worker's own root last, as back_up does.
    Deepest first, so that an action names its child only once the child's
    visit is counted (action_value reads the child). The squared returns are
    summed only where `spread` reads them: each atomic add costs a shared
    cache line."""
    cdef int k
    cdef uint32_t child
    cdef Node *node
    cdef ActionStat *stat
    cdef double value
    for k in range(depth - 1, 0, -1):
        node = <Node *>(tree.arena + path[k].node)
        value = value0 if node.player == 0 else -value0
        xen_atomic_add_u32(&node.visits, 1)
        xen_atomic_add_float(&node.value_sum, <float>value)
        if p.value_scaling == SCALE_SPREAD:
            xen_atomic_add_float(&node.value_sq_sum, <float>(value * value))
        if path[k].index == FIRST_TRY:
            continue
        stat = stats_of(tree, node) + path[k].index
        xen_atomic_add_float(&stat.value_sum, <float>(value + VIRTUAL_LOSS))
        if p.transpositions and k + 1 < depth:
            child = <uint32_t>(path[k + 1].node // ARENA_ALIGN + 1)
            if not xen_compare_swap_u32(&stat.child, 0, child) and stat.child != child:
                stat.child = AMBIGUOUS_CHILD
    if depth > 0:
        back_up_step(tree, path, 0, depth, value0, p.transpositions)

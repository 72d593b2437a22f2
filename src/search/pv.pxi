# The principal line: the most visited actions from a root move on.
# (included by ismcts.pyx: one extension, one compilation unit)

cdef int most_visited(const Tree *tree, const Node *node, const XenCode *legal, int n,
                      XenCode *code) noexcept nogil:
    """Sets `code` to the node's most visited action among `legal` (its n
    actions in this world; the first found on a tie); returns its visits (0:
    none visited)."""
    cdef const ActionStat *stats
    cdef const FusedStat *fused_stats
    cdef int i, best = 0, k = 0
    cdef uint32_t most = 0
    if node.expanded == FUSED_NODE:
        fused_stats = fused_stats_of(tree, node)
        for i in range(n):
            while k < node.n_actions and fused_stats[k].code < legal[i]:
                k += 1
            if k < node.n_actions and fused_stats[k].code == legal[i] \
                    and fused_stats[k].visits > most:
                most = fused_stats[k].visits
                code[0] = legal[i]
        return most
    if not node.expanded:
        code[0] = <XenCode>node.body.first_code
        return node.visits
    stats = stats_of(tree, node)
    for i in range(node.n_actions):
        if stats[i].visits > stats[best].visits:
            best = i
    code[0] = legal[best]
    return stats[best].visits


cdef list principal_line(const XenGameApi *api, const void *tables, const char *root,
                         char *world, Tree *tree, const Params *p, XenCode *legal,
                         int first_code, int length, uint64_t seed):
    """The most visited line after `first_code`, followed in one world
    sampled from the searcher's information (chance sampled too), as
    (player, code, state bytes before the code) triples (Worker.principal_variation)."""
    cdef XenRng rng
    cdef list line = []
    cdef int player, n
    cdef XenCode code = first_code
    cdef Node *node
    xen_rng_seed(&rng, seed)
    memcpy(world, root, api.state_size)
    if p.resample:
        api.resample(tables, world, p.searcher, &rng)
    api.apply(tables, world, code)
    while len(line) < length:
        player = api.current_player(tables, world)
        if player == XEN_TERMINAL:
            break
        if player == XEN_CHANCE:
            code = api.sample_chance(tables, world, &rng)
            line.append((player, code, world[:api.state_size]))
            api.apply(tables, world, code)
            continue
        n = api.legal_actions(tables, world, legal)
        if n == 1:
            code = legal[0]
        else:
            node = tree_find(tree, node_key(api, tables, world, player, key_viewer(p, player),
                                            p.resample, legal, n))
            if node == NULL or most_visited(tree, node, legal, n, &code) == 0:
                break
        line.append((player, code, world[:api.state_size]))
        api.apply(tables, world, code)
    return line

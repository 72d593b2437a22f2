# Proven results in the tree (the `solver` option, Params.solver): an
# action that ends the game at once, in any world that reaches its node,
# ends it the same way in every such world, so its result is proven, not
# estimated (docs/search.md, "Proven results in the tree").
# (included by ismcts.pyx: one extension, one compilation unit)

# ActionStat.prior of an action proven to lose (priors are otherwise in [0, 1])
cdef float LOST_ACTION = -1.0


cdef inline bint is_lost(const ActionStat *stat) noexcept nogil:
    return stat.prior < 0


cdef inline bint skips_lost(const Node *node, const Params *p) noexcept nogil:
    """Selection leaves out the node's proven losses unless all of them are."""
    return p.solver and node.proven != PROVEN_LOSS


cdef void note_proof(const XenGameApi *api, const void *tables, const void *world, Node *node,
                     ActionStat *stats, int n, int index, Local *local,
                     bint at_root) noexcept nogil:
    """After the node's action `index` was applied to `world`: where it ended
    the game at once (no chance outcome and no decision between), the action
    is a proven win or loss for the node's player. A node's key fixes what
    its player sees, the public state included, and both games' results read
    public state only (castle HP and cemeteries, avatar HP and decks), so the
    action ends every world of the node alike. A win proves the node; a
    loss is marked on the action, and the node is a proven loss once all of
    its actions are."""
    cdef double rets[2]
    cdef double value
    cdef int i
    if api.current_player(tables, world) != XEN_TERMINAL:
        return
    api.returns(tables, world, rets)
    value = rets[node.player]
    if value >= 1.0:
        if node.proven != PROVEN_WIN:
            node.proven_index = <uint16_t>index
            xen_store_release8(&node.proven, PROVEN_WIN)
            local.proofs += 1
            if at_root:
                local.root_proven = True
    elif value <= -1.0 and not is_lost(&stats[index]):
        stats[index].prior = LOST_ACTION
        local.proofs += 1
        for i in range(n):
            if not is_lost(&stats[i]):
                return
        if node.proven == PROVEN_NONE:
            node.proven = PROVEN_LOSS

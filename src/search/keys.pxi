# Node keys: whose information set keys a node, with its player and actions.
# (included by ismcts.pyx: one extension, one compilation unit)

cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    # splitmix64's finaliser
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL
    return x ^ (x >> 31)


cdef inline uint64_t node_key(const XenGameApi *api, const void *tables, const void *world,
                              int player, int viewer, int resample, const XenCode *legal,
                              int n) noexcept nogil:
    """The key of the node of `player` to move with these legal actions: the
    information-set key of `viewer` (with `resample`; else the state's hash),
    the player, and the actions. The viewer is the player to move, or, for the
    other player's nodes with OPPONENT_SEARCHER, the searcher: those nodes
    then merge every hidden hand the searcher cannot tell apart (that allows
    the same actions), as single-observer ISMCTS does (Cowling, Powley &
    Whitehouse 2012), instead of splitting by the hand of each sampled world.
    The player's actions follow from what the viewer knows only when the
    viewer is the player; they are in the key so that a node's actions are
    fixed by construction (as restricted root moves are)."""
    cdef uint64_t key, actions = <uint64_t>n
    cdef int i
    if resample:
        key = api.information_set_key(tables, world, viewer)
    else:
        key = api.hash(tables, world)
    for i in range(n):
        actions = (actions ^ legal[i]) * 0x100000001B3ULL
    key ^= mix64(actions + <uint64_t>(player + 1) * 0x9E3779B97F4A7C15ULL)
    # 0 never marks a node (Slot.ref 0 marks an empty slot; keys may be 0 elsewhere)
    return key


cdef inline int key_viewer(const Params *p, int player) noexcept nogil:
    """Whose information set keys the nodes of `player` (node_key)."""
    return p.searcher if p.opponent_nodes != OPPONENT_OWN else player


cdef inline bint fused(const Params *p, int player) noexcept nogil:
    """Whether the nodes of `player` are fused nodes (OPPONENT_FUSED)."""
    return p.opponent_nodes == OPPONENT_FUSED and player != p.searcher

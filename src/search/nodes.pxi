# The tree's memory layout: nodes, their action statistics, the path of a
# descent, the hash table's slots and the tree itself.
# (included by ismcts.pyx: one extension, one compilation unit)

cdef struct ActionStat:
    # a node's statistics are indexed like its (ascending) legal actions, which
    # are part of its key: so they hold no action code, and each action has
    # been available at every visit of the node
    uint32_t visits
    float value_sum        # returns for the node's player, each in [-1, 1]
    uint32_t child         # with transpositions: the node this action led to
                           # (a Slot.ref; 0 not yet seen, AMBIGUOUS_CHILD several)
    float prior            # with priors: this action's prior probability (set_priors)

cdef struct FusedStat:
    # an action of a fused node (OPPONENT_FUSED): its node's actions differ
    # from visit to visit, so each statistic names its action, counts the
    # visits at which it was legal, and the node keeps them sorted by code
    uint32_t visits
    uint32_t available     # visits of the node at which the action was legal
    float value_sum
    uint16_t code
    uint16_t unused


cdef union NodeBody:
    uint32_t first_code    # before expansion: the action tried at the first visit
    uint32_t stats         # after: arena offset / ARENA_ALIGN of the node's n_actions ActionStat

cdef struct Node:
    # Nodes are expanded lazily, as most are visited once: a node's first
    # visits record only the action it tried (`body.first_code`, 24 bytes in
    # all); its second visit gives it an ActionStat per action (`expand`).
    uint64_t key
    uint32_t visits
    float value_sum        # every return backed up through the node, for its player
    float value_sq_sum     # and their squares (the node's spread, for `value_scaling`)
    NodeBody body
    uint16_t n_actions
    uint8_t player
    uint8_t expanded
    # with the solver option (Params.solver): PROVEN_WIN when the action
    # `proven_index` ends the game at once with the node player's win,
    # PROVEN_LOSS when every action ends it at once with their loss (these
    # two fields fill the bytes the fields above left to the 32)
    uint8_t proven
    uint8_t unused
    uint16_t proven_index

cdef struct PathStep:
    size_t node        # byte offset of the node in the arena
    uint32_t index     # index of the chosen action, FIRST_TRY at an unexpanded node,
                       # the action's code at a fused node


cdef struct Slot:
    uint32_t check     # the key's high 32 bits (the slot's index comes from its low bits)
    uint32_t ref       # arena offset / ARENA_ALIGN + 1 of the node; 0: empty


cdef struct Table:
    # an open-addressing table from node key to arena offset (mask + 1 slots)
    Slot *slots
    size_t mask
    Table *older       # a shared tree's earlier tables (see tree_grow)


cdef struct Tree:
    # A search tree: a byte arena of nodes and action statistics, and a
    # Table from node key to arena offset, grown by doubling (load <= 1/2) up
    # to max_slots. A worker's own, or (`shared`) one that several workers
    # grow at once: `lock` then guards the arena and the table's writes, and
    # the table is reached through one pointer, replaced whole when it grows.
    # read at every step of every descent
    char *arena
    size_t arena_size
    Table *table
    size_t max_slots
    bint shared
    # written at each node's creation: kept off the line above, which the
    # workers of a shared tree would otherwise take from each other's cache
    char apart[64]
    size_t arena_used
    size_t n_nodes
    bint full
    int lock


cdef struct Local:
    # one worker's own part of a search: its counts, and in a shared tree the
    # block of arena it allocates from (local_alloc)
    uint64_t transpositions    # new actions whose target was already a node (descended into)
    uint64_t path_steps        # tree steps of all iterations (the mean depth of a descent)
    uint64_t turn_steps        # turns the tree part of all iterations moved on (the mean in turns)
    int most_turns             # the most turns one descent's tree part moved on
    uint64_t proofs            # actions proven a win or a loss (the solver option)
    bint root_proven           # a root action is a proven win: the search may stop
    char *block_next
    char *block_end


cdef enum:
    FIRST_SLOTS = 1024
    ARENA_ALIGN = 8           # every arena block (Node, ActionStat array) is a multiple of 8
    BLOCK_BYTES = 65536       # the arena a shared tree's worker takes at a time (local_alloc)

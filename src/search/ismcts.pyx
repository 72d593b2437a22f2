# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Information-set Monte Carlo tree search over the C game interface.

One search serves both games: it sees a game only through its XenGameApi
(game_api.h), a tables pointer and states as fixed-size byte blocks.

Each iteration samples a world consistent with the searcher's information
(``resample``, or one of the weighted worlds of opponent-move inference,
``xenophon.search.sampler``), then descends a tree whose nodes are keyed by (player to
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
playout policy (``prior_weight``); docs/search.md describes them. The root
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
from libc.math cimport sqrt, log
from cpython.pycapsule cimport PyCapsule_GetPointer

from game_api cimport (XenCode, XenGameApi, XenRng, xen_rng_seed, xen_rng_next, xen_rng_below,
                       xen_rng_unit, XEN_CHANCE, XEN_TERMINAL, XEN_MAX_ACTIONS)

cdef extern from *:
    """
    /* Shared trees (SharedTree): atomic statistics, publication of nodes and a
       spinlock. GCC's and Clang's __atomic builtins; on x86 an acquire load or
       a release store is a plain move, so a private tree pays nothing for them. */
    #include <sched.h>
    #include <stdint.h>
    #include <string.h>
    static inline uint32_t xen_load_acquire(const uint32_t *p) {
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    }
    static inline void xen_store_release(uint32_t *p, uint32_t v) {
        __atomic_store_n(p, v, __ATOMIC_RELEASE);
    }
    static inline uint8_t xen_load_acquire8(const uint8_t *p) {
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    }
    static inline void xen_store_release8(uint8_t *p, uint8_t v) {
        __atomic_store_n(p, v, __ATOMIC_RELEASE);
    }
    static inline void *xen_load_acquire_ptr(void *const *p) {
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    }
    static inline void xen_store_release_ptr(void **p, void *v) {
        __atomic_store_n(p, v, __ATOMIC_RELEASE);
    }
    static inline void xen_atomic_add_u32(uint32_t *p, uint32_t v) {
        __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    }
    static inline void xen_atomic_add_float(float *p, float v) {
        /* a float has no atomic add: compare-and-swap its bits */
        uint32_t old_bits = __atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED), new_bits;
        float value;
        do {
            memcpy(&value, &old_bits, sizeof value);
            value += v;
            memcpy(&new_bits, &value, sizeof value);
        } while (!__atomic_compare_exchange_n((uint32_t *)p, &old_bits, new_bits, 1,
                                              __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    }
    static inline int xen_compare_swap_u32(uint32_t *p, uint32_t expected, uint32_t desired) {
        return __atomic_compare_exchange_n(p, &expected, desired, 0,
                                           __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
    static inline void xen_spin_lock(int *lock) {
        /* held for a few hundred instructions; a holder the system has
           descheduled (more threads than cores) gets the core back by a yield */
        int spins = 0;
        while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE)) {
            while (__atomic_load_n(lock, __ATOMIC_RELAXED)) {
                if (++spins % 1024 == 0) {
                    sched_yield();
                } else {
    #if defined(__x86_64__) || defined(__i386__)
                    __builtin_ia32_pause();
    #endif
                }
            }
        }
    }
    static inline void xen_spin_unlock(int *lock) {
        __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
    }
    """
    uint32_t xen_load_acquire(const uint32_t *p) noexcept nogil
    void xen_store_release(uint32_t *p, uint32_t v) noexcept nogil
    uint8_t xen_load_acquire8(const uint8_t *p) noexcept nogil
    void xen_store_release8(uint8_t *p, uint8_t v) noexcept nogil
    void *xen_load_acquire_ptr(void *const *p) noexcept nogil
    void xen_store_release_ptr(void **p, void *v) noexcept nogil
    void xen_atomic_add_u32(uint32_t *p, uint32_t v) noexcept nogil
    void xen_atomic_add_float(float *p, float v) noexcept nogil
    bint xen_compare_swap_u32(uint32_t *p, uint32_t expected, uint32_t desired) noexcept nogil
    void xen_spin_lock(int *lock) noexcept nogil
    void xen_spin_unlock(int *lock) noexcept nogil


cdef extern from "<time.h>" nogil:
    ctypedef long time_t
    cdef struct timespec:
        time_t tv_sec
        long tv_nsec
    int clock_gettime(int clock_id, timespec *ts)
    int CLOCK_MONOTONIC

cdef enum:
    MAX_PATH = 1024
    TIME_CHECK_EVERY = 16

cdef struct ActionStat:
    # a node's statistics are indexed like its (ascending) legal actions, which
    # are part of its key: so they hold no action code, and each action has
    # been available at every visit of the node
    uint32_t visits
    float value_sum        # returns for the node's player, each in [-1, 1]
    uint32_t child         # with transpositions: the node this action led to
                           # (a Slot.ref; 0 not yet seen, AMBIGUOUS_CHILD several)
    float prior            # with priors: the playout policy's share of this action

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

cdef struct PathStep:
    size_t node        # byte offset of the node in the arena
    uint32_t index     # index of the chosen action, FIRST_TRY at an unexpanded node,
                       # the action's code at a fused node

cdef struct Params:
    int searcher
    int resample
    double c_uct
    int cutoff_turns           # playout turns before the static evaluation; < 0: to the end
    int max_playout_actions
    int uniform                # playouts choose uniformly among the legal actions
    int value_scaling          # SCALE_NONE, SCALE_RANGE or SCALE_SPREAD (select_action)
    int transpositions         # edges use the value of the node they lead to (UCT2), and
                               # a new edge whose target is already a node descends into it
    double prior_weight        # progressive bias: weight of the playout policy's prior (0: off)
    int root_policy            # ROOT_UCT (select_action at the root too), ROOT_HALVING
                               # or ROOT_FORCED
    int opponent_nodes         # OPPONENT_OWN or OPPONENT_SEARCHER (node_key)
    uint64_t root_salt         # mixed into the root's key: a shared tree's worker keeps
                               # a root node of its own (0: a private tree)


cdef enum:
    FIRST_TRY = 0xFFFFFFFF
    AMBIGUOUS_CHILD = 0xFFFFFFFF   # an action that led to different nodes (chance, other worlds)
    PRIOR_SAMPLES = 32             # playout-policy draws that estimate a node's prior
    SCALE_NONE = 0                 # selection on raw returns
    SCALE_RANGE = 1                # on the children's values mapped to [0, 1] at each node
    SCALE_SPREAD = 2               # on returns divided by the node's standard deviation
    ROOT_UCT = 0                   # the root selects like every node
    ROOT_HALVING = 1               # sequential halving over the root's actions (Halving)
    ROOT_FORCED = 2                # UCB1 at the root after each action's least visits
    MAX_ROOT_ACTIONS = 1024        # XEN_MAX_ACTIONS (codes.h), checked when a Worker is made
    OPPONENT_OWN = 0               # a node is keyed by its player's own information set
    OPPONENT_SEARCHER = 1          # the other player's nodes by the searcher's (node_key)
    OPPONENT_FUSED = 2             # by the searcher's, whatever the actions (fused_select)
    FUSED_NODE = 2                 # Node.expanded of a fused node (its body: FusedStat)
    FUSED_LEAST = 8                # the fewest FusedStat a fused node's block holds

# the return a shared tree's worker counts for the action it selects until
# its back-up puts the true one in its place: a loss for the node's player
cdef float VIRTUAL_LOSS = 1.0
# the least spread a node is scaled by (a node whose returns were all equal)
cdef double MIN_SPREAD = 0.05
# ROOT_FORCED: a root action with fewer than sqrt(FORCED_VISITS * N / k) of
# the root's N visits (k actions) is visited before UCB1 chooses: KataGo's
# forced playouts (Wu 2019), sqrt(2 P N), with a uniform prior P = 1 / k
cdef double FORCED_VISITS = 2.0


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef struct Halving:
    # Sequential halving at the root (Karnin, Koren & Somekh 2013; the root
    # of Gumbel MuZero, Danihelka et al. 2022): the budget is cut into
    # ceil(log2 k) rounds of equal shares over the root's k actions; within a
    # round the candidates take the root visits in turn (so at any moment
    # their visits differ by at most one), and when a full cycle ends past
    # the round's share of the budget, the better half by mean value stays.
    # A move that fell behind early is still compared at equal visits, so
    # no move locks in by getting ahead first.
    bint planned               # the budget is known (halving_plan)
    bint started               # the candidates are set (at the search's first iteration)
    int n_left                 # candidates still in: the first n_left entries of `left`
    int rounds                 # halvings the budget is cut for: ceil(log2 k)
    int round                  # halvings done
    int cursor                 # the candidate the next root visit goes to
    bint cycle_done            # every candidate had its visit since the last check
    double planned_iterations  # the search's iteration budget (0: none)
    double planned_seconds     # and time budget (0: none), from `start`
    double start
    unsigned long long done    # iterations of the search so far
    uint16_t left[MAX_ROOT_ACTIONS]       # root action indices, the candidates first
    uint16_t survived[MAX_ROOT_ACTIONS]   # the halvings each root action survived


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
    char *block_next
    char *block_end


cdef enum:
    FIRST_SLOTS = 1024
    ARENA_ALIGN = 8           # every arena block (Node, ActionStat array) is a multiple of 8
    BLOCK_BYTES = 65536       # the arena a shared tree's worker takes at a time (local_alloc)


cdef inline ActionStat *stats_of(const Tree *tree, const Node *node) noexcept nogil:
    return <ActionStat *>(tree.arena + <size_t>node.body.stats * ARENA_ALIGN)


cdef int tree_init(Tree *tree, size_t memory_bytes, bint shared=False) except -1:
    # the table may take up to an eighth of the cap; the arena the rest, up to
    # what a 32-bit slot reference can address
    cdef size_t max_slots = FIRST_SLOTS
    while (max_slots * 2) * sizeof(Slot) * 8 <= memory_bytes:
        max_slots <<= 1
    if memory_bytes < 2 * FIRST_SLOTS * sizeof(Slot) + 1024:
        raise ValueError(f"a memory cap of {memory_bytes} bytes is too small for a search tree")
    tree.max_slots = max_slots
    # a shared tree keeps its older tables (tree_grow): together they are
    # smaller than the last, so the table's share is twice as large
    tree.arena_size = min(memory_bytes - (2 if shared else 1) * max_slots * sizeof(Slot),
                          <size_t>0xFFFFFFFE * ARENA_ALIGN)
    tree.arena = <char *>malloc(tree.arena_size)
    tree.table = table_new(FIRST_SLOTS)
    if tree.arena == NULL or tree.table == NULL:
        tree_free(tree)
        raise MemoryError("cannot allocate the search tree")
    tree.arena_used = 0
    tree.n_nodes = 0
    tree.full = False
    tree.shared = shared
    tree.lock = 0
    return 0


cdef Table *table_new(size_t n_slots) noexcept nogil:
    """An empty table of n_slots (a power of two), or NULL."""
    cdef Table *table = <Table *>malloc(sizeof(Table))
    if table == NULL:
        return NULL
    table.slots = <Slot *>calloc(n_slots, sizeof(Slot))
    if table.slots == NULL:
        free(table)
        return NULL
    table.mask = n_slots - 1
    table.older = NULL
    return table


cdef void table_free(Table *table) noexcept nogil:
    """Frees the table and its older ones."""
    cdef Table *older
    while table != NULL:
        older = table.older
        free(table.slots)
        free(table)
        table = older


cdef void tree_free(Tree *tree) noexcept:
    free(tree.arena)
    table_free(tree.table)
    tree.arena = NULL
    tree.table = NULL


cdef inline size_t tree_bytes(const Tree *tree) noexcept nogil:
    """Bytes in use: the arena's nodes plus the tables as allocated now (a
    shared tree's older ones too)."""
    cdef size_t total = tree.arena_used
    cdef const Table *table = tree.table
    while table != NULL:
        total += (table.mask + 1) * sizeof(Slot)
        table = table.older
    return total


cdef inline Node *node_at(const Tree *tree, uint32_t ref) noexcept nogil:
    return <Node *>(tree.arena + <size_t>(ref - 1) * ARENA_ALIGN)


cdef Node *tree_find(Tree *tree, uint64_t key) noexcept nogil:
    # the acquire loads pair with tree_grow's and slot_insert's releases: a
    # table seen has its slots, and a slot seen filled its check and node
    cdef const Table *table = <const Table *>xen_load_acquire_ptr(<void **>&tree.table)
    cdef size_t slot = key & table.mask
    cdef uint32_t check = <uint32_t>(key >> 32)
    cdef Node *node
    cdef uint32_t ref = xen_load_acquire(&table.slots[slot].ref)
    while ref != 0:
        if table.slots[slot].check == check:
            node = node_at(tree, ref)
            if node.key == key:
                return node
        slot = (slot + 1) & table.mask
        ref = xen_load_acquire(&table.slots[slot].ref)
    return NULL


cdef inline void slot_insert(Slot *slots, size_t mask, uint64_t key, uint32_t ref) noexcept nogil:
    cdef size_t slot = key & mask
    while slots[slot].ref != 0:
        slot = (slot + 1) & mask
    slots[slot].check = <uint32_t>(key >> 32)
    xen_store_release(&slots[slot].ref, ref)     # published last


cdef bint tree_grow(Tree *tree) noexcept nogil:
    """Doubles the table (rehashing every key); False when it may not grow.
    The new table replaces the old one whole, so a lookup reads either. A
    shared tree keeps the old table, as another worker may still be reading
    it (it lacks only the nodes created since, which tree_create looks for
    again under the lock); a private tree frees it."""
    cdef Table *old = tree.table
    cdef Table *table
    cdef size_t i
    if (old.mask + 1) * 2 > tree.max_slots:
        return False
    table = table_new((old.mask + 1) * 2)
    if table == NULL:
        return False
    for i in range(old.mask + 1):
        if old.slots[i].ref != 0:
            slot_insert(table.slots, table.mask, node_at(tree, old.slots[i].ref).key,
                        old.slots[i].ref)
    if tree.shared:
        table.older = old
    xen_store_release_ptr(<void **>&tree.table, table)
    if not tree.shared:
        table_free(old)
    return True


cdef void *tree_alloc(Tree *tree, size_t size) noexcept nogil:
    """`size` bytes (a multiple of ARENA_ALIGN) of arena, or NULL (and the
    tree marked full) when they do not fit."""
    cdef void *block
    if tree.arena_used + size > tree.arena_size:
        tree.full = True
        return NULL
    block = tree.arena + tree.arena_used
    tree.arena_used += size
    return block


cdef inline void tree_lock(Tree *tree) noexcept nogil:
    if tree.shared:
        xen_spin_lock(&tree.lock)


cdef inline void tree_unlock(Tree *tree) noexcept nogil:
    if tree.shared:
        xen_spin_unlock(&tree.lock)


cdef void *local_alloc(Tree *tree, Local *local, size_t size) noexcept nogil:
    """`size` bytes (a multiple of ARENA_ALIGN) for a node or its statistics,
    or NULL when the arena is full. A shared tree's worker takes them from a
    block of its own (refilled from the arena under the lock): the lock is
    seldom taken, and no two workers write nodes on one cache line."""
    cdef size_t take
    cdef char *block
    if not tree.shared:
        return tree_alloc(tree, size)
    if <size_t>(local.block_end - local.block_next) < size:
        take = max(<size_t>BLOCK_BYTES, size)
        xen_spin_lock(&tree.lock)
        block = <char *>tree_alloc(tree, take)
        xen_spin_unlock(&tree.lock)
        if block == NULL:
            return NULL
        local.block_next = block
        local.block_end = block + take
    block = local.block_next
    local.block_next += size
    return block


cdef inline void give_back(Tree *tree, Local *local, void *block) noexcept nogil:
    """Returns the last local_alloc (`block`), unused."""
    if tree.shared:
        local.block_next = <char *>block
    else:
        tree.arena_used = <size_t>(<char *>block - tree.arena)


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
    if p.prior_weight > 0:
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
    a progressive bias prior_weight * prior / (visits + 1). Scaling makes one
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
    for i in range(n):
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


cdef void halving_plan(Halving *h, double iterations, double seconds) noexcept nogil:
    """The budget the rounds divide: iterations and seconds from now (0: none
    of that kind; whichever ends first ends the search)."""
    h.planned_iterations = iterations
    h.planned_seconds = seconds
    h.start = now()
    h.done = 0


cdef void halving_start(Halving *h, int n) noexcept nogil:
    """Every one of the root's n actions a candidate, for ceil(log2 n) rounds."""
    cdef int i
    h.started = True
    h.n_left = n
    h.rounds = 0
    while (1 << h.rounds) < n:
        h.rounds += 1
    h.round = 0
    h.cursor = 0
    h.cycle_done = False
    for i in range(n):
        h.left[i] = i
        h.survived[i] = 0


cdef double halving_progress(const Halving *h) noexcept nogil:
    """The share of the budget used: of the iterations or of the time,
    whichever is further (a time budget's iterations are not known ahead,
    so its rounds are equal shares of the time)."""
    cdef double progress = 0.0
    if h.planned_iterations > 0:
        progress = h.done / h.planned_iterations
    if h.planned_seconds > 0:
        progress = max(progress, (now() - h.start) / h.planned_seconds)
    return progress


cdef void halve(Halving *h, const Tree *tree, const Node *root, const ActionStat *stats,
                bint transpositions) noexcept nogil:
    """Keeps the better half (rounded up) of the candidates by mean value;
    the order of equal values is the actions' order."""
    cdef int i, j
    cdef uint16_t index
    cdef uint32_t confidence
    cdef double value
    cdef double values[MAX_ROOT_ACTIONS]
    for i in range(h.n_left):
        values[i] = action_value(tree, root, &stats[h.left[i]], transpositions, &confidence)
    for i in range(1, h.n_left):           # insertion sort, best first (stable)
        index = h.left[i]
        value = values[i]
        j = i - 1
        while j >= 0 and values[j] < value:
            values[j + 1] = values[j]
            h.left[j + 1] = h.left[j]
            j -= 1
        values[j + 1] = value
        h.left[j + 1] = index
    h.n_left = (h.n_left + 1) // 2
    h.round += 1
    for i in range(h.n_left):
        h.survived[h.left[i]] = h.round
    h.cursor = 0


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


cdef int halving_select(Halving *h, const Tree *tree, const Node *root,
                        const ActionStat *stats, int n, const Params *p) noexcept nogil:
    """The root action this iteration descends through; -1 when n is 0. At the
    end of each full cycle over the candidates, halves them if the round's
    share of the budget is used (every candidate has a visit by then)."""
    cdef int index
    if n == 0:
        return -1
    if not h.started:
        halving_start(h, n)
    elif h.cycle_done:
        h.cycle_done = False
        if h.n_left > 1 and halving_progress(h) * h.rounds >= h.round + 1:
            halve(h, tree, root, stats, p.transpositions)
    index = h.left[h.cursor]
    h.cursor += 1
    if h.cursor == h.n_left:
        h.cursor = 0
        h.cycle_done = True
    return index


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
    cdef int depth = 0, player, n, index, k
    cdef uint32_t step, first_code
    cdef double value0 = 0.0
    cdef double rets[2]
    cdef uint64_t key
    cdef Node *node
    cdef ActionStat *stats
    cdef bint new_leaf, created, tries_first, probing = False
    sample_world(api, tables, root, world, p, worlds, rng)
    while True:
        player = api.current_player(tables, world)
        if player == XEN_TERMINAL:
            api.returns(tables, world, rets)
            value0 = rets[0]
            break
        if player == XEN_CHANCE:
            api.apply(tables, world, api.sample_chance(tables, world, rng))
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
            if depth == 0 and p.root_policy == ROOT_HALVING:
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
        api.apply(tables, world, legal[index])
        if new_leaf:
            if p.transpositions:
                # where the action leads to a node already in the tree (another
                # order of the same actions), the iteration goes on from there
                probing = True
                continue
            value0 = playout(api, tables, world, p, rng)
            break
    local.path_steps += depth
    if tree.shared:
        back_up_shared(tree, path, depth, value0, p)
    else:
        back_up(tree, path, depth, value0, p.transpositions)


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


cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void **block, size_t alignment, size_t size)

cdef enum:
    CACHE_LINE = 64


cdef inline size_t whole_lines(size_t size) noexcept nogil:
    return (size + CACHE_LINE - 1) & ~(<size_t>CACHE_LINE - 1)


cdef class SharedTree:
    """A tree that several Workers grow at once (tree parallelism): pass it
    as their `shared_tree`; each runs in its own thread."""
    cdef Tree tree

    def __cinit__(self, size_t memory_bytes):
        tree_init(&self.tree, memory_bytes, True)

    def __dealloc__(self):
        tree_free(&self.tree)


cdef class Worker:
    """Runs iterations with its own generator and buffers, on its own tree
    or on a SharedTree it grows together with other workers."""
    cdef const XenGameApi *api
    cdef const void *tables
    cdef char *root
    cdef char *world
    cdef PathStep *path
    cdef XenCode *legal
    cdef XenCode *root_allowed
    cdef int n_root_allowed
    cdef Params params
    cdef XenRng rng
    cdef Tree *tree            # own_tree, or the shared_tree's
    cdef Tree own_tree
    cdef Local local
    cdef readonly SharedTree shared_tree
    cdef Worlds worlds
    cdef Halving halving
    cdef readonly unsigned long long iterations
    cdef readonly double seconds
    cdef object keepalive

    def __cinit__(self, api_capsule, tables_capsule, bytes root, int searcher, uint64_t seed,
                  double c_uct, int cutoff_turns, int max_playout_actions, bint resample,
                  size_t memory_bytes, object keepalive=None, object root_moves=None,
                  bint uniform_playouts=False, int value_scaling=SCALE_NONE,
                  bint transpositions=False, double prior_weight=0.0,
                  object worlds=None, object world_weights=None, int root_policy=ROOT_UCT,
                  int opponent_nodes=OPPONENT_OWN, SharedTree shared_tree=None):
        self.api = <const XenGameApi *>PyCapsule_GetPointer(api_capsule, b"xenophon.game_api")
        self.tables = PyCapsule_GetPointer(tables_capsule, b"xenophon.tables")
        if <size_t>len(root) != self.api.state_size:
            raise ValueError(f"a {self.api.name.decode()} state is {self.api.state_size} bytes, "
                             f"got {len(root)}")
        self.keepalive = (api_capsule, tables_capsule, keepalive)
        # The small buffers (root, world, path, legal, root_allowed) share one
        # block of whole cache lines, each buffer starting a line of its own:
        # no other allocation, another worker's above all, shares a line with
        # the ones this worker writes while the two run in parallel.
        cdef size_t state_bytes = whole_lines(self.api.state_size)
        cdef size_t path_bytes = whole_lines(MAX_PATH * sizeof(PathStep))
        cdef size_t legal_bytes = whole_lines(XEN_MAX_ACTIONS * sizeof(XenCode))
        cdef void *block = NULL
        if posix_memalign(&block, CACHE_LINE, 2 * state_bytes + path_bytes + 2 * legal_bytes):
            raise MemoryError("cannot allocate a search worker")
        self.root = <char *>block     # the block's start: __dealloc__ frees it
        self.world = self.root + state_bytes
        self.path = <PathStep *>(self.world + state_bytes)
        self.legal = <XenCode *>(<char *>self.path + path_bytes)
        self.root_allowed = <XenCode *>(<char *>self.legal + legal_bytes)
        memcpy(self.root, <const char *>root, self.api.state_size)
        self._set_worlds(worlds or [], world_weights or [])
        self.n_root_allowed = 0
        if root_moves:
            for code in sorted(set(root_moves))[:XEN_MAX_ACTIONS]:
                self.root_allowed[self.n_root_allowed] = code
                self.n_root_allowed += 1
        self.params.searcher = searcher
        self.params.resample = resample
        self.params.c_uct = c_uct
        self.params.cutoff_turns = cutoff_turns
        self.params.max_playout_actions = max_playout_actions
        self.params.uniform = uniform_playouts
        self.params.value_scaling = value_scaling
        self.params.transpositions = transpositions
        self.params.prior_weight = prior_weight
        if XEN_MAX_ACTIONS > <int>MAX_ROOT_ACTIONS:
            raise ValueError("the halving's tables are smaller than a node's actions")
        self.params.root_policy = root_policy
        self.params.opponent_nodes = opponent_nodes
        self.halving.planned = False
        self.halving.started = False
        xen_rng_seed(&self.rng, seed)
        if shared_tree is not None:
            # a fused node's statistics move as it grows, and each worker's
            # halving would cut the root alone: neither suits a shared tree
            if opponent_nodes == OPPONENT_FUSED or root_policy == ROOT_HALVING:
                raise ValueError("a shared tree takes neither fused opponent nodes "
                                 "nor the halving root policy")
            self.shared_tree = shared_tree
            self.tree = &shared_tree.tree
            # the root is written at every iteration: each worker has its own
            # root node (the searches share everything below it), which keeps
            # the hottest cache lines out of the other's way; their root
            # statistics are summed, as root parallelism's are
            self.params.root_salt = mix64(seed + 1) | 1
        else:
            tree_init(&self.own_tree, memory_bytes)
            self.tree = &self.own_tree
            self.params.root_salt = 0
        self.local.transpositions = 0
        self.local.path_steps = 0
        self.local.block_next = NULL
        self.local.block_end = NULL
        self.iterations = 0
        self.seconds = 0.0

    #: the value_scaling argument's codes, by the name a bot setting uses
    VALUE_SCALINGS = {"none": SCALE_NONE, "range": SCALE_RANGE, "spread": SCALE_SPREAD}
    #: the root_policy argument's codes, by the name a bot setting uses
    ROOT_POLICIES = {"uct": ROOT_UCT, "halving": ROOT_HALVING, "forced": ROOT_FORCED}
    #: the opponent_nodes argument's codes, by the name a bot setting uses
    OPPONENT_NODES = {"own": OPPONENT_OWN, "searcher": OPPONENT_SEARCHER,
                      "fused": OPPONENT_FUSED}

    cdef int _set_worlds(self, list worlds, list weights) except -1:
        """The sampler's worlds (full states of the searcher's information
        set) and their weights; none: each iteration resamples the root."""
        cdef int i
        cdef double total = 0.0
        self.worlds.n = 0
        self.worlds.states = NULL
        self.worlds.cumulative = NULL
        if not worlds:
            return 0
        if len(weights) != len(worlds) or any(not w > 0 for w in weights):
            raise ValueError("each sampled world needs a weight above 0")
        if any(<size_t>len(w) != self.api.state_size for w in worlds):
            raise ValueError(f"a sampled world is not a {self.api.name.decode()} state")
        self.worlds.states = <char *>malloc(len(worlds) * self.api.state_size)
        self.worlds.cumulative = <double *>malloc(len(worlds) * sizeof(double))
        if self.worlds.states == NULL or self.worlds.cumulative == NULL:
            raise MemoryError("cannot allocate the sampled worlds")
        for i in range(len(worlds)):
            memcpy(self.worlds.states + <size_t>i * self.api.state_size,
                   <const char *>worlds[i], self.api.state_size)
            total += weights[i]
            self.worlds.cumulative[i] = total
        self.worlds.n = len(worlds)
        return 0

    def __dealloc__(self):
        free(self.worlds.states)
        free(self.worlds.cumulative)
        tree_free(&self.own_tree)      # the shared tree is its owner's to free
        free(self.root)     # the block of all the small buffers

    def plan(self, unsigned long long iterations, double seconds):
        """The whole budget of the search, from now, when it runs in several
        calls of `run` (the root's halving rounds divide it); otherwise the
        first `run` call's budget is the plan."""
        halving_plan(&self.halving, iterations, max(0.0, seconds))
        self.halving.planned = True

    def run(self, unsigned long long iterations, double time_limit):
        """Iterates until `iterations` (0: no limit) or `time_limit` seconds
        (<= 0: no limit) is reached, without the GIL."""
        cdef double start, deadline
        cdef unsigned long long done = 0
        if not self.halving.planned:
            self.plan(iterations, time_limit)
        with nogil:
            start = now()
            deadline = start + time_limit if time_limit > 0 else 1e300
            while iterations == 0 or done < iterations:
                iterate(self.api, self.tables, self.root, self.world, self.tree, &self.params,
                        &self.rng, self.path, self.legal, self.root_allowed,
                        self.n_root_allowed, &self.worlds, &self.halving, &self.local)
                done += 1
                self.halving.done += 1
                if done % TIME_CHECK_EVERY == 0 and now() >= deadline:
                    break
            self.seconds += now() - start
        self.iterations += done
        return done

    @property
    def nodes(self):
        return self.tree.n_nodes

    @property
    def tree_bytes(self):
        """Bytes the tree uses: its nodes plus its whole hash table."""
        return tree_bytes(self.tree)

    @property
    def transpositions(self):
        """How often a new action led to a node already in the tree, and the
        iteration descended into it (with the transpositions option)."""
        return self.local.transpositions

    @property
    def path_steps(self):
        """Tree steps (a node and its action) of all the iterations so far:
        divided by the iterations, the mean depth a descent reaches."""
        return self.local.path_steps

    @property
    def tree_full(self):
        return bool(self.tree.full)

    def check_tree(self):
        """Problems found in the tree, as lines (none: []): each filled slot's
        node lies in the arena and is found by its key, their number is the
        tree's node count, and each node's and action's returns are within
        one a visit; an expanded node's actions have at most its visits (the
        first tries' carried over, and every later visit once; in a shared
        tree an expansion may miss another worker's first try). For tests;
        not while the tree is being searched."""
        cdef const Table *table = self.tree.table
        cdef size_t i, found = 0
        cdef int k
        cdef Node *node
        cdef ActionStat *stats
        cdef uint64_t stat_visits
        cdef list problems = []
        for i in range(table.mask + 1):
            if table.slots[i].ref == 0:
                continue
            found += 1
            if <size_t>(table.slots[i].ref - 1) * ARENA_ALIGN + sizeof(Node) > \
                    self.tree.arena_used:
                problems.append(f"slot {i}: its node is past the arena's end")
                continue
            node = node_at(self.tree, table.slots[i].ref)
            if tree_find(self.tree, node.key) != node:
                problems.append(f"slot {i}: its node's key finds another node")
            if abs(node.value_sum) > node.visits * 1.001 + 1e-3:
                problems.append(f"slot {i}: returns {node.value_sum} over {node.visits} visits")
            if node.expanded != True:
                continue
            stats = stats_of(self.tree, node)
            stat_visits = 0
            for k in range(node.n_actions):
                stat_visits += stats[k].visits
                if abs(stats[k].value_sum) > stats[k].visits * 1.001 + 1e-3:
                    problems.append(f"slot {i}: action {k} returns {stats[k].value_sum} "
                                    f"over {stats[k].visits} visits")
            if stat_visits > node.visits:
                problems.append(f"slot {i}: actions' visits {stat_visits} exceed the "
                                f"node's {node.visits}")
        if found != self.tree.n_nodes:
            problems.append(f"{found} filled slots for {self.tree.n_nodes} nodes")
        return problems

    def fused_nodes(self):
        """[(player, visits, [(code, visits, available), ...])] of each fused
        node (opponent_nodes=fused), its actions in the order it keeps them."""
        cdef size_t i
        cdef int k
        cdef Node *node
        cdef FusedStat *stats
        cdef list out = []
        cdef const Table *table = self.tree.table
        for i in range(table.mask + 1):
            if table.slots[i].ref == 0:
                continue
            node = node_at(self.tree, table.slots[i].ref)
            if node.expanded != FUSED_NODE:
                continue
            stats = fused_stats_of(self.tree, node)
            out.append((node.player, node.visits,
                        [(stats[k].code, stats[k].visits, stats[k].available)
                         for k in range(node.n_actions)]))
        return out

    def root_statistics(self):
        """[(code, visits, value_sum, halvings)] of the root node for the
        player to move; halvings: the rounds of the root's sequential halving
        the action survived (0 without it)."""
        cdef int player, n
        cdef Node *node
        cdef ActionStat *stats
        memcpy(self.world, self.root, self.api.state_size)
        player = self.api.current_player(self.tables, self.world)
        if player < 0:
            return []
        # the root's actions as the iterations see them (its key includes them)
        n = self.api.legal_actions(self.tables, self.world, self.legal)
        if self.n_root_allowed > 0:
            n = restrict_actions(self.legal, n, self.root_allowed, self.n_root_allowed)
        node = tree_find(self.tree, node_key(self.api, self.tables, self.world, player, player,
                                              self.params.resample, self.legal, n)
                         ^ self.params.root_salt)
        if node == NULL or not node.expanded:
            return []
        stats = stats_of(self.tree, node)
        return [(self.legal[i], stats[i].visits, <double>stats[i].value_sum,
                 self.halving.survived[i] if self.halving.started else 0) for i in range(n)]

    def principal_variation(self, int first_code, int length, uint64_t seed):
        """The most visited line after `first_code`, followed in one world
        sampled from the searcher's information (chance sampled too), as
        (player, code, state bytes before the code) triples."""
        cdef XenRng rng
        cdef list line = []
        cdef int player, n
        cdef XenCode code = first_code
        cdef Node *node
        xen_rng_seed(&rng, seed)
        memcpy(self.world, self.root, self.api.state_size)
        if self.params.resample:
            self.api.resample(self.tables, self.world, self.params.searcher, &rng)
        self.api.apply(self.tables, self.world, code)
        while len(line) < length:
            player = self.api.current_player(self.tables, self.world)
            if player == XEN_TERMINAL:
                break
            if player == XEN_CHANCE:
                code = self.api.sample_chance(self.tables, self.world, &rng)
                line.append((player, code, self.world[:self.api.state_size]))
                self.api.apply(self.tables, self.world, code)
                continue
            n = self.api.legal_actions(self.tables, self.world, self.legal)
            if n == 1:
                code = self.legal[0]
            else:
                node = tree_find(self.tree, node_key(self.api, self.tables, self.world, player,
                                                      key_viewer(&self.params, player),
                                                      self.params.resample, self.legal, n))
                if node == NULL or most_visited(self.tree, node, self.legal, n, &code) == 0:
                    break
            line.append((player, code, self.world[:self.api.state_size]))
            self.api.apply(self.tables, self.world, code)
        return line

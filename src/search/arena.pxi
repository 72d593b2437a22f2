# The tree's arena: its allocation (one worker's own, or a shared tree's
# per-worker blocks), its size and its lock.
# (included by ismcts.pyx: one extension, one compilation unit)

cdef inline ActionStat *stats_of(const Tree *tree, const Node *node) noexcept nogil:
    return <ActionStat *>(tree.arena + <size_t>node.body.stats * ARENA_ALIGN)


cdef inline size_t min_tree_bytes() noexcept nogil:
    """The least memory cap a tree takes: its first table twice over, and room for nodes."""
    return 2 * FIRST_SLOTS * sizeof(Slot) + 1024


#: the least memory one tree takes (the bots' settings refuse smaller shares)
MIN_TREE_BYTES = min_tree_bytes()


cdef int tree_init(Tree *tree, size_t memory_bytes, bint shared=False) except -1:
    # the table may take up to an eighth of the cap; the arena the rest, up to
    # what a 32-bit slot reference can address
    cdef size_t max_slots = FIRST_SLOTS
    while (max_slots * 2) * sizeof(Slot) * 8 <= memory_bytes:
        max_slots <<= 1
    if memory_bytes < min_tree_bytes():
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

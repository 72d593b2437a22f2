# The tree's hash table from node key to arena offset: lookup, insertion
# and growth by doubling.
# (included by ismcts.pyx: one extension, one compilation unit)

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

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Information-set Monte Carlo tree search over the C game interface.

One search serves both games: it sees a game only through its XenGameApi
(game_api.h), a tables pointer and states as fixed-size byte blocks.

Each iteration samples a world consistent with the searcher's information
(``resample``), then descends a tree whose nodes are keyed by (player to
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

With ``resample=False`` the same code is a perfect-information UCT keyed by
the full state hash: the PIMC baseline runs it on sampled worlds, the cheating
reference on the true state.

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
                       XEN_CHANCE, XEN_TERMINAL, XEN_MAX_ACTIONS)

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

cdef struct FirstTry:
    XenCode code           # the action tried at the node's first visit
    float value_sum        # its return (the node has one visit)

cdef union NodeBody:
    FirstTry first         # before expansion
    size_t stats           # after: arena offset of the node's n_actions ActionStat

cdef struct Node:
    # Nodes are expanded lazily, as most are visited once: a node's first
    # visit records only the action it tried (`body.first`, 24 bytes in all);
    # its second visit gives it an ActionStat per action (`expand`).
    uint64_t key
    uint32_t visits
    uint16_t n_actions
    uint8_t player
    uint8_t expanded
    NodeBody body

cdef struct PathStep:
    size_t node        # byte offset of the node in the arena
    uint32_t index     # index of the chosen action, FIRST_TRY at an unexpanded node

cdef struct Params:
    int searcher
    int resample
    double c_uct
    int cutoff_turns           # playout turns before the static evaluation; < 0: to the end
    int max_playout_actions
    int uniform                # playouts choose uniformly among the legal actions


cdef enum:
    FIRST_TRY = 0xFFFFFFFF


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef struct Slot:
    uint32_t check     # the key's high 32 bits (the slot's index comes from its low bits)
    uint32_t ref       # arena offset / ARENA_ALIGN + 1 of the node; 0: empty


cdef struct Tree:
    # One worker's search tree: a byte arena of nodes and action statistics,
    # and an open-addressing table from node key to arena offset, grown by
    # doubling (load <= 1/2) up to max_slots. Single-threaded; one per worker.
    char *arena
    size_t arena_size
    size_t arena_used
    Slot *slots
    size_t mask
    size_t max_slots
    size_t n_nodes
    bint full


cdef enum:
    FIRST_SLOTS = 1024
    ARENA_ALIGN = 8           # every arena block (Node, ActionStat array) is a multiple of 8


cdef inline ActionStat *stats_of(const Tree *tree, const Node *node) noexcept nogil:
    return <ActionStat *>(tree.arena + node.body.stats)


cdef int tree_init(Tree *tree, size_t memory_bytes) except -1:
    # the table may take up to an eighth of the cap; the arena the rest, up to
    # what a 32-bit slot reference can address
    cdef size_t max_slots = FIRST_SLOTS
    while (max_slots * 2) * sizeof(Slot) * 8 <= memory_bytes:
        max_slots <<= 1
    if memory_bytes < 2 * FIRST_SLOTS * sizeof(Slot) + 1024:
        raise ValueError(f"a memory cap of {memory_bytes} bytes is too small for a search tree")
    tree.max_slots = max_slots
    tree.arena_size = min(memory_bytes - max_slots * sizeof(Slot),
                          <size_t>0xFFFFFFFE * ARENA_ALIGN)
    tree.arena = <char *>malloc(tree.arena_size)
    tree.slots = <Slot *>calloc(FIRST_SLOTS, sizeof(Slot))
    if tree.arena == NULL or tree.slots == NULL:
        tree_free(tree)
        raise MemoryError("cannot allocate the search tree")
    tree.mask = FIRST_SLOTS - 1
    tree.arena_used = 0
    tree.n_nodes = 0
    tree.full = False
    return 0


cdef void tree_free(Tree *tree) noexcept:
    free(tree.arena)
    free(tree.slots)
    tree.arena = NULL
    tree.slots = NULL


cdef inline size_t tree_bytes(const Tree *tree) noexcept nogil:
    """Bytes in use: the arena's nodes plus the table as allocated now."""
    return tree.arena_used + (tree.mask + 1) * sizeof(Slot)


cdef inline Node *node_at(const Tree *tree, uint32_t ref) noexcept nogil:
    return <Node *>(tree.arena + <size_t>(ref - 1) * ARENA_ALIGN)


cdef Node *tree_find(Tree *tree, uint64_t key) noexcept nogil:
    cdef size_t slot = key & tree.mask
    cdef uint32_t check = <uint32_t>(key >> 32)
    cdef Node *node
    while tree.slots[slot].ref != 0:
        if tree.slots[slot].check == check:
            node = node_at(tree, tree.slots[slot].ref)
            if node.key == key:
                return node
        slot = (slot + 1) & tree.mask
    return NULL


cdef inline void slot_insert(Slot *slots, size_t mask, uint64_t key, uint32_t ref) noexcept nogil:
    cdef size_t slot = key & mask
    while slots[slot].ref != 0:
        slot = (slot + 1) & mask
    slots[slot].check = <uint32_t>(key >> 32)
    slots[slot].ref = ref


cdef bint tree_grow(Tree *tree) noexcept nogil:
    """Doubles the table (rehashing every key); False when it may not grow."""
    cdef size_t n_slots = (tree.mask + 1) * 2
    cdef size_t i
    cdef Slot *slots
    if n_slots > tree.max_slots:
        return False
    slots = <Slot *>calloc(n_slots, sizeof(Slot))
    if slots == NULL:
        return False
    for i in range(tree.mask + 1):
        if tree.slots[i].ref != 0:
            slot_insert(slots, n_slots - 1, node_at(tree, tree.slots[i].ref).key,
                        tree.slots[i].ref)
    free(tree.slots)
    tree.slots = slots
    tree.mask = n_slots - 1
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


cdef Node *tree_create(Tree *tree, uint64_t key, int player, int n_actions) noexcept nogil:
    """A new, unexpanded node with `n_actions` actions, or NULL when the tree is full."""
    cdef Node *node
    if tree.full:
        return NULL
    if (tree.n_nodes + 1) * 2 > tree.mask + 1 and not tree_grow(tree):
        tree.full = True
        return NULL
    node = <Node *>tree_alloc(tree, sizeof(Node))
    if node == NULL:
        return NULL
    node.key = key
    node.visits = 0
    node.n_actions = n_actions
    node.player = player
    node.expanded = False
    node.body.first.code = 0
    node.body.first.value_sum = 0
    slot_insert(tree.slots, tree.mask, key, <uint32_t>((<char *>node - tree.arena)
                                                      // ARENA_ALIGN + 1))
    tree.n_nodes += 1
    return node


cdef bint tree_expand(Tree *tree, Node *node, const XenCode *legal, int n) noexcept nogil:
    """Gives `node` one ActionStat per action (`legal`, its n_actions actions),
    carrying over the first try's return. False when the arena is full."""
    cdef size_t size = (<size_t>n * sizeof(ActionStat) + ARENA_ALIGN - 1) & ~(
        <size_t>ARENA_ALIGN - 1)
    cdef ActionStat *stats = <ActionStat *>tree_alloc(tree, size)
    cdef FirstTry first = node.body.first
    cdef int i
    if stats == NULL:
        return False
    for i in range(n):
        stats[i].visits = 0
        stats[i].value_sum = 0
        if node.visits > 0 and legal[i] == first.code:
            stats[i].visits = node.visits
            stats[i].value_sum = first.value_sum
    node.body.stats = <size_t>(<char *>stats - tree.arena)
    node.expanded = True
    return True


cdef int most_visited(const Tree *tree, const Node *node, const XenCode *legal,
                      XenCode *code) noexcept nogil:
    """Sets `code` to the node's most visited action (`legal`: its actions; the
    first found on a tie); returns its visits (0: none visited)."""
    cdef const ActionStat *stats
    cdef int i, best = 0
    if not node.expanded:
        code[0] = node.body.first.code
        return node.visits
    stats = stats_of(tree, node)
    for i in range(node.n_actions):
        if stats[i].visits > stats[best].visits:
            best = i
    code[0] = legal[best]
    return stats[best].visits


cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    # splitmix64's finaliser
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL
    return x ^ (x >> 31)


cdef inline uint64_t node_key(const XenGameApi *api, const void *tables, const void *world,
                              int player, int resample, const XenCode *legal,
                              int n) noexcept nogil:
    """The key of the node of `player` to move with these legal actions: the
    player's information-set key (with `resample`; else the state's hash), the
    player, and the actions. The player's actions follow from what they know,
    so the actions split no information set; they are in the key so that a
    node's actions are fixed by construction (as restricted root moves are)."""
    cdef uint64_t key, actions = <uint64_t>n
    cdef int i
    if resample:
        key = api.information_set_key(tables, world, player)
    else:
        key = api.hash(tables, world)
    for i in range(n):
        actions = (actions ^ legal[i]) * 0x100000001B3ULL
    key ^= mix64(actions + <uint64_t>(player + 1) * 0x9E3779B97F4A7C15ULL)
    # 0 never marks a node (Slot.ref 0 marks an empty slot; keys may be 0 elsewhere)
    return key


cdef int select_action(const Node *node, const ActionStat *stats, int n, double c_uct,
                       XenRng *rng) noexcept nogil:
    """UCB1 over the (expanded) node's `n` actions, untried ones first
    (uniformly at random), ties broken at random; -1 when n is 0. Every action
    was available at each of the node's visits, this one included."""
    cdef int i, best = -1, untried = 0, ties = 0
    cdef double score, best_score = -1e300, mean
    cdef double log_available = log(<double>(node.visits + 1))
    for i in range(n):
        if stats[i].visits == 0:
            untried += 1
            # reservoir sampling: uniform among the untried actions
            if xen_rng_below(rng, untried) == 0:
                best = i
        elif untried == 0:
            mean = stats[i].value_sum / stats[i].visits
            score = mean + c_uct * sqrt(log_available / stats[i].visits)
            if score > best_score:
                best_score = score
                best = i
                ties = 1
            elif score == best_score:
                ties += 1
                if xen_rng_below(rng, ties) == 0:
                    best = i
    return best


cdef double playout(const XenGameApi *api, const void *tables, void *world, Params *p,
                    XenRng *rng, XenCode *legal) noexcept nogil:
    """Plays on with the game's playout policy (or uniformly at random, with
    `p.uniform`; `legal` is scratch space); returns the value for player 0.
    Nothing here reads a hash or an information-set key, so the moves skip
    their upkeep (apply_unkeyed): `world` is discarded afterwards."""
    cdef double rets[2]
    cdef int start = api.turn(tables, world)
    cdef int steps = 0, player
    while True:
        player = api.current_player(tables, world)
        if player == XEN_TERMINAL:
            api.returns(tables, world, rets)
            return rets[0]
        if (p.cutoff_turns >= 0 and api.turn(tables, world) - start >= p.cutoff_turns) \
                or steps >= p.max_playout_actions:
            return api.evaluate(tables, world, 0)
        if player == XEN_CHANCE:
            api.apply_unkeyed(tables, world, api.sample_chance(tables, world, rng))
        elif p.uniform:
            api.apply_unkeyed(tables, world,
                              legal[xen_rng_below(rng, api.legal_actions(tables, world, legal))])
        else:
            api.apply_unkeyed(tables, world, api.playout_action(tables, world, rng))
        steps += 1


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


cdef void iterate(const XenGameApi *api, const void *tables, const char *root, char *world,
                  Tree *tree, Params *p, XenRng *rng, PathStep *path, XenCode *legal,
                  const XenCode *root_allowed, int n_root_allowed) noexcept nogil:
    """One iteration: sample a world, descend, expand, play out, back up.
    At the root, only `root_allowed` moves are searched when there are any."""
    cdef int depth = 0, player, n, index, k
    cdef double value0 = 0.0, rets[2]
    cdef uint64_t key
    cdef Node *node
    cdef ActionStat *stats
    cdef bint new_leaf
    memcpy(world, root, api.state_size)
    if p.resample:
        api.resample(tables, world, p.searcher, rng)
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
            value0 = playout(api, tables, world, p, rng, legal)
            break
        key = node_key(api, tables, world, player, p.resample, legal, n)
        node = tree_find(tree, key)
        if node == NULL:
            node = tree_create(tree, key, player, n)
            if node == NULL:
                value0 = playout(api, tables, world, p, rng, legal)
                break
            if depth > 0:
                # a new node records only the action it tries, at random
                node.body.first.code = legal[xen_rng_below(rng, n)]
                path[depth].node = <size_t>(<char *>node - tree.arena)
                path[depth].index = FIRST_TRY
                depth += 1
                api.apply(tables, world, node.body.first.code)
                value0 = playout(api, tables, world, p, rng, legal)
                break
        if not node.expanded and not tree_expand(tree, node, legal, n):
            value0 = playout(api, tables, world, p, rng, legal)     # the tree is full
            break
        stats = stats_of(tree, node)
        index = select_action(node, stats, n, p.c_uct, rng)
        if index < 0:
            value0 = playout(api, tables, world, p, rng, legal)     # no root move allowed
            break
        new_leaf = stats[index].visits == 0
        path[depth].node = <size_t>(<char *>node - tree.arena)
        path[depth].index = index
        depth += 1
        api.apply(tables, world, legal[index])
        if new_leaf:
            value0 = playout(api, tables, world, p, rng, legal)
            break
    for k in range(depth):
        node = <Node *>(tree.arena + path[k].node)
        node.visits += 1
        if path[k].index == FIRST_TRY:
            node.body.first.value_sum += value0 if node.player == 0 else -value0
            continue
        stats = stats_of(tree, node)
        stats[path[k].index].visits += 1
        stats[path[k].index].value_sum += value0 if node.player == 0 else -value0


cdef class Worker:
    """Runs iterations on its own tree with its own generator (no shared state)."""
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
    cdef Tree tree
    cdef readonly unsigned long long iterations
    cdef readonly double seconds
    cdef object keepalive

    def __cinit__(self, api_capsule, tables_capsule, bytes root, int searcher, uint64_t seed,
                  double c_uct, int cutoff_turns, int max_playout_actions, bint resample,
                  size_t memory_bytes, object keepalive=None, object root_moves=None,
                  bint uniform_playouts=False):
        self.api = <const XenGameApi *>PyCapsule_GetPointer(api_capsule, b"xenophon.game_api")
        self.tables = PyCapsule_GetPointer(tables_capsule, b"xenophon.tables")
        if <size_t>len(root) != self.api.state_size:
            raise ValueError(f"a {self.api.name.decode()} state is {self.api.state_size} bytes, "
                             f"got {len(root)}")
        self.keepalive = (api_capsule, tables_capsule, keepalive)
        self.root = <char *>malloc(self.api.state_size)
        self.world = <char *>malloc(self.api.state_size)
        self.path = <PathStep *>malloc(MAX_PATH * sizeof(PathStep))
        self.legal = <XenCode *>malloc(XEN_MAX_ACTIONS * sizeof(XenCode))
        self.root_allowed = <XenCode *>malloc(XEN_MAX_ACTIONS * sizeof(XenCode))
        if not (self.root and self.world and self.path and self.legal and self.root_allowed):
            raise MemoryError("cannot allocate a search worker")
        memcpy(self.root, <const char *>root, self.api.state_size)
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
        xen_rng_seed(&self.rng, seed)
        tree_init(&self.tree, memory_bytes)
        self.iterations = 0
        self.seconds = 0.0

    def __dealloc__(self):
        tree_free(&self.tree)
        free(self.root)
        free(self.world)
        free(self.path)
        free(self.legal)
        free(self.root_allowed)

    def run(self, unsigned long long iterations, double time_limit):
        """Iterates until `iterations` (0: no limit) or `time_limit` seconds
        (<= 0: no limit) is reached, without the GIL."""
        cdef double start, deadline
        cdef unsigned long long done = 0
        with nogil:
            start = now()
            deadline = start + time_limit if time_limit > 0 else 1e300
            while iterations == 0 or done < iterations:
                iterate(self.api, self.tables, self.root, self.world, &self.tree, &self.params,
                        &self.rng, self.path, self.legal, self.root_allowed,
                        self.n_root_allowed)
                done += 1
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
        return tree_bytes(&self.tree)

    @property
    def tree_full(self):
        return bool(self.tree.full)

    def root_statistics(self):
        """[(code, visits, value_sum)] of the root node for the player to move."""
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
        node = tree_find(&self.tree, node_key(self.api, self.tables, self.world, player,
                                              self.params.resample, self.legal, n))
        if node == NULL or not node.expanded:
            return []
        stats = stats_of(&self.tree, node)
        return [(self.legal[i], stats[i].visits, <double>stats[i].value_sum) for i in range(n)]

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
                node = tree_find(&self.tree, node_key(self.api, self.tables, self.world, player,
                                                      self.params.resample, self.legal, n))
                if node == NULL or most_visited(&self.tree, node, self.legal, &code) == 0:
                    break
            line.append((player, code, self.world[:self.api.state_size]))
            self.api.apply(self.tables, self.world, code)
        return line

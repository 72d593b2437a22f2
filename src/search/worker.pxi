# The Python face of the search: SharedTree and Worker.
# (included by ismcts.pyx: one extension, one compilation unit)

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
                  object settings, bint resample, size_t memory_bytes, int cutoff_turns,
                  object keepalive=None, object root_moves=None, object worlds=None,
                  object world_weights=None, SharedTree shared_tree=None):
        """A worker searching `root` for `searcher`, with the tree options and
        playouts of `settings` (a xenophon.search.settings.SearchSettings);
        what belongs to this search alone comes apart: its seed, whether it
        resamples the hidden cards, its share of the memory cap, the cut-off
        for its game, and the restricted root moves, sampled worlds and
        shared tree if any."""
        cdef int root_policy = ROOT_POLICIES[settings.root_rule]
        cdef int opponent_nodes = OPPONENT_NODES[settings.opponent_nodes]
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
        self.params.c_uct = settings.c_uct
        self.params.cutoff_turns = cutoff_turns
        self.params.max_playout_actions = settings.max_playout_actions
        self.params.uniform = settings.uniform_playouts
        self.params.value_scaling = VALUE_SCALINGS[settings.value_scaling]
        self.params.transpositions = settings.transpositions
        self.params.prior_weight = settings.prior_weight
        self.params.net_priors = PRIOR_SOURCES[settings.priors]
        self.params.root_policy = root_policy
        self.params.opponent_nodes = opponent_nodes
        self.params.chance = CHANCE_RULES[settings.chance]
        self.params.chance_salt = mix64(seed ^ 0x5EED5EED5EED5EEDULL)
        # a perfect-information tree (PIMC's worlds) proves results in its
        # world only: proofs are the information-set search's
        self.params.solver = settings.solver and resample
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
        self.local.turn_steps = 0
        self.local.most_turns = 0
        self.local.proofs = 0
        self.local.root_proven = False
        self.local.block_next = NULL
        self.local.block_end = NULL
        self.iterations = 0
        self.seconds = 0.0

    #: the codes of the settings' tree options, by the names the settings use
    VALUE_SCALINGS = VALUE_SCALINGS
    ROOT_POLICIES = ROOT_POLICIES
    OPPONENT_NODES = OPPONENT_NODES
    CHANCE_RULES = CHANCE_RULES
    PRIOR_SOURCES = PRIOR_SOURCES

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
            # a root action proven a win ends the search: the move is found
            while (iterations == 0 or done < iterations) and not self.local.root_proven:
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
    def turn_steps(self):
        """Turns the tree part of all the iterations so far moved on from the
        root's (the game's turn counter at each descent's last tree step):
        divided by the iterations, the mean depth a descent reaches in turns."""
        return self.local.turn_steps

    @property
    def most_turns(self):
        """The most turns one descent's tree part moved on from the root's."""
        return self.local.most_turns

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

    cdef Node *_root_node(self, int *n):
        """The root node (NULL: none yet, or the root is no decision), its
        actions in `self.legal` and their number in `n`."""
        cdef int player
        memcpy(self.world, self.root, self.api.state_size)
        player = self.api.current_player(self.tables, self.world)
        if player < 0:
            return NULL
        # the root's actions as the iterations see them (its key includes them)
        n[0] = self.api.legal_actions(self.tables, self.world, self.legal)
        if self.n_root_allowed > 0:
            n[0] = restrict_actions(self.legal, n[0], self.root_allowed, self.n_root_allowed)
        return tree_find(self.tree, node_key(self.api, self.tables, self.world, player, player,
                                             self.params.resample, self.legal, n[0])
                         ^ self.params.root_salt)

    @property
    def proofs(self):
        """Actions this worker proved a win or a loss (the solver option)."""
        return self.local.proofs

    def proven_root_move(self):
        """The root move proven a win (the solver option), or None."""
        cdef int n = 0
        cdef Node *node = self._root_node(&n)
        if node == NULL or node.proven != PROVEN_WIN:
            return None
        return self.legal[node.proven_index]

    cdef ActionStat *_root_stats(self, int *n):
        """The root node's statistics (NULL: no root, or not expanded yet),
        its actions in `self.legal` and their number in `n`."""
        cdef Node *node = self._root_node(n)
        if node == NULL or not node.expanded:
            return NULL
        return stats_of(self.tree, node)

    def root_statistics(self):
        """[(code, visits, value_sum, halvings)] of the root node for the
        player to move; halvings: the rounds of the root's sequential halving
        the action survived (0 without it)."""
        cdef int n = 0
        cdef ActionStat *stats = self._root_stats(&n)
        if stats == NULL:
            return []
        return [(self.legal[i], stats[i].visits, <double>stats[i].value_sum,
                 self.halving.survived[i] if self.halving.started else 0) for i in range(n)]

    def root_priors(self):
        """[(code, prior)] of the root node's actions (set_priors; all 0
        without prior_weight, empty before the root is expanded)."""
        cdef int n = 0
        cdef ActionStat *stats = self._root_stats(&n)
        if stats == NULL:
            return []
        return [(self.legal[i], <double>stats[i].prior) for i in range(n)]

    def principal_variation(self, int first_code, int length, uint64_t seed):
        """The most visited line after `first_code`, followed in one world
        sampled from the searcher's information (chance sampled too), as
        (player, code, state bytes before the code) triples."""
        return principal_line(self.api, self.tables, self.root, self.world, self.tree,
                              &self.params, self.legal, first_code, length, seed)

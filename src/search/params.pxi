# The search settings as the C search reads them (Params: made from a
# SearchSettings by the Worker), the codes of its options, and its constants.
# (included by ismcts.pyx: one extension, one compilation unit)

cdef enum:
    MAX_PATH = 1024
    TIME_CHECK_EVERY = 16


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
    double prior_weight        # progressive bias: weight of the prior (0: off)
    int net_priors             # the priors from the network's policy head (set_priors),
                               # not the playout policy's draws
    int root_policy            # ROOT_UCT (select_action at the root too), ROOT_HALVING
                               # or ROOT_FORCED
    int opponent_nodes         # OPPONENT_OWN or OPPONENT_SEARCHER (node_key)
    uint64_t root_salt         # mixed into the root's key: a shared tree's worker keeps
                               # a root node of its own (0: a private tree)
    int chance                 # CHANCE_SAMPLED or CHANCE_STRATIFIED (chance.pxi)
    uint64_t chance_salt       # mixed into each action's stratification offset (the seed's)
    int solver                 # proven results: an action that ends the game at once (solve.pxi)


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
    OPPONENT_OWN = 0               # a node is keyed by its player's own information set
    OPPONENT_SEARCHER = 1          # the other player's nodes by the searcher's (node_key)
    OPPONENT_FUSED = 2             # by the searcher's, whatever the actions (fused_select)
    FUSED_NODE = 2                 # Node.expanded of a fused node (its body: FusedStat)
    FUSED_LEAST = 8                # the fewest FusedStat a fused node's block holds
    CHANCE_SAMPLED = 0             # each chance outcome drawn independently
    CHANCE_STRATIFIED = 1          # along the visits of the action before it (chance.pxi)
    PROVEN_NONE = 0                # Node.proven: nothing proven
    PROVEN_WIN = 1                 # an action ends the game at once with the node player's win
    PROVEN_LOSS = 2                # every action ends it at once with their loss

#: the codes of the tree options, by the names a SearchSettings gives them
VALUE_SCALINGS = {"none": SCALE_NONE, "range": SCALE_RANGE, "spread": SCALE_SPREAD}
ROOT_POLICIES = {"uct": ROOT_UCT, "halving": ROOT_HALVING, "forced": ROOT_FORCED}
OPPONENT_NODES = {"own": OPPONENT_OWN, "searcher": OPPONENT_SEARCHER, "fused": OPPONENT_FUSED}
PRIOR_SOURCES = {"playout": False, "net": True}
CHANCE_RULES = {"sampled": CHANCE_SAMPLED, "stratified": CHANCE_STRATIFIED}

# the return a shared tree's worker counts for the action it selects until
# its back-up puts the true one in its place: a loss for the node's player
cdef float VIRTUAL_LOSS = 1.0
# the least spread a node is scaled by (a node whose returns were all equal)
cdef double MIN_SPREAD = 0.05
# ROOT_FORCED: a root action with fewer than sqrt(FORCED_VISITS * N / k) of
# the root's N visits (k actions) is visited before UCB1 chooses: KataGo's
# forced playouts (Wu 2019), sqrt(2 P N), with a uniform prior P = 1 / k
cdef double FORCED_VISITS = 2.0

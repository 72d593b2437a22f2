# Sequential halving at the root (ROOT_HALVING).
# (included by ismcts.pyx: one extension, one compilation unit)

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
    uint16_t left[XEN_MAX_ACTIONS]       # root action indices, the candidates first
    uint16_t survived[XEN_MAX_ACTIONS]   # the halvings each root action survived


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
    cdef double values[XEN_MAX_ACTIONS]
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

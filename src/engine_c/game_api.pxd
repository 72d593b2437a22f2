# Cython declarations of the game-independent C interface (codes.h, game_api.h, rng.h):
# what the search calls, declared only; the contract is explained in game_api.h.
from libc.stdint cimport uint16_t, uint32_t, uint64_t

cdef extern from "codes.h" nogil:
    ctypedef uint16_t XenCode
    int XEN_CHANCE
    int XEN_TERMINAL
    enum: XEN_MAX_ACTIONS      # a constant: it sizes the search's arrays

cdef extern from "rng.h" nogil:
    ctypedef struct XenRng:
        uint64_t s[4]
    void xen_rng_seed(XenRng *rng, uint64_t seed) noexcept nogil
    uint64_t xen_rng_next(XenRng *rng) noexcept nogil
    uint32_t xen_rng_below(XenRng *rng, uint32_t n) noexcept nogil
    double xen_rng_unit(XenRng *rng) noexcept nogil

cdef extern from "game_api.h" nogil:
    # the fields the search uses (the C header has the whole table)
    ctypedef struct XenGameApi:
        const char *name
        size_t state_size
        int (*current_player)(const void *tables, const void *state) noexcept nogil
        int (*legal_actions)(const void *tables, const void *state, XenCode *out) noexcept nogil
        XenCode (*sample_chance)(const void *tables, const void *state, XenRng *rng) noexcept nogil
        void (*apply)(const void *tables, void *state, XenCode code) noexcept nogil
        void (*apply_unkeyed)(const void *tables, void *state, XenCode code) noexcept nogil
        void (*returns)(const void *tables, const void *state, double *out) noexcept nogil
        uint64_t (*hash)(const void *tables, const void *state) noexcept nogil
        uint64_t (*information_set_key)(const void *tables, const void *state, int player) noexcept nogil
        void (*resample)(const void *tables, void *state, int player, XenRng *rng) noexcept nogil
        double (*evaluate)(const void *tables, const void *state, int player) noexcept nogil
        int (*turn)(const void *tables, const void *state) noexcept nogil
        XenCode (*playout_action)(const void *tables, const void *state, XenRng *rng) noexcept nogil
        XenCode (*random_decision)(const void *tables, const void *state, XenRng *rng) noexcept nogil
        double (*playout)(const void *tables, void *state, XenRng *rng, int cutoff_turns,
                          int max_actions, int uniform,
                          double (*evaluate)(const void *, const void *, int) noexcept nogil) noexcept nogil
        int (*policy_logits)(const void *tables, const void *state, int count,
                             const XenCode *codes, double *out) noexcept nogil

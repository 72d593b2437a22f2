# Cython declarations of the Anabasis C core (anabasis.h), for the search:
# `from anabasis cimport *` with src/engine_c on the include path. Every
# function is noexcept nogil: the core never raises and never touches Python.
from libc.stdint cimport int16_t, uint8_t, uint16_t, uint32_t, uint64_t

from game_api cimport XenRng


cdef extern from "anabasis.h" nogil:
    enum:
        ANA_FILES
        ANA_RANKS
        ANA_SQUARES
        ANA_MAX_CARDS
        ANA_MAX_FIELDS
        ANA_SLOTS
        ANA_ROW_SIZE
        ANA_MAX_ACTIONS
        ANA_MAX_OUTCOMES
        ANA_MAX_TURNS
        ANA_NONE
        ANA_CHANCE
        ANA_TERMINAL

    # action kinds (code >> 12)
    enum:
        ANA_END
        ANA_PASS
        ANA_BUY
        ANA_BUY_PLACE
        ANA_PLACE
        ANA_SET
        ANA_MOVE
        ANA_ATTACK
        ANA_READY
        ANA_EVENT
        ANA_EVADE
        ANA_DEAL
        ANA_REVEAL
        ANA_FIELD
        ANA_DRAW
        ANA_STRIKE

    enum:
        ANA_STANDARD
        ANA_EXPERT

    enum:
        ANA_PH_STANDBY1
        ANA_PH_FIELD
        ANA_PH_STANDBY2
        ANA_PH_RESPONSE
        ANA_PH_NULLIFY
        ANA_PH_EVADE
        ANA_PH_CHANCE
        ANA_PH_OVER

    ctypedef struct AnaPlayer:
        uint8_t deck[48]
        uint8_t hand[48]
        uint8_t flow[48]
        uint8_t cemetery[48]
        uint16_t deck_n
        uint16_t hand_n
        uint16_t cem_cards
        int16_t castle_hp
        uint16_t ap
        uint8_t funds
        uint8_t slot[3]
        uint8_t slot_up

    # Plain old data: copy with `=` or memcpy; sizeof(AnaState) bytes.
    ctypedef struct AnaState:
        uint64_t hash
        uint64_t occ[2]
        uint64_t chars
        uint64_t ready
        uint64_t moved
        uint64_t face_down
        AnaPlayer pl[2]
        uint8_t sq_card[42]
        uint8_t sq_damage[42]
        uint16_t sq_bonus[42]
        uint8_t turn
        uint8_t active
        uint8_t stage
        uint8_t outcome

    ctypedef struct AnaUndo:
        pass

    ctypedef struct AnaCardSpec:
        int kind, cost, copies, start_copies, pile
        int hp, atk, hit, crit, keywords
        int ap_income, funds_income
        int effect, amount
        int n_move, n_attack
        const int *move
        const int *attack

    ctypedef struct AnaFieldSpec:
        int duration, effect, amount

    ctypedef struct AnaTables:
        int n_cards
        int n_fields
        int mode
        int castle_hp
        int cemetery_limit

    int ana_tables_init(AnaTables *t, const AnaCardSpec *cards, int n_cards,
                        const AnaFieldSpec *fields, int n_fields, int mode,
                        char *err, size_t err_size) noexcept nogil
    void ana_initial_state(const AnaTables *t, AnaState *s) noexcept nogil
    int ana_current_player(const AnaState *s) noexcept nogil
    int ana_phase(const AnaState *s) noexcept nogil
    int ana_is_chance(const AnaState *s) noexcept nogil
    int ana_is_terminal(const AnaState *s) noexcept nogil
    int ana_legal_actions(const AnaTables *t, const AnaState *s, uint16_t *out) noexcept nogil
    int ana_chance_outcomes(const AnaTables *t, const AnaState *s, uint16_t *codes,
                            uint32_t *weights, uint32_t *total) noexcept nogil
    int ana_is_legal(const AnaTables *t, const AnaState *s, uint16_t code) noexcept nogil
    void ana_apply(const AnaTables *t, AnaState *s, uint16_t code, AnaUndo *u) noexcept nogil
    void ana_undo(const AnaTables *t, AnaState *s, const AnaUndo *u) noexcept nogil
    uint16_t ana_sample_chance(const AnaTables *t, const AnaState *s, XenRng *rng) noexcept nogil
    void ana_returns(const AnaState *s, int *out) noexcept nogil
    uint64_t ana_hash_from_scratch(const AnaTables *t, const AnaState *s) noexcept nogil
    const char *ana_state_check(const AnaTables *t, const AnaState *s) noexcept nogil
    int ana_state_is_ok(const AnaTables *t, const AnaState *s) noexcept nogil
    int ana_cards_conserved(const AnaTables *t, const AnaState *s) noexcept nogil
    uint64_t ana_information_set_key(const AnaTables *t, const AnaState *s, int player) noexcept nogil
    void ana_resample(const AnaTables *t, const AnaState *s, int player, XenRng *rng,
                      AnaState *out) noexcept nogil
    uint64_t ana_random_playout(const AnaTables *t, AnaState *s, XenRng *rng) noexcept nogil
    uint64_t ana_random_games(const AnaTables *t, const AnaState *start, int n_games,
                              uint64_t seed) noexcept nogil
    uint64_t ana_random_actions(const AnaTables *t, const AnaState *start, uint64_t n,
                                uint64_t seed) noexcept nogil
    uint64_t ana_apply_undo_pairs(const AnaTables *t, const AnaState *start, uint64_t n,
                                  uint64_t seed) noexcept nogil
    uint64_t ana_perft(const AnaTables *t, AnaState *s, int depth) noexcept nogil

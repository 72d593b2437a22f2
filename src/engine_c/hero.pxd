# Cython declarations of the Hero rules core (hero.h). Every function is
# noexcept nogil: the core never raises and never touches Python.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t

from game_api cimport XenGameApi, XenRng

cdef extern from "hero.h" nogil:
    enum:
        HERO_MAX_CARDS
        HERO_MAX_EFFECTS
        HERO_SLOTS
        HERO_MAX_ACTIONS
        HERO_TOKEN
        HERO_CHANCE
        HERO_TERMINAL
        HERO_END
        HERO_PASS
        HERO_MOVE
        HERO_DEPLOY
        HERO_PLAY
        HERO_RETAINER
        HERO_ABILITY
        HERO_TARGET
        HERO_ATTACK
        HERO_GUARD
        HERO_DRAW

    ctypedef struct HeroState:
        uint64_t hash
        int32_t hp[2]
        int32_t turn
        uint8_t phase
        uint8_t active
        uint8_t result
        uint8_t hand_n[2]
        uint8_t deck_n[2]

    ctypedef struct HeroUndo:
        HeroState prev

    ctypedef struct HeroTables:
        int n_cards

    const XenGameApi hero_game_api

    void hero_initial_state(const HeroTables *t, HeroState *s) noexcept nogil
    int hero_current_player(const HeroState *s) noexcept nogil
    int hero_is_chance(const HeroState *s) noexcept nogil
    int hero_is_terminal(const HeroState *s) noexcept nogil
    int hero_drawer(const HeroTables *t, const HeroState *s) noexcept nogil
    int hero_legal_actions(const HeroTables *t, const HeroState *s, uint16_t *out) noexcept nogil
    int hero_chance_outcomes(const HeroTables *t, const HeroState *s, uint16_t *codes,
                             uint32_t *weights, uint32_t *total) noexcept nogil
    int hero_is_legal(const HeroTables *t, const HeroState *s, uint16_t code) noexcept nogil
    void hero_apply(const HeroTables *t, HeroState *s, uint16_t code, HeroUndo *u) noexcept nogil
    void hero_undo(const HeroTables *t, HeroState *s, const HeroUndo *u) noexcept nogil
    uint16_t hero_sample_chance(const HeroTables *t, const HeroState *s, XenRng *rng) noexcept nogil
    void hero_returns(const HeroState *s, int *out) noexcept nogil
    uint64_t hero_hash_from_scratch(const HeroTables *t, const HeroState *s) noexcept nogil
    const char *hero_state_check(const HeroTables *t, const HeroState *s) noexcept nogil
    int32_t hero_power(const HeroTables *t, const HeroState *s, int slot) noexcept nogil
    int32_t hero_attack(const HeroTables *t, const HeroState *s, int slot) noexcept nogil
    uint64_t hero_information_set_key(const HeroTables *t, const HeroState *s,
                                      int player) noexcept nogil
    void hero_resample(const HeroTables *t, HeroState *s, int player, XenRng *rng) noexcept nogil
    uint64_t hero_perft(const HeroTables *t, HeroState *s, int depth) noexcept nogil
    uint64_t hero_random_actions(const HeroTables *t, const HeroState *start, uint64_t n,
                                 uint64_t seed) noexcept nogil
    uint64_t hero_apply_undo_pairs(const HeroTables *t, const HeroState *start, uint64_t n,
                                   uint64_t seed) noexcept nogil
    double hero_evaluate(const HeroTables *t, const HeroState *s, int player) noexcept nogil
    uint16_t hero_playout_action(const HeroTables *t, const HeroState *s,
                                 XenRng *rng) noexcept nogil

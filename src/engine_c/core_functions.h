/* core_functions.h - the functions every game's core provides under its
 * prefix P (P_apply, ...), with the same shapes (its GAME/GAME.h), named once
 * for C++ code that drives a core by traits (the bindings, the OpenSpiel
 * bridge); what they must do is the game contract, written in game_api.h.
 * Inside a traits struct, XEN_CORE_FUNCTIONS(ana) declares
 * `static constexpr auto apply = ana_apply;` and so on for each of them.
 */
#ifndef XENOPHON_CORE_FUNCTIONS_H
#define XENOPHON_CORE_FUNCTIONS_H

#define XEN_CORE_FUNCTION(prefix, name) static constexpr auto name = prefix##_##name;

#define XEN_CORE_FUNCTIONS(prefix) \
    XEN_CORE_FUNCTION(prefix, initial_state) \
    XEN_CORE_FUNCTION(prefix, current_player) \
    XEN_CORE_FUNCTION(prefix, is_chance) \
    XEN_CORE_FUNCTION(prefix, is_terminal) \
    XEN_CORE_FUNCTION(prefix, legal_actions) \
    XEN_CORE_FUNCTION(prefix, chance_outcomes) \
    XEN_CORE_FUNCTION(prefix, is_legal) \
    XEN_CORE_FUNCTION(prefix, apply) \
    XEN_CORE_FUNCTION(prefix, undo) \
    XEN_CORE_FUNCTION(prefix, sample_chance) \
    XEN_CORE_FUNCTION(prefix, random_decision) \
    XEN_CORE_FUNCTION(prefix, playout_action) \
    XEN_CORE_FUNCTION(prefix, returns) \
    XEN_CORE_FUNCTION(prefix, hash_from_scratch) \
    XEN_CORE_FUNCTION(prefix, rekey) \
    XEN_CORE_FUNCTION(prefix, state_check) \
    XEN_CORE_FUNCTION(prefix, information_set_key) \
    XEN_CORE_FUNCTION(prefix, information_set_key_from_scratch) \
    XEN_CORE_FUNCTION(prefix, observed_by) \
    XEN_CORE_FUNCTION(prefix, resample) \
    XEN_CORE_FUNCTION(prefix, evaluate) \
    XEN_CORE_FUNCTION(prefix, evaluate_learned) \
    XEN_CORE_FUNCTION(prefix, features) \
    XEN_CORE_FUNCTION(prefix, perft) \
    XEN_CORE_FUNCTION(prefix, random_actions) \
    XEN_CORE_FUNCTION(prefix, random_actions_unkeyed) \
    XEN_CORE_FUNCTION(prefix, apply_undo_pairs) \
    XEN_CORE_FUNCTION(prefix, information_state_tensor) \
    XEN_CORE_FUNCTION(prefix, observation_tensor) \
    XEN_CORE_FUNCTION(prefix, tensor_layout)

#endif

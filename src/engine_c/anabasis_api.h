/* anabasis_api.h - Anabasis for the search: evaluation, playout policy, and
 * the game interface table (anabasis_api.c). */
#ifndef XENOPHON_ANABASIS_API_H
#define XENOPHON_ANABASIS_API_H

#include "anabasis.h"
#include "game_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Static evaluation in [-1, 1] from `player`'s side, public information only. */
double ana_evaluate(const AnaTables *t, const AnaState *s, int player);
/* One decision of the playout policy ("attack-first"). */
uint16_t ana_playout_action(const AnaTables *t, const AnaState *s, XenRng *rng);

extern const XenGameApi anabasis_game_api;

#ifdef __cplusplus
}
#endif

#endif

/* rules_unkeyed.c - Anabasis: ana_apply_unkeyed, the rules of rules.c
 * compiled a second time with setters that only write (zobrist.h,
 * XEN_UNKEYED), for playouts: nothing reads their states' hash or keys. */
#define XEN_UNKEYED
#include "rules.c"

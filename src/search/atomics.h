/* atomics.h - what a shared search tree (ismcts.pyx, SharedTree) needs of
 * atomic operations: statistics added atomically, nodes published with
 * release stores, and a spinlock. GCC's and Clang's __atomic builtins; on
 * x86 an acquire load or a release store is a plain move, so a private tree
 * pays nothing for them. Declared for Cython in atomics.pxi.
 */
#ifndef XENOPHON_SEARCH_ATOMICS_H
#define XENOPHON_SEARCH_ATOMICS_H

#include <sched.h>
#include <stdint.h>
#include <string.h>
static inline uint32_t xen_load_acquire(const uint32_t *p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline void xen_store_release(uint32_t *p, uint32_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
static inline uint8_t xen_load_acquire8(const uint8_t *p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline void xen_store_release8(uint8_t *p, uint8_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
static inline void *xen_load_acquire_ptr(void *const *p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline void xen_store_release_ptr(void **p, void *v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
static inline void xen_atomic_add_u32(uint32_t *p, uint32_t v) {
    __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
static inline void xen_atomic_add_float(float *p, float v) {
    /* a float has no atomic add: compare-and-swap its bits */
    uint32_t old_bits = __atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED), new_bits;
    float value;
    do {
        memcpy(&value, &old_bits, sizeof value);
        value += v;
        memcpy(&new_bits, &value, sizeof value);
    } while (!__atomic_compare_exchange_n((uint32_t *)p, &old_bits, new_bits, 1,
                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}
static inline int xen_compare_swap_u32(uint32_t *p, uint32_t expected, uint32_t desired) {
    return __atomic_compare_exchange_n(p, &expected, desired, 0,
                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
static inline void xen_spin_lock(int *lock) {
    /* held for a few hundred instructions; a holder the system has
       descheduled (more threads than cores) gets the core back by a yield */
    int spins = 0;
    while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(lock, __ATOMIC_RELAXED)) {
            if (++spins % 1024 == 0) {
                sched_yield();
            } else {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
            }
        }
    }
}
static inline void xen_spin_unlock(int *lock) {
    __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

#endif

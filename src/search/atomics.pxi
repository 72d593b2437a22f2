# The atomic operations of a shared tree (atomics.h).
# (included by ismcts.pyx: one extension, one compilation unit)

cdef extern from "atomics.h":
    uint32_t xen_load_acquire(const uint32_t *p) noexcept nogil
    void xen_store_release(uint32_t *p, uint32_t v) noexcept nogil
    uint8_t xen_load_acquire8(const uint8_t *p) noexcept nogil
    void xen_store_release8(uint8_t *p, uint8_t v) noexcept nogil
    void *xen_load_acquire_ptr(void *const *p) noexcept nogil
    void xen_store_release_ptr(void **p, void *v) noexcept nogil
    void xen_atomic_add_u32(uint32_t *p, uint32_t v) noexcept nogil
    void xen_atomic_add_float(float *p, float v) noexcept nogil
    bint xen_compare_swap_u32(uint32_t *p, uint32_t expected, uint32_t desired) noexcept nogil
    void xen_spin_lock(int *lock) noexcept nogil
    void xen_spin_unlock(int *lock) noexcept nogil

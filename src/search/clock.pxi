# The monotonic clock the budgets and the halving rounds read.
# (included by ismcts.pyx: one extension, one compilation unit)

cdef extern from "<time.h>" nogil:
    ctypedef long time_t
    cdef struct timespec:
        time_t tv_sec
        long tv_nsec
    int clock_gettime(int clock_id, timespec *ts)
    int CLOCK_MONOTONIC


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9

/* tensor.h - what both games' tensors share (each game's tensors.c): a
 * writer of float blocks, so that one function per game lays out its
 * information-state tensor, its observation tensor and their layout at once.
 *
 * A seat's tensor is a sequence of named blocks of floats (docs/tensors.md).
 * Each block is either seen (in both tensors) or remembered (only in the
 * information-state tensor): a remembered block holds what the seat knows
 * from the record of the game but cannot see on the table now, such as the
 * cards the opponent bought and has not shown since. The observation tensor
 * is the information-state tensor with its remembered blocks left out.
 *
 * A game's writer calls xen_tensor_block before each block and then writes
 * its floats with xen_tensor_put (one), xen_tensor_claim (a run it fills
 * whole) or xen_tensor_span (a zeroed run it sets some of, each with
 * xen_tensor_set); the last two give NULL when there is nothing to fill.
 * The same calls
 *   - fill a tensor (out != NULL), skipping remembered blocks when
 *     observation is set;
 *   - or only count and name the blocks (out == NULL), for the layout.
 *
 * Marks (the Batch's rows, src/bindings/tensors.hpp): a buffer written again
 * and again with tensors of one kind need not zero its spans each time
 * (most of a tensor's floats: one-hot planes). Its writer is given the
 * buffer's marks through xen_tensor_marks_now: the offsets of the floats
 * the spans set at the previous write; it zeroes those and skips the spans'
 * zeroing, and records this write's. A write that sets more than
 * XEN_TENSOR_MARKS floats in spans leaves the marks invalid: the next write
 * zeroes its spans whole, as a buffer written the first time.
 */
#ifndef XENOPHON_TENSOR_H
#define XENOPHON_TENSOR_H

#include <stddef.h>
#include <string.h>

/* The most blocks a game's tensor may have. */
#define XEN_MAX_TENSOR_BLOCKS 64

typedef struct XenTensorBlock {
    const char *name;
    int offset;     /* in the information-state tensor */
    int size;       /* floats */
    int remembered; /* 1: not in the observation tensor */
} XenTensorBlock;

/* The most floats a write's spans may set and still be recorded. */
#define XEN_TENSOR_MARKS 256

typedef struct XenTensorMarks {
    int valid; /* 1: the buffer holds the last write made with these marks */
    int n;
    int at[XEN_TENSOR_MARKS]; /* offsets of the floats its spans set */
} XenTensorMarks;

#ifdef __cplusplus
extern "C" {
#endif
/* The marks of the buffer the calling thread writes next (NULL: none); one
 * variable for every file that includes this header (weak: merged). */
__attribute__((weak)) __thread XenTensorMarks *xen_tensor_marks_now;
#ifdef __cplusplus
}
#endif

typedef struct XenTensorWriter {
    float *out;      /* NULL: count only */
    int observation; /* 1: leave the remembered blocks out */
    int n;           /* floats written (or counted) so far */
    int full;        /* floats of the information-state tensor so far */
    int skipping;    /* the current block is left out */
    int n_blocks;
    XenTensorBlock *blocks; /* NULL, or XEN_MAX_TENSOR_BLOCKS entries to fill */
    XenTensorMarks *marks;  /* NULL, or the buffer's marks (recorded here) */
    int clean;              /* 1: the spans are zero already (the marks cleared) */
} XenTensorWriter;

static inline XenTensorWriter xen_tensor_writer(float *out, int observation,
                                                XenTensorBlock *blocks) {
    XenTensorMarks *m = out ? xen_tensor_marks_now : NULL;
    XenTensorWriter w = {out, observation, 0, 0, 0, 0, blocks, m, 0};
    if (m) {
        if (m->valid)
            for (int i = 0; i < m->n; i++) out[m->at[i]] = 0.0f;
        w.clean = m->valid;
        m->n = 0;
        m->valid = 1;
    }
    return w;
}

/* Starts the block `name` (a string literal: the layout keeps the pointer). */
static inline void xen_tensor_block(XenTensorWriter *w, const char *name, int remembered) {
    w->skipping = remembered && w->observation;
    if (w->blocks && w->n_blocks < XEN_MAX_TENSOR_BLOCKS) {
        XenTensorBlock *b = &w->blocks[w->n_blocks];
        b->name = name;
        b->offset = w->full;
        b->size = 0;
        b->remembered = remembered;
    }
    w->n_blocks++;
}

/* The next n floats of the current block, for the caller to fill all of;
 * NULL when there is nothing to fill (counting, or a block left out). */
static inline float *xen_tensor_claim(XenTensorWriter *w, int n) {
    if (w->blocks && w->n_blocks <= XEN_MAX_TENSOR_BLOCKS) w->blocks[w->n_blocks - 1].size += n;
    w->full += n;
    if (w->skipping) return NULL;
    float *span = w->out ? w->out + w->n : NULL;
    w->n += n;
    return span;
}

/* The same floats zeroed, for the caller to set some of with xen_tensor_set. */
static inline float *xen_tensor_span(XenTensorWriter *w, int n) {
    float *span = xen_tensor_claim(w, n);
    if (span && !w->clean) memset(span, 0, (size_t)n * sizeof *span);
    return span;
}

/* Float i of a span (of xen_tensor_span) set to 1, and marked. */
static inline void xen_tensor_set(XenTensorWriter *w, float *span, int i) {
    span[i] = 1.0f;
    XenTensorMarks *m = w->marks;
    if (!m) return;
    if (m->n < XEN_TENSOR_MARKS) m->at[m->n++] = (int)(span + i - w->out);
    else m->valid = 0;
}

static inline void xen_tensor_put(XenTensorWriter *w, float v) {
    float *span = xen_tensor_claim(w, 1);
    if (span) *span = v;
}

/* n floats: 1.0 at index `hot` (none when hot is outside 0..n-1). */
static inline void xen_tensor_one_hot(XenTensorWriter *w, int n, int hot) {
    float *span = xen_tensor_span(w, n);
    if (span && hot >= 0 && hot < n) xen_tensor_set(w, span, hot);
}

/* n bytes as floats. */
static inline void xen_tensor_bytes(XenTensorWriter *w, const unsigned char *bytes, int n) {
    float *span = xen_tensor_claim(w, n);
    if (span)
        for (int i = 0; i < n; i++) span[i] = (float)bytes[i];
}

/* A game's three tensor functions (its GAME.h declares them) over its
 * `static void write_tensor(XenTensorWriter *, const T *, const S *, int player)`:
 * P_information_state_tensor, P_observation_tensor (each returning the
 * floats written) and P_tensor_layout (the blocks' count), for prefix P,
 * tables T and state S. */
#define XEN_TENSOR_FUNCTIONS(P, T, S) \
    int P##_information_state_tensor(const T *t, const S *s, int player, float *out) { \
        XenTensorWriter w = xen_tensor_writer(out, 0, NULL); \
        write_tensor(&w, t, s, player); \
        return w.n; \
    } \
    int P##_observation_tensor(const T *t, const S *s, int player, float *out) { \
        XenTensorWriter w = xen_tensor_writer(out, 1, NULL); \
        write_tensor(&w, t, s, player); \
        return w.n; \
    } \
    int P##_tensor_layout(const T *t, XenTensorBlock *blocks) { \
        S s; \
        P##_initial_state(t, &s); \
        XenTensorWriter w = xen_tensor_writer(NULL, 0, blocks); \
        write_tensor(&w, t, &s, 0); \
        return w.n_blocks; \
    }

#endif

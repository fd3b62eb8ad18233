/* ref: the global event heap (a binary min-heap keyed by time, node, class,
 * index, insertion order) and the per-queue packet FIFOs. */
#include <string.h>

#include "ref/ref_int.h"

/* a precedes b. */
static int ev_less(const ref_event_t *a, const ref_event_t *b) {
  if (a->t != b->t) return a->t < b->t;
  if (a->node != b->node) return a->node < b->node;
  if (a->cls != b->cls) return a->cls < b->cls;
  if (a->index != b->index) return a->index < b->index;
  return a->seq < b->seq;
}

void ref_heap_push(ref_heap_t *h, const ref_event_t *e) {
  if (h->n == h->cap) {
    int64_t cap = h->cap ? 2 * h->cap : 1024;
    ref_event_t *ev = realloc(h->ev, (size_t)cap * sizeof *ev);
    REF_CHECK(ev != NULL);
    h->ev = ev;
    h->cap = cap;
  }
  int64_t i = h->n++;
  h->ev[i] = *e;
  h->ev[i].seq = h->next_seq++;
  while (i > 0) { /* sift up */
    int64_t up = (i - 1) / 2;
    if (!ev_less(&h->ev[i], &h->ev[up])) break;
    ref_event_t tmp = h->ev[i];
    h->ev[i] = h->ev[up];
    h->ev[up] = tmp;
    i = up;
  }
}

void ref_heap_pop(ref_heap_t *h, ref_event_t *out) {
  REF_CHECK(h->n > 0);
  *out = h->ev[0];
  h->ev[0] = h->ev[--h->n];
  int64_t i = 0;
  for (;;) { /* sift down */
    int64_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && ev_less(&h->ev[l], &h->ev[m])) m = l;
    if (r < h->n && ev_less(&h->ev[r], &h->ev[m])) m = r;
    if (m == i) break;
    ref_event_t tmp = h->ev[i];
    h->ev[i] = h->ev[m];
    h->ev[m] = tmp;
    i = m;
  }
}

void ref_heap_free(ref_heap_t *h) {
  free(h->ev);
  memset(h, 0, sizeof *h);
}

void ref_fifo_push(ref_fifo_t *f, const ref_pkt_t *p) {
  if (f->len == f->cap) { /* grow, unrolling the ring into the new buffer */
    int64_t cap = f->cap ? 2 * f->cap : 16;
    ref_pkt_t *buf = malloc((size_t)cap * sizeof *buf);
    REF_CHECK(buf != NULL);
    for (int64_t k = 0; k < f->len; k++)
      buf[k] = f->buf[(f->head + k) % f->cap];
    free(f->buf);
    f->buf = buf;
    f->head = 0;
    f->cap = cap;
  }
  f->buf[(f->head + f->len) % f->cap] = *p;
  f->len++;
}

void ref_fifo_pop(ref_fifo_t *f, ref_pkt_t *out) {
  REF_CHECK(f->len > 0);
  *out = f->buf[f->head];
  f->head = (f->head + 1) % f->cap;
  f->len--;
}

void ref_fifo_free(ref_fifo_t *f) {
  free(f->buf);
  memset(f, 0, sizeof *f);
}

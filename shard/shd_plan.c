/* Sharding: the batch cost model, the lower bound, and packing experiments into
 * batches ordered largest first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shd.h"

static double par(const shd_desc_t *d) {
  return d->parallel > 1 ? d->parallel : 1;
}

double shd_lanes(double slots, double contention) {
  double lanes = (slots > 1 ? slots : 1) / (contention > 0 ? contention : 1);
  return lanes > 1 ? lanes : 1;
}

/* What a batch's summed cost is divided by: the device's throughput. */
static double lanes(const shd_desc_t *d) {
  return shd_lanes(d->parallel, d->contention);
}

double shd_batch_cost(const shd_desc_t *d, double sum, double max, int32_t n) {
  double spread = sum / lanes(d);
  return (max > spread ? max : spread) + n * d->exp_overhead + d->batch_overhead;
}

/* Bytes of the budget experiments may use. */
static int64_t room(const shd_desc_t *d) {
  return d->mem_budget - d->batch_mem;
}

double shd_lower_bound(const shd_desc_t *d, const shd_exp_t *e, int32_t n, int32_t ranks) {
  /* The two smallest memories, to know which experiments no other can join. */
  int64_t low1 = INT64_MAX, low2 = INT64_MAX;
  for (int32_t i = 0; i < n; i++)
    if (e[i].mem < low1) {
      low2 = low1;
      low1 = e[i].mem;
    } else if (e[i].mem < low2) {
      low2 = e[i].mem;
    }
  double alone = 0, work = 0, area = 0, mem = 0, largest = 0, serial = 0;
  int32_t shared = 0;
  for (int32_t i = 0; i < n; i++) {
    if (e[i].mem > room(d)) continue;
    double own = shd_batch_cost(d, e[i].cost, e[i].cost, 1) + e[i].serial;
    if (own > largest) largest = own;
    int64_t other = e[i].mem == low1 ? low2 : low1;
    if (d->max_batch == 1 || other > room(d) - e[i].mem) {
      alone += own; /* in a batch of its own: nothing else fits beside it */
      continue;
    }
    shared++;
    serial += e[i].serial;
    work += e[i].cost;
    area += e[i].cost * (double)e[i].mem;
    mem += (double)e[i].mem;
  }
  double total = alone;
  if (shared > 0) {
    double batches = ceil(mem / (double)room(d));
    if (d->max_batch > 0 && ceil((double)shared / d->max_batch) > batches)
      batches = ceil((double)shared / d->max_batch);
    if (batches < 1) batches = 1;
    work /= lanes(d);
    area /= (double)room(d);
    total += (work > area ? work : area) + serial + shared * d->exp_overhead +
             batches * d->batch_overhead;
  }
  double per_rank = total / (ranks > 0 ? ranks : 1);
  return per_rank > largest ? per_rank : largest;
}

/* An experiment or a batch with its sort keys. */
typedef struct sortkey_t {
  double cost;
  int64_t mem;   /* experiments: bytes; batches: unused */
  double serial; /* experiments: s; batches: unused */
  int32_t index; /* experiments: its index; batches: its smallest member */
  int32_t slot;  /* batches: place in plan->batches */
} sortkey_t;

/* Larger cost first, then larger memory, then smaller index: a total order, so
 * the plan does not depend on the sort algorithm. */
static int by_key(const void *pa, const void *pb) {
  const sortkey_t *a = pa, *b = pb;
  if (a->cost != b->cost) return a->cost > b->cost ? -1 : 1;
  if (a->mem != b->mem) return a->mem > b->mem ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static int by_index(const void *pa, const void *pb) {
  int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
  return a < b ? -1 : a > b;
}

/* The batch being filled. */
typedef struct open_t {
  const shd_desc_t *d;
  shd_batch_t *b;
  double sum, max, serial; /* s: its members' costs, and their serial seconds */
  int32_t most;            /* members at most: max_batch, or its share (share_of); 0: any */
} open_t;

static int fits(const open_t *o, const sortkey_t *x) {
  return o->b->mem + x->mem <= o->d->mem_budget && (o->most == 0 || o->b->n < o->most);
}

/* Does x ride free? It must cost no more than the batch's longest member,
 * and: on a GPU of `parallel` slots, take a slot of the last wave that would
 * idle otherwise (a freed slot takes the next experiment, so n experiments
 * run in ceil(n / slots) waves: 439 of the same cost take as long as 528 on
 * 264 slots), where it adds to the batch's time at most its share of the
 * device's throughput, which it costs in any batch (a throughput below the
 * slots does not cut the batch: 64 WebSearch variants took 17.8 s in one
 * batch on an H200, 29.1 s as 62 + 2); with fewer than two slots, fit in the
 * work the batch spreads already. */
static int free_ride(const open_t *o, const sortkey_t *x) {
  if (x->cost > o->max) return 0;
  double slots = par(o->d);
  if (slots >= 2) return o->b->n % (int32_t)slots != 0;
  return (o->sum + x->cost) / lanes(o->d) <= o->max;
}

/* May the batch, with parallel >= 2 slots, open another wave? Where memory
 * will not hold a whole one more (the next largest left, or all of them if
 * fewer), the batch ends at its last whole wave and the next batch takes
 * them: a wave the device runs mostly idle costs as long as a full one
 * (1,024 WebSearch variants in 76 GB of an H100 at 125.6 MB each, with
 * worst-case pools: 605 + 419 took 5 waves of 264, 528 + 496 take 4). */
static int wave_fits(const open_t *o, const sortkey_t *order, int32_t head, int32_t tail) {
  const int32_t slots = (int32_t)par(o->d);
  if (slots < 2 || o->b->n % slots != 0) return 1;
  int64_t mem = o->b->mem;
  for (int32_t i = head; i <= tail && i < head + slots; i++)
    mem += order[i].mem;
  return mem <= o->d->mem_budget;
}

/* The batch's share where memory cuts what is left (left_mem bytes of n_left
 * experiments) into k >= 2 batches that could each run one experiment a SM
 * (half the slots: the engine's lanes of 1): ceil(n_left / k), so that they
 * take one wave each, alike; else 0 (no share). A first batch as large as
 * memory holds would run in lanes of 2, about 1.7 times as long (256
 * WebSearch HPCC variants of 457 MB in 76 GB: 166 + 90, now 128 + 128). */
static int32_t share_of(const shd_desc_t *d, int64_t left_mem, int32_t n_left) {
  const int32_t slots = (int32_t)par(d);
  const int64_t k = (left_mem + room(d) - 1) / room(d);
  const int64_t share = (n_left + k - 1) / (k > 0 ? k : 1);
  return slots >= 2 && k >= 2 && 2 * share <= slots ? (int32_t)share : 0;
}

/* The smaller of two member limits, 0 meaning none. */
static int32_t at_most(int32_t a, int32_t b) {
  return a == 0 ? b : b == 0 || a < b ? a : b;
}

static int32_t add(open_t *o, const sortkey_t *x) {
  o->b->n++;
  o->b->mem += x->mem;
  o->sum += x->cost;
  o->serial += x->serial;
  if (x->cost > o->max) o->max = x->cost;
  o->b->cost = shd_batch_cost(o->d, o->sum, o->max, o->b->n) + o->serial;
  return x->index;
}

static int check(const shd_desc_t *d, const shd_exp_t *e, int32_t n, char *err, size_t errlen) {
  if (d->mem_budget <= 0 || d->batch_mem < 0 || d->batch_mem >= d->mem_budget) {
    snprintf(err, errlen, "shard: mem_budget must be > 0 and above batch_mem");
    return -1;
  }
  if (d->max_batch < 0 || !(d->exp_overhead >= 0) || !(d->batch_overhead >= 0) ||
      !(d->target >= 0) || !isfinite(d->parallel) || !isfinite(d->target) ||
      !isfinite(d->contention) || !isfinite(d->exp_overhead) || !isfinite(d->batch_overhead) ||
      d->ranks < 0) {
    snprintf(err, errlen, "shard: negative or non-finite field in the description");
    return -1;
  }
  for (int32_t i = 0; i < n; i++)
    if (!(e[i].cost >= 0) || !isfinite(e[i].cost) || e[i].mem < 0 || !(e[i].serial >= 0) ||
        !isfinite(e[i].serial)) {
      snprintf(err, errlen, "shard: experiment %d: cost %g s, memory %lld bytes", i, e[i].cost,
               (long long)e[i].mem);
      return -1;
    }
  return 0;
}

int shd_plan(const shd_desc_t *d, const shd_exp_t *e, int32_t n, shd_plan_t *plan, char *err,
             size_t errlen) {
  memset(plan, 0, sizeof *plan);
  if (n < 0 || check(d, e, n, err, errlen)) return -1;
  sortkey_t *order = malloc(((size_t)n + 1) * sizeof *order);
  plan->members = malloc(((size_t)n + 1) * sizeof *plan->members);
  plan->oom = malloc(((size_t)n + 1) * sizeof *plan->oom);
  plan->batches = malloc(((size_t)n + 1) * sizeof *plan->batches);
  if (!order || !plan->members || !plan->oom || !plan->batches) abort();
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++) {
    if (e[i].mem > room(d))
      plan->oom[plan->n_oom++] = i;
    else
      order[m++] =
          (sortkey_t){.cost = e[i].cost, .mem = e[i].mem, .serial = e[i].serial, .index = i};
  }
  qsort(order, (size_t)m, sizeof *order, by_key);
  double lb = shd_lower_bound(d, e, n, d->ranks > 0 ? d->ranks : 1);
  plan->target = d->target > 0 ? d->target : sqrt(2 * lb * d->batch_overhead);
  int32_t head = 0, tail = m - 1, used = 0;
  int64_t left_mem = 0;
  for (int32_t i = 0; i < m; i++)
    left_mem += order[i].mem;
  while (head <= tail) {
    const int32_t share = share_of(d, left_mem, tail - head + 1);
    open_t o = {
        .d = d, .b = &plan->batches[plan->n_batches++], .most = at_most(share, d->max_batch)};
    *o.b = (shd_batch_t){.first = used, .mem = d->batch_mem};
    plan->members[used++] = add(&o, &order[head++]);
    for (;;) {
      /* The next largest, while it fits and, once the GPU is busy, the batch
       * is below the target; then the smallest ones that fit in the time the
       * batch takes anyway. */
      if (head <= tail && fits(&o, &order[head]) && wave_fits(&o, order, head, tail) &&
          (free_ride(&o, &order[head]) || o.b->cost < plan->target))
        plan->members[used++] = add(&o, &order[head++]);
      else if (head <= tail && fits(&o, &order[tail]) && free_ride(&o, &order[tail]))
        plan->members[used++] = add(&o, &order[tail--]);
      else
        break;
    }
    left_mem -= o.b->mem - d->batch_mem;
  }
  /* Members ascending; batches by cost, ties by smallest member. */
  for (int32_t i = 0; i < plan->n_batches; i++) {
    shd_batch_t *bi = &plan->batches[i];
    qsort(plan->members + bi->first, (size_t)bi->n, sizeof(int32_t), by_index);
    /* Its cost again, summed in member order: a function of the set alone. */
    double sum = 0, max = 0, serial = 0;
    for (int32_t k = 0; k < bi->n; k++) {
      double c = e[plan->members[bi->first + k]].cost;
      serial += e[plan->members[bi->first + k]].serial;
      sum += c;
      max = c > max ? c : max;
    }
    bi->cost = shd_batch_cost(d, sum, max, bi->n) + serial;
    order[i] = (sortkey_t){.cost = bi->cost, .index = plan->members[bi->first], .slot = i};
  }
  qsort(order, (size_t)plan->n_batches, sizeof *order, by_key);
  shd_batch_t *sorted = malloc(((size_t)plan->n_batches + 1) * sizeof *sorted);
  if (!sorted) abort();
  for (int32_t i = 0; i < plan->n_batches; i++)
    sorted[i] = plan->batches[order[i].slot];
  free(plan->batches);
  plan->batches = sorted;
  free(order);
  return 0;
}

void shd_plan_free(shd_plan_t *plan) {
  free(plan->batches);
  free(plan->members);
  free(plan->oom);
  memset(plan, 0, sizeof *plan);
}

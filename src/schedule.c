/* schedule.c — pipeline schedules played out pass by pass (schedule.h). */
#include "scale/schedule.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct {
  scale_pp_pass_kind kind;
  int micro, chunk;
} step_ref;

/** Warm-up forwards stage s runs before its first backward, of 'total' virtual microbatches. */
static int warmup(scale_pp_schedule schedule, int p, int v, int s, int total) {
  int w = schedule == SCALE_PP_INTERLEAVED ? 2 * (p - s - 1) + (v - 1) * p : p - s - 1;
  return w < total ? w : total;
}

/** The k-th forward (or backward) of a stage: Megatron's interleaved order when v > 1. */
static step_ref virtual_pass(scale_pp_pass_kind kind, int p, int v, int k) {
  int group = (k / p) % v;
  step_ref r = {kind, k, 0};
  if (v > 1) {
    r.micro = (k / (p * v)) * p + k % p;
    r.chunk = kind == SCALE_PP_FORWARD ? group : v - 1 - group;
  }
  return r;
}

/** The idx-th pass stage s runs (0 <= idx < 2 m v). */
static step_ref nth_pass(scale_pp_schedule schedule, int p, int m, int v, int s, int idx) {
  int total = m * v;
  if (schedule == SCALE_PP_GPIPE)
    return idx < total ? virtual_pass(SCALE_PP_FORWARD, p, v, idx)
                       : virtual_pass(SCALE_PP_BACKWARD, p, v, idx - total);
  int w = warmup(schedule, p, v, s, total);
  if (idx < w) return virtual_pass(SCALE_PP_FORWARD, p, v, idx);
  if (idx >= 2 * total - w) return virtual_pass(SCALE_PP_BACKWARD, p, v, idx - total);
  int j = (idx - w) / 2;
  return (idx - w) % 2 == 0 ? virtual_pass(SCALE_PP_FORWARD, p, v, w + j)
                            : virtual_pass(SCALE_PP_BACKWARD, p, v, j);
}

typedef struct {
  int p, m, v;
  double *f_end, *b_end; /* [micro][virtual stage]: when that pass ended; < 0 not yet */
} play_state;

/** When the input of pass r on stage s is ready; < 0 while it is not. */
static double ready_at(const play_state *st, int s, step_ref r) {
  int vp = st->p * st->v, vs = r.chunk * st->p + s;
  const double *row_f = st->f_end + (size_t)r.micro * vp, *row_b = st->b_end + (size_t)r.micro * vp;
  if (r.kind == SCALE_PP_FORWARD) return vs == 0 ? 0 : row_f[vs - 1];
  return vs == vp - 1 ? row_f[vs] : row_b[vs + 1];
}

static bool valid(scale_pp_schedule schedule, int p, int m, int v, double tf, double tb) {
  if (p < 1 || m < 1 || v < 1 || !(tf > 0) || !(tb > 0) || !isfinite(tf) || !isfinite(tb))
    return false;
  if (v > 1 && schedule != SCALE_PP_INTERLEAVED) return false;
  if (schedule == SCALE_PP_INTERLEAVED && p > 1 && m % p != 0) return false;
  return 2.0 * m * v * p <= SCALE_SCHEDULE_OPS_MAX;
}

/** Runs every stage's next passes whose inputs are ready; returns how many it ran. */
static int advance(play_state *st, scale_pp_schedule schedule, int *next, double *free_s, double tf,
                   double tb, scale_pp_pass *passes, size_t cap, scale_timeline *out) {
  int ran = 0, total = 2 * st->m * st->v, vp = st->p * st->v;
  for (int s = 0; s < st->p; s++) {
    while (next[s] < total) {
      step_ref r = nth_pass(schedule, st->p, st->m, st->v, s, next[s]);
      double ready = ready_at(st, s, r);
      if (ready < 0) break;
      double start = ready > free_s[s] ? ready : free_s[s];
      double dur = (r.kind == SCALE_PP_FORWARD ? tf : tb) / st->v;
      double *end = r.kind == SCALE_PP_FORWARD ? st->f_end : st->b_end;
      end[(size_t)r.micro * vp + r.chunk * st->p + s] = free_s[s] = start + dur;
      if (out->n_passes < cap)
        passes[out->n_passes] = (scale_pp_pass){s, r.micro, r.chunk, r.kind, start, dur};
      out->n_passes++;
      out->busy_s += dur;
      if (start + dur > out->makespan_s) out->makespan_s = start + dur;
      next[s]++;
      ran++;
    }
  }
  return ran;
}

/** Most forward chunks stage 0 has begun and not yet backed through, over v. */
static double peak_in_flight(scale_pp_schedule schedule, int p, int m, int v) {
  int held = 0, peak = 0;
  for (int idx = 0; idx < 2 * m * v; idx++) {
    held += nth_pass(schedule, p, m, v, 0, idx).kind == SCALE_PP_FORWARD ? 1 : -1;
    if (held > peak) peak = held;
  }
  return (double)peak / v;
}

scale_status scale_schedule_play(scale_pp_schedule schedule, int p, int m, int v, double t_fwd_s,
                                 double t_bwd_s, scale_pp_pass *passes, size_t cap,
                                 scale_timeline *out) {
  bool playable =
      schedule == SCALE_PP_1F1B || schedule == SCALE_PP_GPIPE || schedule == SCALE_PP_INTERLEAVED;
  if (!out || (cap && !passes) || !playable || !valid(schedule, p, m, v, t_fwd_s, t_bwd_s))
    return SCALE_ERR_INVALID;
  *out = (scale_timeline){0};
  size_t n = (size_t)m * v * p;
  play_state st = {p, m, v, malloc(n * sizeof(double)), malloc(n * sizeof(double))};
  int *next = calloc((size_t)p, sizeof(int));
  double *free_s = calloc((size_t)p, sizeof(double));
  scale_status status = SCALE_OK;
  if (!st.f_end || !st.b_end || !next || !free_s) status = SCALE_ERR_NOMEM;
  for (size_t i = 0; !status && i < n; i++)
    st.f_end[i] = st.b_end[i] = -1;
  /* Each round runs at least one pass or the order is stuck: 2 m v p rounds at most. */
  for (size_t done = 0; !status && done < 2 * n;) {
    int ran = advance(&st, schedule, next, free_s, t_fwd_s, t_bwd_s, passes, cap, out);
    if (ran == 0) status = SCALE_ERR_INVALID; /* a deadlocked order: a bug, never a hang */
    done += (size_t)ran;
  }
  free(st.f_end);
  free(st.b_end);
  free(next);
  free(free_s);
  if (status) return status;
  out->bubble_frac = (p * out->makespan_s - out->busy_s) / out->busy_s;
  out->peak_in_flight = peak_in_flight(schedule, p, m, v);
  return out->n_passes > cap && cap ? SCALE_ERR_RANGE : SCALE_OK;
}

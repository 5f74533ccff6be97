/* hybrid_grid.c — the design guide against the planners (hybrid_grid.h). */
#include "scale/hybrid_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "scale/training.h"

/* ==== the guide against the planners ======================================================== */

/** The guide's degrees g with the policies of scale plan's pick, priced by scale_train_eval():
 * *ratio its step over the pick's, *fits whether scale plan's memory model holds it. */
static void guide_under_plan(const scale_train_problem *p, const scale_plan_entry *pick,
                             const scale_hybrid_layout *g, double n_chips, double *ratio,
                             bool *fits) {
  scale_layout l = pick->layout;
  l.dp = g->dp, l.fsdp = 1, l.pp = g->pp, l.tp = g->tp, l.cp = g->cp, l.sp = g->tp > 1.0;
  l.n_microbatches = fmax(pick->layout.n_microbatches, g->pp);
  scale_train_layout_map(p->chip, n_chips, &l);
  *ratio = NAN, *fits = false;
  if (!isfinite(g->dp) || scale_train_validate(p, &l, NULL) != SCALE_OK) return;
  scale_train_result r;
  scale_train_eval(p, &l, &r);
  *ratio = r.step_time_s / pick->result.step_time_s;
  *fits = r.fits;
}

/** scale plan's pick for the grid's problem: 1F1B, no FSDP or EP, the calibrated step model. */
static scale_status grid_plan(const scale_hybrid_problem *hp, const scale_step_params *params,
                              scale_train_problem *tp, scale_plan_report *rep, scale_diag *diag) {
  *tp = scale_train_problem_make(hp->model, hp->chip, hp->n_chips, hp->gbs * hp->s, hp->s);
  tp->mfu_counts_attention = true;
  tp->step_params = params;
  scale_plan_opts o = scale_plan_opts_default();
  o.allow[SCALE_TRAIN_DIM_FSDP] = o.allow[SCALE_TRAIN_DIM_EP] = false;
  for (int r = 0; r < SCALE_PP_COUNT; r++)
    o.allow_schedule[r] = r == SCALE_PP_1F1B;
  o.top_k = 1, o.n_threads = 1;
  scale_status st = scale_plan_train(tp, &o, rep, diag);
  if (st == SCALE_OK && rep->n_ranked < 1)
    st = scale_diag_set(diag, SCALE_ERR_INVALID, NULL, 0, "fewer than 1 layouts");
  return st;
}

scale_status scale_hybrid_grid_eval(const scale_hybrid_problem *p, const scale_step_params *params,
                                    scale_plan_report *rep, scale_hybrid_grid_case *out,
                                    scale_diag *diag) {
  memset(out, 0, sizeof *out);
  scale_hybrid_guide_eval(p, &out->guide);
  const scale_hybrid_layout *g = &out->guide.layout, *b = &out->step.layout;
  out->step_ok = scale_plan_hybrid(p, params, &out->step) == SCALE_OK && isfinite(out->step.step_s);
  scale_train_problem tp;
  scale_status st = grid_plan(p, params, &tp, rep, diag);
  if (st != SCALE_OK) return st;
  out->plan = rep->ranked[0].layout;
  const scale_layout *pl = &out->plan;
  out->step_ratio =
      out->step_ok ? scale_plan_hybrid_step_s(p, g, params) / out->step.step_s : (double)NAN;
  guide_under_plan(&tp, &rep->ranked[0], g, p->n_chips, &out->plan_ratio, &out->plan_fits);
  out->same_plan = scale_hybrid_layout_is(g, pl->dp, pl->pp, pl->tp, pl->cp);
  out->same_step = out->step_ok && scale_hybrid_layout_is(g, b->dp, b->pp, b->tp, b->cp);
  out->plan_search = !out->same_plan && out->plan_fits && !(out->plan_ratio > 1.0);
  /* scale plan tries m in {1, 2, 4, 8} without a pipeline, {p, 2p, 4p, 8p} with one */
  double q = fmax(pl->n_microbatches, g->pp) / g->pp;
  out->search_outside = !(q == 1 || q == 2 || q == 4 || q == 8);
  return SCALE_OK;
}

scale_hybrid_grid_tally scale_hybrid_grid_tally_init(void) {
  return (scale_hybrid_grid_tally){.plan_ratio_lo = INFINITY};
}

void scale_hybrid_grid_add(scale_hybrid_grid_tally *t, const scale_hybrid_grid_case *c,
                           double n_chips) {
  if (!c->same_plan && !c->plan_fits) t->plan_memory++;
  if (!c->same_plan && c->plan_fits && c->plan_ratio > 1.0)
    t->plan_speed++, t->plan_ratio_hi = fmax(t->plan_ratio_hi, c->plan_ratio);
  if (c->plan_search) {
    t->plan_search++;
    t->plan_ratio_lo = fmin(t->plan_ratio_lo, c->plan_ratio);
    t->search_outside += c->search_outside;
  }
  if (c->step_ok && !c->same_step) t->step_ratio_hi = fmax(t->step_ratio_hi, c->step_ratio);
  t->n++;
  t->agree_step += c->same_step;
  t->agree_plan += c->same_plan;
  t->plan_tp8 += c->plan.tp == n_chips;
  t->step_tp_small += c->step_ok && c->step.layout.tp <= 2;
  t->tp_bound_plan += c->plan.tp <= c->guide.rule[SCALE_HYBRID_RULE_TP_BOUND].rhs;
}

scale_status scale_hybrid_grid_run(const scale_hybrid_grid_axes *ax, scale_hybrid_grid_case *cases,
                                   scale_hybrid_grid_tally *tally, scale_diag *diag) {
  *tally = scale_hybrid_grid_tally_init();
  if (!ax->models || !ax->chips || !ax->params || !ax->seqs || ax->n_models < 1 ||
      ax->n_kinds < 1 || ax->n_seqs < 1 || !(ax->tokens > 0))
    return scale_diag_set(diag, SCALE_ERR_INVALID, NULL, 0, "grid: an empty axis");
  scale_plan_report *rep = malloc(sizeof *rep);
  if (!rep) return scale_diag_set(diag, SCALE_ERR_NOMEM, NULL, 0, "grid: out of memory");
  scale_status st = SCALE_OK;
  for (int h = 0; h < ax->n_kinds && st == SCALE_OK; h++)
    for (int i = 0; i < ax->n_models && st == SCALE_OK; i++)
      for (int j = 0; j < ax->n_seqs && st == SCALE_OK; j++) {
        double s = ax->seqs[j];
        scale_hybrid_problem p =
            scale_hybrid_paper_problem(ax->models[i], ax->chips[h], ax->tokens / s, s);
        scale_hybrid_grid_case *c = &cases[(h * ax->n_models + i) * ax->n_seqs + j];
        st = scale_hybrid_grid_eval(&p, ax->params[h], rep, c, diag);
        if (st == SCALE_OK) scale_hybrid_grid_add(tally, c, p.n_chips);
      }
  free(rep);
  return st;
}

/* ==== the grid as tables ===================================================================== */

bool scale_hybrid_grid_step_mixes_cp(const scale_hybrid_grid_case *c) {
  const scale_hybrid_layout *b = &c->step.layout;
  return c->step_ok && b->cp > 1 && (b->pp > 1 || b->tp > 1);
}

scale_hybrid_table *scale_hybrid_grid_case_table(const scale_hybrid_grid_case *c,
                                                 scale_hybrid_table *out) {
  const scale_hybrid_layout *g = &c->guide.layout, *b = &c->step.layout;
  out->n = 0;
  scale_hybrid_table_add_layout(out, "guide", g->dp, g->pp, g->tp, g->cp);
  if (c->step_ok) scale_hybrid_table_add_layout(out, "step", b->dp, b->pp, b->tp, b->cp);
  scale_hybrid_table_add_layout(out, "plan", c->plan.dp, c->plan.pp, c->plan.tp, c->plan.cp);
  scale_hybrid_table_add(out, "step_ratio", "guide / step model's best", c->step_ratio, "",
                         SCALE_FMT_PLAIN);
  scale_hybrid_table_add(out, "plan_ratio", "guide / scale plan's pick, as scale plan prices them",
                         c->plan_ratio, "", SCALE_FMT_PLAIN);
  scale_hybrid_table_add_flag(out, "plan_fits", "the guide's degrees fit scale plan's memory model",
                              c->plan_fits);
  return out;
}

scale_hybrid_table *scale_hybrid_grid_tally_table(const scale_hybrid_grid_tally *k,
                                                  scale_hybrid_table *out) {
  const struct {
    const char *key, *label;
    double v;
  } rows[] = {
      {"n", "grid cases", k->n},
      {"agree_step", "guide = step model's best", k->agree_step},
      {"agree_plan", "guide = scale plan's best", k->agree_plan},
      {"plan_tp8", "scale plan picks TP 8", k->plan_tp8},
      {"step_tp_small", "step model's best has TP <= 2", k->step_tp_small},
      {"plan_within_tp_bound", "scale plan's TP within the TP bound", k->tp_bound_plan},
      {"plan_memory", "differ: the guide's degrees do not fit scale plan's memory", k->plan_memory},
      {"plan_speed", "differ: scale plan's pick is faster", k->plan_speed},
      {"plan_search",
       "differ: the guide's degrees, at the pick's microbatch count, are faster but outside "
       "scale plan's counts",
       k->plan_search},
      {"plan_ratio_lo", "guide / plan where the guide's is faster, the least", k->plan_ratio_lo},
      {"plan_ratio_hi", "guide / plan where the pick is faster, the most", k->plan_ratio_hi},
      {"step_ratio_hi", "guide / step model's best, the most", k->step_ratio_hi}};
  out->n = 0;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    scale_hybrid_table_add(out, rows[i].key, rows[i].label, rows[i].v, "", SCALE_FMT_PLAIN);
  return out;
}

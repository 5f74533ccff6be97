/* hybrid_grid.h — chapter 13's grid: the design guide of Amer et al. (arXiv 2602.09109)
 * section 7 against the step model's best over the paper's space (scale_plan_hybrid) and
 * `scale plan`'s pick, problem by problem, and the counts of why they differ.
 *
 * Above plan and hybrid_study (it runs both planners), so neither depends on the other here.
 */
#ifndef SCALE_HYBRID_GRID_H
#define SCALE_HYBRID_GRID_H

#include <stdbool.h>

#include "scale/hybrid.h"
#include "scale/plan.h"
#include "scale/status.h"
#include "scale/step.h"

/** One problem of the grid: the design guide's pick, the step model's best over the paper's
 * space (scale_plan_hybrid) and `scale plan`'s pick, and why they differ. */
typedef struct {
  scale_hybrid_guide guide;      /**< scale_hybrid_guide_eval() of the problem */
  bool step_ok;                  /**< the step model's search kept a layout */
  scale_plan_hybrid_result step; /**< its best (layout NaN unless step_ok) */
  scale_layout plan;             /**< scale plan's pick: 1F1B, neither FSDP nor EP */
  double step_ratio;             /**< the guide's step over the step model's best, both
                                      priced by scale_plan_hybrid_step_s(); NaN unless
                                      step_ok [1] */
  double plan_ratio;             /**< the guide's degrees with the pick's policies (ZeRO,
                                      remat, microbatches, at least one per stage, SP with
                                      TP) over the pick, both priced by scale_train_eval();
                                      NaN where they do not validate [1] */
  bool plan_fits;                /**< scale plan's memory model holds those degrees */
  bool same_step, same_plan;     /**< the guide's degrees equal the best's, the pick's */
  bool plan_search;              /**< they differ, fit and are not slower: scale plan's
                                      microbatch counts miss them */
  bool search_outside;           /**< the guide's microbatches per stage (the pick's count,
                                      at least pp, over pp) are none of the 1, 2, 4, 8
                                      scale plan tries */
} scale_hybrid_grid_case;

/** Evaluates one grid problem into *out; 'rep' is the planner's workspace (holds its report
 * afterwards). scale plan runs on the problem's model, chip, n_chips and gbs s tokens with
 * 'params' as its step model, counting attention in MFU, one thread, top 1.
 *
 * Errors: as scale_plan_train() (diagnostic in *diag); SCALE_ERR_INVALID when it ranks no
 *         layout.
 * Paper:  Amer et al. section 7 (the design guide) against chapter 13's planners.
 */
scale_status scale_hybrid_grid_eval(const scale_hybrid_problem *p, const scale_step_params *params,
                                    scale_plan_report *rep, scale_hybrid_grid_case *out,
                                    scale_diag *diag);

/** The grid's counts over its cases: agreements and why the guide and `scale plan` differ. */
typedef struct {
  int n;                /**< cases */
  int agree_step;       /**< the guide = the step model's best */
  int agree_plan;       /**< the guide = scale plan's pick */
  int plan_tp8;         /**< scale plan picks TP = n_chips */
  int step_tp_small;    /**< the step model's best has TP <= 2 */
  int tp_bound_plan;    /**< scale plan's TP within the guide's TP bound */
  int plan_memory;      /**< differ: the guide's degrees do not fit scale plan's memory */
  int plan_speed;       /**< differ: scale plan's pick is faster */
  int plan_search;      /**< differ: the guide's degrees are faster (plan_search) */
  int search_outside;   /**< of those, the ones outside scale plan's microbatch counts */
  double plan_ratio_lo; /**< least plan_ratio of the plan_search cases (INFINITY: none) [1] */
  double plan_ratio_hi; /**< most plan_ratio of the plan_speed cases (0: none) [1] */
  double step_ratio_hi; /**< most step_ratio where the guide and the best differ (0: none) */
} scale_hybrid_grid_tally;

/** An empty tally (plan_ratio_lo INFINITY, the rest 0). */
scale_hybrid_grid_tally scale_hybrid_grid_tally_init(void);

/** Counts case 'c' into *t. */
void scale_hybrid_grid_add(scale_hybrid_grid_tally *t, const scale_hybrid_grid_case *c,
                           double n_chips);

/** The grid's axes: every model at every sequence length on every kind of chip. */
typedef struct {
  const scale_model *const *models;       /**< models[0..n_models) */
  int n_models;
  const scale_chip *const *chips;         /**< one chip of each kind, chips[0..n_kinds) */
  const scale_step_params *const *params; /**< params[h]: chip h's step model */
  int n_kinds;
  const double *seqs; /**< sequence lengths seqs[0..n_seqs) [tokens] */
  int n_seqs;
  double tokens; /**< tokens a step, the same at every length: gbs = tokens / s [tokens] */
} scale_hybrid_grid_axes;

/** Evaluates every problem of grid 'ax', scale_hybrid_paper_problem() of model i on chip h with
 * a batch of tokens / seqs[j] sequences of seqs[j] tokens under params[h], by
 * scale_hybrid_grid_eval(), into cases[(h * n_models + i) * n_seqs + j] (caller storage for
 * n_kinds x n_models x n_seqs cases), and counts them into *tally on the problem's n_chips.
 *
 * Errors: SCALE_ERR_INVALID (an axis empty or NULL, tokens not positive), SCALE_ERR_NOMEM (the
 *         planner's workspace), else the first case's error of scale_hybrid_grid_eval(), with
 *         the cases before it filled; each in *diag.
 * Paper:  Amer et al. section 7 against chapter 13's planners (its grid: five models, 4K and
 *         32K tokens, 8 Ascend 910B and 8 H100).
 */
scale_status scale_hybrid_grid_run(const scale_hybrid_grid_axes *ax, scale_hybrid_grid_case *cases,
                                   scale_hybrid_grid_tally *tally, scale_diag *diag);

/** Whether the step model's best of case 'c' mixes CP with PP or TP (cp > 1 and pp > 1 or
 * tp > 1); false unless c->step_ok. Chapter 13: at 32K tokens the step model and the guide
 * differ only on such cases. */
bool scale_hybrid_grid_step_mixes_cp(const scale_hybrid_grid_case *c);

/** Fills *out with case 'c' as chapter 13 shows it: the degrees of the guide's pick
 * ("guide.dp" ... "guide.cp"), of the step model's best when c->step_ok ("step.*"), of scale
 * plan's pick ("plan.*"), "step_ratio", "plan_ratio" (plain) and the flag "plan_fits". */
scale_hybrid_table *scale_hybrid_grid_case_table(const scale_hybrid_grid_case *c,
                                                 scale_hybrid_table *out);

/** Fills *out with tally 'k' as chapter 13 shows it, counts and ratios in the tally's order:
 * "n", "agree_step", "agree_plan", "plan_tp8", "step_tp_small", "plan_within_tp_bound"
 * (tp_bound_plan), "plan_memory", "plan_speed", "plan_search", "plan_ratio_lo",
 * "plan_ratio_hi", "step_ratio_hi". */
scale_hybrid_table *scale_hybrid_grid_tally_table(const scale_hybrid_grid_tally *k,
                                                  scale_hybrid_table *out);

#endif

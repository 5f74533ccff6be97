/* A fixture student of chapter 13's decision exercises (check_grade.sh fixture): the other
 * exercises are pristine stubs (NaN); each decision answers as its comment says, so that the
 * grader's ratio credit and its checks of the reply can be checked.
 */
#include <math.h>
#include <stdint.h>

#include "hybrid_parallelism_ex.h"

double ex_hybrid_parallelism_collective_bytes(int64_t a0, int64_t a1, double a2) {
  (void)a0;
  (void)a1;
  (void)a2;
  return NAN;
}

double ex_hybrid_parallelism_tp_fwd_bytes(double a0, double a1, int64_t a2, int64_t a3, double a4) {
  (void)a0;
  (void)a1;
  (void)a2;
  (void)a3;
  (void)a4;
  return NAN;
}

double ex_hybrid_parallelism_cp_fwd_bytes(double a0, double a1, int64_t a2, int64_t a3, int64_t a4, double a5) {
  (void)a0;
  (void)a1;
  (void)a2;
  (void)a3;
  (void)a4;
  (void)a5;
  return NAN;
}

double ex_hybrid_parallelism_ulysses_fwd_bytes(double a0, double a1, int64_t a2, int64_t a3, int64_t a4, int64_t a5, double a6) {
  (void)a0;
  (void)a1;
  (void)a2;
  (void)a3;
  (void)a4;
  (void)a5;
  (void)a6;
  return NAN;
}

double ex_hybrid_parallelism_zero_state_bytes(double a0, int64_t a1, int64_t a2) {
  (void)a0;
  (void)a1;
  (void)a2;
  return NAN;
}

double ex_hybrid_parallelism_strong_overlap_s(double a0, double a1, int64_t a2) {
  (void)a0;
  (void)a1;
  (void)a2;
  return NAN;
}

double ex_hybrid_parallelism_ring_cp_min_block(double a0, double a1, int64_t a2, int64_t a3, double a4) {
  (void)a0;
  (void)a1;
  (void)a2;
  (void)a3;
  (void)a4;
  return NAN;
}

double ex_hybrid_parallelism_mamba_in_proj(int64_t a0, int64_t a1, int64_t a2, int64_t a3, int64_t a4) {
  (void)a0;
  (void)a1;
  (void)a2;
  (void)a3;
  (void)a4;
  return NAN;
}

double ex_hybrid_parallelism_mamba_cp_fwd_bytes(double a0, int64_t a1, int64_t a2, int64_t a3, int64_t a4, int64_t a5, int64_t a6, int64_t a7, double a8) {
  (void)a0;
  (void)a1;
  (void)a2;
  (void)a3;
  (void)a4;
  (void)a5;
  (void)a6;
  (void)a7;
  (void)a8;
  return NAN;
}

double ex_hybrid_parallelism_mfu(double a0, int64_t a1, int64_t a2, double a3, double a4, double a5, double a6, double a7) {
  (void)a0;
  (void)a1;
  (void)a2;
  (void)a3;
  (void)a4;
  (void)a5;
  (void)a6;
  (void)a7;
  return NAN;
}

double ex_hybrid_parallelism_guide_pp_degree(double a0, double a1, double a2, double a3, double a4, int64_t a5) {
  (void)a0;
  (void)a1;
  (void)a2;
  (void)a3;
  (void)a4;
  (void)a5;
  return NAN;
}

double ex_hybrid_parallelism_max_hiding_cp(double a0, double a1, int64_t a2) {
  (void)a0;
  (void)a1;
  (void)a2;
  return NAN;
}

double ex_hybrid_parallelism_guide_tp_degree(double a0, double a1, double a2, double a3, double a4, int64_t a5, int64_t a6) {
  (void)a0;
  (void)a1;
  (void)a2;
  (void)a3;
  (void)a4;
  (void)a5;
  (void)a6;
  return NAN;
}

double ex_hybrid_parallelism_first_split(int a0, double a1, double a2) {
  (void)a0;
  (void)a1;
  (void)a2;
  return NAN;
}

/* Memory of (dp, pp, tp, cp) by the chapter's simple model. */
static double bytes_of(double n, double wg, double opt, double act, double dp, double pp,
                       double tp, double cp) {
  return n / (tp * pp) * (wg + opt / (dp * cp)) + act / (tp * cp);
}

/* The paper's design guide for Mamba: the smallest TP that fits, DP the rest (TP first). The
 * library's step model prefers PP 2 for Mamba-7B at 4K and TP 2 x CP 4 at 32K: partial credit.
 * 'check' = 0 skips the Domain checks (a domain part lost). */
static ex_hybrid_layout guide_tp_first(double n, double wg, double opt, double act, double hbm,
                                       int64_t units, int64_t chips, int check) {
  ex_hybrid_layout none = {0, 0, 0, 0};
  if (check && (!(n > 0) || !(hbm > 0) || units < 1 || chips < 1 || (chips & (chips - 1))))
    return none;
  for (int64_t tp = 1; tp <= chips; tp *= 2)
    if (units % tp == 0 && bytes_of(n, wg, opt, act, (double)(chips / tp), 1, (double)tp, 1) <= hbm)
      return (ex_hybrid_layout){chips / tp, 1, tp, 1};
  return check ? none : (ex_hybrid_layout){1, 1, chips, 1};
}

/* Huge fields: not a layout, no credit. */
ex_hybrid_layout ex_hybrid_parallelism_layout_transformer(double a0, double a1, double a2,
                                                          double a3, double a4, int64_t a5,
                                                          int64_t a6) {
  (void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5; (void)a6;
  return (ex_hybrid_layout){INT64_MAX, INT64_MIN, 1, 1};
}

/* Negative degrees: not a layout, no credit. */
ex_hybrid_layout ex_hybrid_parallelism_layout_long_context(double a0, double a1, double a2,
                                                           double a3, double a4, int64_t a5,
                                                           int64_t a6) {
  (void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5; (void)a6;
  return (ex_hybrid_layout){-8, -1, 1, 1};
}

ex_hybrid_layout ex_hybrid_parallelism_layout_mamba(double a0, double a1, double a2, double a3,
                                                    double a4, int64_t a5, int64_t a6) {
  return guide_tp_first(a0, a1, a2, a3, a4, a5, a6, 1);
}

ex_hybrid_layout ex_hybrid_parallelism_layout_mamba_long(double a0, double a1, double a2,
                                                         double a3, double a4, int64_t a5,
                                                         int64_t a6) {
  return guide_tp_first(a0, a1, a2, a3, a4, a5, a6, 0);
}

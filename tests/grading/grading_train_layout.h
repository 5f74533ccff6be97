/* grading_train_layout.h — decision exercises of chapters 5, 6 and 12: the student picks a
 * training layout (dp, fsdp, tp) for a model, a slice and a batch; the library's
 * scale_train_eval() prices every layout (the book's roofline of chapter 5: compute against
 * each link's collectives, ZeRO-3 FSDP, 1F1B not used: pp = 1, one microbatch, block remat,
 * bf16 with fp32 Adam) and grading_decision.h gives credit by the ratio of step times.
 *
 * Candidates: dp, fsdp, tp powers of two whose product is the slice, tp <= 64, mapped onto the
 * chip by scale_train_layout_map(); one that scale_train_validate() refuses (tp not dividing
 * the heads, more data shards than sequences) or that does not fit in HBM cannot run.
 */
#ifndef SCALE_GRADING_TRAIN_LAYOUT_H
#define SCALE_GRADING_TRAIN_LAYOUT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "grading_decision.h"

#define TRAIN_TP_MAX 64

/** One instance, and the arguments the student gets (checked against the library while
 * recording). */
typedef struct {
  const char *label; /**< "LLaMA 3 70B, 4M tokens on 2048 v5p" */
  const char *chip;  /**< hardware/NAME.ini */
  const char *model; /**< models/NAME.ini */
  int64_t n_chips;
  double batch_tokens;
  double seq_len;
  double n_params; /**< scale_transformer_n_params */
  int64_t n_heads, n_kv_heads;
  double hbm_bytes;             /**< the chip's */
  double critical_batch_tokens; /**< tokens per chip above which FSDP's collectives hide */
} train_instance;

/** The student's function, through the chapter's struct (three int64_t: dp, fsdp, tp). */
typedef void (*train_layout_fn)(const train_instance *in, int64_t out[3]);

static const char *const train_names[] = {"dp", "fsdp", "tp"};

#ifdef GRADING_HAVE_LIBSCALE
#include "scale/hardware.h"
#include "scale/model.h"
#include "scale/training.h"
#include "scale/transformer.h"

/* out[0] step time [s] (NaN: cannot run), out[1] memory per chip [byte] (NaN: invalid),
 * out[2] HBM [byte], out[3] what binds (scale_train_bound: 0 compute, 1 comms, 2 memory). */
static void lib_train_eval(const train_instance *in, const int64_t *l, double out[4]) {
  scale_chip chip;
  scale_model model;
  ck_assert_msg(scale_chip_load(in->chip, &chip, NULL) == SCALE_OK &&
                    scale_model_load(in->model, &model, NULL) == SCALE_OK,
                "grading: cannot load %s or %s", in->chip, in->model);
  double n = (double)in->n_chips;
  scale_train_problem p = scale_train_problem_make(&model, &chip, n, in->batch_tokens, in->seq_len);
  scale_layout layout = scale_layout_default();
  layout.dp = (double)l[0];
  layout.fsdp = (double)l[1];
  layout.tp = (double)l[2];
  layout.sp = l[2] > 1;
  scale_train_layout_map(&chip, n, &layout);
  out[0] = out[1] = out[3] = NAN;
  out[2] = chip.hbm_bytes;
  if (scale_train_validate(&p, &layout, NULL) != SCALE_OK) return;
  scale_train_result r;
  scale_train_eval(&p, &layout, &r);
  out[1] = r.memory_per_chip_bytes;
  out[3] = (double)r.bound;
  if (r.fits) out[0] = r.step_time_s;
}

static double lib_train_value(const train_instance *in, const int64_t *l, int k) {
  double out[4];
  lib_train_eval(in, l, out);
  return out[k];
}

/* While recording: the student's arguments are the library's figures. */
static void lib_train_args(const train_instance *in) {
  scale_chip chip;
  scale_model m;
  ck_assert_msg(scale_chip_load(in->chip, &chip, NULL) == SCALE_OK &&
                    scale_model_load(in->model, &m, NULL) == SCALE_OK,
                "grading: cannot load %s or %s", in->chip, in->model);
  ck_assert_msg(scale_transformer_n_params(&m) == in->n_params && m.n_heads == in->n_heads &&
                    m.n_kv_heads == in->n_kv_heads && chip.hbm_bytes == in->hbm_bytes,
                "grading: %s: the suite's arguments are not the library's (%.17g params, %lld "
                "heads, %lld KV heads, %.17g bytes of HBM)",
                in->label, scale_transformer_n_params(&m), (long long)m.n_heads,
                (long long)m.n_kv_heads, chip.hbm_bytes);
}
#define LIB_TRAIN(in, l, k) GRADE_LIB(lib_train_value(in, l, k))
#else
#define LIB_TRAIN(in, l, k) GRADE_LIB(0.0)
static void lib_train_args(const train_instance *in) { (void)in; }
#endif

static void train_explain(const grade_candidate *c, char *out, size_t size) {
  if (isnan(c->detail[0]))
    snprintf(out, size,
             "not a valid layout: TP must divide the heads, data shards at most "
             "the sequences");
  else if (c->detail[0] > c->detail[1])
    snprintf(out, size, "%.3g GB per chip > its HBM", c->detail[0] / 1e9);
  else
    snprintf(out, size, "%.3g GB per chip, %s", c->detail[0] / 1e9,
             c->detail[2] == 1.0 ? "comms-bound: a link's collectives outlast the matmuls"
                                 : "compute-bound");
}

/* The candidates of 'in' with their stored costs; returns how many. */
static size_t train_candidates(const train_instance *in, grade_candidate *c) {
  if (grading_recording()) lib_train_args(in);
  size_t n = 0;
  for (int64_t tp = 1; tp <= in->n_chips && tp <= TRAIN_TP_MAX; tp *= 2)
    for (int64_t fsdp = 1; tp * fsdp <= in->n_chips && n < GRADE_MAX_CANDIDATES; fsdp *= 2) {
      grade_candidate *k = &c[n++];
      memset(k, 0, sizeof *k);
      int64_t l[3] = {in->n_chips / (tp * fsdp), fsdp, tp};
      memcpy(k->fields, l, sizeof l);
      k->cost = LIB_TRAIN(in, l, 0);
      k->detail[0] = LIB_TRAIN(in, l, 1);
      k->detail[1] = LIB_TRAIN(in, l, 2);
      k->detail[2] = LIB_TRAIN(in, l, 3);
    }
  return n;
}

static int train_is_none(const int64_t *l) { return l[0] == 0 && l[1] == 0 && l[2] == 0; }

/* Grades 'fn' named 'name' on 'feasible' (ratio credit), on 'none_case' where no layout runs,
 * and on arguments outside the Domain (domain checks: the none layout). */
static void grade_train_layouts(train_layout_fn fn, const char *name,
                                const train_instance *feasible, size_t n_feasible,
                                const train_instance *none_case) {
  grade_credit_sum sum = {0};
  static grade_candidate cands[GRADE_MAX_CANDIDATES];
  int64_t got[3];
  char why[768], message[512];
  for (size_t i = 0; i < n_feasible; i++) {
    size_t n = train_candidates(&feasible[i], cands);
    fn(&feasible[i], got);
    char label[192];
    snprintf(label, sizeof label, "%s %s", name, feasible[i].label);
    grade_decision d = {label, 3, train_names, "s", train_explain};
    grade_credit_add(&sum, grade_decision_credit(&d, cands, n, got, why, sizeof why), why);
  }
  size_t n = train_candidates(none_case, cands);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(!isfinite(cands[i].cost), "grading: %s: a layout runs", none_case->label);
  fn(none_case, got);
  if (!train_is_none(got)) {
    snprintf(message, sizeof message,
             "%s(%s) = dp %lld fsdp %lld tp %lld, expected the none layout (all 0): no layout "
             "runs",
             name, none_case->label, (long long)got[0], (long long)got[1], (long long)got[2]);
    grading_case_failed(1, message);
  }
  /* Outside the Domain: 12 chips (not a power of two), no HBM, a NaN batch. */
  train_instance bad[3] = {feasible[0], feasible[0], feasible[0]};
  bad[0].n_chips = 12;
  bad[1].hbm_bytes = 0.0;
  bad[2].batch_tokens = NAN;
  static const char *const what[3] = {"n_chips = 12", "hbm_bytes = 0", "batch_tokens = NaN"};
  for (int i = 0; i < 3; i++) {
    fn(&bad[i], got);
    if (!train_is_none(got)) {
      snprintf(message, sizeof message,
               "%s(%s with %s) = dp %lld fsdp %lld tp %lld, expected the none layout (outside "
               "the Domain)",
               name, bad[i].label, what[i], (long long)got[0], (long long)got[1],
               (long long)got[2]);
      grading_case_failed(1, message);
    }
  }
  grade_credit_end(&sum);
}

#endif

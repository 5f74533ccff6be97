/* test_schedule.c — pipeline schedules played pass by pass (schedule.h) against hand-derived
 * makespans and against pipeline.h's closed forms, which the two derive independently: the
 * closed forms from the schedule's shape, the timeline from the passes' dependencies alone.
 */
#include <math.h>
#include <stdlib.h>

#include "scale/pipeline.h"
#include "scale/schedule.h"
#include "scale_check.h"

#define EXACT 1e-12

static scale_pp_pass passes[4096];

static scale_timeline play(scale_pp_schedule s, int p, int m, int v, double tf, double tb) {
  scale_timeline t;
  ck_assert_int_eq(scale_schedule_play(s, p, m, v, tf, tb, passes, 4096, &t), SCALE_OK);
  ck_assert_uint_eq(t.n_passes, (size_t)(2 * p * m * v));
  return t;
}

START_TEST(test_1f1b_by_hand) {
  /* p = 4, m = 8, forward 1 s, backward 2 s: stage 3 starts at 3 s; the last backward leaves
   * stage 0 after m + p - 1 = 11 slots of 3 s: 33 s. Busy 4 x 8 x 3 = 96 s, idle
   * 4 x 33 - 96 = 36 s: (p - 1)/m = 3/8 of the busy time. */
  scale_timeline t = play(SCALE_PP_1F1B, 4, 8, 1, 1, 2);
  scale_check_rel(t.makespan_s, 33, EXACT, "s", "(m + p - 1)(tf + tb)");
  scale_check_rel(t.busy_s, 96, EXACT, "s", "p m (tf + tb)");
  scale_check_rel(t.bubble_frac, 3.0 / 8, EXACT, "", "(p-1)/m, ch. 5");
  scale_check_rel(t.peak_in_flight, 4, EXACT, "", "p microbatches on stage 0");
}
END_TEST

START_TEST(test_gpipe_by_hand) {
  /* GPipe holds every microbatch: all m forwards run before the first backward. */
  scale_timeline t = play(SCALE_PP_GPIPE, 4, 8, 1, 1, 2);
  scale_check_rel(t.makespan_s, 33, EXACT, "s", "(m + p - 1)(tf + tb)");
  scale_check_rel(t.peak_in_flight, 8, EXACT, "", "m");
}
END_TEST

START_TEST(test_interleaved_by_hand) {
  /* v = 2 chunks of 0.5 s / 1 s: the fill is p - 1 chunk slots, so the bubble is (p-1)/(v m) =
   * 3/16; stage 0 holds 2 (p-1) + (v-1) p + 1 = 11 chunks = 5.5 microbatches at its peak. */
  scale_timeline t = play(SCALE_PP_INTERLEAVED, 4, 8, 2, 1, 2);
  scale_check_rel(t.bubble_frac, 3.0 / 16, EXACT, "", "(p-1)/(v m), Narayanan et al. 2021");
  scale_check_rel(t.peak_in_flight, 5.5, EXACT, "", "p (1 + (p-1)/(p v))");
}
END_TEST

/** The closed forms of pipeline.h agree with the played timelines over a grid of shapes. */
START_TEST(test_closed_forms_agree) {
  const int ps[] = {1, 2, 4, 8}, ms[] = {1, 2, 3, 4, 8, 16, 32}, vs[] = {1, 2, 4};
  const scale_pp_schedule sched[] = {SCALE_PP_1F1B, SCALE_PP_GPIPE, SCALE_PP_INTERLEAVED};
  for (size_t a = 0; a < 4; a++)
    for (size_t b = 0; b < 7; b++)
      for (size_t c = 0; c < 3; c++)
        for (size_t d = 0; d < 3; d++) {
          int p = ps[a], m = ms[b], v = vs[c];
          scale_pp_schedule s = sched[d];
          if ((v > 1 && s != SCALE_PP_INTERLEAVED) || (s == SCALE_PP_INTERLEAVED && m % p))
            continue;
          scale_timeline t = play(s, p, m, v, 1, 2);
          scale_check_rel(t.bubble_frac, scale_pipeline_bubble_frac(s, p, m, v), 1e-9, "",
                          "pipeline.h bubble");
          /* One stage is no pipeline: frameworks accumulate microbatch by microbatch
           * (pipeline.h: 1 in flight), where GPipe's literal order would hold all m. */
          if (p == 1 && s == SCALE_PP_GPIPE) continue;
          scale_check_rel(t.peak_in_flight, scale_pipeline_microbatches_in_flight(s, p, m, v), 1e-9,
                          "", "pipeline.h in flight");
        }
}
END_TEST

/** No stage runs two passes at once, and every pass starts after the pass it needs ended. */
START_TEST(test_passes_respect_dependencies) {
  int p = 4, m = 8, v = 2, vp = p * v;
  scale_timeline t = play(SCALE_PP_INTERLEAVED, p, m, v, 1, 2);
  double f_end[8][8], b_end[8][8];
  for (size_t i = 0; i < t.n_passes; i++) {
    const scale_pp_pass *x = &passes[i];
    int vs = x->chunk * p + x->stage;
    (x->kind == SCALE_PP_FORWARD ? f_end : b_end)[x->micro][vs] = x->start_s + x->dur_s;
  }
  for (size_t i = 0; i < t.n_passes; i++) {
    const scale_pp_pass *x = &passes[i];
    int vs = x->chunk * p + x->stage;
    double need = x->kind == SCALE_PP_FORWARD ? (vs ? f_end[x->micro][vs - 1] : 0)
                  : vs == vp - 1              ? f_end[x->micro][vs]
                                              : b_end[x->micro][vs + 1];
    ck_assert_msg(x->start_s >= need - EXACT, "pass %zu starts before its input", i);
    for (size_t j = 0; j < t.n_passes; j++)
      if (j != i && passes[j].stage == x->stage)
        ck_assert(passes[j].start_s >= x->start_s + x->dur_s - EXACT ||
                  passes[j].start_s + passes[j].dur_s <= x->start_s + EXACT);
  }
}
END_TEST

START_TEST(test_bad_input) {
  scale_timeline t;
  /* Megatron's interleaving needs m to be a multiple of p. */
  ck_assert_int_eq(scale_schedule_play(SCALE_PP_INTERLEAVED, 4, 6, 2, 1, 2, NULL, 0, &t),
                   SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_schedule_play(SCALE_PP_ZERO_BUBBLE, 4, 8, 1, 1, 2, NULL, 0, &t),
                   SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_schedule_play(SCALE_PP_1F1B, 4, 8, 2, 1, 2, NULL, 0, &t),
                   SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_schedule_play(SCALE_PP_1F1B, 0, 8, 1, 1, 2, NULL, 0, &t),
                   SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_schedule_play(SCALE_PP_1F1B, 4, 8, 1, NAN, 2, NULL, 0, &t),
                   SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_schedule_play(SCALE_PP_1F1B, 4, 8, 1, 1, 0, NULL, 0, &t),
                   SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_schedule_play(SCALE_PP_1F1B, 256, 256, 1, 1, 2, NULL, 0, &t),
                   SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_schedule_play(SCALE_PP_COUNT, 4, 8, 1, 1, 2, NULL, 0, &t),
                   SCALE_ERR_INVALID);
  ck_assert_int_eq(scale_schedule_play(SCALE_PP_1F1B, 4, 8, 1, 1, 2, NULL, 0, NULL),
                   SCALE_ERR_INVALID);
  /* Too small a buffer: the totals still come back. */
  ck_assert_int_eq(scale_schedule_play(SCALE_PP_1F1B, 4, 8, 1, 1, 2, passes, 10, &t),
                   SCALE_ERR_RANGE);
  scale_check_rel(t.makespan_s, 33, EXACT, "s", "totals despite the short buffer");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("schedule");
  const scale_check_case cases[] = {
      {"1f1b_by_hand", test_1f1b_by_hand},
      {"gpipe_by_hand", test_gpipe_by_hand},
      {"interleaved_by_hand", test_interleaved_by_hand},
      {"closed_forms_agree", test_closed_forms_agree},
      {"passes_respect_dependencies", test_passes_respect_dependencies},
      {"bad_input", test_bad_input},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(suite()); }

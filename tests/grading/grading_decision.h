/* grading_decision.h — grading a decision exercise: the student returns a choice (a struct of
 * int64_t fields: a layout's degrees, a strategy's number) and earns the ratio of the best
 * feasible choice's cost to the cost of theirs, by the library's evaluation.
 *
 * The suite lists every candidate of an instance in a fixed order with its cost and two
 * details (exercise-defined, e.g. memory per device and the share of the step spent in
 * communication), each a stored answer (GRADE_LIB): evaluated by libscale when the stored
 * answers are recorded (the full project links it into the checker; GRADING_HAVE_LIBSCALE),
 * read back from tests/grading/expected/ when grading. Neither the reference solution nor the
 * student's answer enters the costs, and `scale grade` needs no libscale.
 *
 * Credit of one instance: 0 for a choice that is not a candidate (any field out of range,
 * negative, huge: the reply is checked against the list, not trusted) or an infeasible one;
 * otherwise min(1, best / yours), and 1 from GRADE_FULL_CREDIT_RATIO up (the library's
 * estimates are not finer than that). A case's credit is the mean over its instances
 * (grading_case_credit) and its message names the worst instance's gap.
 */
#ifndef SCALE_GRADING_DECISION_H
#define SCALE_GRADING_DECISION_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "grading.h"

/** A choice within this ratio of the best cost earns full credit. */
#define GRADE_FULL_CREDIT_RATIO 0.98

/** Most candidates of one instance. */
#define GRADE_MAX_CANDIDATES 128

#ifdef GRADING_HAVE_LIBSCALE
#define GRADE_LIB_VALUE(lib) (grading_recording() ? (double)(lib) : 0.0)
#else
#define GRADE_LIB_VALUE(lib) (grading_recording() ? grade_no_library() : 0.0)
/* Recording needs the library: the full project's build links it into the checker. */
static inline double grade_no_library(void) {
  ck_abort_msg("grading: recording a decision's costs needs libscale (the full project build)");
  return (double)NAN;
}
#endif

/** A library value stored with the tests: 'lib' is evaluated only while recording. */
#define GRADE_LIB(lib) grade_lib_stored(GRADE_LIB_VALUE(lib))

static inline double grade_lib_stored(double value) {
  const char *source = "";
  return grading_expected(value, &source);
}

/** One candidate choice and what the library says of it. */
typedef struct {
  int64_t fields[GRADING_MAX_CHOICE];
  double cost;      /**< the library's cost in the decision's unit; NaN: infeasible */
  double detail[3]; /**< exercise-defined (see the decision's explain) */
} grade_candidate;

/** What an instance is and how to talk about its candidates. */
typedef struct {
  const char *label;        /**< the instance, "LLaMA 2 7B at 4K tokens on 8 x 910B" */
  size_t n_fields;          /**< fields of the choice */
  const char *const *names; /**< their names, for messages */
  const char *unit;         /**< of the cost */
  /** Why candidate 'c' costs what it does (or cannot run), a few words into 'out'. */
  void (*explain)(const grade_candidate *c, char *out, size_t size);
} grade_decision;

/* "dp 4 x pp 2" of the fields that are not 1 (all of them if every one is 1). */
static inline void grade_choice_str(const grade_decision *d, const int64_t *fields, char *out,
                                    size_t size) {
  size_t len = 0;
  int shown = 0;
  out[0] = '\0';
  for (int pass = 0; pass < 2 && !shown; pass++)
    for (size_t i = 0; i < d->n_fields && len < size; i++) {
      if (pass == 0 && fields[i] == 1 && d->n_fields > 1) continue;
      len += (size_t)snprintf(out + len, size - len, "%s%s %lld", shown ? " x " : "", d->names[i],
                              (long long)fields[i]);
      shown = 1;
    }
}

/** The credit of 'choice' among 'cands' (n of them) in [0, 1]; 'why' gets the gap in words. A
 * list without a feasible candidate gives 0 (the suite checks such instances as domain
 * checks instead). */
static inline double grade_decision_credit(const grade_decision *d, const grade_candidate *cands,
                                           size_t n, const int64_t *choice, char *why,
                                           size_t size) {
  size_t best = n, mine = n;
  for (size_t i = 0; i < n; i++) {
    if (isfinite(cands[i].cost) && cands[i].cost > 0.0 &&
        (best == n || cands[i].cost < cands[best].cost))
      best = i;
    if (memcmp(cands[i].fields, choice, d->n_fields * sizeof *choice) == 0) mine = i;
  }
  char yours[256], theirs[256], reason[256];
  grade_choice_str(d, choice, yours, sizeof yours);
  if (best == n) {
    snprintf(why, size, "%s: no feasible choice", d->label);
    return 0.0;
  }
  grade_choice_str(d, cands[best].fields, theirs, sizeof theirs);
  int none = 1;
  for (size_t i = 0; i < d->n_fields; i++)
    none = none && choice[i] == 0;
  /* The best choice and its cost, or (--withhold-answers: a class) only that one exists. */
  char best_said[600], best_reason[256];
  d->explain(&cands[best], best_reason, sizeof best_reason);
  if (grading_withhold_answers())
    snprintf(best_said, sizeof best_said, "a better choice exists");
  else
    snprintf(best_said, sizeof best_said, "best %s: %.4g %s (%s)", theirs, cands[best].cost,
             d->unit, best_reason);
  if (mine == n) {
    if (snprintf(why, size, "%s: your choice (%s) is not one of the %zu allowed; %s", d->label,
                 none ? "none: every field 0" : yours, n, best_said) < 0)
      why[0] = '\0'; /* a message cut to fit is fine: the return value is looked at */
    return 0.0;
  }
  d->explain(&cands[mine], reason, sizeof reason);
  if (!(isfinite(cands[mine].cost) && cands[mine].cost > 0.0)) {
    if (snprintf(why, size, "%s: your %s cannot run (%s); %s; 0%% credit", d->label, yours, reason,
                 best_said) < 0)
      why[0] = '\0';
    return 0.0;
  }
  double ratio = cands[best].cost / cands[mine].cost;
  double credit = ratio >= GRADE_FULL_CREDIT_RATIO ? 1.0 : ratio;
  if (snprintf(why, size, "%s: your %s: %.4g %s (%s); %s; %.0f%% credit", d->label, yours,
               cands[mine].cost, d->unit, reason, best_said, 100.0 * credit) < 0)
    why[0] = '\0';
  return credit;
}

/** The credit of a case over its instances: their mean. */
typedef struct {
  double sum;
  int n;
  double worst;
  char worst_why[768];
} grade_credit_sum;

static inline void grade_credit_add(grade_credit_sum *s, double credit, const char *why) {
  if (s->n == 0 || credit < s->worst) {
    s->worst = credit;
    snprintf(s->worst_why, sizeof s->worst_why, "%s", why);
  }
  s->sum += credit;
  s->n++;
}

/** Hands the case's credit to the harness (grading_case_credit, grading.h); the message leads
 * with the credit and gives the worst instance. */
static inline void grade_credit_end(const grade_credit_sum *s) {
  double credit = s->n ? s->sum / s->n : 0.0;
  char message[1024];
  snprintf(message, sizeof message, "credit %.0f%% (mean over %d instance%s); worst: %s",
           100.0 * credit, s->n, s->n == 1 ? "" : "s", s->worst_why);
  grading_case_credit(credit, message);
}

#endif

/* grading_expected.c — the answers of the grid comparisons, stored with the tests; and the two
 * parts of a case (value checks, domain checks; see grading.h).
 *
 * Each GRADE_VS_REF of a case is its n-th comparison (n = 1, 2, ... in the order the suite makes
 * them, which is fixed); its expected value is line "CASE<TAB>n<TAB>VALUE" of
 * tests/grading/expected/NN-slug.tsv (VALUE in C's hexadecimal float notation, exact; nan and
 * inf as printf writes them). So a score never depends on whether solutions/ is present: the
 * reference is called only to record the file (SCALE_GRADE_RECORD=FILE, target
 * grading_expected), and test grading.expected-current checks that the stored file is what the
 * reference gives today.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading.h"

#ifndef GRADING_EXPECTED_FILE
#error "GRADING_EXPECTED_FILE names the chapter's stored answers"
#endif

typedef struct {
  char case_id[128];
  long ordinal;
  double value;
} stored_answer;

static stored_answer *answers;
static size_t n_answers;
static int loaded;

static void load(void) {
  loaded = 1;
  FILE *in = fopen(GRADING_EXPECTED_FILE, "r");
  if (!in) return;
  size_t cap = 0;
  char line[512];
  while (fgets(line, sizeof line, in)) {
    char *tab1 = strchr(line, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
    if (!tab2 || (size_t)(tab1 - line) >= sizeof answers->case_id) continue;
    if (n_answers == cap) {
      cap = cap ? 2 * cap : 1024;
      stored_answer *grown = realloc(answers, cap * sizeof *grown);
      if (!grown) break;
      answers = grown;
    }
    stored_answer *a = &answers[n_answers++];
    memcpy(a->case_id, line, (size_t)(tab1 - line));
    a->case_id[tab1 - line] = '\0';
    a->ordinal = strtol(tab1 + 1, NULL, 10);
    a->value = strtod(tab2 + 1, NULL);
  }
  fclose(in);
}

/* The ordinal of this comparison within the current case. */
static long next_ordinal(const char *case_id) {
  static char current[128];
  static long ordinal;
  if (strcmp(current, case_id) != 0) {
    snprintf(current, sizeof current, "%s", case_id);
    ordinal = 0;
  }
  return ++ordinal;
}

int grading_recording(void) {
  const char *path = getenv("SCALE_GRADE_RECORD");
  return path && *path;
}

double grading_expected(double reference, const char **source) {
  const char *case_id = tcase_name();
  long ordinal = next_ordinal(case_id ? case_id : "");
  if (grading_recording()) {
    FILE *out = fopen(getenv("SCALE_GRADE_RECORD"), "a");
    if (out) {
      fprintf(out, "%s\t%ld\t%a\n", case_id, ordinal, reference);
      fclose(out);
    }
    *source = "reference solution";
    return reference;
  }
  if (!loaded) load();
  /* A case's answers are consecutive lines in ordinal order: find its first once, then index. */
  static const char *first_of = NULL;
  static size_t first = 0;
  if (first_of != case_id) {
    first_of = case_id;
    for (first = 0; first < n_answers && strcmp(answers[first].case_id, case_id) != 0; first++) {
    }
  }
  size_t i = first + (size_t)(ordinal - 1);
  if (i < n_answers && answers[i].ordinal == ordinal && strcmp(answers[i].case_id, case_id) == 0) {
    *source = "stored answer";
    return answers[i].value;
  }
  ck_abort_msg("no stored answer #%ld of %s in %s (after changing a suite: cmake --build BUILD "
               "--target grading_expected)",
               ordinal, case_id, GRADING_EXPECTED_FILE);
  return 0.0;
}

/* ---- the parts of a case -------------------------------------------------------------------- */

static struct {
  int value_failed, domain_failed, domain_checks;
  char first_value[1024], first_domain[1024];
  double credit; /* a decision's ratio credit in [0, 1]; -1: not a decision case */
  char credit_message[1024];
} parts;

void grading_case_begin(void) {
  memset(&parts, 0, sizeof parts);
  parts.credit = -1.0;
}

void grading_case_failed(int domain, const char *message) {
  int *failed = domain ? &parts.domain_failed : &parts.value_failed;
  char *first = domain ? parts.first_domain : parts.first_value;
  if ((*failed)++ == 0) snprintf(first, sizeof parts.first_value, "%s", message);
}

void grading_case_credit(double credit, const char *message) {
  parts.credit = credit >= 0.0 && credit <= 1.0 ? credit : 0.0; /* NaN: nothing */
  snprintf(parts.credit_message, sizeof parts.credit_message, "%s", message);
}

void grading_case_end(void) {
  if (parts.value_failed)
    ck_abort_msg("%s%s", parts.first_value,
                 parts.domain_failed ? " (and a domain check fails too)" : "");
  if (parts.credit >= 0.0 && parts.credit < 1.0)
    ck_abort_msg("%s%s%s", parts.credit_message, parts.domain_failed ? "; domain check: " : "",
                 parts.domain_failed ? parts.first_domain : "");
  if (parts.domain_failed)
    ck_abort_msg("domain check: %s (the value checks pass)", parts.first_domain);
}

const char *grading_case_parts(void) {
  static char text[64];
  if (parts.value_failed) return "value=fail";
  if (parts.credit >= 0.0 && parts.credit < 1.0) {
    snprintf(text, sizeof text, "value=fail credit=%.3f domain=%s", parts.credit,
             parts.domain_failed ? "fail" : "ok");
    return text;
  }
  if (parts.domain_failed) return "value=ok domain=fail";
  return "value=ok domain=ok";
}

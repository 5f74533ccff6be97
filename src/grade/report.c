/* report.c — the score report of `scale grade`: verdict lines, subtotals, JSON and JUnit XML.
 * See grade.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "grade.h"
#include "util.h"

const char *scale_grade_verdict_str(scale_grade_verdict verdict) {
  switch (verdict) {
  case SCALE_GRADE_OK:
    return "OK";
  case SCALE_GRADE_FAIL:
    return "FAIL";
  case SCALE_GRADE_CRASH:
    return "CRASH";
  case SCALE_GRADE_TIMEOUT:
    return "TIMEOUT";
  case SCALE_GRADE_BUILD:
    return "BUILD";
  case SCALE_GRADE_PARTIAL:
    return "PARTIAL";
  case SCALE_GRADE_NOT_ANSWERED:
    return "NOT ANSWERED";
  case SCALE_GRADE_N_VERDICTS:
    break;
  }
  return "?";
}

/* The order verdicts are counted in on a total line: best first. */
static const scale_grade_verdict verdict_order[] = {
    SCALE_GRADE_OK,    SCALE_GRADE_PARTIAL, SCALE_GRADE_FAIL,  SCALE_GRADE_NOT_ANSWERED,
    SCALE_GRADE_CRASH, SCALE_GRADE_TIMEOUT, SCALE_GRADE_BUILD,
};

/* Whether 'verdict' is a wrong answer (a JUnit <failure>) rather than code that did not run. */
static bool is_wrong_answer(scale_grade_verdict verdict) {
  return verdict == SCALE_GRADE_FAIL || verdict == SCALE_GRADE_PARTIAL ||
         verdict == SCALE_GRADE_NOT_ANSWERED;
}

void scale_grade_points_str(double points, char *out, size_t size) {
  /* Rubric points are multiples of 0.25 and credits any fraction: 0.01 is what a reader needs
   * ("1.51/3", not "1.50825/3"). */
  snprintf(out, size, "%.2f", points);
  char *dot = strchr(out, '.');
  if (!dot) return;
  char *end = out + strlen(out);
  while (end > dot + 1 && end[-1] == '0')
    *--end = '\0';
  if (end == dot + 1) *dot = '\0';
  if (strcmp(out, "-0") == 0) snprintf(out, size, "0");
}

/* "SCORE/MAX" of two point counts, each to 0.01. */
static void score_str(double score, double max, char *out, size_t size) {
  char got[32], of[32];
  scale_grade_points_str(score, got, sizeof got);
  scale_grade_points_str(max, of, sizeof of);
  snprintf(out, size, "%s/%s", got, of);
}

/* Whether row i repeats the BUILD message of an earlier row of its chapter: a compile error is
 * said once per chapter, not once per exercise. */
static bool repeats_build_error(const scale_grade_report *report, size_t i) {
  const scale_grade_row *row = &report->rows[i];
  if (row->verdict != SCALE_GRADE_BUILD) return false;
  for (size_t j = 0; j < i; j++)
    if (report->rows[j].verdict == SCALE_GRADE_BUILD &&
        strcmp(report->rows[j].chapter, row->chapter) == 0 &&
        strcmp(report->rows[j].output, row->output) == 0)
      return true;
  return false;
}

void scale_grade_totals(const scale_grade_report *report, const char *chapter, double *score,
                        double *max_score) {
  double got = 0.0, max = 0.0;
  for (size_t i = 0; i < report->n_rows; i++) {
    if (chapter && strcmp(report->rows[i].chapter, chapter) != 0) continue;
    got += report->rows[i].score;
    max += report->rows[i].points;
  }
  if (score) *score = got;
  if (max_score) *max_score = max;
}

/* Whether row i is the first of its chapter (rows of a chapter need not be adjacent). */
static bool first_of_chapter(const scale_grade_report *report, size_t i) {
  for (size_t j = 0; j < i; j++)
    if (strcmp(report->rows[j].chapter, report->rows[i].chapter) == 0) return false;
  return true;
}

void scale_grade_print(const scale_grade_report *report, FILE *out) {
  if (report->isolation[0]) fprintf(out, "isolation: %s\n", report->isolation); /* total last */
  for (size_t c = 0; c < report->n_rows; c++) {
    if (!first_of_chapter(report, c)) continue;
    const char *chapter = report->rows[c].chapter;
    grade_put_escaped(out, chapter);
    fputc('\n', out);
    for (size_t i = 0; i < report->n_rows; i++) {
      const scale_grade_row *row = &report->rows[i];
      if (strcmp(row->chapter, chapter) != 0) continue;
      char points[80];
      score_str(row->score, row->points, points, sizeof points);
      fprintf(out, "  %-12s %8s ", scale_grade_verdict_str(row->verdict), points);
      grade_put_escaped(out, row->id);
      if (repeats_build_error(report, i)) {
        fputs(": (the chapter's compile error above)", out);
      } else if (row->verdict != SCALE_GRADE_OK && row->output[0]) {
        fputs(": ", out);
        grade_put_escaped(out, row->output);
      }
      fputc('\n', out);
    }
    double score, max;
    scale_grade_totals(report, chapter, &score, &max);
    char points[80];
    score_str(score, max, points, sizeof points);
    fprintf(out, "  subtotal %s\n", points);
  }
  char total[512];
  scale_grade_total_line(report, total, sizeof total);
  fprintf(out, "%s\n", total);
}

void scale_grade_total_line(const scale_grade_report *report, char *out, size_t size) {
  double score, max;
  scale_grade_totals(report, NULL, &score, &max);
  size_t counts[SCALE_GRADE_N_VERDICTS] = {0};
  for (size_t i = 0; i < report->n_rows; i++)
    counts[report->rows[i].verdict]++;
  char points[80];
  score_str(score, max, points, sizeof points);
  size_t len = (size_t)snprintf(out, size, "total %s (%zu exercise%s:", points, report->n_rows,
                                report->n_rows == 1 ? "" : "s");
  for (size_t k = 0; k < sizeof verdict_order / sizeof verdict_order[0] && len < size; k++)
    len += (size_t)snprintf(out + len, size - len, "%s %zu %s", k ? "," : "",
                            counts[verdict_order[k]], scale_grade_verdict_str(verdict_order[k]));
  if (len < size) snprintf(out + len, size - len, ")");
}

/* ---- JSON ----------------------------------------------------------------------------------- */

/* Writes 'text' as a JSON string: valid UTF-8 whatever the bytes (each byte that is not UTF-8
 * becomes U+FFFD), control characters escaped (C1 and DEL too: a report is often read with
 * cat). */
static void json_string(FILE *out, const char *text) {
  fputc('"', out);
  for (const char *p = text; *p;) {
    unsigned code = 0;
    size_t len = grade_utf8_len(p, &code);
    if (len == 0)
      fputs("\\ufffd", out);
    else if (code == '"' || code == '\\')
      fprintf(out, "\\%c", (int)code);
    else if (code == '\n')
      fputs("\\n", out);
    else if (code == '\r')
      fputs("\\r", out);
    else if (code == '\t')
      fputs("\\t", out);
    else if (grade_is_control(code))
      fprintf(out, "\\u%04x", code);
    else
      fwrite(p, 1, len, out);
    p += len ? len : 1;
  }
  fputc('"', out);
}

static scale_status open_out(const char *path, FILE **out, scale_diag *diag) {
  *out = fopen(path, "w");
  if (*out) return SCALE_OK;
  if (diag) {
    snprintf(diag->file, sizeof diag->file, "%s", path);
    diag->line = 0;
    snprintf(diag->message, sizeof diag->message, "cannot write: %s", strerror(errno));
  }
  return SCALE_ERR_IO;
}

static scale_status close_out(const char *path, FILE *out, scale_diag *diag) {
  bool bad = ferror(out) != 0;
  if (fclose(out) != 0) bad = true;
  if (!bad) return SCALE_OK;
  if (diag) {
    snprintf(diag->file, sizeof diag->file, "%s", path);
    diag->line = 0;
    snprintf(diag->message, sizeof diag->message, "write failed");
  }
  return SCALE_ERR_IO;
}

/* Writes the fields of one report ("score" ... "chapters"), each line after the first indented
 * by 'indent'. */
static void json_report_fields(FILE *out, const scale_grade_report *report, const char *indent) {
  double score, max;
  scale_grade_totals(report, NULL, &score, &max);
  fprintf(out, "\"score\": %.10g,\n%s\"max_score\": %.10g,\n%s\"isolation\": ", score, indent, max,
          indent);
  json_string(out, report->isolation);
  fprintf(out, ",\n%s\"tests\": [", indent);
  for (size_t i = 0; i < report->n_rows; i++) {
    const scale_grade_row *row = &report->rows[i];
    fprintf(out, "%s\n%s  {\"name\": ", i ? "," : "", indent);
    json_string(out, row->id);
    fprintf(out, ", \"score\": %.10g, \"max_score\": %.10g, \"status\": ", row->score, row->points);
    json_string(out, scale_grade_verdict_str(row->verdict));
    fputs(", \"output\": ", out);
    json_string(out, row->output);
    fputs(", \"chapter\": ", out);
    json_string(out, row->chapter);
    fputs(", \"title\": ", out);
    json_string(out, row->title);
    fputc('}', out);
  }
  fprintf(out, "\n%s],\n%s\"chapters\": [", indent, indent);
  bool first = true;
  for (size_t c = 0; c < report->n_rows; c++) {
    if (!first_of_chapter(report, c)) continue;
    scale_grade_totals(report, report->rows[c].chapter, &score, &max);
    fprintf(out, "%s\n%s  {\"name\": ", first ? "" : ",", indent);
    json_string(out, report->rows[c].chapter);
    fprintf(out, ", \"score\": %.10g, \"max_score\": %.10g}", score, max);
    first = false;
  }
  fprintf(out, "\n%s]", indent);
}

scale_status scale_grade_write_json(const scale_grade_report *report, const char *path,
                                    scale_diag *diag) {
  FILE *out;
  scale_status status = open_out(path, &out, diag);
  if (status) return status;
  fputs("{\n  ", out);
  json_report_fields(out, report, "  ");
  fputs("\n}\n", out);
  return close_out(path, out, diag);
}

scale_status scale_grade_write_gradescope(const scale_grade_report *report, const char *path,
                                          scale_diag *diag) {
  FILE *out;
  scale_status status = open_out(path, &out, diag);
  if (status) return status;
  double score, max;
  scale_grade_totals(report, NULL, &score, &max);
  fprintf(out,
          "{\n  \"score\": %.10g,\n  \"visibility\": \"visible\",\n"
          "  \"stdout_visibility\": \"hidden\",\n  \"isolation\": ",
          score);
  json_string(out, report->isolation);
  /* Gradescope shows "output" above the tests: how the code was confined, in the open. */
  char said[320];
  snprintf(said, sizeof said, "Graded with isolation: %s.", report->isolation);
  fputs(",\n  \"output\": ", out);
  json_string(out, said);
  fputs(",\n  \"tests\": [", out);
  for (size_t i = 0; i < report->n_rows; i++) {
    const scale_grade_row *row = &report->rows[i];
    char output[1200];
    snprintf(output, sizeof output, "%s%s%s", scale_grade_verdict_str(row->verdict),
             row->output[0] ? ": " : "", row->output);
    fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
    json_string(out, row->id);
    fprintf(out, ", \"number\": ");
    json_string(out, row->chapter);
    fprintf(out, ", \"score\": %.10g, \"max_score\": %.10g, \"status\": \"%s\", \"output\": ",
            row->score, row->points, row->verdict == SCALE_GRADE_OK ? "passed" : "failed");
    json_string(out, output);
    fprintf(out, ", \"visibility\": \"visible\"}");
  }
  fprintf(out, "\n  ]\n}\n");
  return close_out(path, out, diag);
}

/* ---- a class -------------------------------------------------------------------------------- */

scale_status scale_grade_class_write_json(const scale_grade_class *cls, const char *path,
                                          scale_diag *diag) {
  FILE *out;
  scale_status status = open_out(path, &out, diag);
  if (status) return status;
  fputs("{\n  \"isolation\": ", out);
  json_string(out, cls->isolation);
  fputs(",\n  \"students\": [", out);
  for (size_t s = 0; s < cls->n_students; s++) {
    const scale_grade_student *student = &cls->students[s];
    fprintf(out, "%s\n    {\n      \"student\": ", s ? "," : "");
    json_string(out, student->name);
    fprintf(out, ",\n      \"graded\": %s,\n      \"error\": ", student->graded ? "true" : "false");
    json_string(out, student->error);
    fputs(",\n      ", out);
    json_report_fields(out, &student->report, "      ");
    fputs("\n    }", out);
  }
  fputs("\n  ]\n}\n", out);
  return close_out(path, out, diag);
}

/* Writes one CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
 * A field a spreadsheet would take for a formula (starting with =, +, -, @, a tab or a
 * carriage return: a student's folder named "=HYPERLINK(...)") is quoted with a leading
 * apostrophe, which spreadsheets show as text. Bytes that are not UTF-8 and control characters
 * become U+FFFD. */
static void csv_field(FILE *out, const char *text) {
  bool formula = text[0] && strchr("=+-@\t\r", text[0]);
  bool quoted = formula || strpbrk(text, ",\"\r\n");
  if (quoted) fputc('"', out);
  if (formula) fputc('\'', out);
  for (const char *p = text; *p;) {
    unsigned code = 0;
    size_t len = grade_utf8_len(p, &code);
    if (len == 0 || (grade_is_control(code) && code != '\n'))
      fputs("\xef\xbf\xbd", out);
    else if (code == '"')
      fputs("\"\"", out);
    else
      fwrite(p, 1, len, out);
    p += len ? len : 1;
  }
  if (quoted) fputc('"', out);
}

/* ",CHAPTER" for each chapter of 'layout', in rubric order. */
static void csv_chapter_names(FILE *out, const scale_grade_report *layout) {
  for (size_t c = 0; layout && c < layout->n_rows; c++) {
    if (!first_of_chapter(layout, c)) continue;
    fputc(',', out);
    csv_field(out, layout->rows[c].chapter);
  }
}

/* ",SUBTOTAL" for each chapter of 'report' (the points possible when 'possible'); empty cells
 * when 'blank'. */
static void csv_chapter_points(FILE *out, const scale_grade_report *report, bool possible,
                               bool blank) {
  for (size_t c = 0; report && c < report->n_rows; c++) {
    if (!first_of_chapter(report, c)) continue;
    double score, max;
    scale_grade_totals(report, report->rows[c].chapter, &score, &max);
    char points[32];
    scale_grade_points_str(possible ? max : score, points, sizeof points);
    if (blank)
      fputc(',', out);
    else
      fprintf(out, ",%s", points);
  }
}

scale_status scale_grade_class_write_csv(const scale_grade_class *cls, const char *path,
                                         scale_diag *diag) {
  FILE *out;
  scale_status status = open_out(path, &out, diag);
  if (status) return status;
  /* Every student has the same rows (the rubric's, in order): the header comes from the first. */
  const scale_grade_report *layout = cls->n_students ? &cls->students[0].report : NULL;
  fputs("student", out);
  for (size_t i = 0; layout && i < layout->n_rows; i++) {
    fputc(',', out);
    csv_field(out, layout->rows[i].id);
  }
  csv_chapter_names(out, layout);
  fputs(",total,isolation\n", out);
  for (size_t s = 0; s < cls->n_students; s++) {
    const scale_grade_student *student = &cls->students[s];
    const scale_grade_report *report = &student->report;
    csv_field(out, student->name);
    for (size_t i = 0; i < report->n_rows; i++) {
      char points[32];
      scale_grade_points_str(report->rows[i].score, points, sizeof points);
      if (student->graded)
        fprintf(out, ",%s", points);
      else
        fputc(',', out);
    }
    csv_chapter_points(out, report, false, !student->graded);
    double score, max;
    scale_grade_totals(report, NULL, &score, &max);
    char points[32];
    scale_grade_points_str(score, points, sizeof points);
    if (student->graded)
      fprintf(out, ",%s,", points);
    else
      fputs(",,", out);
    csv_field(out, cls->isolation);
    fputc('\n', out);
  }
  return close_out(path, out, diag);
}

scale_status scale_grade_class_write_gradebook(const scale_grade_class *cls, const char *path,
                                               scale_diag *diag) {
  FILE *out;
  scale_status status = open_out(path, &out, diag);
  if (status) return status;
  const scale_grade_report *layout = cls->n_students ? &cls->students[0].report : NULL;
  fputs("student,total", out);
  csv_chapter_names(out, layout);
  double score, max;
  scale_grade_totals(layout ? layout : &(scale_grade_report){.rows = NULL, .n_rows = 0}, NULL,
                     &score, &max);
  char points[32];
  scale_grade_points_str(max, points, sizeof points);
  fprintf(out, "\nPoints Possible,%s", points);
  csv_chapter_points(out, layout, true, false);
  fputc('\n', out);
  for (size_t s = 0; s < cls->n_students; s++) {
    const scale_grade_student *student = &cls->students[s];
    const scale_grade_report *report = &student->report;
    csv_field(out, student->name);
    scale_grade_totals(report, NULL, &score, &max);
    scale_grade_points_str(score, points, sizeof points);
    if (student->graded)
      fprintf(out, ",%s", points);
    else
      fputc(',', out);
    csv_chapter_points(out, report, false, !student->graded);
    fputc('\n', out);
  }
  return close_out(path, out, diag);
}

/* 'text' escaped for the terminal, padded with spaces to 'width' bytes. */
static void put_padded(FILE *out, const char *text, int width) {
  char shown[1100];
  grade_escape(shown, sizeof shown, text);
  fprintf(out, "%-*s", width, shown);
}

void scale_grade_class_print(const scale_grade_class *cls, FILE *out) {
  if (cls->isolation[0]) fprintf(out, "isolation: %s\n", cls->isolation); /* the class line last */
  enum { MAX_DETAILS = 5 };
  int width = 7;
  for (size_t s = 0; s < cls->n_students; s++) {
    int len = (int)strlen(cls->students[s].name);
    if (len > width) width = len < 40 ? len : 40;
  }
  double sum = 0.0, max = 0.0;
  size_t n_graded = 0;
  for (size_t s = 0; s < cls->n_students; s++) {
    const scale_grade_student *student = &cls->students[s];
    const scale_grade_report *report = &student->report;
    double score;
    scale_grade_totals(report, NULL, &score, &max);
    if (!student->graded) {
      put_padded(out, student->name, width);
      fputs("  not graded: ", out);
      grade_put_escaped(out, student->error);
      fputc('\n', out);
      continue;
    }
    n_graded++;
    sum += score;
    size_t counts[SCALE_GRADE_N_VERDICTS] = {0};
    for (size_t i = 0; i < report->n_rows; i++)
      counts[report->rows[i].verdict]++;
    put_padded(out, student->name, width);
    char points[80];
    score_str(score, max, points, sizeof points);
    fprintf(out, "  %13s", points);
    bool any = false;
    for (size_t k = 0; k < sizeof verdict_order / sizeof verdict_order[0]; k++) {
      scale_grade_verdict v = verdict_order[k];
      if (!counts[v]) continue;
      fprintf(out, "%s%zu %s", any ? ", " : " ", counts[v], scale_grade_verdict_str(v));
      any = true;
    }
    fputc('\n', out);
    /* What a teacher looks into first: crashes and timeouts, then failures, then builds. */
    static const scale_grade_verdict order[] = {SCALE_GRADE_CRASH, SCALE_GRADE_TIMEOUT,
                                                SCALE_GRADE_FAIL,  SCALE_GRADE_PARTIAL,
                                                SCALE_GRADE_BUILD, SCALE_GRADE_NOT_ANSWERED};
    size_t shown = 0, not_ok = report->n_rows - counts[SCALE_GRADE_OK];
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
      for (size_t i = 0; i < report->n_rows && shown < MAX_DETAILS; i++) {
        const scale_grade_row *row = &report->rows[i];
        if (row->verdict != order[k] || repeats_build_error(report, i)) continue;
        fprintf(out, "    %-12s ", scale_grade_verdict_str(row->verdict));
        grade_put_escaped(out, row->id);
        fputs(": ", out);
        grade_put_escaped(out, row->output);
        fputc('\n', out);
        shown++;
      }
    if (not_ok > shown) fprintf(out, "    ... and %zu more (see --json)\n", not_ok - shown);
  }
  fprintf(out, "class: %zu student%s, %zu graded", cls->n_students, cls->n_students == 1 ? "" : "s",
          n_graded);
  if (n_graded) {
    char points[80];
    score_str(sum / (double)n_graded, max, points, sizeof points);
    fprintf(out, ", mean %s", points);
  }
  fputc('\n', out);
}

/* ---- JUnit XML ------------------------------------------------------------------------------ */

/* Writes 'text' escaped for XML 1.0: valid UTF-8 whatever the bytes (each byte that is not
 * UTF-8 becomes U+FFFD), and a space for each character XML does not allow (C0 but tab and
 * newline, U+FFFE, U+FFFF) or that a terminal would obey (DEL, C1). */
static void xml_escaped(FILE *out, const char *text) {
  for (const char *p = text; *p;) {
    unsigned code = 0;
    size_t len = grade_utf8_len(p, &code);
    if (len == 0)
      fputs("\xef\xbf\xbd", out);
    else if (code == '<')
      fputs("&lt;", out);
    else if (code == '>')
      fputs("&gt;", out);
    else if (code == '&')
      fputs("&amp;", out);
    else if (code == '"')
      fputs("&quot;", out);
    else if (code == '\'')
      fputs("&apos;", out);
    else if ((grade_is_control(code) && code != '\n' && code != '\t') || code == 0xfffe ||
             code == 0xffff)
      fputc(' ', out);
    else
      fwrite(p, 1, len, out);
    p += len ? len : 1;
  }
}

scale_status scale_grade_write_junit(const scale_grade_report *report, const char *path,
                                     scale_diag *diag) {
  FILE *out;
  scale_status status = open_out(path, &out, diag);
  if (status) return status;
  size_t failures = 0, errors = 0;
  for (size_t i = 0; i < report->n_rows; i++) {
    if (is_wrong_answer(report->rows[i].verdict))
      failures++;
    else if (report->rows[i].verdict != SCALE_GRADE_OK)
      errors++;
  }
  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuites name=\"scale grade\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
          report->n_rows, failures, errors);
  for (size_t c = 0; c < report->n_rows; c++) {
    if (!first_of_chapter(report, c)) continue;
    const char *chapter = report->rows[c].chapter;
    size_t tests = 0, chapter_failures = 0, chapter_errors = 0;
    for (size_t i = 0; i < report->n_rows; i++) {
      if (strcmp(report->rows[i].chapter, chapter) != 0) continue;
      tests++;
      if (is_wrong_answer(report->rows[i].verdict))
        chapter_failures++;
      else if (report->rows[i].verdict != SCALE_GRADE_OK)
        chapter_errors++;
    }
    fputs("  <testsuite name=\"", out);
    xml_escaped(out, chapter);
    fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n", tests, chapter_failures,
            chapter_errors);
    fputs("    <properties><property name=\"isolation\" value=\"", out);
    xml_escaped(out, report->isolation);
    fputs("\"/></properties>\n", out);
    for (size_t i = 0; i < report->n_rows; i++) {
      const scale_grade_row *row = &report->rows[i];
      if (strcmp(row->chapter, chapter) != 0) continue;
      fputs("    <testcase classname=\"", out);
      xml_escaped(out, chapter);
      fputs("\" name=\"", out);
      xml_escaped(out, row->id);
      if (row->verdict == SCALE_GRADE_OK) {
        fputs("\"/>\n", out);
        continue;
      }
      const char *element = is_wrong_answer(row->verdict) ? "failure" : "error";
      fprintf(out, "\">\n      <%s type=\"%s\" message=\"", element,
              scale_grade_verdict_str(row->verdict));
      xml_escaped(out, row->output);
      fputs("\">", out);
      xml_escaped(out, row->output);
      fprintf(out, "</%s>\n    </testcase>\n", element);
    }
    fputs("  </testsuite>\n", out);
  }
  fputs("</testsuites>\n", out);
  return close_out(path, out, diag);
}

/* steptrace.c — the timeline of one predicted step (contract in steptrace.h). */
#include "scale/steptrace.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scale/diagram.h"

/* Appends an event; the capacity is SCALE_STEP_TRACE_MAX by construction. */
static void put(scale_step_trace *t, int row, scale_step_trace_kind kind, int op, int m0, int m1,
                double start_s, double dur_s) {
  if (!(dur_s > 0.0) || t->n_events >= SCALE_STEP_TRACE_MAX) return;
  t->events[t->n_events++] = (scale_step_trace_event){row, kind, op, m0, m1, start_s, dur_s};
  t->row_used[row] = true;
}

/* Microbatch 'i' from 'start': its ops, then each exposed communication; each hidden part
 * from the start. Returns its end. */
static double one_microbatch(scale_step_trace *t, const scale_step_result *r, int i,
                             double start) {
  double m = r->microbatches, at = start, named = 0;
  for (int op = 0; op < SCALE_STEP_OP_COUNT; op++) {
    if (op == SCALE_STEP_OP_OPTIMIZER) continue;
    named += r->op_s[op];
    put(t, 0, SCALE_TRACE_OP, op, i, i, at, r->op_s[op] / m);
    at += r->op_s[op] / m;
  }
  double rest = r->compute_s - named; /* what step.h's ops do not name (Mamba-2 layers) */
  if (rest > 1e-12 * r->compute_s) put(t, 0, SCALE_TRACE_COMPUTE, -1, i, i, at, rest / m);
  at = start + r->compute_s / m;
  for (int c = 0; c < SCALE_STEP_COMM_COUNT; c++) {
    if (c == SCALE_STEP_COMM_DP) continue;
    put(t, 1 + c, SCALE_TRACE_HIDDEN, -1, i, i, start, fmax(0.0, r->comm_s[c] - r->exposed_s[c]) / m);
    put(t, 1 + c, SCALE_TRACE_EXPOSED, -1, i, i, at, r->exposed_s[c] / m);
    at += r->exposed_s[c] / m;
  }
  return at;
}

/* Microbatches 'first' to the end (k of them, k may be fractional) as one block per stream. */
static double the_rest(scale_step_trace *t, const scale_step_result *r, int first, int last,
                       double k, double start) {
  double m = r->microbatches, at = start + k * r->compute_s / m;
  put(t, 0, SCALE_TRACE_COMPUTE, -1, first, last, start, k * r->compute_s / m);
  for (int c = 0; c < SCALE_STEP_COMM_COUNT; c++) {
    if (c == SCALE_STEP_COMM_DP) continue;
    put(t, 1 + c, SCALE_TRACE_HIDDEN, -1, first, last, start,
        k * fmax(0.0, r->comm_s[c] - r->exposed_s[c]) / m);
    put(t, 1 + c, SCALE_TRACE_EXPOSED, -1, first, last, at, k * r->exposed_s[c] / m);
    at += k * r->exposed_s[c] / m;
  }
  return at;
}

static bool times_ok(const scale_step_result *r) {
  double v[] = {r->compute_s, r->bubble_s, r->optimizer_s, r->overhead_s, r->step_s, r->host_s,
                r->stage_s};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (!(isfinite(v[i]) && v[i] >= 0)) return false;
  for (int c = 0; c < SCALE_STEP_COMM_COUNT; c++)
    if (!(isfinite(r->comm_s[c]) && r->comm_s[c] >= 0 && isfinite(r->exposed_s[c]) &&
          r->exposed_s[c] >= 0))
      return false;
  return r->microbatches >= 1 && r->microbatches <= 1e9;
}

static void name_rows(scale_step_trace *t, const scale_step_result *r) {
  t->row_names[0] = "compute";
  for (int c = 0; c < SCALE_STEP_COMM_COUNT; c++) {
    snprintf(t->row_text[1 + c], sizeof t->row_text[1 + c], "%s (%s)",
             scale_step_comm_name((scale_step_comm)c), scale_step_net_name(r->net[c]));
    t->row_names[1 + c] = t->row_text[1 + c];
  }
}

scale_status scale_step_trace_build(const scale_step_result *r, scale_step_trace *out,
                                    scale_diag *diag) {
  if (!r || !out) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "trace: NULL argument");
  if (!times_ok(r))
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0,
                          "trace: the step's times are not finite (an invalid layout?)");
  memset(out, 0, sizeof *out);
  name_rows(out, r);
  out->microbatches = r->microbatches;
  int m = (int)ceil(r->microbatches - 1e-9);
  int detail = m < SCALE_STEP_TRACE_DETAIL ? m : SCALE_STEP_TRACE_DETAIL;
  double t = 0;
  for (int i = 0; i < detail; i++) t = one_microbatch(out, r, i, t);
  if (r->microbatches > detail) {
    /* a fractional count (gbs not a multiple of dp mbs) is priced as it stands: the block
     * carries the fraction */
    t = the_rest(out, r, detail, m - 1, r->microbatches - detail, t);
  } else if (r->microbatches < detail) {
    /* less than a whole last microbatch: the detailed ones scaled to the priced count */
    double f = r->microbatches / detail;
    for (size_t i = 0; i < out->n_events; i++) {
      out->events[i].start_s *= f;
      out->events[i].dur_s *= f;
    }
    t *= f;
  }
  double dp_hidden = fmax(0.0, r->comm_s[SCALE_STEP_COMM_DP] - r->exposed_s[SCALE_STEP_COMM_DP]);
  put(out, 1 + SCALE_STEP_COMM_DP, SCALE_TRACE_HIDDEN, -1, -1, -1, fmax(0.0, t - dp_hidden),
      fmin(t, dp_hidden));
  put(out, 0, SCALE_TRACE_BUBBLE, -1, -1, -1, t, r->bubble_s);
  t += r->bubble_s;
  put(out, 1 + SCALE_STEP_COMM_DP, SCALE_TRACE_EXPOSED, -1, -1, -1, t,
      r->exposed_s[SCALE_STEP_COMM_DP]);
  t += r->exposed_s[SCALE_STEP_COMM_DP];
  put(out, 0, SCALE_TRACE_OP, SCALE_STEP_OP_OPTIMIZER, -1, -1, t, r->optimizer_s);
  t += r->optimizer_s;
  put(out, 0, SCALE_TRACE_OVERHEAD, -1, -1, -1, t, r->overhead_s);
  t += r->overhead_s;
  double device_end = r->step_s - r->stage_s;
  if (device_end > t * (1 + 1e-12)) put(out, 0, SCALE_TRACE_FLOOR, -1, -1, -1, t, device_end - t);
  t = fmax(t, device_end);
  put(out, 0, SCALE_TRACE_STAGES, -1, -1, -1, t, r->stage_s);
  out->end_s = r->step_s;
  return SCALE_OK;
}

/* ---- renderers ----------------------------------------------------------------------------- */

static const char *const kind_names[SCALE_TRACE_KIND_COUNT] = {
    "op", "compute", "hidden", "exposed", "bubble", "overhead", "floor", "stage latency"};

/* The event's name as both renderers print it. */
static const char *event_name(const scale_step_trace_event *e) {
  if (e->kind == SCALE_TRACE_OP) return scale_step_op_name((scale_step_op)e->op);
  if (e->kind == SCALE_TRACE_COMPUTE) return e->micro_first < e->micro_last ? "microbatches" : "layers";
  return kind_names[e->kind];
}

/* 'text' as a JSON string's contents (quotes, backslashes and control characters escaped). */
static void json_text(FILE *fp, const char *text) {
  for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(fp, "\\%c", *p);
    else if (*p < 0x20) fprintf(fp, "\\u%04x", *p);
    else fputc(*p, fp);
  }
}

scale_status scale_step_trace_json(const scale_step_trace *trace, const char *title, FILE *fp,
                                   scale_diag *diag) {
  if (!trace || !fp) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "trace: NULL argument");
  fprintf(fp, "{\"displayTimeUnit\": \"ms\",\n \"otherData\": {\"step_s\": %.17g, "
              "\"microbatches\": %.17g, \"note\": \"",
          trace->end_s, trace->microbatches);
  json_text(fp, "the step model's composition: per microbatch its ops, then its exposed "
                "communication; hidden parts under the compute they overlap");
  fprintf(fp, "\"},\n \"traceEvents\": [\n  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, "
              "\"args\": {\"name\": \"");
  json_text(fp, title);
  fprintf(fp, "\"}}");
  for (int r = 0; r < SCALE_STEP_TRACE_ROWS; r++)
    if (trace->row_used[r])
      fprintf(fp, ",\n  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, "
                  "\"args\": {\"name\": \"%s\"}}",
              r, trace->row_names[r]);
  for (size_t i = 0; i < trace->n_events; i++) {
    const scale_step_trace_event *e = &trace->events[i];
    fprintf(fp, ",\n  {\"name\": \"%s\", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, "
                "\"ts\": %.17g, \"dur\": %.17g, \"args\": {\"microbatch_first\": %d, "
                "\"microbatch_last\": %d, \"exposed\": %s}}",
            event_name(e), kind_names[e->kind], e->row, e->start_s * 1e6, e->dur_s * 1e6,
            e->micro_first, e->micro_last,
            e->kind == SCALE_TRACE_HIDDEN ? "false" : "true");
  }
  fprintf(fp, "\n ]}\n");
  if (ferror(fp)) return scale_diag_set(diag, SCALE_ERR_IO, "", 0, "trace: write failed");
  return SCALE_OK;
}

scale_status scale_step_trace_svg(const scale_step_trace *trace, const char *title, char *buf,
                                  size_t size, size_t *len, scale_diag *diag) {
  if (!trace) return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "trace: NULL argument");
  static const scale_diagram_style styles[] = {
      {"compute", "#4e79a7", "op", "#ffffff"},   {"hidden communication", "#a0cbe8", "hidden", NULL},
      {"exposed communication", "#e15759", "exposed", "#ffffff"},
      {"idle (bubble, floor)", NULL, "idle", NULL}, {"fixed overhead", "#bab0ac", "overhead", NULL}};
  static const int style_of[SCALE_TRACE_KIND_COUNT] = {0, 0, 1, 2, 3, 4, 3, 3};
  static scale_diagram_span spans[SCALE_STEP_TRACE_MAX];
  const char *rows[SCALE_STEP_TRACE_ROWS];
  int row_at[SCALE_STEP_TRACE_ROWS], n_rows = 0;
  for (int r = 0; r < SCALE_STEP_TRACE_ROWS; r++) {
    row_at[r] = trace->row_used[r] ? n_rows : -1;
    if (trace->row_used[r]) rows[n_rows++] = trace->row_names[r];
  }
  for (size_t i = 0; i < trace->n_events; i++) {
    const scale_step_trace_event *e = &trace->events[i];
    spans[i] = (scale_diagram_span){row_at[e->row], style_of[e->kind], e->start_s, e->dur_s, ""};
    snprintf(spans[i].label, sizeof spans[i].label, "%s", event_name(e));
  }
  char desc[160];
  snprintf(desc, sizeof desc, "One predicted training step of %.4g s over %g microbatches, by stream.",
           trace->end_s, trace->microbatches);
  scale_diagram_chart chart = {.title = title, .desc = desc, .rows = rows, .n_rows = n_rows,
                               .styles = styles, .n_styles = 5, .spans = spans,
                               .n_spans = trace->n_events, .end_s = trace->end_s, .axis = true};
  return scale_diagram_timeline(&chart, buf, size, len, diag);
}

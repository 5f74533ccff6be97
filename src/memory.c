/* memory.c — activations by recompute mode and parallelism, framework overhead (memory.h). */
#include "scale/memory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale/transformer.h"
#include "internal.h"

static double c(int64_t n) { return (double)n; }

static bool act_ok(const scale_model *m, double b, double s, const scale_memory_act *o) {
  return m && o && isfinite(b) && b > 0.0 && isfinite(s) && s > 0.0 && isfinite(o->tp) &&
         o->tp >= 1.0 && isfinite(o->cp) && o->cp >= 1.0 && isfinite(o->act_bytes) &&
         o->act_bytes > 0.0 && o->recompute > SCALE_RECOMPUTE_UNKNOWN &&
         o->recompute < SCALE_RECOMPUTE_COUNT && m->n_layers >= 1 && m->d_model >= 1;
}

/* The width of the MLP activations of an average layer: dense layers d_ff, MoE layers the
 * k routed experts plus the shared ones, each d_ff_expert wide (tokens spread evenly). */
static double mlp_width(const scale_model *m) {
  double layers = c(m->n_layers), moe = scale_transformer_n_moe_layers(m);
  double expert = (c(m->n_experts_active) + c(m->n_shared_experts)) * c(m->d_ff_expert);
  return ((layers - moe) * c(m->d_ff) + moe * expert) / layers;
}

/* Per token, split by tp: Q, K, V and the output projection's input [elements]. */
static double attention_widths(const scale_model *m) {
  double heads = c(m->n_heads);
  if (m->kv_lora_rank > 0) { /* MLA trains on the up-projected keys and values */
    double qk = heads * c(m->d_head_nope + m->d_head_rope), v = heads * c(m->d_head_v);
    return 2.0 * qk + v + v;
  }
  double q = heads * c(m->d_head), k = c(m->n_kv_heads > 0 ? m->n_kv_heads : m->n_heads);
  return q + 2.0 * k * c(m->d_head) + q;
}

/* Per token, split by tp: the attention core kept without recompute [bytes]. */
static double core_bytes_per_token(const scale_model *m, double s, const scale_memory_act *o) {
  double heads = c(m->n_heads);
  return o->flash ? 4.0 * heads : (2.0 * o->act_bytes + 1.0) * heads * s;
}

/* Per token: everything a transformer layer keeps without recompute, less the core. */
static double kept_bytes_per_token(const scale_model *m, const scale_memory_act *o) {
  double a = o->act_bytes, d = c(m->d_model), t = o->tp;
  double replicated = (4.0 * a + 2.0) * d;
  double split = a * (attention_widths(m) + (m->gated_mlp ? 3.0 : 2.0) * mlp_width(m));
  return (o->sp ? replicated / t : replicated) + split / t;
}

/* The layer input: the only tensor full recompute keeps [bytes per token]. */
static double input_bytes_per_token(const scale_model *m, const scale_memory_act *o) {
  double x = o->act_bytes * c(m->d_model);
  return o->sp ? x / o->tp : x;
}

double scale_memory_layer_activation_bytes(const scale_model *model, double b, double s,
                                           const scale_memory_act *act) {
  if (!act_ok(model, b, s, act)) return NAN;
  double tokens = b * s / act->cp;
  if (act->recompute == SCALE_RECOMPUTE_FULL) return tokens * input_bytes_per_token(model, act);
  if (model->arch == SCALE_ARCH_MAMBA2) /* no attention core: selective keeps it all */
    return scale_transformer_layer_activation_bytes(model, b, s, act->tp, act->cp, act->sp);
  double per_token = kept_bytes_per_token(model, act);
  if (act->recompute == SCALE_RECOMPUTE_NONE)
    per_token += core_bytes_per_token(model, s, act) / act->tp;
  return tokens * per_token;
}

double scale_memory_layer_working_bytes(const scale_model *model, double b, double s,
                                        const scale_memory_act *act) {
  if (!act_ok(model, b, s, act)) return NAN;
  if (act->recompute == SCALE_RECOMPUTE_NONE) return 0.0;
  double tokens = b * s / act->cp;
  if (act->recompute == SCALE_RECOMPUTE_FULL) {
    scale_memory_act none = *act;
    none.recompute = SCALE_RECOMPUTE_NONE;
    return scale_memory_layer_activation_bytes(model, b, s, &none) -
           tokens * input_bytes_per_token(model, act);
  }
  if (model->arch == SCALE_ARCH_MAMBA2) return 0.0;
  return tokens * core_bytes_per_token(model, s, act) / act->tp;
}

double scale_memory_embedding_bytes(const scale_model *model, double b, double s,
                                    const scale_memory_act *act) {
  if (!act_ok(model, b, s, act)) return NAN;
  double mask = c(model->d_model);
  return b * s / act->cp * (act->sp ? mask / act->tp : mask);
}

double scale_memory_logits_bytes(const scale_model *model, double b, double s,
                                 const scale_memory_act *act) {
  if (!act_ok(model, b, s, act)) return NAN;
  double inputs = 2.0 * act->act_bytes * c(model->d_model);
  double per_token = (act->sp ? inputs / act->tp : inputs) + 4.0 * c(model->n_vocab) / act->tp;
  return b * s / act->cp * per_token;
}

/* ---- overhead ---- */

static double or_zero(double x) { return isnan(x) ? 0.0 : x; }

scale_memory_overhead scale_memory_overhead_of(const scale_chip *chip) {
  scale_memory_overhead o = {0.0, 0.0, 0.0};
  if (!chip) return o;
  o.context_bytes = or_zero(chip->memory_context_bytes);
  o.comm_buffer_bytes = or_zero(chip->memory_comm_buffer_bytes);
  o.fragmentation_frac = or_zero(chip->memory_fragmentation_frac);
  return o;
}

double scale_memory_overhead_bytes(const scale_memory_overhead *o, double tensor_bytes,
                                   double n_groups) {
  if (!o || !(tensor_bytes >= 0.0) || !(n_groups >= 0.0)) return NAN;
  double x =
      o->context_bytes + n_groups * o->comm_buffer_bytes + o->fragmentation_frac * tensor_bytes;
  return isfinite(x) && x >= 0.0 ? x : (double)NAN;
}

/* Weighted least squares of y = c + k x, weight 1 / (rows of the group). */
bool scale_memory_fit(const double *x, const double *y, const int *group, int n, int exclude,
                      double *context_bytes, double *fragmentation_frac) {
  if (context_bytes) *context_bytes = NAN;
  if (fragmentation_frac) *fragmentation_frac = NAN;
  if (!x || !y || !group || n < 2 || !context_bytes || !fragmentation_frac) return false;
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    if (group[i] < 0 || group[i] >= n || !isfinite(x[i]) || !isfinite(y[i])) return false;
    if (group[i] == exclude) continue;
    int rows = 0;
    for (int j = 0; j < n; j++)
      rows += group[j] == group[i];
    double w = 1.0 / rows;
    sw += w, sx += w * x[i], sy += w * y[i], sxx += w * x[i] * x[i], sxy += w * x[i] * y[i];
  }
  double det = sw * sxx - sx * sx;
  if (!(sw > 0.0) || !(fabs(det) > 1e-12 * sxx * sw)) return false;
  double k = (sw * sxy - sx * sy) / det, ctx = (sy - k * sx) / sw;
  /* Both figures are physical only when >= 0: a negative one is pinned at 0 and the other
   * refitted alone (the allocator cannot give back memory it never had). */
  if (k < 1.0) k = 1.0, ctx = (sy - sx) / sw;
  if (ctx < 0.0) ctx = 0.0, k = fmax(1.0, sxy / sxx);
  *context_bytes = ctx;
  *fragmentation_frac = k - 1.0;
  return true;
}

/* ---- published runs ---- */

scale_status scale_memory_recompute_parse(const char *text, scale_recompute *out) {
  for (int i = SCALE_RECOMPUTE_NONE; text && out && i < SCALE_RECOMPUTE_COUNT; i++)
    if (strcmp(text, scale_recompute_name((scale_recompute)i)) == 0) {
      *out = (scale_recompute)i;
      return SCALE_OK;
    }
  return SCALE_ERR_INVALID;
}

scale_remat scale_memory_remat_of(scale_recompute r) {
  return r == SCALE_RECOMPUTE_NONE        ? SCALE_REMAT_NONE
         : r == SCALE_RECOMPUTE_SELECTIVE ? SCALE_REMAT_SELECTIVE
                                          : SCALE_REMAT_BLOCK;
}

scale_status scale_memory_eval_run(const scale_measurement *row, scale_recompute assumed,
                                   const scale_model *model, const scale_chip *chip,
                                   scale_train_result *out, scale_diag *diag) {
  if (!row || !model || !chip || !out)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "missing argument");
  scale_recompute r = row->recompute == SCALE_RECOMPUTE_UNKNOWN ? assumed : row->recompute;
  if (r <= SCALE_RECOMPUTE_UNKNOWN || r >= SCALE_RECOMPUTE_COUNT)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "%s: recompute mode not known", row->id);
  scale_layout l = scale_layout_default();
  if (row->zero >= 1) {
    l.fsdp = row->dp;
    l.zero_stage = row->zero;
  } else {
    l.dp = row->dp;
  }
  l.tp = row->tp, l.pp = row->pp, l.cp = row->cp, l.ep = row->ep, l.sp = row->sp;
  l.remat = scale_memory_remat_of(r);
  if (chip->kind == SCALE_HW_TPU) {
    /* XLA SPMD (MaxText): every saved activation is sharded over every mesh axis, the batch
     * over the data axes and the model dimensions, residual stream included, over the tensor
     * axis: Megatron's SP in effect whatever the row says. MaxText's 'minimal' remat (the
     * selective of its rows) keeps the outputs of the weight matmuls: the book's policy. */
    l.sp = row->tp > 1.0;
    if (r == SCALE_RECOMPUTE_SELECTIVE) l.remat = SCALE_REMAT_BIG_MATMULS;
  }
  /* Megatron (and NeMo, MindSpeed): bf16 weights, fp32 gradient buffers, fp32 master weights
   * and Adam moments, 18 bytes a parameter; MaxText on TPU: fp32 weights and gradients. */
  scale_precision megatron = {SCALE_DTYPE_BF16, SCALE_DTYPE_FP32, SCALE_DTYPE_FP32, 2, true};
  scale_precision maxtext = {SCALE_DTYPE_FP32, SCALE_DTYPE_FP32, SCALE_DTYPE_FP32, 2, false};
  l.precision = chip->kind == SCALE_HW_TPU ? maxtext : megatron;
  double mbs = row->mbs > 0.0 ? row->mbs : 1.0;
  l.n_microbatches = row->gbs / (row->dp * mbs);
  l.schedule = row->vp > 1.0 && row->pp > 1.0 ? SCALE_PP_INTERLEAVED : SCALE_PP_1F1B;
  l.n_virtual_stages = row->vp > 1.0 ? row->vp : 1.0;
  scale_train_layout_map(chip, row->chips, &l);
  scale_train_problem p =
      scale_train_problem_make(model, chip, row->chips, row->gbs * row->seq, row->seq);
  scale_status st = scale_train_validate(&p, &l, diag);
  if (st) return st;
  scale_train_eval(&p, &l, out);
  return SCALE_OK;
}

/* ---- the memory observations file ---- */

#define MEM_COLUMNS 21
static const char *const mem_header =
    "id\tref\tgroup\tmodel\thardware\tchips\tdp\ttp\tpp\tcp\tep\tzero\tmbs\tvp\trecompute\tsp\tgbs"
    "\tseq\toutcome\tmeasured_bytes\tsource";

/* A number in [lo, hi] (whole when asked); '-' gives 'dash' when dash is not NaN. */
static bool num(const char *text, double lo, double hi, bool whole, double dash, double *out) {
  if (!isnan(dash) && strcmp(text, "-") == 0) return (*out = dash, true);
  char *end = NULL;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || !isfinite(v) || v < lo || v > hi) return false;
  if (whole && v != floor(v)) return false;
  return (*out = v, true);
}

static bool text_copy(const char *text, char *dst, size_t size) {
  size_t len = strlen(text);
  if (len == 0 || len >= size) return false;
  memcpy(dst, text, len + 1);
  return true;
}

static int recompute_word(const char *w) {
  for (int i = 0; i < SCALE_RECOMPUTE_COUNT; i++)
    if (strcmp(w, scale_recompute_name((scale_recompute)i)) == 0) return i;
  return -1;
}

/* Fills *r from the MEM_COLUMNS fields; the name of the first bad column, or NULL. */
static const char *mem_parse(char **f, scale_memory_row *r) {
  scale_measurement *m = &r->run;
  double zero = 0, sp = 0, nan_dash = NAN;
  if (!text_copy(f[0], m->id, sizeof m->id)) return "id";
  if (strcmp(f[1], "-") == 0)
    r->ref[0] = '\0';
  else if (!text_copy(f[1], r->ref, sizeof r->ref))
    return "ref";
  if (!text_copy(f[2], m->group, sizeof m->group)) return "group";
  if (!text_copy(f[3], m->model, sizeof m->model)) return "model";
  if (!text_copy(f[4], m->hardware, sizeof m->hardware)) return "hardware";
  if (!num(f[5], 1, 1e7, true, nan_dash, &m->chips)) return "chips";
  if (!num(f[6], 1, 1e7, true, nan_dash, &m->dp)) return "dp";
  if (!num(f[7], 1, 1e4, true, nan_dash, &m->tp)) return "tp";
  if (!num(f[8], 1, 1e4, true, nan_dash, &m->pp)) return "pp";
  if (!num(f[9], 1, 1e4, true, nan_dash, &m->cp)) return "cp";
  if (!num(f[10], 1, 1e4, true, nan_dash, &m->ep)) return "ep";
  if (!num(f[11], 0, 3, true, nan_dash, &zero)) return "zero";
  m->zero = (int)zero;
  if (!num(f[12], 1, 1e6, true, 0.0, &m->mbs)) return "mbs";
  if (!num(f[13], 1, 1e3, true, 0.0, &m->vp)) return "vp";
  int rc = recompute_word(f[14]);
  if (rc < 0) return "recompute";
  m->recompute = (scale_recompute)rc;
  if (!num(f[15], 0, 1, true, nan_dash, &sp)) return "sp";
  m->sp = sp == 1.0;
  if (!num(f[16], 1, 1e9, true, nan_dash, &m->gbs)) return "gbs";
  if (!num(f[17], 1, 1e8, true, nan_dash, &m->seq)) return "seq";
  if (strcmp(f[18], "fits") != 0 && strcmp(f[18], "oom") != 0) return "outcome";
  r->oom = strcmp(f[18], "oom") == 0;
  if (strcmp(f[19], "-") == 0)
    r->measured_bytes = NAN;
  else if (!num(f[19], 1, 1e15, false, nan_dash, &r->measured_bytes))
    return "measured_bytes";
  if (!text_copy(f[20], m->source, sizeof m->source)) return "source";
  m->attention = SCALE_ATTENTION_FLASH;
  m->precision = SCALE_DTYPE_BF16;
  return NULL;
}

static int split_fields(char *line, char **f) {
  int n = 0;
  for (char *p = line;; n++) {
    if (n == MEM_COLUMNS) return n + 1; /* too many */
    f[n] = p;
    char *tab = strchr(p, '\t');
    if (!tab) return n + 1;
    *tab = '\0';
    p = tab + 1;
  }
}

scale_status scale_memory_rows_load(const char *path, scale_memory_row *rows, int cap, int *n,
                                    scale_diag *diag) {
  if (!path || !rows || !n || cap < 0)
    return scale_diag_set(diag, SCALE_ERR_INVALID, "", 0, "missing argument");
  FILE *fp = fopen(path, "r");
  if (!fp) return scale_diag_set(diag, SCALE_ERR_IO, path, 0, "cannot open");
  char line[2048];
  bool header = false;
  scale_status st = SCALE_OK;
  for (int lineno = 1; !st && fgets(line, sizeof line, fp); lineno++) {
    size_t len = strlen(line);
    if (len == sizeof line - 1 && line[len - 1] != '\n') {
      st = scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno, "line too long");
      break;
    }
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = '\0';
    if (len == 0 || line[0] == '#') continue;
    if (!header) {
      header = true;
      if (strcmp(line, mem_header) != 0)
        st = scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno, "header is not: %s", mem_header);
      continue;
    }
    char *f[MEM_COLUMNS + 1];
    if (split_fields(line, f) != MEM_COLUMNS) {
      st = scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno, "expected %d tab-separated fields",
                          MEM_COLUMNS);
    } else if (*n >= cap) {
      st = scale_diag_set(diag, SCALE_ERR_RANGE, path, lineno, "more than %d rows", cap);
    } else {
      scale_memory_row *r = &rows[*n];
      memset(r, 0, sizeof *r);
      const char *bad = mem_parse(f, r);
      scale_measurement *m = &r->run;
      if (bad)
        st = scale_diag_set(diag, SCALE_ERR_PARSE, path, lineno, "column '%s': bad value", bad);
      else if (m->dp * m->tp * m->pp * m->cp != m->chips)
        st = scale_diag_set(diag, SCALE_ERR_INVALID, path, lineno, "dp tp pp cp is not chips");
      else {
        snprintf(m->file, sizeof m->file, "memory.tsv");
        m->line = lineno;
        (*n)++;
      }
    }
  }
  if (!st && !header) st = scale_diag_set(diag, SCALE_ERR_PARSE, path, 0, "no header line");
  fclose(fp);
  return st;
}

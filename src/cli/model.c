/* model.c — `scale model list` and `scale model show NAME`: the architectures of models/. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "model_derived.h"

/* One stored count of scale_model: JSON key, label, section it belongs to. */
typedef struct {
  const char *json_key;
  const char *label;
  size_t offset;
  int section; /* 0 model, 1 attention, 2 mlp, 3 moe, 4 mla, 5 mamba2 */
} count_field;

#define N(key, label, member, section)                                                             \
  { key, label, offsetof(scale_model, member), section }
static const count_field counts[] = {
    N("n_layers", "layers L", n_layers, 0),
    N("d_model", "width D", d_model, 0),
    N("n_vocab", "vocabulary V", n_vocab, 0),
    N("n_ctx_max", "max context", n_ctx_max, 0),
    N("n_heads", "query heads N", n_heads, 1),
    N("n_kv_heads", "KV heads K", n_kv_heads, 1),
    N("d_head", "head dim H", d_head, 1),
    N("d_ff", "MLP width F", d_ff, 2),
    N("n_experts", "experts E", n_experts, 3),
    N("n_experts_active", "active experts k", n_experts_active, 3),
    N("n_shared_experts", "shared experts", n_shared_experts, 3),
    N("d_ff_expert", "expert width", d_ff_expert, 3),
    N("n_dense_layers", "dense layers", n_dense_layers, 3),
    N("q_lora_rank", "MLA query rank", q_lora_rank, 4),
    N("kv_lora_rank", "MLA KV latent", kv_lora_rank, 4),
    N("d_head_rope", "MLA rotary head dim", d_head_rope, 4),
    N("d_head_nope", "MLA non-rotary head dim", d_head_nope, 4),
    N("d_head_v", "MLA value head dim", d_head_v, 4),
    N("ssm_d_state", "SSM state N", ssm_d_state, 5),
    N("ssm_n_heads", "SSM heads", ssm_n_heads, 5),
    N("ssm_d_head", "SSM head dim P", ssm_d_head, 5),
    N("ssm_expand", "expand", ssm_expand, 5),
    N("ssm_n_groups", "groups", ssm_n_groups, 5),
    N("ssm_d_conv", "conv width", ssm_d_conv, 5),
    N("ssm_chunk_size", "SSD chunk", ssm_chunk_size, 5),
};
#undef N

static int64_t count_value(const scale_model *m, const count_field *f) {
  int64_t v;
  memcpy(&v, (const char *)m + f->offset, sizeof v);
  return v;
}

static const char *arch_name(const scale_model *m) {
  return m->arch == SCALE_ARCH_MAMBA2 ? "mamba2" : "transformer";
}

static void show_json(const scale_model *m, const cli_model_query *q) {
  cli_json json;
  cli_json_init(&json, stdout);
  cli_json_object_begin(&json, NULL);
  cli_json_string(&json, "name", m->name);
  cli_json_string(&json, "display_name", m->display_name);
  cli_json_string(&json, "arch", arch_name(m));
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    int64_t v = count_value(m, &counts[i]);
    if (v || counts[i].section == 0) cli_json_number(&json, counts[i].json_key, (double)v);
  }
  cli_json_bool(&json, "tied_embeddings", m->tied_embeddings);
  if (m->arch == SCALE_ARCH_TRANSFORMER) cli_json_bool(&json, "gated_mlp", m->gated_mlp);
  if (m->n_params_reported > 0) cli_json_number(&json, "n_params_reported", m->n_params_reported);
  cli_model_derived_json(&json, m, q);
  cli_json_object_end(&json);
  cli_json_finish(&json);
}

static void show_text(const scale_model *m, const cli_model_query *q) {
  printf("%s (%s, %s%s)\n", m->display_name, m->name, arch_name(m),
         scale_model_is_moe(m) ? ", mixture of experts" : "");
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    int64_t v = count_value(m, &counts[i]);
    if (v || counts[i].section == 0) cli_row(counts[i].label, (double)v, "", SCALE_FMT_PLAIN);
  }
  cli_row_text("embeddings", m->tied_embeddings ? "tied" : "separate unembedding");
  if (m->arch == SCALE_ARCH_TRANSFORMER)
    cli_row_text("MLP", m->gated_mlp ? "gated (3 matrices)" : "plain (2 matrices)");
  if (m->n_params_reported > 0)
    cli_row("parameters (as published)", m->n_params_reported, "", SCALE_FMT_SI);
  cli_model_derived_text(m, q);
}

#define MAX_FILES 256

/* One row of the text table, its name columns 'wn' and 'wd' wide. */
static void list_row(const scale_model *m, int wn, int wd) {
  char params[32];
  printf("%-*s  %-*s  %-11s %4" PRId64 " %6" PRId64 " %4" PRId64 " %4" PRId64 " %8s\n", wn, m->name,
         wd, m->display_name, arch_name(m), m->n_layers, m->d_model, m->n_heads, m->n_kv_heads,
         m->n_params_reported > 0
             ? scale_format(params, sizeof params, m->n_params_reported, "", SCALE_FMT_SI)
             : "?");
}

static void list_json(cli_json *json, const scale_model *m) {
  cli_json_object_begin(json, NULL);
  cli_json_string(json, "name", m->name);
  cli_json_string(json, "display_name", m->display_name);
  cli_json_string(json, "arch", arch_name(m));
  cli_json_number(json, "n_layers", (double)m->n_layers);
  cli_json_number(json, "d_model", (double)m->d_model);
  cli_json_number(json, "n_params_reported", m->n_params_reported);
  cli_json_object_end(json);
}

static int list(bool as_json) {
  static char names[MAX_FILES][SCALE_NAME_MAX];
  static scale_model models[MAX_FILES];
  int n = scale_data_list("models", names, MAX_FILES);
  if (n < 0) return cli_fail("cannot read %s/models", scale_data_dir());
  if (n > MAX_FILES) n = MAX_FILES;
  int status = CLI_EXIT_OK, loaded = 0, wn = 4, wd = 5; /* "NAME", "MODEL" */
  for (int i = 0; i < n; i++) {
    scale_diag diag;
    if (scale_model_load(names[i], &models[loaded], &diag)) {
      cli_print_diag(&diag);
      status = CLI_EXIT_FAIL;
      continue;
    }
    wn = (int)fmax(wn, (double)strlen(models[loaded].name));
    wd = (int)fmax(wd, (double)strlen(models[loaded].display_name));
    loaded++;
  }
  cli_json json;
  cli_json_init(&json, stdout);
  if (as_json)
    cli_json_array_begin(&json, NULL);
  else
    printf("%-*s  %-*s  %-11s %4s %6s %4s %4s %8s\n", wn, "NAME", wd, "MODEL", "ARCH", "L", "D",
           "N", "K", "PARAMS");
  for (int i = 0; i < loaded; i++) {
    if (as_json)
      list_json(&json, &models[i]);
    else
      list_row(&models[i], wn, wd);
  }
  if (as_json) {
    cli_json_array_end(&json);
    cli_json_finish(&json);
  }
  return status;
}

static void usage(FILE *out) {
  fprintf(out,
          "usage: scale model list [--json]\n"
          "       scale model show NAME [--context T] [--kv-dtype DTYPE] [--json]\n"
          "       scale model import CONFIG [--name NAME] [--out FILE] (see its --help)\n\n"
          "NAME is a file stem of models/ (llama-3-70b, deepseek-v3) or a path to an .ini.\n"
          "show adds parameters (total, active), FLOPs per token at context T (default: the\n"
          "model's trained context, also the largest T accepted, as in scale infer), KV bytes\n"
          "per token in DTYPE (default bf16) or Mamba-2's state, and training memory (bf16\n"
          "weights and gradients, fp32 Adam).\n");
}

enum { OPT_CONTEXT = 256, OPT_KV_DTYPE };

/* The options of `model show` beyond --json: the context and KV dtype of the derived rows. */
static bool take_query(int val, const char *arg, void *ctx) {
  cli_model_query *q = ctx;
  if (val == OPT_CONTEXT)
    return cli_parse_number("context", arg, SCALE_NUM_POSITIVE | SCALE_NUM_INTEGER, &q->context);
  return cli_parse_dtype("kv-dtype", arg, &q->kv_dtype);
}

int cli_cmd_model(int argc, char **argv) {
  static const struct option options[] = {{"context", required_argument, NULL, OPT_CONTEXT},
                                          {"kv-dtype", required_argument, NULL, OPT_KV_DTYPE},
                                          {NULL, 0, NULL, 0}};
  if (argc > 1 && strcmp(argv[1], "import") == 0) return cli_model_import(argc - 1, argv + 1);
  cli_model_query q = {0, SCALE_DTYPE_BF16};
  cli_extra_options extra = {options, take_query, &q};
  cli_list_show args;
  int rc = cli_parse_list_show("model", argc, argv, usage, &extra, &args);
  if (rc >= 0) return rc;
  if (args.list) return list(args.json);
  scale_model m;
  if ((rc = cli_load_model(args.name, &m))) return rc;
  scale_diag diag;
  /* The same check as `scale infer`: within the model's trained context. */
  if (q.context > 0 && scale_infer_check_context(&m, "context", q.context, 1.0, &diag))
    return cli_usage("model show: %s", diag.message);
  if (args.json)
    show_json(&m, &q);
  else
    show_text(&m, &q);
  return CLI_EXIT_OK;
}

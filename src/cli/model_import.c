/* model_import.c — `scale model import CONFIG`: a model file from a Hugging Face config.json. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "scale/file.h"
#include "scale/modelimport.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: scale model import CONFIG [--name NAME] [--out FILE] [--index INDEX]\n\n"
          "Reads a Hugging Face transformers config.json and writes the strict model file it\n"
          "describes (to FILE, which must not exist yet, or to standard output), with what the\n"
          "model schema leaves out as comments and 'note:' lines. NAME (default: the config's\n"
          "folder, or its file stem, lowercased) names the model. Families: llama, mistral,\n"
          "mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3, gpt_oss,\n"
          "deepseek_v2, deepseek_v3, kimi_k2, llama4, mamba2 (nemotron_h's hybrid refused).\n"
          "With --index (the checkpoint's\n"
          "model.safetensors.index.json) the count is checked against the checkpoint's bytes\n"
          "over the config's torch_dtype: more than 3%% apart fails. Example:\n"
          "  build/scale model import tests/data/hf/mixtral-8x7b.json --out /tmp/m.ini\n"
          "  build/scale train --model /tmp/m.ini --hw nvidia-h100-sxm --chips 64 ...\n");
}

/** The default name: the folder of a config.json, else the file's stem; lowercased. */
static bool default_name(const char *path, char *name, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  size_t n = dot && strcmp(dot, ".json") == 0 ? (size_t)(dot - base) : strlen(base);
  if (strcmp(base, "config.json") == 0 && base != path) { /* .../NAME/config.json */
    const char *end = base - 1, *start = end;
    while (start > path && start[-1] != '/')
      start--;
    base = start, n = (size_t)(end - start);
  }
  if (n == 0 || n >= size) return false;
  for (size_t i = 0; i < n; i++)
    name[i] = (char)tolower((unsigned char)base[i]);
  name[n] = '\0';
  return true;
}

/** A model name as models/ spells its stems: letters, digits, '.', '_' and '-'. */
static bool name_ok(const char *name) {
  if (!name[0] || name[0] == '.') return false;
  for (const char *p = name; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("._-", *p)) return false;
  return true;
}

/** Reads and parses the JSON file 'path' into *json; a failure is one "scale: ..." line. */
static int read_json(const char *path, scale_json **json) {
  char *text = NULL;
  size_t len = 0;
  scale_diag diag = {0};
  if (scale_file_read(path, &text, &len, &diag) != SCALE_OK)
    return cli_fail("model import: cannot read '%s': %s", path, diag.message);
  scale_status st = scale_json_parse(text, len, json, &diag);
  free(text);
  if (st) return cli_usage("model import: %s:%d: %s", path, diag.line, diag.message);
  return CLI_EXIT_OK;
}

/** The checkpoint's parameters (its index's bytes over the dtype) against the import's count:
 * a line saying how far apart, or a failure past 3% (a field read wrong). */
static int check_index(const char *path, const scale_json *config, const scale_model *m) {
  scale_json *index = NULL;
  int rc = read_json(path, &index);
  if (rc) return rc;
  double held = 0;
  scale_diag diag = {0};
  scale_status st =
      scale_model_index_params(scale_json_root(index), scale_json_root(config), &held, &diag);
  scale_json_free(index);
  if (st) return cli_usage("model import: %s: %s", path, diag.message);
  double counted = scale_transformer_n_params(m), apart = counted / held - 1;
  if (fabs(apart) > 0.03)
    return cli_fail("model import: the import counts %.6g parameters, %s holds %.6g (%+.1f%%): "
                    "a field read wrong?",
                    counted, path, held, 100 * apart);
  fprintf(stderr, "index: %s holds %.6g parameters; the import counts %.6g (%+.2f%%)\n", path, held,
          counted, 100 * apart);
  return CLI_EXIT_OK;
}

/** Parses and imports 'path' into *m (checked against 'index' when given); a failure is one
 * "scale: ..." line, exit 2 for a config that cannot be imported. */
static int read_config(const char *path, const char *index, const char *name, scale_model *m,
                       scale_import_notes *notes) {
  scale_json *json = NULL;
  int rc = read_json(path, &json);
  if (rc) return rc;
  scale_diag diag = {0};
  scale_status st = scale_model_import_hf(scale_json_root(json), name, m, notes, &diag);
  if (st)
    rc = cli_usage("model import: %s: %s", path, diag.message);
  else if (index)
    rc = check_index(index, json, m);
  scale_json_free(json);
  return rc;
}

/** Writes the model file to 'out' (created, never overwritten) or standard output. */
static int write_model(const scale_model *m, const char *config, const char *out,
                       const scale_import_notes *notes) {
  char source[600];
  snprintf(source, sizeof source, "Imported by scale model import from %s.", config);
  FILE *f = stdout;
  if (out) {
    int fd = open(out, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) return cli_fail("model import: cannot create '%s': %s", out, strerror(errno));
    f = fdopen(fd, "w");
    if (!f) return close(fd), cli_fail("model import: cannot write '%s'", out);
  }
  scale_status st = scale_model_write(m, source, notes, f);
  if ((out && fclose(f) != 0) || (!out && fflush(f) != 0)) st = SCALE_ERR_IO;
  if (st) return cli_fail("model import: writing %s failed", out ? out : "standard output");
  return CLI_EXIT_OK;
}

int cli_model_import(int argc, char **argv) {
  enum { O_NAME = 256, O_OUT, O_INDEX, O_HELP };
  static const struct option options[] = {{"name", required_argument, NULL, O_NAME},
                                          {"out", required_argument, NULL, O_OUT},
                                          {"index", required_argument, NULL, O_INDEX},
                                          {"help", no_argument, NULL, O_HELP},
                                          {NULL, 0, NULL, 0}};
  const char *name = NULL, *out = NULL, *index = NULL;
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, "", options, NULL)) != -1;) {
    if (c == O_NAME)
      name = optarg;
    else if (c == O_OUT)
      out = optarg;
    else if (c == O_INDEX)
      index = optarg;
    else if (c == O_HELP)
      return usage(stdout), CLI_EXIT_OK;
    else
      return cli_bad_option("model import", argv);
  }
  if (optind != argc - 1) return cli_usage("model import: give one CONFIG (see --help)");
  const char *config = argv[optind];
  char derived[64];
  if (!name && !default_name(config, derived, sizeof derived))
    return cli_usage("model import: cannot name the model after '%s'; give --name", config);
  if (!name) name = derived;
  if (!name_ok(name) || strlen(name) >= sizeof derived)
    return cli_usage("model import: --name '%.60s' must be letters, digits, '.', '_' or '-' "
                     "(at most 63)",
                     name);
  scale_model m;
  scale_import_notes notes;
  int rc = read_config(config, index, name, &m, &notes);
  if (rc || (rc = write_model(&m, config, out, &notes))) return rc;
  for (int i = 0; i < notes.n; i++)
    fprintf(stderr, "note: %s\n", notes.text[i]);
  if (!out) return CLI_EXIT_OK;
  scale_model back;
  if ((rc = cli_load_model(out, &back))) return rc; /* what was written must read back */
  printf("wrote %s: %s, %.4g parameters (%.4g active a token)\n", out, back.display_name,
         scale_transformer_n_params(&back), scale_transformer_n_active_params(&back));
  return CLI_EXIT_OK;
}

/* fuzz_json.c — fuzz target: the strict JSON reader (src/json.c) and the Hugging Face config
 * import (src/modelimport.c) behind `scale model import`.
 *
 * Input: the bytes of a config.json.
 * Invariants: a failure is a status of status.h with a one-line diagnostic; a parsed tree's
 * strings are NUL-terminated and its numbers finite; an imported record has counts >= 0, and
 * the model file written from it either loads back to the same counts or is refused by the
 * strict loader with a one-line diagnostic (never a crash).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "scale.h"

static char model_path[1024];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  char dir[512];
  fuzz_tmpdir(dir, sizeof dir);
  snprintf(model_path, sizeof model_path, "%s/fuzz-import.ini", dir);
  return 0;
}

/** Walks the tree, bounded by its depth (json.h caps it at 64). */
static void walk(const scale_json_value *v, int depth) {
  if (depth > SCALE_JSON_DEPTH_MAX + 1) fuzz_fail("json: deeper than the cap");
  for (; v; v = v->next) {
    if (v->type == SCALE_JSON_NUMBER && !isfinite(v->number)) fuzz_fail("json: number %g", v->number);
    if (v->type == SCALE_JSON_STRING && !v->str) fuzz_fail("json: string without text");
    if (v->str) (void)strlen(v->str);
    if (v->key) (void)strlen(v->key);
    walk(v->child, depth + 1);
  }
}

static void round_trip(const scale_model *m, const scale_import_notes *notes) {
  FILE *f = fopen(model_path, "w");
  if (!f) fuzz_fail("cannot write %s", model_path);
  if (scale_model_write(m, "fuzz", notes, f) != SCALE_OK) fuzz_fail("write failed");
  fclose(f);
  scale_model back;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_model_load_file(model_path, &back, &diag);
  if (st) {
    fuzz_check_diag(&diag, "scale_model_load_file after import");
    return;
  }
  if (back.n_layers != m->n_layers || back.d_model != m->d_model || back.n_experts != m->n_experts)
    fuzz_fail("import: the written file reads back different counts");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_std_fds();
  scale_json *json = NULL;
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_json_parse((const char *)data, size, &json, &diag);
  if (st) {
    if ((int)st < 0 || st >= SCALE_STATUS_COUNT || json) fuzz_fail("json: status %d", (int)st);
    fuzz_check_diag(&diag, "scale_json_parse");
    return 0;
  }
  walk(scale_json_root(json), 0);
  scale_model m;
  scale_import_notes notes;
  memset(&diag, 0, sizeof diag);
  st = scale_model_import_hf(scale_json_root(json), "fuzz", &m, &notes, &diag);
  scale_json_free(json);
  if (st) {
    fuzz_check_diag(&diag, "scale_model_import_hf");
    return 0;
  }
  if (m.n_layers < 0 || m.d_model < 0 || m.n_heads < 0 || m.d_ff < 0 || notes.n < 0 ||
      notes.n > SCALE_IMPORT_NOTES_MAX)
    fuzz_fail("import: negative count or bad notes");
  round_trip(&m, &notes);
  return 0;
}

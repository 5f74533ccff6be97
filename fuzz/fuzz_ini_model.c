/* fuzz_ini_model.c — fuzz target: the strict INI loader of model files
 * (scale_model_load_file, src/inifile.c + src/model.c), and what is computed from a loaded
 * record (parameters, FLOPs per token, Mamba-2 widths, memory).
 *
 * Input: the bytes of a model file, written to TMP/fuzz-input.ini (the loader takes a path).
 * Invariants: a failure is a status of status.h with a one-line diagnostic; a loaded record
 * has a name, a known architecture and counts >= 0; parameters, FLOPs and bytes computed from
 * it are finite and > 0 (the book's formulas on a model the loader accepted), and no integer
 * arithmetic overflows (UBSan).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "scale.h"

static char input_path[1024];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  char dir[512];
  fuzz_tmpdir(dir, sizeof dir);
  snprintf(input_path, sizeof input_path, "%s/fuzz-input.ini", dir);
  return 0;
}

static void finite_positive(const char *what, double v) {
  if (!(isfinite(v) && v > 0)) fuzz_fail("model: %s = %g", what, v);
}

static void check_model(const scale_model *m) {
  if (!memchr(m->name, 0, sizeof m->name) || !memchr(m->display_name, 0, sizeof m->display_name))
    fuzz_fail("model: unterminated name");
  if (m->arch != SCALE_ARCH_TRANSFORMER && m->arch != SCALE_ARCH_MAMBA2)
    fuzz_fail("model: arch %d", (int)m->arch);
  const int64_t counts[] = {m->n_layers,       m->d_model,        m->n_vocab,      m->n_ctx_max,
                            m->n_heads,        m->n_kv_heads,     m->d_head,       m->d_ff,
                            m->n_experts,      m->n_experts_active, m->d_ff_expert, m->ssm_d_state,
                            m->ssm_n_heads,    m->ssm_expand,     m->ssm_chunk_size};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    if (counts[i] < 0) fuzz_fail("model: count %zu is %lld", i, (long long)counts[i]);
  if (scale_model_ssm_d_inner(m) < 0) fuzz_fail("model: negative d_inner");
  finite_positive("n_params", scale_transformer_n_params(m));
  finite_positive("n_active_params", scale_transformer_n_active_params(m));
  double t = m->n_ctx_max > 0 ? (double)m->n_ctx_max : 4096.0;
  finite_positive("train flops/token", scale_transformer_flops_per_token(m, t, true, SCALE_PASS_TRAIN));
  finite_positive("forward flops/token",
                  scale_transformer_flops_per_token(m, t, true, SCALE_PASS_FORWARD));
  double frac = scale_transformer_attention_flops_frac(m, t, true);
  if (!(frac >= 0 && frac < 1)) fuzz_fail("model: attention share %g", frac);
  if (m->arch == SCALE_ARCH_MAMBA2) {
    finite_positive("mamba2 d_in_proj", scale_transformer_mamba2_d_in_proj(m));
    finite_positive("ssd flops", scale_transformer_ssd_flops(m, 1, t, false, SCALE_PASS_TRAIN));
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_std_fds();
  fuzz_write_file(input_path, data, size);
  scale_model model;
  memset(&model, 0, sizeof model);
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  scale_status st = scale_model_load_file(input_path, &model, &diag);
  if (st != SCALE_OK) {
    if ((int)st < 0 || st >= SCALE_STATUS_COUNT) fuzz_fail("load: status %d", (int)st);
    fuzz_check_diag(&diag, "scale_model_load_file");
    if (diag.line < 0) fuzz_fail("load: line %d", diag.line);
    return 0;
  }
  check_model(&model);
  return 0;
}

/* test_serving_pending.c — the TensorRT-LLM rows parked, unfitted, in the v017-*, v061-* and
 * v090-* folders of measurements/serving-pending (measurements/README.md): they load as
 * strictly as the shipped rows, their ids are unique over every serving file, their lengths
 * and request counts are the page's, the two model files they need count the published
 * parameters, and the serving cost prices every row but the L40S tensor-parallel ones (TP over
 * PCIe is not priced).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"
#include "scale/servecal.h"
#include "scale_check.h"

static const char *pending_dir(const char *sub, char *buf, size_t size) {
  snprintf(buf, size, "%s/measurements/serving-pending%s%s", scale_data_dir(), sub[0] ? "/" : "",
           sub);
  return buf;
}

/* Loads folder 'sub' of serving-pending/ ("" for the folder itself) into rows; returns the
 * count. */
static int load(const char *sub, scale_serve_row *rows) {
  char dir[4200];
  int n = 0;
  scale_diag diag;
  ck_assert_msg(scale_serve_rows_load_dir(pending_dir(sub, dir, sizeof dir), rows,
                                          SCALE_SERVE_ROWS_MAX, &n, &diag) == SCALE_OK,
                "%s:%d: %s", diag.file, diag.line, diag.message);
  return n;
}

static const scale_serve_row *find(const scale_serve_row *rows, int n, const char *id) {
  for (int i = 0; i < n; i++)
    if (strcmp(rows[i].id, id) == 0) return &rows[i];
  ck_abort_msg("no row %s", id);
  return NULL;
}

static scale_serve_row more[SCALE_SERVE_ROWS_MAX], gl[SCALE_SERVE_ROWS_MAX],
    ltp[SCALE_SERVE_ROWS_MAX], st[SCALE_SERVE_ROWS_MAX], st9[SCALE_SERVE_ROWS_MAX],
    st9tp[SCALE_SERVE_ROWS_MAX];

START_TEST(test_folders_load) {
  /* Cells of the v0.17 table (perf-overview.md at 258c7540) by folder: H200/H100/A100 without
   * the 54 of serving-trtllm-v017.tsv: 26 groups, 230 cells (LLaMA 70B TP1 on H100 and TP2 on
   * A100 have 7 of 9); GH200 4 x 9 less the 70B's 20000/2000 = 35, L40S TP1 2 x 9 = 18; L40S
   * TP4/TP8 4 x 9 = 36. */
  ck_assert_int_eq(load("v017-more", more), 230);
  ck_assert_int_eq(load("v017-gh200-l40s", gl), 53);
  ck_assert_int_eq(load("v017-l40s-tp", ltp), 36);
  /* Values as read at the source (the table's A100 FP16, GH200 and L40S columns). */
  scale_check_rel(find(more, 230, "R3a")->measured, 6627.27, 0, "tokens/s",
                  "v0.17 LLaMA 3.1 8B TP1 A100 128/128");
  scale_check_rel(find(gl, 53, "G2b")->measured, 2082.74, 0, "tokens/s",
                  "v0.17 LLaMA 3.1 70B TP1 GH200 128/2048");
  scale_check_rel(find(gl, 53, "L1a")->measured, 9104.61, 0, "tokens/s",
                  "v0.17 LLaMA 3.1 8B TP1 L40S 128/128");
  scale_check_rel(find(ltp, 36, "L6i")->measured, 918.95, 0, "tokens/s",
                  "v0.17 Mixtral 8x7B TP8 L40S 20000/2000");
  ck_assert(find(more, 230, "R3a")->weight_dtype == SCALE_DTYPE_FP16);
}
END_TEST

START_TEST(test_static_rows) {
  /* v0.6.1's static-batch table (performance.md at 138f96d4): LLaMA 7B and 70B on H100, L40S
   * and A100, 4 + 4 + 4 + 4 + 3 = 19 rows. Per-GPU figures times TP: H100 LLaMA 70B TP4 128/2048
   * prints 1,486 a GPU, 5,944 for the system. One static batch: requests = max_batch = the
   * batch, the whole context phase in one step (batch x ISL tokens). */
  ck_assert_int_eq(load("v061-static", st), 19);
  const scale_serve_row *r = find(st, 19, "S2b");
  scale_check_rel(r->measured, 1486.0 * 4.0, 0, "tokens/s", "v0.6.1 LLaMA 70B TP4 H100 128/2048");
  ck_assert(r->tp == 4 && r->requests == 480 && r->max_batch == 480);
  for (int i = 0; i < 19; i++)
    ck_assert_msg(st[i].requests == st[i].max_batch &&
                      st[i].step_tokens == st[i].max_batch * st[i].isl,
                  "%s: not one static batch", st[i].id);
  /* v0.9.0's table: 4 models x 4 GPUs x 4 lengths = 64, the 8 L40S rows at TP 2/4 apart. H200
   * LLaMA 70B TP2 128/2048 prints 3,963 a GPU: 7,926 for the system. */
  ck_assert_int_eq(load("v090-static", st9), 56);
  ck_assert_int_eq(load("v090-static-l40s-tp", st9tp), 8);
  scale_check_rel(find(st9, 56, "P4b")->measured, 3963.0 * 2.0, 0, "tokens/s",
                  "v0.9.0 LLaMA 70B TP2 H200 128/2048");
  for (int i = 0; i < 8; i++)
    ck_assert_msg(st9tp[i].tp > 1 && strcmp(st9tp[i].hardware, "nvidia-l40s") == 0, "%s",
                  st9tp[i].id);
}
END_TEST

START_TEST(test_lengths_and_requests) {
  /* Every row's ISL/OSL is one of the page's nine and its requests the page's $num_requests for
   * it; the id's letter is the pair's place in the page's order. */
  static const struct {
    double isl, osl, requests;
  } page[] = {{128, 128, 30000},  {128, 2048, 3000},  {128, 4096, 1500},
              {500, 2000, 3000},  {1000, 1000, 3000}, {2048, 128, 3000},
              {2048, 2048, 1500}, {5000, 500, 1500},  {20000, 2000, 1000}};
  const scale_serve_row *sets[] = {more, gl, ltp};
  const int counts[] = {load("v017-more", more), load("v017-gh200-l40s", gl),
                        load("v017-l40s-tp", ltp)};
  for (int s = 0; s < 3; s++)
    for (int i = 0; i < counts[s]; i++) {
      const scale_serve_row *r = &sets[s][i];
      char letter = r->id[strlen(r->id) - 1];
      ck_assert_msg(letter >= 'a' && letter <= 'i', "%s", r->id);
      int k = letter - 'a';
      ck_assert_msg(r->isl == page[k].isl && r->osl == page[k].osl &&
                        r->requests == page[k].requests,
                    "%s: %g/%g, %g requests", r->id, r->isl, r->osl, r->requests);
      ck_assert_msg(strncmp(r->group, "trtllm017-", 10) == 0, "%s: group %s", r->id, r->group);
    }
}
END_TEST

START_TEST(test_ids_unique) {
  /* Ids are unique over the shipped serving files, serving-pending/ and all its folders
   * (v017, v061 and v090). */
  static scale_serve_row shipped[SCALE_SERVE_ROWS_MAX], parked[SCALE_SERVE_ROWS_MAX];
  char dir[4200];
  int n_shipped = 0;
  scale_diag diag;
  snprintf(dir, sizeof dir, "%s/measurements", scale_data_dir());
  ck_assert(scale_serve_rows_load_dir(dir, shipped, SCALE_SERVE_ROWS_MAX, &n_shipped, &diag) ==
            SCALE_OK);
  const scale_serve_row *sets[] = {shipped, parked, more, gl, ltp, st, st9, st9tp};
  const int counts[] = {n_shipped,
                        load("", parked),
                        load("v017-more", more),
                        load("v017-gh200-l40s", gl),
                        load("v017-l40s-tp", ltp),
                        load("v061-static", st),
                        load("v090-static", st9),
                        load("v090-static-l40s-tp", st9tp)};
  for (int a = 0; a < 8; a++)
    for (int i = 0; i < counts[a]; i++)
      for (int b = a; b < 8; b++)
        for (int j = (b == a ? i + 1 : 0); j < counts[b]; j++)
          ck_assert_msg(strcmp(sets[a][i].id, sets[b][j].id) != 0, "id %s twice",
                        sets[a][i].id);
}
END_TEST

static double counted(const char *name) {
  scale_model m;
  scale_diag diag;
  ck_assert_msg(scale_model_load(name, &m, &diag) == SCALE_OK, "%s", diag.message);
  scale_check_rel(scale_transformer_n_params(&m), m.n_params_reported, 1e-12, "parameters",
                  name);
  return scale_transformer_n_params(&m);
}

START_TEST(test_model_counts) {
  /* Mistral 7B (config.json): embeddings 2 x 32000 x 4096 = 262,144,000; a layer: attention
   * 2 x 4096^2 + 2 x 4096 x 1024 = 41,943,040, MLP 3 x 4096 x 14336 = 176,160,768, norms 8,192;
   * 32 layers = 6,979,584,000; + final norm 4,096 = 7,241,732,096 (HuggingFace: 7.24B). */
  scale_check_rel(counted("mistral-7b"), 7241732096.0, 1e-12, "parameters", "Mistral 7B");
  /* Mixtral 8x22B: embeddings 2 x 32000 x 6144 = 393,216,000; a layer: attention 2 x 6144^2 +
   * 2 x 6144 x 1024 = 88,080,384, experts 8 x 3 x 6144 x 16384 = 2,415,919,104, router
   * 6144 x 8 = 49,152, norms 12,288; 56 layers = 140,227,411,968; + 6,144 = 140,620,634,112
   * (Mistral AI: 141B). */
  scale_check_rel(counted("mixtral-8x22b"), 140620634112.0, 1e-12, "parameters",
                  "Mixtral 8x22B");
}
END_TEST

START_TEST(test_what_is_priced) {
  /* The GH200 and L40S TP1 rows and the static-batch rows (L40S TP1 only) run in the simulator
   * with their chip's shipped [serve]: a positive, finite prediction each. The L40S TP4/TP8
   * rows do not: L40S has no NVLink and the serving cost prices TP only over NVLink or ICI, so
   * the set refuses them by name (both L40S tensor-parallel folders). */
  char dir[4200];
  scale_serve_set *set = NULL;
  scale_diag diag;
  const char *priced[] = {"v017-gh200-l40s", "v061-static", "v090-static"};
  for (int f = 0; f < 3; f++) {
    ck_assert_msg(scale_serve_set_load(pending_dir(priced[f], dir, sizeof dir), &set, &diag) ==
                      SCALE_OK,
                  "%s:%d: %s", diag.file, diag.line, diag.message);
    for (int i = 0; i < scale_serve_set_rows(set); i++) {
      const scale_serve_row *r = scale_serve_set_row(set, i);
      scale_chip chip;
      ck_assert(scale_chip_load(r->hardware, &chip, &diag) == SCALE_OK);
      double p[SCALE_SERVE_N_PARAMS];
      ck_assert_msg(scale_serve_params_of(&chip, p), "%s has no [serve]", r->hardware);
      double pred = scale_serve_set_predict(set, i, p, NULL);
      ck_assert_msg(isfinite(pred) && pred > 0.0, "%s: %g", r->id, pred);
    }
    scale_serve_set_free(set);
    set = NULL;
  }
  const char *refused[] = {"v017-l40s-tp", "v090-static-l40s-tp"};
  for (int f = 0; f < 2; f++) {
    ck_assert(scale_serve_set_load(pending_dir(refused[f], dir, sizeof dir), &set, &diag) ==
              SCALE_ERR_RANGE);
    ck_assert_msg(strstr(diag.message, "no interconnect for tensor parallelism") != NULL, "%s",
                  diag.message);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("serving_pending");
  const scale_check_case cases[] = {
      {"folders_load", test_folders_load},
      {"static_rows", test_static_rows},
      {"lengths_and_requests", test_lengths_and_requests},
      {"ids_unique", test_ids_unique},
      {"model_counts", test_model_counts},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  /* simulating 53 offline runs takes seconds (more under sanitizers) */
  TCase *tc = tcase_create("what_is_priced");
  tcase_add_test(tc, test_what_is_priced);
  tcase_set_timeout(tc, 600);
  suite_add_tcase(s, tc);
  return scale_check_run(s);
}

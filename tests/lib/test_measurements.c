/* test_measurements.c — the shipped measurements/ and their strict loader (measurements.h).
 *
 * The shipped rows are counted per group against the source tables (vTrain's CSV has 109
 * configurations; the hybrid paper's Table 10 has 18 layouts; Megatron 2021 Table 1 has 10
 * models and the PTD-P side of its Table 2 has 6 runs; the NeMo 24.12 table gives 7 H100 rows
 * whose models ship in models/; MaxText's 2023 TPU tables give 8 v5p, 2 v4 and 4 v5e
 * single-slice rows). Conversions to step time are derived by hand below; each bad
 * file must fail with its own status and the line of the offending text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scale/measurements.h"
#include "scale_check.h"

enum { CAP = 512 };
static scale_measurement rows[CAP];

static int load_shipped(void) {
  int n = 0;
  scale_diag diag;
  scale_status st = scale_measurements_load_dir(scale_measurements_dir(), rows, CAP, &n, &diag);
  ck_assert_msg(st == SCALE_OK, "%s:%d: %s", diag.file, diag.line, diag.message);
  return n;
}

static int count_group(int n, const char *group) {
  int k = 0;
  for (int i = 0; i < n; i++) k += strcmp(rows[i].group, group) == 0;
  return k;
}

static const scale_measurement *find(int n, const char *id) {
  for (int i = 0; i < n; i++)
    if (strcmp(rows[i].id, id) == 0) return &rows[i];
  ck_abort_msg("row %s not shipped", id);
  return NULL;
}

START_TEST(shipped_groups) {
  int n = load_shipped();
  ck_assert_int_ge(n, 150);
  ck_assert_int_eq(count_group(n, "vtrain-3.6b"), 26); /* CSV rows with 3.6 in column 1 */
  ck_assert_int_eq(count_group(n, "vtrain-18.4b"), 15);
  ck_assert_int_eq(count_group(n, "vtrain-39.1b"), 47);
  ck_assert_int_eq(count_group(n, "vtrain-175b"), 21);
  ck_assert_int_eq(count_group(n, "hybrid-910b-table10"), 18);
  ck_assert_int_eq(count_group(n, "megatron-2021-weak"), 10);
  ck_assert_int_eq(count_group(n, "megatron-2021-zero3"), 6);
  ck_assert_int_eq(count_group(n, "nemo-24.12-h100-fp8"), 7);
  /* MaxText configs/{v5p,v4,v5e}/README.md @76bd53b0: the single-slice ("1x") rows, 8 + 2 + 4 */
  ck_assert_int_eq(count_group(n, "maxtext-2023-v5p"), 8);
  ck_assert_int_eq(count_group(n, "maxtext-2023-v4"), 2);
  ck_assert_int_eq(count_group(n, "maxtext-2023-v5e"), 4);
  ck_assert(find(n, "H02")->ranking);
  ck_assert(!find(n, "A3")->ranking);
}
END_TEST

START_TEST(shipped_rows_resolve) {
  /* every row names a model and a hardware file that load */
  int n = load_shipped();
  for (int i = 0; i < n; i++) {
    scale_model m;
    scale_chip c;
    scale_diag diag;
    ck_assert_msg(scale_model_load(rows[i].model, &m, &diag) == SCALE_OK, "%s: model %s: %s",
                  rows[i].id, rows[i].model, diag.message);
    ck_assert_msg(scale_chip_load(rows[i].hardware, &c, &diag) == SCALE_OK, "%s: hw %s: %s",
                  rows[i].id, rows[i].hardware, diag.message);
    ck_assert_msg(scale_measurement_step_s(&rows[i], &m) > 0, "%s: step", rows[i].id);
  }
}
END_TEST

START_TEST(shipped_fields) {
  int n = load_shipped();
  /* hybrid Table 10 best row (DP,PP,TP,CP) = (4,2,1,1): 101.8 s */
  const scale_measurement *h = find(n, "H02");
  ck_assert_double_eq(h->dp, 4);
  ck_assert_double_eq(h->pp, 2);
  ck_assert_double_eq(h->tp, 1);
  ck_assert_double_eq(h->cp, 1);
  ck_assert_int_eq(h->metric, SCALE_METRIC_STEP_S);
  scale_check_rel(h->measured, 101.8, 1e-12, "s", "Amer et al. Table 10");
  /* vTrain CSV line 2: 3.6B, 64 GPUs, mbs 8, TP1 DP64 PP1, 3566.5 ms */
  const scale_measurement *v = find(n, "V001");
  ck_assert_double_eq(v->mbs, 8);
  ck_assert_int_eq(v->recompute, SCALE_RECOMPUTE_FULL);
  scale_check_rel(v->measured, 3.5665, 1e-12, "s", "vTrain ground_truth_multi.csv line 2");
  /* Megatron Table 1 does not state the micro-batch size: '-' reads 0 */
  ck_assert_double_eq(find(n, "A1")->mbs, 0);
  ck_assert_int_eq(find(n, "A1")->attention, SCALE_ATTENTION_UNFUSED);
  ck_assert_int_eq(h->attention, SCALE_ATTENTION_FLASH);
}
END_TEST

START_TEST(step_from_megatron_tflops) {
  /* A1: GPT 1.7B (l 24, h 2304, V 51200), B 512, s 2048, 32 GPUs at 137 TFLOP/s.
   * F = 96 B s l h^2 (1 + s/6h + V/16lh) = 96*512*2048*24*2304^2 * (1 + 0.148148 + 0.057870)
   *   = 1.28247e16 * 1.206019 = 1.546683e16 FLOP; step = F / (32 * 137e12) = 3.52802 s. */
  int n = load_shipped();
  scale_model m;
  ck_assert(scale_model_load("megatron-gpt-1.7b", &m, NULL) == SCALE_OK);
  scale_check_rel(scale_measurement_step_s(find(n, "A1"), &m), 3.52802, 1e-5, "s",
                  "Narayanan et al. 2021 eq. 3, by hand");
}
END_TEST

START_TEST(step_from_maxtext_tflops) {
  /* C2a: MaxText 32B (L 32, D 10240, 32 heads of 256, F 32768 plain, V 32768 tied) on 64 v5p,
   * per_device_batch_size 8 x 2048 tokens at 328 TFLOP/s per chip (configs/v5p/README.md).
   * N = 32 (4*10240*8192 + 2*10240*32768 + 2*10240) + 10240 + 32768*10240
   *   = 32 * 1,006,653,440 + 10,240 + 335,544,320 = 32,548,464,640;
   * per token 6 N + 6 L n_h d_h s = 195,290,787,840 + 6*32*32*256*2048 (3,221,225,472)
   *   = 198,512,013,312 FLOP; step = 512*2048 tokens * that / (64 * 328e12) = 9.91592 s. */
  int n = load_shipped();
  scale_model m;
  ck_assert(scale_model_load("maxtext-32b", &m, NULL) == SCALE_OK);
  const scale_measurement *r = find(n, "C2a");
  ck_assert_int_eq(r->metric, SCALE_METRIC_MAXTEXT_TFLOPS_PER_CHIP);
  scale_check_rel(scale_measurement_step_s(r, &m), 1048576.0 * 198512013312.0 / (64 * 328e12),
                  1e-12, "s", "MaxText train.py calculate_training_tflops, by hand");
}
END_TEST

START_TEST(step_from_tokens) {
  /* B3: LLaMA 3 8B on 8 H100, GBS 128 x 8192 tokens at 12,273 tokens/s/GPU:
   * 1,048,576 / (8 * 12273) = 10.6797 s. */
  int n = load_shipped();
  scale_model m;
  ck_assert(scale_model_load("llama-3-8b", &m, NULL) == SCALE_OK);
  scale_check_rel(scale_measurement_step_s(find(n, "B3"), &m), 10.6797, 1e-5, "s", "by hand");
}
END_TEST

/* ---- strictness ----------------------------------------------------------------------------- */

#define HEADER                                                                                 \
  "id\tgroup\tranking\tmodel\thardware\tchips\tdp\ttp\tpp\tcp\tep\tzero\tmbs\tvp\trecompute\tsp" \
  "\tattn\tgbs\tseq\tprecision\tmetric\tmeasured\tsource\n"
#define GOOD "X1\tg\t0\tllama-2-7b\tascend-910b\t8\t4\t2\t1\t1\t1\t0\t1\t1\tnone\t0\tflash\t1024\t4096\tbf16\tstep_s\t157.3\tsrc\n"

/** Loads 'text' from a temporary file; returns the status and the diagnostic's line. */
static scale_status load_text(const char *text, int *line, int *n) {
  char path[] = "/tmp/scale-meas-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *fp = fdopen(fd, "w");
  fputs(text, fp);
  fclose(fp);
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  *n = 0;
  scale_status st = scale_measurements_load_file(path, rows, CAP, n, &diag);
  *line = diag.line;
  if (st) ck_assert_msg(strstr(diag.file, "scale-meas-") != NULL, "diag names the file");
  unlink(path);
  return st;
}

START_TEST(good_file) {
  int line, n;
  ck_assert_int_eq(load_text("# comment\n\n" HEADER GOOD, &line, &n), SCALE_OK);
  ck_assert_int_eq(n, 1);
  ck_assert_int_eq(rows[0].line, 4);
}
END_TEST

START_TEST(bad_files) {
  static const struct {
    const char *text;
    scale_status want;
    int line;
  } cases[] = {
      {"id\tgroup\n" GOOD, SCALE_ERR_PARSE, 1},                      /* short header */
      {HEADER "X1\tg\t0\n", SCALE_ERR_PARSE, 2},                     /* 3 fields */
      {HEADER GOOD "X1\tg\t0\tllama-2-7b\tascend-910b\t8\t8\t1\t1\t1\t1\t0\t1\t1\tnone\t0\tflash\t1024"
              "\t4096\tbf16\tstep_s\t1\tsrc\n",
       SCALE_ERR_DUPLICATE_KEY, 3},
      {HEADER "X1\tg\t0\tllama-2-7b\tascend-910b\t8\t4\t4\t1\t1\t1\t0\t1\t1\tnone\t0\tflash\t1024"
              "\t4096\tbf16\tstep_s\t1\tsrc\n",
       SCALE_ERR_INVALID, 2}, /* 4 x 4 != 8 chips */
      {HEADER GOOD "X2\tg\t1\tllama-2-7b\tascend-910b\t8\t8\t1\t1\t1\t1\t0\t1\t1\tnone\t0\tflash\t1024"
                   "\t4096\tbf16\tstep_s\t1\tsrc\n",
       SCALE_ERR_INVALID, 3}, /* group flagged both ways */
      {HEADER "X1\tg\t0\tllama-2-7b\tascend-910b\t8\t8\t1\t1\t1\t1\t0\t1\t1\tnone\t0\tflash\t1024"
              "\t4096\tbf16\tstep_s\tfast\tsrc\n",
       SCALE_ERR_PARSE, 2}, /* not a number */
      {HEADER "X1\tg\t0\tllama-2-7b\tascend-910b\t8\t8\t1\t1\t1\t1\t0\t1\t1\tnone\t0\tflash\t1024"
              "\t4096\tbf16\tstep_s\t-3\tsrc\n",
       SCALE_ERR_RANGE, 2}, /* negative time */
      {HEADER "X1\tg\t0\tllama-2-7b\tascend-910b\t8\t8\t1\t1\t1\t1\t0\t1\t1\tsome\t0\tflash\t1024"
              "\t4096\tbf16\tstep_s\t1\tsrc\n",
       SCALE_ERR_PARSE, 2}, /* unknown recompute */
      {HEADER "X1\tg\t0\tllama-2-7b\tascend-910b\t8\t8\t1\t1\t1\t3\t0\t1\t1\tnone\t0\tflash\t1024"
              "\t4096\tbf16\tstep_s\t1\tsrc\n",
       SCALE_ERR_INVALID, 2}, /* ep 3 does not divide dp 8 */
      {HEADER "X1\tg\t0\tllama-2-7b\tascend-910b\t8\t8\t1\t1\t1\t1\t0\t1.5\t1\tnone\t0\tflash\t1024"
              "\t4096\tbf16\tstep_s\t1\tsrc\n",
       SCALE_ERR_PARSE, 2}, /* fractional micro-batch */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int line, n;
    scale_status st = load_text(cases[i].text, &line, &n);
    ck_assert_msg(st == cases[i].want, "case %zu: status %s, want %s", i, scale_status_str(st),
                  scale_status_str(cases[i].want));
    ck_assert_msg(line == cases[i].line, "case %zu: line %d, want %d", i, line, cases[i].line);
  }
}
END_TEST

START_TEST(missing_file) {
  int n = 0;
  scale_diag diag;
  ck_assert_int_eq(scale_measurements_load_file("/nonexistent/x.tsv", rows, CAP, &n, &diag),
                   SCALE_ERR_IO);
}
END_TEST

/* ---- kernels timed alone ---- */

#define KHEADER "kind\tdtype\tm\tn\tk\tbatch\tbytes\tflops\tseconds\n"

/** Loads 'text' as kernel file 'name' in a temporary folder; the status, rows and line. */
static scale_status load_kernels(const char *name, const char *text, scale_measurement_kernel *k,
                                 int *n, int *line) {
  char dir[] = "/tmp/scale-kern-XXXXXX", path[64];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  fputs(text, fp);
  fclose(fp);
  scale_diag diag;
  memset(&diag, 0, sizeof diag);
  *n = 0;
  scale_status st = scale_measurements_kernels_load(path, k, 4, n, &diag);
  *line = diag.line;
  unlink(path);
  rmdir(dir);
  return st;
}

START_TEST(kernel_file) {
  /* a 64 x 128 x 256 GEMM: 2 x 64 x 128 x 256 = 4194304 FLOPs; the stream row is skipped */
  scale_measurement_kernel k[4];
  int n, line;
  ck_assert_int_eq(load_kernels("nvidia-h200.t.tsv",
                                "# note\n" KHEADER "copy\tbf16\t10\t0\t0\t1\t40\t0\t1e-6\n"
                                "gemm\tfp8\t64\t128\t256\t1\t65536\t4194304\t5e-6\n",
                                k, &n, &line),
                   SCALE_OK);
  ck_assert_int_eq(n, 1);
  ck_assert_str_eq(k[0].hardware, "nvidia-h200");
  ck_assert_int_eq(k[0].dtype, SCALE_DTYPE_FP8);
  ck_assert_int_eq(k[0].line, 4);
  scale_check_rel(k[0].k, 256, 0, "1", "the row");
}
END_TEST

START_TEST(kernel_bad_files) {
  static const struct {
    const char *name, *text;
    scale_status want;
    int line;
  } cases[] = {
      {"h.t.tsv", "kind\tm\n", SCALE_ERR_PARSE, 1},                                /* header */
      {"h.t.tsv", KHEADER "gemm\tbf16\t1\t1\n", SCALE_ERR_PARSE, 2},               /* fields */
      {"h.t.tsv", KHEADER "conv\tbf16\t1\t1\t1\t1\t6\t2\t1e-6\n", SCALE_ERR_PARSE, 2}, /* kind */
      {"h.t.tsv", KHEADER "gemm\tbf16\t2\t1\t1\t1\t6\t2\t1e-6\n", SCALE_ERR_PARSE, 2}, /* 2mnk 4 */
      {"h.t.tsv", KHEADER "gemm\tbf17\t1\t1\t1\t1\t6\t2\t1e-6\n", SCALE_ERR_PARSE, 2}, /* dtype */
      {"h.t.tsv", KHEADER "gemm\tbf16\t1\t1\t1\t1\t6\t2\t-1\n", SCALE_ERR_PARSE, 2},   /* time */
      {"h.t.tsv", KHEADER "gemm\tbf16\t1.5\t1\t1\t1\t6\t3\t1e-6\n", SCALE_ERR_PARSE, 2}, /* m */
      {"plain.tsv", KHEADER, SCALE_ERR_INVALID, 0},                                   /* name */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    scale_measurement_kernel k[4];
    int n, line;
    scale_status st = load_kernels(cases[i].name, cases[i].text, k, &n, &line);
    ck_assert_msg(st == cases[i].want, "case %zu: status %s, want %s", i, scale_status_str(st),
                  scale_status_str(cases[i].want));
    ck_assert_msg(line == cases[i].line, "case %zu: line %d, want %d", i, line, cases[i].line);
  }
}
END_TEST

static Suite *measurements_suite(void) {
  Suite *s = suite_create("measurements");
  const scale_check_case cases[] = {
      {"shipped_groups", shipped_groups},
      {"shipped_rows_resolve", shipped_rows_resolve},
      {"shipped_fields", shipped_fields},
      {"step_from_megatron_tflops", step_from_megatron_tflops},
      {"step_from_maxtext_tflops", step_from_maxtext_tflops},
      {"step_from_tokens", step_from_tokens},
      {"good_file", good_file},
      {"bad_files", bad_files},
      {"missing_file", missing_file},
      {"kernel_file", kernel_file},
      {"kernel_bad_files", kernel_bad_files},
  };
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return s;
}

int main(void) { return scale_check_run(measurements_suite()); }

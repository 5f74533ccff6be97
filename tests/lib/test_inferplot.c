/* test_inferplot.c — inferplot.h: each serving figure draws (a valid SVG), its curves are the
 * library's numbers at its points, its marks are where the header puts them, and a figure
 * refuses what it cannot draw. Expected values are other modules' functions or hand sums. */
#include <math.h>
#include <string.h>

#include "scale/inferplot.h"
#include "scale/roofline.h"
#include "scale/transformer.h"
#include "scale_check.h"

static scale_inferplot fig;
static char svg[1 << 20];

/* The figure renders: scale_plot_svg() accepts it whole. */
static void renders(const scale_inferplot *f) {
  scale_diag d = {0};
  size_t len = 0;
  ck_assert_msg(scale_plot_svg(&f->plot, svg, sizeof svg, &len, &d) == SCALE_OK, "%s",
                d.message);
  ck_assert(len > 1000 && strstr(svg, "<svg") != NULL);
}

START_TEST(step_vs_batch) {
  scale_model m = scale_check_model("llama-2-13b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_diag d = {0};
  ck_assert(scale_inferplot_step_vs_batch(&m, &v5e, 8, 8192, &fig, &d) == SCALE_OK);
  renders(&fig);
  ck_assert_int_eq((int)fig.plot.n_series, 3);
  /* batch 1 and 1024 at the ends; at batch 1 the full curve is (KV + weights) / (8 W) */
  double n = scale_transformer_n_params(&m), kv = 819200.0 * 8192.0;
  ck_assert(fig.series[0].x[0] == 1.0);
  scale_check_rel(fig.series[0].x[96], 1024.0, 1e-12, "", "the last batch");
  scale_check_rel(fig.series[0].y[0], (kv + 2 * n) / (8 * 8.2e11), 1e-12, "s", "batch 1");
  scale_check_rel(fig.series[2].y[0], 2 * n / (8 * 8.2e11), 1e-12, "s", "no KV: weights only");
  /* HBM full where 8 x 16e9 - 2n bytes hold no more caches: 15, and 75 at a fifth the size */
  ck_assert(fig.marker[1].at == 15 && fig.marker[2].at == 75);
  ck_assert(fig.marker[0].at == scale_roofline_critical_batch(&v5e, SCALE_DTYPE_BF16,
                                                              SCALE_DTYPE_BF16));
  ck_assert(scale_inferplot_step_vs_batch(NULL, &v5e, 8, 8192, &fig, &d) == SCALE_ERR_INVALID);
}
END_TEST

START_TEST(kv_vs_context) {
  scale_model m = scale_check_model("llama-2-13b"), l3 = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  scale_diag d = {0};
  ck_assert(scale_inferplot_kv_vs_context(&m, &l3, &v5e, 4096, 0.5, &fig, &d) == SCALE_OK);
  renders(&fig);
  ck_assert_int_eq((int)fig.plot.n_series, 5);
  /* at 1024 tokens: MHA 819200 B a token, GQA-8 163840, int8 81920; local layers cap nothing
   * below the window; LLaMA 3 70B 327680 (2 x 80 x 8 x 128 x 2) */
  ck_assert(fig.series[0].y[0] == 819200.0 * 1024);
  ck_assert(fig.series[1].y[0] == 163840.0 * 1024);
  ck_assert(fig.series[3].y[0] == fig.series[2].y[0]);
  ck_assert(fig.series[4].y[0] == 327680.0 * 1024);
  /* at 131072: half the layers hold 4096 tokens, 81920 x (65536 + 2048) B */
  scale_check_rel(fig.series[3].y[96], 81920.0 * (65536 + 2048), 1e-12, "B", "local layers");
  ck_assert(fig.marker[0].at == v5e.hbm_bytes);
  ck_assert(strstr(fig.marker[0].label, v5e.display_name) != NULL);
}
END_TEST

START_TEST(spec_speedup) {
  scale_inferplot_spec_speedup(0.1, &fig);
  renders(&fig);
  ck_assert_int_eq((int)fig.plot.n_series, 3);
  /* acceptance 0.8, 4 drafted tokens: (1 - 0.8^5) / (0.2 (4 x 0.1 + 1)) = 2.401 */
  scale_check_rel(fig.series[1].y[3], (1 - pow(0.8, 5)) / (0.2 * 1.4), 1e-12, "x",
                  "Leviathan et al. Theorem 3.8");
}
END_TEST

START_TEST(frontier_and_breakdown) {
  scale_model m = scale_check_model("llama-3-70b");
  scale_chip v5e = scale_check_chip("tpu-v5e");
  static scale_infer_frontiers f;
  scale_infer_config cfg = scale_infer_config_generate(16, 1, 2048, SCALE_DTYPE_INT8);
  const double ctx[3] = {2048, 4096, 8192};
  ck_assert(scale_infer_frontiers_eval(&m, &v5e, &cfg, ctx, 3, 1024, &f));
  scale_diag d = {0};
  ck_assert(scale_inferplot_frontier(&f, &m, &v5e, 16, &fig, &d) == SCALE_OK);
  renders(&fig);
  ck_assert_int_eq((int)fig.plot.n_series, 3);
  ck_assert(fig.series[2].y == f.tput[2] && fig.series[2].n == 1024);
  ck_assert_str_eq(fig.series[1].label, "context 4096");
  /* the breakdown at 8192 tokens ends at the largest batch that fits, 138 (ch. 8) */
  cfg.context = 8192;
  ck_assert(scale_inferplot_step_breakdown(&m, &v5e, &cfg, &fig, &d) == SCALE_OK);
  renders(&fig);
  ck_assert(fig.series[0].n == 138 && fig.point[0].x == 138);
  cfg.batch = 138;
  scale_infer_decode last = scale_infer_decode_eval(&m, &v5e, &cfg);
  ck_assert(fig.point[0].y == last.step_s && fig.series[2].y[137] == last.t_kv_s);
  ck_assert(fig.marker[0].at == scale_roofline_critical_batch(&v5e, SCALE_DTYPE_INT8,
                                                              SCALE_DTYPE_BF16));
  /* LLaMA 3 405B does not fit one v5e: nothing to draw */
  scale_model big = scale_check_model("llama-3-405b");
  scale_infer_config one = scale_infer_config_generate(1, 1, 8192, SCALE_DTYPE_INT8);
  ck_assert(scale_inferplot_step_breakdown(&big, &v5e, &one, &fig, &d) == SCALE_ERR_RANGE);
  ck_assert(strstr(d.message, "fits") != NULL);
}
END_TEST

START_TEST(serving_load) {
  scale_model m = scale_check_model("llama-3-8b");
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  static scale_serveload l;
  static scale_serveload_curve c;
  scale_diag d = {0};
  ck_assert(scale_serveload_setup(&m, &h100, 1, SCALE_DTYPE_FP8, SCALE_DTYPE_FP8, 2048, 512, &l,
                                  &d) == SCALE_OK);
  const double fracs[] = {0.25, 0.9};
  ck_assert(scale_serveload_curve_run(&l, fracs, 2, 100, &c, &d) == SCALE_OK);
  ck_assert(scale_inferplot_load(&l, &c, 1, &fig, &d) == SCALE_OK);
  renders(&fig);
  ck_assert_int_eq((int)fig.plot.n_series, 2);
  ck_assert(fig.series[0].y == c.tpot_p50_s && fig.series[1].y == c.ttft_p90_s);
  ck_assert(strstr(fig.plot.desc, "from 25% to 90%") != NULL);
  ck_assert(scale_inferplot_load(&l, &c, 0, &fig, &d) == SCALE_ERR_INVALID);
  ck_assert(scale_inferplot_load(&l, &c, 5, &fig, &d) == SCALE_ERR_INVALID);
}
END_TEST

int main(void) {
  Suite *s = suite_create("inferplot");
  const scale_check_case cases[] = {{"step_vs_batch", step_vs_batch},
                                    {"kv_vs_context", kv_vs_context},
                                    {"spec_speedup", spec_speedup},
                                    {"frontier_and_breakdown", frontier_and_breakdown},
                                    {"serving_load", serving_load}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}

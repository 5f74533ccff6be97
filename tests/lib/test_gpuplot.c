/* test_gpuplot.c — gpuplot.h: each chapter 12 figure draws (a valid SVG), its curves hold the
 * book's numbers at their ends (hand derivations from the H100 SuperPod's tree: 8 GPUs x
 * 450e9 B/s per node, 32 nodes x 400e9 B/s per SU, 4 SUs x 12.8e12 B/s, bf16 990e12 FLOP/s),
 * and a figure refuses what it cannot draw. */
#include <math.h>
#include <string.h>

#include "scale/gpuplot.h"
#include "scale_check.h"

static scale_gpuplot fig;
static char svg[1 << 20];

/* The figure renders: scale_plot_svg() accepts it whole. */
static void renders(const scale_gpuplot *f) {
  scale_diag d = {0};
  size_t len = 0;
  ck_assert_msg(scale_plot_svg(&f->plot, svg, sizeof svg, &len, &d) == SCALE_OK, "%s", d.message);
  ck_assert(len > 1000 && strstr(svg, "<svg") != NULL);
}

static scale_chip sys[3];

static void load_systems(void) {
  sys[0] = scale_check_chip("nvidia-h100-sxm");
  sys[1] = scale_check_chip("nvidia-b200");
  sys[2] = scale_check_chip("gb200-nvl72");
}

START_TEST(allgather_bandwidth_by_group) {
  load_systems();
  scale_diag d = {0};
  ck_assert(scale_gpuplot_systems(sys, 3, SCALE_GPU_CURVE_ALLGATHER_BW, &fig, &d) == SCALE_OK);
  renders(&fig);
  ck_assert_int_eq((int)fig.plot.n_series, 3);
  ck_assert(fig.series[1].dashed && !fig.series[0].dashed && !fig.series[2].dashed);
  ck_assert_str_eq(fig.series[0].label, sys[0].display_name);
  /* H100: 2 GPUs 2 x 450e9 / 1 = 900e9; 8 GPUs 8 x 450e9 / 7 = 514e9 (ch. 12 "Cross-node
   * collectives"); the whole 1024-GPU pod binds at the leaf, 32 x 400e9 / 31 = 413e9 */
  ck_assert(fig.series[0].x[0] == 2.0 && fig.series[0].x[6] == 8.0);
  scale_check_rel(fig.series[0].y[0], 900e9, 1e-12, "B/s", "2 GPUs in a node");
  scale_check_rel(fig.series[0].y[6], 8 * 450e9 / 7, 1e-12, "B/s", "ch. 12: 514 GB/s a node");
  size_t last = fig.series[0].n - 1;
  ck_assert(fig.series[0].x[last] == 1024.0);
  scale_check_rel(fig.series[0].y[last], 32 * 400e9 / 31, 1e-12, "B/s", "ch. 12: 413 GB/s");
  /* the x axis spans 1 to the largest group of the three trees */
  ck_assert(fig.plot.x_min == 1.0);
  double top = 0;
  for (int i = 0; i < 3; i++)
    top = fmax(top, fig.series[i].x[fig.series[i].n - 1]);
  ck_assert(fig.plot.x_max == top);
}
END_TEST

START_TEST(dp_tp_ep_thresholds) {
  load_systems();
  scale_diag d = {0};
  ck_assert(scale_gpuplot_systems(sys, 3, SCALE_GPU_CURVE_DP_BATCH, &fig, &d) == SCALE_OK);
  renders(&fig);
  /* DP in a node: 990e12 x 7/8 / 450e9 = 1925; at 16384 GPUs (16 pods under a core level)
   * the leaf still binds: 990e12 x 31/32 / 400e9 = 2398 */
  scale_check_rel(fig.series[0].y[6], 990e12 * 7 / 8 / 450e9, 1e-12, "tokens", "DP over 8");
  size_t last = fig.series[0].n - 1;
  ck_assert(fig.series[0].x[last] == 16384.0);
  scale_check_rel(fig.series[0].y[last], 990e12 * 31 / 32 / 400e9, 1e-12, "tokens", "16k GPUs");
  ck_assert(fig.plot.y_max == 6000 && fig.plot.x_max == 16384.0);

  ck_assert(scale_gpuplot_systems(sys, 3, SCALE_GPU_CURVE_TP_DEGREE, &fig, &d) == SCALE_OK);
  renders(&fig);
  ck_assert_int_eq((int)fig.series[0].n, SCALE_GPUPLOT_WIDTHS);
  /* F = 1e3: 1e3 x 450e9 / 990e12 = 0.455 in a node; F = 1e6: 8 + 1e6 x 400e9 / 990e12 */
  scale_check_rel(fig.series[0].x[0], 1e3, 1e-12, "", "the first width");
  scale_check_rel(fig.series[0].y[0], 1e3 * 450e9 / 990e12, 1e-12, "", "TP, F = 1e3");
  scale_check_rel(fig.series[0].x[96], 1e6, 1e-12, "", "the last width");
  scale_check_rel(fig.series[0].y[96], 8 + 1e6 * 400e9 / 990e12, 1e-12, "", "TP, F = 1e6");
  ck_assert(fig.plot.x_min == 0 && fig.plot.x_max == 0); /* widths: the axis picks decades */

  ck_assert(scale_gpuplot_systems(sys, 3, SCALE_GPU_CURVE_EP_DEGREE, &fig, &d) == SCALE_OK);
  renders(&fig);
  /* F = 1e3, k = 8: D_1 + k F W_node / C = 8 + 8e3 x 400e9 / 990e12 (below D_1 k = 64);
   * F = 1e5 exceeds D_1 C / W_node = 19800: the 4096 cap */
  scale_check_rel(fig.series[0].y[0], 8 + 8e3 * 400e9 / 990e12, 1e-9, "", "EP, F = 1e3");
  ck_assert(fig.series[0].y[96] == SCALE_GPU_CURVE_EP_CAP);
  ck_assert(strstr(fig.plot.title, "k = 8") != NULL);
}
END_TEST

START_TEST(allgather_time_by_size) {
  scale_chip h100 = scale_check_chip("nvidia-h100-sxm");
  scale_diag d = {0};
  ck_assert(scale_gpuplot_allgather_time(&h100, &fig, &d) == SCALE_OK);
  renders(&fig);
  ck_assert_int_eq((int)fig.plot.n_series, 4);
  ck_assert_str_eq(fig.plot.title, "AllGather time on NVIDIA H100 SXM");
  /* one node, 1 MB: 1e6 x 7/8 / 450e9; two nodes coincide (the node level binds, Quiz 4 Q5);
   * 128 nodes, 100 GB: the leaf, 1e11 x 31/32 / 400e9 = 0.242 s */
  scale_check_rel(fig.series[0].x[0], 1e6, 1e-12, "B", "the smallest array");
  scale_check_rel(fig.series[0].y[0], 1e6 * 7 / 8 / 450e9, 1e-12, "s", "1 node, 1 MB");
  ck_assert(fig.series[1].y[0] == fig.series[0].y[0] && fig.series[1].dashed);
  scale_check_rel(fig.series[3].x[96], 1e11, 1e-12, "B", "the largest array");
  scale_check_rel(fig.series[3].y[96], 1e11 * 31 / 32 / 400e9, 1e-12, "s", "128 nodes, 100 GB");
  ck_assert_str_eq(fig.series[3].label, "128 nodes");
}
END_TEST

START_TEST(refusals) {
  load_systems();
  scale_diag d = {0};
  ck_assert(scale_gpuplot_systems(NULL, 3, SCALE_GPU_CURVE_DP_BATCH, &fig, &d) ==
            SCALE_ERR_INVALID);
  ck_assert(scale_gpuplot_systems(sys, 0, SCALE_GPU_CURVE_DP_BATCH, &fig, &d) == SCALE_ERR_INVALID);
  ck_assert(scale_gpuplot_systems(sys, 5, SCALE_GPU_CURVE_DP_BATCH, &fig, &d) == SCALE_ERR_INVALID);
  ck_assert(scale_gpuplot_systems(sys, 3, (scale_gpu_curve_kind)9, &fig, &d) == SCALE_ERR_INVALID);
  ck_assert(strstr(d.message, "kind") != NULL);
  scale_chip bare = sys[0];
  bare.n_net_levels = 0;
  ck_assert(scale_gpuplot_allgather_time(&bare, &fig, &d) == SCALE_ERR_INVALID);
  ck_assert(scale_gpuplot_allgather_time(NULL, &fig, &d) == SCALE_ERR_INVALID);
}
END_TEST

int main(void) {
  Suite *s = suite_create("gpuplot");
  const scale_check_case cases[] = {{"allgather_bandwidth_by_group", allgather_bandwidth_by_group},
                                    {"dp_tp_ep_thresholds", dp_tp_ep_thresholds},
                                    {"allgather_time_by_size", allgather_time_by_size},
                                    {"refusals", refusals}};
  scale_check_add_cases(s, cases, sizeof cases / sizeof cases[0]);
  return scale_check_run(s);
}

/* fixture.c — the source the fixture chapter cuts its listing from (never compiled). */
#include <stdio.h>

static double ridge(double peak_flops_per_s, double hbm_bytes_per_s) {
  /* [listing:ridge] */
  double intensity = peak_flops_per_s / hbm_bytes_per_s;
  return intensity;
  /* [/listing:ridge] */
}

int main(void) { return ridge(1.0, 1.0) == 1.0 ? 0 : 1; }

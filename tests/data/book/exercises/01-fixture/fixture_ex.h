/* fixture_ex.h — the exercise contract of the fixture chapter. */
#ifndef FIXTURE_EX_H
#define FIXTURE_EX_H

/** Critical intensity of a chip: its peak rate over its memory bandwidth.
 *
 * Units: peak [FLOP/s], hbm [bytes/s] -> [FLOP/byte].
 */
double ex_fixture_ridge(double peak_flops_per_s, double hbm_bytes_per_s);

#endif

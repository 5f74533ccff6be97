/* rooflines_ex.c — bob, a student of the class fixture (tests/grading/check_grade.sh class):
 * right everywhere except two exercises of chapter 1,
 *   rooflines.t_math_s    writes through a null pointer  -> CRASH (signal 11)
 *   rooflines.t_comms_s   never returns                  -> TIMEOUT
 * Every other function is the reference solution: the test copies
 * solutions/01-rooflines/rooflines_ex.c next to this file as reference.c at test time, and
 * bob's other chapters are copies of solutions/.
 */
#include "rooflines_ex.h"

#include <stdlib.h>

double ex_rooflines_t_math_s(double flops, double flops_per_s) {
  /* A null pointer the compiler cannot see through: this environment variable is never set. */
  volatile double *result = (volatile double *)getenv("SCALE_GRADE_FIXTURE_NEVER_SET");
  *result = flops / flops_per_s;
  return *result;
}

double ex_rooflines_t_comms_s(double bytes, double bytes_per_s) {
  volatile double t = 0.0;
  while (t >= 0.0) t += bytes / bytes_per_s; /* never ends */
  return t;
}

/* The reference's versions of these two, renamed out of the way (its header is already in). */
#define ex_rooflines_t_math_s bob_unused_t_math_s
#define ex_rooflines_t_comms_s bob_unused_t_comms_s
#include "reference.c"

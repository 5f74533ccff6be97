/* tpus_ex.c — carol, a student of the class fixture (tests/grading/check_grade.sh class): the
 * reference solution (copied next to this file as reference.c at test time) plus one helper
 * that does not compile, so every exercise of 02-tpus gets the verdict BUILD while her other
 * chapters (copies of solutions/) are graded as usual.
 */
#include "reference.c"

/* An undeclared name: a compile error. */
double carol_hosts_per_pod(void) { return n_hosts_per_pod; }

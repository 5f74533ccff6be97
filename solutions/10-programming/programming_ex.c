/* programming_ex.c — reference solutions of chapter 10, "Programming TPUs in JAX".
 *
 * Plain C on the contract header only (no libscale), written to be read next to the chapter.
 */
#include "programming_ex.h"

#include <math.h>

/* x when finite, else NaN (a product of huge inputs never comes back as inf). */
static double finite_or_nan(double x) { return isfinite(x) ? x : (double)NAN; }

double ex_programming_ring_bytes_sent(int op, int64_t n, double bytes) {
  if (op < 0 || op > 3 || n < 1 || !(bytes >= 0.0)) return NAN;
  double nd = (double)n;
  switch (op) {
  case 0: /* AllGather: n - 1 blocks of V / n */
  case 1: /* ReduceScatter: the same blocks, partial sums */
    return finite_or_nan(bytes * (nd - 1.0) / nd);
  case 2: /* AllReduce: a ReduceScatter then an AllGather */
    return finite_or_nan(2.0 * bytes * (nd - 1.0) / nd);
  default: /* AllToAll: each rank holds V / n and keeps one of its n blocks */
    return finite_or_nan(bytes * (nd - 1.0) / (nd * nd));
  }
}

double ex_programming_case_bytes_sent(int case_number, int64_t n, double gathered_bytes,
                                      double c_bytes) {
  if (case_number < 1 || case_number > 4 || n < 1 || !(gathered_bytes >= 0.0) ||
      !(c_bytes >= 0.0))
    return NAN;
  double nd = (double)n;
  if (case_number == 1) return 0.0;
  if (case_number == 3) return finite_or_nan(2.0 * c_bytes * (nd - 1.0) / nd);
  return finite_or_nan(gathered_bytes * (nd - 1.0) / nd);
}

double ex_programming_alpha_beta_time_s(double alpha_s, double bytes_per_s, int64_t n_messages,
                                        double bytes) {
  if (!(alpha_s >= 0.0) || !(bytes_per_s > 0.0) || n_messages < 0 || !(bytes >= 0.0))
    return NAN;
  return finite_or_nan((double)n_messages * alpha_s + bytes / bytes_per_s);
}

double ex_programming_crossover_bytes(double alpha_s, double bytes_per_s) {
  if (!(alpha_s >= 0.0) || !(bytes_per_s > 0.0)) return NAN;
  return finite_or_nan(alpha_s * bytes_per_s);
}

double ex_programming_collective_matmul_time_s(double t_matmul_s, double t_gather_s, int64_t n) {
  if (!(t_matmul_s >= 0.0) || !(t_gather_s >= 0.0) || n < 1) return NAN;
  if (n == 1) return t_matmul_s;
  double nd = (double)n;
  double chunk = t_matmul_s / nd, step = t_gather_s / (nd - 1.0);
  return finite_or_nan(chunk + (nd - 1.0) * (chunk > step ? chunk : step));
}

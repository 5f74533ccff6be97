/* collectives.h — AllGather, ReduceScatter, AllReduce and AllToAll on groups of chips, and
 * point-to-point transfers across a torus (chapters 2 and 3).
 *
 * A collective runs over a *group*: up to three axes of devices, each described by its size,
 * its topology (a ring/line of nearest-neighbour links as on a TPU torus, or a switch as in a
 * GPU NVLink domain), whether a ring axis has wraparound, the one-way bandwidth of one link and
 * the latency of one hop. scale_group_from_chip() builds a group from a hardware record with
 * the chip's wraparound rule; callers may also fill a scale_group by hand.
 *
 * Every cost comes in two forms side by side:
 *   - the *precise* cost: (N-1)/N factors, floor(N/2) hops on a bidirectional ring, one-way
 *     links on an axis without wraparound, T = max(hops x T_hop, bandwidth time);
 *   - the *book* cost of ch. 3: V / (W_bidi x n_axes) for AllGather and ReduceScatter, twice
 *     that for AllReduce, a quarter for AllToAll, and max(T_hop x sum(N_i) / 2, that).
 * V is always the size in bytes of the full array the collective produces (AllGather) or
 * consumes (ReduceScatter, AllReduce: the unreduced array on each device; AllToAll: the whole
 * array across the group).
 *
 * Book: ch. 2 "TPU Networking" and Q5; ch. 3 "A Deeper Dive into TPU Communication Primitives"
 * and Q2, Q3, Q10. The switch topology is for ch. 12 (GPUs) and is modelled simply (see
 * scale_collective_eval).
 */
#ifndef SCALE_COLLECTIVES_H
#define SCALE_COLLECTIVES_H

#include <stdbool.h>

#include "scale/hardware.h"
#include "scale/status.h"

#define SCALE_GROUP_AXES_MAX 3

/** The four collectives of ch. 3. */
typedef enum {
  SCALE_COLL_ALL_GATHER = 0, /**< [A_X, B] -> [A, B] */
  SCALE_COLL_REDUCE_SCATTER, /**< [A, B]{U_X} -> [A_X, B] */
  SCALE_COLL_ALL_REDUCE,     /**< [A, B]{U_X} -> [A, B] (a ReduceScatter then an AllGather) */
  SCALE_COLL_ALL_TO_ALL,     /**< [A, B_X] -> [A_X, B] */
  SCALE_COLL_COUNT
} scale_collective;

/** Name of 'op' as the CLI spells it ("all-gather", "reduce-scatter", "all-reduce",
 * "all-to-all"); "?" for an invalid value. Static storage. */
const char *scale_collective_name(scale_collective op);

/** Parses a collective name: the names above, also without '-' and in any case
 * ("AllGather", "allreduce").
 *
 * Errors: SCALE_ERR_INVALID for anything else; *out untouched.
 */
scale_status scale_collective_parse(const char *text, scale_collective *out);

/** How the devices of one axis are connected. */
typedef enum {
  SCALE_TOPO_RING = 0, /**< nearest-neighbour links (TPU ICI): a line, or a ring if it wraps */
  SCALE_TOPO_SWITCH    /**< every device one hop from every other through a switch (NVLink) */
} scale_topology;

/** One axis of a group. */
typedef struct {
  double size;             /**< devices along the axis [count], integer >= 1 */
  scale_topology topology; /**< ring/line or switch */
  bool wraps;              /**< ring axes: a wraparound link closes the ring (ignored for
                                switches) */
  double link_bytes_per_s; /**< one-way bandwidth of one link [bytes/s]; for a switch axis the
                                one-way egress of one device into the switch */
  double hop_latency_s;    /**< fixed cost of one hop, whatever its size [s] */
} scale_group_axis;

/** A group of devices over which a collective runs: the product of its axes. */
typedef struct {
  int n_axes;                                  /**< axes in use, 1..SCALE_GROUP_AXES_MAX */
  scale_group_axis axis[SCALE_GROUP_AXES_MAX]; /**< axis[0..n_axes) */
} scale_group;

/** Wraparound choice when building a group from a chip. */
typedef enum {
  SCALE_WRAP_AUTO = 0, /**< the chip's rule (scale_chip_axis_wraps) per axis */
  SCALE_WRAP_YES,      /**< every ring axis wraps (e.g. to ask "what if") */
  SCALE_WRAP_NO        /**< no axis wraps */
} scale_wrap;

/** Builds the group of axis sizes sizes[0..n_axes) on 'chip'.
 * TPU: ring axes with the chip's one-way ICI link bandwidth and hop latency; wraparound per
 * 'wrap' (AUTO: scale_chip_axis_wraps per axis, except that a group naming all three axes of a
 * 3-D torus wraps only when every axis is a multiple of the cube, ch. 2's "a 2x2x4 won't have
 * any wraparounds"). GPU: one switch axis of the NVLink domain (n_axes must be 1 and the size
 * at most the domain), with the NVLink egress bandwidth.
 *
 * Errors: SCALE_ERR_INVALID for n_axes outside 1..3 (or more axes than the chip's torus has),
 *         a size that is not an integer >= 1, or a chip without ICI/NVLink figures;
 *         SCALE_ERR_RANGE for a group larger than the pod (its sorted sizes must fit the sorted
 *         pod shape) or than the NVLink domain. 'diag' (may be NULL) says why.
 */
scale_status scale_group_from_chip(const scale_chip *chip, const double *sizes, int n_axes,
                                   scale_wrap wrap, scale_group *out, scale_diag *diag);

/** Parses a group shape "4x4", "16", "4x4x4" (also "4,4") into sizes[0..3) and *n_axes.
 *
 * Errors: SCALE_ERR_PARSE for malformed text or more than three axes; SCALE_ERR_RANGE for a
 *         size that is not an integer >= 1.
 */
scale_status scale_group_parse_shape(const char *text, double sizes[SCALE_GROUP_AXES_MAX],
                                     int *n_axes, scale_diag *diag);

/** Builds the group of shape 'shape' ("4x4", as scale_group_parse_shape() reads it) on 'chip'
 * with wraparound 'wrap', as scale_group_from_chip() builds it from the parsed sizes: the two
 * steps a caller takes to name a group in the book's notation.
 *
 * Errors: those of scale_group_parse_shape() and scale_group_from_chip(); 'diag' (may be NULL)
 *         says why, naming the shape and the chip.
 * Book:   ch. 3 "Sharded Matrices and How to Multiply Them" (an AllGather over a "4x4").
 */
scale_status scale_group_from_shape(const scale_chip *chip, const char *shape, scale_wrap wrap,
                                    scale_group *out, scale_diag *diag);

/** One ring of 'n' devices joined by links of 'link_bytes_per_s' one way and 'hop_latency_s'
 * a hop, with or without its wraparound link: a group stated by its numbers rather than a
 * chip's (the book's TPU v2 profile, a hand derivation).
 *
 * Units:  n [count], link_bytes_per_s [bytes/s], hop_latency_s [s].
 * Domain: as the collectives check it: n >= 1, link_bytes_per_s > 0, hop_latency_s >= 0.
 * Book:   ch. 9 "How to Profile TPU Programs", a ReduceScatter over the 2-way model axis.
 */
scale_group scale_group_ring(double n, bool wraps, double link_bytes_per_s, double hop_latency_s);

/** Devices in the group (product of axis sizes) [count]; NaN for an invalid group. */
double scale_group_size(const scale_group *group);

/** The cost of one collective. Every field NaN when the inputs are outside the domain. */
typedef struct {
  double time_s;           /**< precise: max(latency_time_s, bandwidth_time_s) [s] */
  double bandwidth_time_s; /**< precise bandwidth-bound time [s] */
  double latency_time_s;   /**< hops x hop latency [s] */
  double hops;             /**< hops on the longest path (AllReduce: twice) [count] */
  double book_time_s;      /**< the book's form: max(T_hop sum(N_i)/2 (x2 for AllReduce),
                                V / (W_bidi n_axes) x {1, 1, 2, 1/4}) [s]; equal to time_s
                                for groups with a switch axis (the book's ring forms do not
                                apply there) */
  bool latency_bound;      /**< latency_time_s > bandwidth_time_s */
} scale_collective_cost;

/** Cost of collective 'op' of an array of 'bytes' (V, see above) over 'group'.
 *
 * Precise bandwidth time, for N devices in all, ring axes i with link bandwidth W_i:
 *   AllGather, ReduceScatter: (N-1)/N V / sum_i(W_i x links_i), links_i = 2 on a wrapped axis
 *     (both neighbours feed a device), 1 without wraparound (an end device has one neighbour),
 *     1 on a switch axis (the device's egress): the receive bound of the worst-placed device.
 *   AllReduce: twice ReduceScatter.
 *   AllToAll: axis by axis (dimension-ordered); on an axis of n with V_i = V n / N:
 *     wrapped ring V_i n^2/8 / n^2 (even n; (n^2-1)/8 for odd n) per link, line floor(n^2/4),
 *     switch (n-1) V_i / n^2 through the egress; divided by W_i.
 * Hops: sum over axes of floor(n/2) (wrapped ring), n-1 (line), 1 (switch, if n > 1); twice
 * for AllReduce.
 *
 * Units:  bytes [bytes] -> times [s].
 * Domain: bytes >= 0, a valid group (sizes integers >= 1, positive bandwidths, latency >= 0);
 *         NaN otherwise. A group of one device costs 0.
 * Book:   ch. 3 "How long does this take?", the latency note, multi-axis AllGather, the summary
 *         table, Q2, Q3, Q10; pop quiz 2 (v5e 4x4: 34 MB AllGather over Y, about 560 us).
 */
scale_collective_cost scale_collective_eval(const scale_group *group, scale_collective op,
                                            double bytes);

/** Precise time of 'op' (scale_collective_eval(...).time_s) [s]. */
double scale_collective_time_s(const scale_group *group, scale_collective op, double bytes);

/** The book's asymptotic time of 'op' (scale_collective_eval(...).book_time_s) [s]. */
double scale_collective_book_time_s(const scale_group *group, scale_collective op, double bytes);

/** Bytes crossing the busiest link in one direction during 'op' on ONE ring of 'n' devices
 * holding an array of 'bytes': the quantity Q10 of ch. 3 counts.
 * 'bidirectional' true: a ring that sends both ways (wraparound, both directions used);
 * false: a one-way ring (every shard travels the same way round).
 *   AllGather/ReduceScatter: one-way (n-1)/n V; bidirectional (n-1)/(2n) V.
 *   AllReduce: twice that.  AllToAll: one-way (n-1)/(2n) V; bidirectional n^2/8 / n^2 V (even
 *   n), (n^2-1)/8 / n^2 V (odd n).
 *
 * Units:  bytes [bytes] -> [bytes].  Domain: n integer >= 1, bytes >= 0; NaN otherwise.
 * Book:   ch. 3 Q10 (a) N^2 (1 - 1/D) scalars, (b) N^2/2 (1 - 1/D), (e) about N^2/8.
 */
double scale_collective_ring_link_bytes(scale_collective op, double n, double bytes,
                                        bool bidirectional);

/* ---- point to point (ch. 2 Q5) -------------------------------------------------------------- */

/** Hops between device coordinates 'from' and 'to' (group->n_axes entries each, 0-based):
 * per ring axis |d| without wraparound, min(|d|, n - |d|) with it; 1 per switch axis that
 * differs.
 *
 * Units:  -> [count].  Domain: coordinates integers in [0, size); NaN otherwise.
 * Book:   ch. 2 Q5, (0,0) -> (3,3) on a v5e 4x4 (no wraparound): 6 hops.
 */
double scale_collective_p2p_hops(const scale_group *group, const double *from, const double *to);

/** When the first byte of a transfer from 'from' to 'to' arrives: hops x hop latency [s].
 * Domain: as scale_collective_p2p_hops. Book: ch. 2 Q5 (6 hops x 1 us).
 */
double scale_collective_p2p_first_byte_s(const scale_group *group, const double *from,
                                         const double *to);

/** Time to send 'bytes' from 'from' to 'to': first-byte latency plus bytes over the links the
 * source can use on shortest paths (one per axis along which the coordinates differ, two on a
 * wrapped axis where both ways round are equally short).
 *
 * Units:  bytes [bytes] -> [s].  Domain: as above, bytes >= 0; 0 when from == to.
 * Book:   ch. 2 Q5: 2 x 8 x 128 x 8192 bf16 bytes over two 4.5e10 links + 6 us (the book
 *         prints 188 + 6 = 194 us from a rounded 1.7e7 bytes; exact 186.4 + 6 = 192.4 us).
 */
double scale_collective_p2p_time_s(const scale_group *group, const double *from, const double *to,
                                   double bytes);

/* ---- the latency knee (ch. 3) ---------------------------------------------------------------- */

/** The array size at which collective 'op' on 'group' stops being latency-bound: the bytes whose
 * bandwidth time equals the latency time, found by bisection on scale_collective_eval() (so it
 * holds for the precise form, with or without wraparound).
 *
 * Units:  -> [bytes].  Domain: a valid group and op; NaN otherwise. The search spans 1 B to
 *         1e12 B and returns the nearer end when the knee lies outside.
 * Book:   ch. 3 "latency": a wrapped ring of 8 at 1 B/s with 1 s per hop is latency-bound below
 *         64/7 B (4 hops = 4 s against 7/8 V / 2 s of bandwidth).
 */
double scale_collective_knee_bytes(const scale_group *group, scale_collective op);

#endif

/* sharding.h — device meshes, sharded arrays in the book's notation, and the four cases of a
 * sharded matmul (chapter 3).
 *
 * Notation (ch. 3 "A unified notation for sharding"):
 *   mesh      "{X:8, Y:2}" (also "X:8,Y:2" or "{'X': 8, 'Y': 2}"): named axes and their sizes;
 *             an axis name is one letter.
 *   sharding  "A[I_XY, J]" (the array name and the brackets' contents; the name is optional:
 *             "[I_XY, J]"), dimension names are identifiers, a subscript lists mesh axes in
 *             order; "{U_Z}" (or "{U_X, U_Y}", "{U_XY}") after the brackets marks the array as
 *             unreduced over those axes. A mesh axis may shard at most one dimension, and an
 *             unreduced axis may not also shard a dimension.
 * Each device holds 1 / prod(|axis|) of the array for the axes used in the subscripts; the array
 * is replicated over the other axes of the mesh.
 *
 * Book: ch. 3 "Sharded Matrices and How to Multiply Them" (sharding.md).
 */
#ifndef SCALE_SHARDING_H
#define SCALE_SHARDING_H

#include <stdbool.h>

#include "scale/collectives.h"
#include "scale/hardware.h"
#include "scale/status.h"
#include "scale/units.h"

#define SCALE_MESH_AXES_MAX 8
/** Most devices a mesh may have: 2^53, the whole numbers a double holds exactly. */
#define SCALE_MESH_DEVICES_MAX 9007199254740992.0
#define SCALE_SHARD_DIMS_MAX 8
#define SCALE_SHARD_NAME_MAX 16

/** A device mesh: named axes and their sizes (product at most SCALE_MESH_DEVICES_MAX). */
typedef struct {
  int n_axes;                       /**< 1..SCALE_MESH_AXES_MAX */
  char name[SCALE_MESH_AXES_MAX];   /**< one-letter axis names ('X'), distinct */
  double size[SCALE_MESH_AXES_MAX]; /**< devices along each axis [count], integer >= 1 */
} scale_mesh;

/** A sharding of one array over a mesh. Axes are referred to by their index in the mesh;
 * a set of axes is a bit mask (bit i = mesh axis i). */
typedef struct {
  char array[SCALE_SHARD_NAME_MAX];                        /**< array name ("A"), may be "" */
  int n_dims;                                              /**< 1..SCALE_SHARD_DIMS_MAX */
  char dim[SCALE_SHARD_DIMS_MAX][SCALE_SHARD_NAME_MAX];    /**< dimension names ("I") */
  int n_dim_axes[SCALE_SHARD_DIMS_MAX];                    /**< mesh axes sharding each dim */
  int dim_axes[SCALE_SHARD_DIMS_MAX][SCALE_MESH_AXES_MAX]; /**< those axes, in order */
  unsigned unreduced_mask;                                 /**< axes of a {U_..} suffix */
} scale_sharding;

/** Parses a mesh such as "{X:8, Y:2}".
 *
 * Errors: SCALE_ERR_PARSE for malformed text; SCALE_ERR_INVALID for a repeated axis name or
 *         too many axes; SCALE_ERR_RANGE for a size that is not an integer >= 1 or sizes whose
 *         product exceeds SCALE_MESH_DEVICES_MAX. 'diag' quotes the text with control
 *         characters escaped (one line).
 */
scale_status scale_sharding_mesh_parse(const char *text, scale_mesh *out, scale_diag *diag);

/** Devices in the mesh (product of sizes) [count]; NaN for an invalid mesh (a size that is not
 * an integer >= 1, or more than SCALE_MESH_DEVICES_MAX devices). */
double scale_sharding_mesh_devices(const scale_mesh *mesh);

/** Parses a sharding such as "A[I_XY, J]" or "C[I, K]{U_X}" against 'mesh'.
 *
 * Errors: SCALE_ERR_PARSE for malformed text; SCALE_ERR_INVALID for an axis the mesh does not
 *         have, an axis used twice (A[I_X, J_X], A[I_XX]), an unreduced axis that also shards
 *         a dimension, a repeated dimension name or too many dimensions. 'diag' names the axis
 *         and quotes the text with control characters escaped (one line).
 */
scale_status scale_sharding_parse(const char *text, const scale_mesh *mesh, scale_sharding *out,
                                  scale_diag *diag);

/** Parses the mesh 'mesh_text' into *mesh, then the sharding 'text' on it into *out: one array
 * named in the book's notation ("{X:2, Y:8, Z:2}", "A[I_XY, J]") in one call.
 *
 * Errors: those of scale_sharding_mesh_parse() (then *out is untouched) and
 *         scale_sharding_parse(); 'diag' as they set it.
 * Book:   ch. 3 "A unified notation for sharding" (the pop quiz's A[I_XY, J]).
 */
scale_status scale_sharding_parse_array(const char *mesh_text, const char *text, scale_mesh *mesh,
                                        scale_sharding *out, scale_diag *diag);

/** Parses the mesh 'mesh_text' into *mesh and the two operands of a sharded matmul on it,
 * 'a_text' into *a and 'b_text' into *b ("{X:4, Y:4}", "A[I_X, J]", "B[J, K_Y]"): what
 * scale_sharding_matmul_plan() and scale_diagram_sharded_matmul() take.
 *
 * Errors: as scale_sharding_parse_array(), then scale_sharding_parse() of 'b_text'.
 * Book:   ch. 3 "Sharded Matrices and How to Multiply Them" (the four cases).
 */
scale_status scale_sharding_parse_matmul(const char *mesh_text, const char *a_text,
                                         const char *b_text, scale_mesh *mesh, scale_sharding *a,
                                         scale_sharding *b, scale_diag *diag);

/** Bit mask of the mesh axes that shard any dimension of 's'. */
unsigned scale_sharding_axes_mask(const scale_sharding *s);

/** Product of the sizes of the mesh axes in 'mask' [count] (1 for an empty mask). */
double scale_sharding_axes_size(const scale_mesh *mesh, unsigned mask);

/** Shards one array is cut into: product of the sizes of the axes that shard it [count].
 * Book: ch. 3, A[I_X, J_Y] on a 2 x 2 mesh: each device holds 1/4. */
double scale_sharding_n_shards(const scale_sharding *s, const scale_mesh *mesh);

/** Copies of each element across the mesh: devices / shards [count].
 * Book: ch. 3 Q1, A[I_X, J, K] on {X:4, Y:8, Z:2}: 16. */
double scale_sharding_replication(const scale_sharding *s, const scale_mesh *mesh);

/** Local (per-device) size of dimension 'dim' of an array of global sizes dims[0..n_dims):
 * dims[dim] / product of its axes [count]; not rounded (a size that does not divide gives a
 * fraction; callers check). NaN for an out-of-range dim or a size < 0. */
double scale_sharding_local_dim(const scale_sharding *s, const scale_mesh *mesh, const double *dims,
                                int dim);

/** Which block of dimension 'dim' the device at mesh coordinates coord[0..mesh->n_axes) holds:
 * the dimension is cut into the product of its axes' sizes, numbered in mixed radix with the
 * first listed axis most significant (I_XY: block x |Y| + y), as JAX lays out P(('x', 'y')).
 *
 * Units:  -> [count] in 0 .. blocks - 1; 0 for a dimension no axis shards.
 * Domain: coordinates integers in [0, size); NaN otherwise or for an out-of-range dim.
 * Book:   ch. 3, A[I_XY, J] on {X:2, Y:2}: the device at (1, 0) holds block 2 of I.
 */
double scale_sharding_block_index(const scale_sharding *s, const scale_mesh *mesh,
                                  const double *coord, int dim);

/** Bytes one device holds of an array of global sizes dims[0..s->n_dims) with elements of
 * 'dtype'.
 *
 * Units:  dims [count] -> [bytes].  Domain: dims >= 0, a valid dtype; NaN otherwise.
 * Book:   ch. 3 pop quiz: int8[128, 2048] as A[I_XY, J] on {X:2, Y:8, Z:2}: 16,384 bytes.
 */
double scale_sharding_bytes_per_device(const scale_sharding *s, const scale_mesh *mesh,
                                       const double *dims, scale_dtype dtype);

/** Bytes of the array summed over every device of the mesh (bytes per device x devices).
 * Book: ch. 3 pop quiz: 512 KiB for the array above.
 */
double scale_sharding_total_bytes(const scale_sharding *s, const scale_mesh *mesh,
                                  const double *dims, scale_dtype dtype);

/* ---- sharded matmuls ------------------------------------------------------------------------ */

/** The four cases of ch. 3 "Computation With Sharded Arrays". */
typedef enum {
  SCALE_SHARDED_CASE_1 = 1, /**< no contracting dim sharded: local matmul, no communication */
  SCALE_SHARDED_CASE_2 = 2, /**< one operand's contracting dim sharded (or both on different
                                 axes): AllGather it first */
  SCALE_SHARDED_CASE_3 = 3, /**< both contracting dims sharded on the same axes: local matmul
                                 leaves C{U_X}; AllReduce (or ReduceScatter) */
  SCALE_SHARDED_CASE_4 = 4  /**< both operands share an axis on non-contracting dims (invalid
                                 as is): AllGather one operand */
} scale_sharded_case;

#define SCALE_SHARDED_STEPS_MAX 2

/** One collective of a sharded-matmul plan. */
typedef struct {
  scale_collective op;        /**< AllGather or AllReduce */
  unsigned axes_mask;         /**< mesh axes it runs over */
  int operand;                /**< 0: A gathered, 1: B gathered, 2: the output C reduced */
  double bytes;               /**< V: bytes of the array the collective produces (AllGather: the
                                   gathered operand, still sharded over other axes) or reduces
                                   (AllReduce: the local partial sum of C) [bytes] */
  scale_collective_cost cost; /**< on the group given to the planner; NaN without one */
} scale_sharded_step;

/** The communication a sharded matmul A . B -> C needs. */
typedef struct {
  scale_sharded_case kind;                          /**< which of the four cases */
  int n_steps;                                      /**< collectives, 0..2, in order */
  scale_sharded_step step[SCALE_SHARDED_STEPS_MAX]; /**< step[0..n_steps) */
  double flops_per_device;  /**< 2 x (product of local dims of A) x (local free dims of B) after
                                 the collectives [FLOP] */
  double comms_time_s;      /**< sum of the steps' precise times [s]; 0 for case 1; NaN
                                 without a chip */
  double book_comms_time_s; /**< sum of the steps' book times [s] */
} scale_sharded_matmul;

/** Plans A . B -> C for shardings 'a' and 'b' over 'mesh': they share exactly one dimension
 * name (the contracting one). Rules, in order (ch. 3 "What Have We Learned?"):
 *   both contracting dims sharded on the same axes -> case 3, AllReduce C over them;
 *   one sharded (or different axes) -> case 2, AllGather the sharded operand over its
 *     contracting axes (if both are sharded on different axes, gather the smaller, then the
 *     other operand's contracting axes are reduced: a second AllReduce step);
 *   a mesh axis on a free dim of both -> case 4, AllGather the smaller operand over the
 *     shared axes (A on a tie);
 *   otherwise case 1.
 * a_dims / b_dims are global dimension sizes in the order of the shardings' dims; elements
 * are of 'dtype'. With 'chip' non-NULL each mesh axis is mapped to one ICI axis of the chip
 * (scale_group_from_chip with 'wrap') and the steps get costs; chip NULL leaves costs NaN.
 *
 * Errors: SCALE_ERR_INVALID when the operands do not share exactly one dimension, or a step's
 *         group cannot be built on the chip (diag says why).
 * Book:   ch. 3 cases 1-4; Q2; Q9.
 */
scale_status scale_sharding_matmul_plan(const scale_mesh *mesh, const scale_sharding *a,
                                        const double *a_dims, const scale_sharding *b,
                                        const double *b_dims, scale_dtype dtype,
                                        const scale_chip *chip, scale_wrap wrap,
                                        scale_sharded_matmul *out, scale_diag *diag);

/** scale_sharding_matmul_plan() of the matmul named in the book's notation: the mesh
 * 'mesh_text' and the operands 'a_text' and 'b_text' parsed by scale_sharding_parse_matmul().
 *
 * Errors: those of scale_sharding_parse_matmul(), then of scale_sharding_matmul_plan().
 * Book:   ch. 3 cases 1-4 ("{X:4, Y:4}", "A[I_X, J]", "B[J, K_Y]": case 1, no collective).
 */
scale_status scale_sharding_matmul_plan_text(const char *mesh_text, const char *a_text,
                                             const char *b_text, const double *a_dims,
                                             const double *b_dims, scale_dtype dtype,
                                             const scale_chip *chip, scale_wrap wrap,
                                             scale_sharded_matmul *out, scale_diag *diag);

/** The two strategies of ch. 3 Q4 for A[B, D] . W[D_X, F] -> C[B, F] on an axis X:
 * (1) AllGather W then a full local matmul; (2) local matmul of the shards, then AllReduce C. */
typedef struct {
  double gather_t_math_s;  /**< 2BDF / C [s] */
  double gather_t_comms_s; /**< AllGather of W (V = D F w bytes) over the group [s] */
  double gather_t_s;       /**< max of the two [s] */
  double reduce_t_math_s;  /**< 2BDF / (X C) [s] */
  double reduce_t_comms_s; /**< AllReduce of C (V = B F a bytes) over the group [s] */
  double reduce_t_s;       /**< max of the two [s] */
  bool reduce_faster;      /**< reduce_t_s < gather_t_s */
} scale_sharding_strategy;

/** Times of both Q4 strategies with the collectives on 'group' (the X axis) and the matmul at
 * 'flops_per_s'; weights and activations of 'dtype'. 'book' selects the book's asymptotic
 * collective times instead of the precise ones.
 *
 * Domain: b, d, f >= 1, flops_per_s > 0, a valid group; all NaN otherwise.
 * Book:   ch. 3 Q4: strategy 2 wins when D > a C / W_bidi (5100 on v5p in bf16).
 */
scale_sharding_strategy scale_sharding_compare_strategies(const scale_group *group,
                                                          double flops_per_s, double b, double d,
                                                          double f, scale_dtype dtype, bool book);

/** The D above which strategy (2) of Q4 beats strategy (1) in the book's analysis:
 * D > a x C / W_bidi with a the activation element size.
 *
 * Units:  [FLOP/s], [bytes/s] (bidirectional) -> [count].  Domain: positive rates.
 * Book:   ch. 3 Q4, D > 2 x 2550 = 5100 on TPU v5p.
 */
double scale_sharding_reduce_beats_gather_d(double flops_per_s, double bidi_bytes_per_s,
                                            scale_dtype act_dtype);

#endif

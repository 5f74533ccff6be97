/* precision.h — training precision recipes: which dtype the matmuls run in (and so which of the
 * chip file's per-format peaks prices them), what the recipe's quantization adds, and which
 * parts frameworks keep in bf16.
 *
 * A recipe is constant data with its sources (src/precision.c); the step model reads the
 * matmul dtype, the memory model the fp8 weight copies. Constants nothing here measured are
 * marked `assumed` in the record and in the CLI output.
 */
#ifndef SCALE_PRECISION_H
#define SCALE_PRECISION_H

#include <stdbool.h>

#include "scale/hardware.h"
#include "scale/units.h"

/** One training precision recipe (static storage). */
typedef struct scale_precision_recipe_s {
  const char *name;             /**< "bf16", "fp8", "fp8-blockwise", "mxfp8", "nvfp4", ... */
  scale_dtype matmul_dtype;     /**< dtype of the linear layers' GEMMs (selects the peak) */
  double cast_bytes_per_elem;   /**< bytes read + written per quantized input element [bytes]
                                     (0: no quantization) */
  double block_elems;           /**< elements sharing one scale (0: one per tensor) */
  double scale_bytes;           /**< bytes of one scale (fp32 4, e8m0 1, e4m3 1) [bytes] */
  double weight_copy_bytes_per_param; /**< low-precision weight copies kept beside the bf16
                                     weights and fp32 master weights [bytes per parameter] */
  bool fsdp_gather_low;         /**< frameworks all-gather FSDP weights in the low format */
  bool assumed;                 /**< some constant is an assumption nothing here measured */
  const char *bf16_ops;         /**< the ops frameworks keep in bf16 (display text) */
  const char *source;           /**< where the recipe is described */
} scale_precision_recipe;

/** The recipe named 'name' (case-sensitive, one of scale_precision_at()'s); NULL if
 * unknown. Static storage. */
const scale_precision_recipe *scale_precision_find(const char *name);

/** Recipe i of the table, in the order the CLI lists them (bf16 first); NULL past the last.
 * Static storage. */
const scale_precision_recipe *scale_precision_at(int i);

/** Whether 'chip' has a peak rate for the recipe's matmul dtype (fp8 on A100, nvfp4 on H100:
 * false). Domain: both not NULL (false otherwise). */
bool scale_precision_chip_has(const scale_precision_recipe *recipe, const scale_chip *chip);

/** Extra bytes per quantized element: the cast plus its scale amortised over the block
 * [bytes]. Worked number: mxfp8 reads 2 and writes 1 plus one e8m0 byte per 32: 3.03125.
 * Domain: recipe not NULL; NaN otherwise. */
double scale_precision_quant_bytes_per_elem(const scale_precision_recipe *recipe);

#endif

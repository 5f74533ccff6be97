/* precision.c — the training precision recipes (precision.h) with their sources. */
#include "scale/precision.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* ---- the recipes ------------------------------------------------------------------------ */

/* Casts read a bf16 input (2 bytes) and write the low format (1 byte fp8, 0.5 byte fp4); the
 * per-tensor amax is a reduction over the same read. Transformer Engine keeps a transposed fp8
 * copy of each weight for the backward GEMMs on Hopper (1 byte/param; range 0-2 with the
 * non-transposed copy); Blackwell's MX/NVFP4 GEMMs take either layout, so no copy is assumed. */
static const char KEEP[] = "attention core, norms, softmax, optimizer";
static const scale_precision_recipe RECIPES[] = {
    {"bf16", SCALE_DTYPE_BF16, 0, 0, 0, 0, false, false, "everything",
     "the default of Megatron-LM and of this library"},
    {"fp16", SCALE_DTYPE_FP16, 0, 0, 0, 0, false, false, "everything (with loss scaling)",
     "Micikevicius et al. 2018, Mixed Precision Training"},
    /* delayed scaling: one fp32 scale per tensor from an amax history */
    {"fp8", SCALE_DTYPE_FP8, 3, 0, 4, 1, false, false, KEEP,
     "NVIDIA Transformer Engine, DelayedScaling recipe (Micikevicius et al. 2022, FP8 Formats)"},
    /* one fp32 scale per row; range of the copy 0-1 byte/param: assumed 1 as fp8 */
    {"fp8-rowwise", SCALE_DTYPE_FP8, 3, 0, 4, 1, false, true, KEEP,
     "torchao float8 rowwise scaling; copy bytes assumed as Transformer Engine's"},
    /* 1x128 activation tiles, 128x128 weight blocks, fp32 scales: 4/128 bytes per element */
    {"fp8-blockwise", SCALE_DTYPE_FP8, 3, 128, 4, 1, true, false, KEEP,
     "DeepSeek-V3 technical report 2024, sec. 3.3 (fine-grained quantization, fp8 dispatch)"},
    /* 32-element blocks with one e8m0 scale byte */
    {"mxfp8", SCALE_DTYPE_FP8, 3, 32, 1, 0, false, false, KEEP,
     "OCP Microscaling Formats (MX) v1.0 spec; Transformer Engine MXFP8BlockScaling"},
    /* 16-element blocks with one e4m3 scale (plus one fp32 per tensor); frameworks keep the
     * first and last layers in bf16, which this recipe does not price (assumed small) */
    {"nvfp4", SCALE_DTYPE_FP4, 2.5, 16, 1, 0, false, true, "attention core, norms, softmax,"
     " optimizer, first and last layers", "NVIDIA, Pretraining LLMs with NVFP4 (2025)"},
};
static const size_t N_RECIPES = sizeof RECIPES / sizeof RECIPES[0];

const scale_precision_recipe *scale_precision_find(const char *name) {
  if (name == NULL) return NULL;
  for (size_t i = 0; i < N_RECIPES; i++)
    if (strcmp(RECIPES[i].name, name) == 0) return &RECIPES[i];
  return NULL;
}

const scale_precision_recipe *scale_precision_at(int i) {
  return i >= 0 && (size_t)i < N_RECIPES ? &RECIPES[i] : NULL;
}

/* ---- derived --------------------------------------------------------------------------- */

bool scale_precision_chip_has(const scale_precision_recipe *recipe, const scale_chip *chip) {
  if (recipe == NULL || chip == NULL) return false;
  double peak = scale_chip_flops_per_s(chip, recipe->matmul_dtype);
  return peak > 0; /* NaN (no such mode) compares false */
}

double scale_precision_quant_bytes_per_elem(const scale_precision_recipe *recipe) {
  if (recipe == NULL) return (double)NAN;
  double per_block = recipe->block_elems > 0 ? recipe->scale_bytes / recipe->block_elems : 0;
  return recipe->cast_bytes_per_elem + (recipe->cast_bytes_per_elem > 0 ? per_block : 0);
}

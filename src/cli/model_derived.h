/* model_derived.h — the computed part of `scale model show` (parameters, FLOPs per token, KV
 * bytes per token, training memory), kept apart so it grows with transformer.h without touching
 * model.c. */
#ifndef SCALE_CLI_MODEL_DERIVED_H
#define SCALE_CLI_MODEL_DERIVED_H

#include "cli.h"
#include "scale/transformer.h"

/** What `scale model show` was asked about: the context of the per-token figures (0: the
 * model's trained context, else 4096) and the KV-cache dtype. */
typedef struct {
  double context;
  scale_dtype kv_dtype;
} cli_model_query;

/** Adds a "derived" object to the JSON document being written. */
void cli_model_derived_json(cli_json *json, const scale_model *model, const cli_model_query *q);

/** Prints the derived rows. */
void cli_model_derived_text(const scale_model *model, const cli_model_query *q);

#endif

/* model_derived.h — the computed part of `scale model show` (parameters, FLOPs per token, KV
 * bytes per token), kept apart so it grows with transformer.h without touching model.c. */
#ifndef SCALE_CLI_MODEL_DERIVED_H
#define SCALE_CLI_MODEL_DERIVED_H

#include "cli.h"
#include "scale/transformer.h"

/** Adds a "derived" object to the JSON document being written. */
void cli_model_derived_json(cli_json *json, const scale_model *model);

/** Prints the derived rows. */
void cli_model_derived_text(const scale_model *model);

#endif

/* emit.h — `--emit FRAMEWORK`: the layout a command prices (or the plan's best) written as a
 * framework's own launch options, in place of the report, so that it can be piped to a file.
 *
 * Training (`scale train`, `scale plan train`): megatron (Megatron-LM pretrain_gpt.py flags, one
 * per line), nemo (Megatron-Bridge / NeMo 2 recipe overrides, key=value), torchtitan (a TOML job
 * file), maxtext (key=value overrides of base.yml). Serving (`scale infer`, `scale plan infer`):
 * vllm (`vllm serve` flags), sglang (`python -m sglang.launch_server` flags), trtllm (the LLM API
 * YAML of `trtllm-serve --extra_llm_api_options`). Every output starts with '#' comment lines
 * naming the framework version (release tag and commit) whose option names it follows and the
 * scale line it came from; a setting the framework has no exact counterpart for is emitted as
 * its nearest with a '#' line saying what differs, or refused with one line (exit 2).
 *
 * Each framework is one table (emit.c) from scale's quantities to its option names, so each
 * rule is written once; tests/cli/test_emit.sh checks every name of those tables against the
 * framework's option list in frameworks/ (read from its source at the named commit).
 */
#ifndef SCALE_CLI_EMIT_H
#define SCALE_CLI_EMIT_H

#include <stdbool.h>
#include <stdio.h>

#include "scale.h"

/** The frameworks --emit names; CLI_EMIT_NONE: no --emit. */
typedef enum {
  CLI_EMIT_NONE = 0,
  CLI_EMIT_MEGATRON,
  CLI_EMIT_NEMO,
  CLI_EMIT_TORCHTITAN,
  CLI_EMIT_MAXTEXT,
  CLI_EMIT_VLLM,
  CLI_EMIT_SGLANG,
  CLI_EMIT_TRTLLM,
  CLI_EMIT_COUNT
} cli_emit_fw;

/** Parses --emit's value for a training command (serving false) or a serving one: 0 with *out
 * set, or CLI_EXIT_USAGE after one line naming the choices (or saying that the framework is a
 * serving / training one). */
int cli_emit_parse(const char *arg, bool serving, cli_emit_fw *out);

/** A priced training layout. */
typedef struct {
  const scale_model *model;
  const scale_chip *chip;
  double n_chips, batch_tokens, seq_len; /**< the problem [count, tokens, tokens] */
  const scale_layout *layout;
  const char *recipe;    /**< precision recipe name ("bf16", "fp8", ...) */
  const char *reproduce; /**< the scale line that prices it (printed as a comment) */
} cli_emit_train_job;

/** Writes 'job' as framework fw's options to 'out': 0, or CLI_EXIT_USAGE after one line when
 * the layout has a setting fw cannot express (nothing written then). */
int cli_emit_train(FILE *out, cli_emit_fw fw, const cli_emit_train_job *job);

/** A priced serving layout: copies of tp chips each. */
typedef struct {
  const scale_model *model;
  const scale_chip *chip;
  double n_chips, tp, ep;  /**< chips in all, model-parallel degree of a copy, expert degree */
  scale_dtype weight_dtype, kv_dtype;
  double max_seqs;         /**< running sequences per copy */
  double max_step_tokens;  /**< tokens a step schedules (chunked prefill budget) */
  double max_model_len;    /**< longest request: prompt + output [tokens] */
  double block_tokens;     /**< tokens per paged KV block; 0: the engine's default */
  double kv_frac;          /**< share of the HBM left after weights given to KV */
  bool chunked_prefill;    /**< prompts chunked into decode steps */
  bool ffn_2d;             /**< scale priced the MLP 2-D weight-stationary (a TPU layout) */
  const char *reproduce;   /**< the scale line that prices it */
} cli_emit_serve_job;

/** Writes 'job' as framework fw's options (as cli_emit_train()). */
int cli_emit_serve(FILE *out, cli_emit_fw fw, const cli_emit_serve_job *job);

/** The command line argv[0 .. argc-1] as one line after "scale " into buf, less --emit and its
 * value: the reproduce comment of `train` and `infer`. Returns buf. */
char *cli_emit_command_line(int argc, char **argv, const char *cmd, char *buf, size_t size);

#endif

/* modelimport.h — model records from Hugging Face transformers configs (config.json).
 *
 * Families read: llama, mistral, qwen2, qwen3 and gemma/gemma2/gemma3 (dense), mixtral,
 * qwen2_moe, qwen3_moe and gpt_oss (MoE), llama4 (MoE with a shared expert, interleaved dense
 * layers, chunked attention), deepseek_v2, deepseek_v3 and kimi_k2 (MLA, shared experts, MTP),
 * and mamba2. A config that nests its text model ("text_config", as Gemma 3 and Llama 4 do) is
 * read there. Any other model_type (nemotron_h's hybrid of Mamba-2, attention and MLP layers
 * among them, refused naming hybrid_override_pattern), a missing or malformed field, or a
 * layout the model schema cannot hold (local layers that do not repeat, sliding windows on the
 * last layers only) is refused naming the field. Sliding windows and layer patterns
 * (sliding_window, layer_types, sliding_window_pattern, attention_chunk_size, no_rope_layers),
 * attention sinks, QK-norm (by model_type), biases (attention_bias, mlp_bias, Qwen2's q, k, v),
 * ALiBi and MTP layers (num_nextn_predict_layers) become the model's fields; what the schema
 * still leaves out (Gemma's post-norms and soft-capping, DeepSeek's router scoring, Llama 4's
 * weightless QK L2-norm) is imported as notes, each saying how the model is priced instead.
 *
 * Book: ch. 4 (the letters each field becomes); issue 31 ("scale model import").
 */
#ifndef SCALE_MODELIMPORT_H
#define SCALE_MODELIMPORT_H

#include <stdio.h>

#include "scale/json.h"
#include "scale/model.h"
#include "scale/status.h"

#define SCALE_IMPORT_NOTES_MAX 8

/** What an import could not express, one sentence each. */
typedef struct {
  int n;
  char text[SCALE_IMPORT_NOTES_MAX][200];
} scale_import_notes;

/** Fills *out from a parsed config (the root object of config.json); 'name' becomes its name
 * and display name. *notes (may be NULL) gets what the schema leaves out.
 *
 * Errors: SCALE_ERR_MISSING_KEY for a required field that is absent; SCALE_ERR_INVALID for a
 *         field of the wrong type or value, an unknown model_type, or a layout the schema
 *         cannot hold; 'diag' names the field ("config: 'num_key_value_heads' ...").
 */
scale_status scale_model_import_hf(const scale_json_value *config, const char *name,
                                   scale_model *out, scale_import_notes *notes, scale_diag *diag);

/** Parameters a checkpoint's model.safetensors.index.json holds: its metadata.total_size
 * [bytes] over the bytes of the config's torch_dtype (bfloat16/float16 2, float32 4).
 *
 * Units:  -> [count].
 * Errors: SCALE_ERR_MISSING_KEY without metadata.total_size; SCALE_ERR_INVALID for a size that
 *         is not a whole number > 0, a torch_dtype it does not know, or a quantized checkpoint
 *         (quantization_config: its bytes are not parameters times a dtype); 'diag' says which.
 */
scale_status scale_model_index_params(const scale_json_value *index, const scale_json_value *config,
                                      double *out, scale_diag *diag);

/** Writes 'model' as a strict model file (models/README.md's format) that scale_model_load_file()
 * reads back to the same record: 'source' (may be NULL) and each note as comment lines on top.
 * Errors: SCALE_ERR_IO when writing fails. */
scale_status scale_model_write(const scale_model *model, const char *source,
                               const scale_import_notes *notes, FILE *out);

#endif

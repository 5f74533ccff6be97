/* serve.h — serving as it is measured: continuous batching of a request stream under a paged
 * KV-memory limit, chunked prefill mixed into decode steps, a seeded discrete-step simulator that
 * reports TTFT and TPOT percentiles, throughput, goodput under an SLO and what binds (book ch. 7-8;
 * issue 15).
 *
 * The model. One model copy serves a stream of requests. Each request has an arrival time, a
 * prompt of 'isl' tokens and 'osl' output tokens. The engine runs steps back to back; at the start
 * of a step it admits waiting requests in arrival order (FIFO, no overtaking) while the batch has a
 * free slot (at most max_batch running) and the paged KV cache has free blocks for the request's
 * whole life: ceil((isl + osl) / block_tokens) blocks, reserved at admission and freed when it
 * finishes (TensorRT-LLM's "guaranteed no evict" policy: no preemption, no recomputation).
 * A step then spends its token budget (max_step_tokens) first on one token for each decoding
 * request, then on prompt chunks of the prefilling requests in admission order (chunked prefill;
 * or, with prefill_alone, a step with prompt work left holds only prompt chunks).
 * A request whose prompt completes in a step gets its first token at the end of that step (TTFT);
 * each later step gives it one more token. Its TPOT is (finish - first token) / (osl - 1).
 * The step's duration comes from a cost function of what the step holds (scale_serve_cost_fn), so
 * the calibrated decode and prefill costs can replace the roofline one given here.
 * When nothing runs and nothing waits, the clock jumps to the next arrival.
 *
 * Arrivals come open loop (Poisson at a rate, or all at t = 0 for an offline run) or closed loop:
 * N clients, each sending its next request the moment its previous one finishes (what benchmark
 * tools with a maximum concurrency do), for a fixed number of requests.
 *
 * Determinism: arrivals and lengths (fixed, uniform integers, or an empirical table taken in
 * order) come from a splitmix64 generator seeded by the caller; the same config gives the same
 * result bit for bit. The library allocates only in scale_serve_new() and
 * scale_serve_lengths_load().
 */
#ifndef SCALE_SERVE_H
#define SCALE_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scale/hardware.h"
#include "scale/inference.h"
#include "scale/model.h"
#include "scale/status.h"

/* ==== the cost of a step ===================================================================== */

/** What one engine step holds, the input of a cost function. */
typedef struct {
  double n_decode;         /**< requests decoding one token this step [count] */
  double decode_kv_tokens; /**< KV tokens those requests read: the sum of their contexts [tokens] */
  double n_prefill_tokens; /**< prompt tokens prefilled this step (all chunks) [tokens] */
  double n_prefill_seqs;   /**< requests with a prompt chunk in this step [count] */
  double prefill_ctx_tokens; /**< sum over the step's prompt tokens of the tokens each attends
                                  to (itself and those before it): causal attention's work
                                  [tokens^2] */
} scale_serve_step;

/** Duration of 'step' [s]; must be finite and > 0 for a non-empty step. 'ctx' is the caller's. */
typedef double (*scale_serve_cost_fn)(const scale_serve_step *step, void *ctx);

/** The roofline cost of a step on one model copy (ch. 7's decode step, prefill at an MFU). */
typedef struct {
  double n_params;           /**< parameters, 2 FLOPs each per token [count] */
  double param_bytes;        /**< weights read once per step [bytes] */
  double kv_bytes_per_token; /**< KV cache of one token, all layers [bytes] */
  double flops_per_s;        /**< peak matmul rate of the copy (tp chips) [FLOP/s] */
  double hbm_bytes_per_s;    /**< HBM bandwidth of the copy (tp chips) [bytes/s] */
  double mfu_frac;           /**< prefill FLOPs utilization, (0, 1] (book: 0.4) */
  double overhead_s;         /**< fixed per-step overhead: scheduling, sampling, launch [s] */
  double kv_capacity_bytes;  /**< HBM of the copy left for KV caches after weights [bytes] */
} scale_serve_roofline;

/** Roofline step time: overhead + max(T_flops, T_bytes), with
 *  T_flops = 2 N n_decode / C + 2 N n_prefill_tokens / (C mfu) and
 *  T_bytes = (param_bytes + decode_kv_tokens kv_bytes_per_token) / W.
 *
 * Units:  -> [s]. 'ctx' is a const scale_serve_roofline *.
 * Domain: NaN when ctx is NULL or the step is empty.
 * Book:   ch. 7, decode step = max(weights + KV loading, FLOPs); prefill 2NP / (C mfu).
 */
double scale_serve_roofline_cost_s(const scale_serve_step *step, void *ctx);

/** Fills 'out' with the roofline of one model copy of cfg->tp chips of 'chip' serving 'model'
 * with cfg's dtypes and mfu, plus 'overhead_s'. KV capacity = tp x (HBM - weights per chip).
 *
 * Errors: SCALE_ERR_INVALID (NULL argument), SCALE_ERR_RANGE (overhead_s < 0 or not finite, the
 *         weights do not fit, or the model has no KV cache), with 'diag' filled when non-NULL.
 */
scale_status scale_serve_roofline_of(const scale_model *model, const scale_chip *chip,
                                     const scale_infer_config *cfg, double overhead_s,
                                     scale_serve_roofline *out, scale_diag *diag);

/* ==== the simulator ========================================================================== */

/* ---- the step trace: what each step held, for a timeline (diagram.h) ----------------------- */

/** What a running request did in one step (or what befell it). */
typedef enum {
  SCALE_SERVE_TRACE_IDLE = 0, /**< running but given nothing: its prompt waits for the step's
                                   token budget, or its decode stalls behind prefill_alone */
  SCALE_SERVE_TRACE_PREFILL,  /**< a chunk of its prompt */
  SCALE_SERVE_TRACE_RECOMPUTE, /**< a chunk of its prompt and earlier output, prefilled again
                                    after a preemption */
  SCALE_SERVE_TRACE_DECODE,   /**< one token, with its drafts verified (speculative decoding) */
  SCALE_SERVE_TRACE_PREEMPTED, /**< evicted at the step's start (kv_on_demand): its blocks
                                    freed, back to the head of the queue */
  SCALE_SERVE_TRACE_KINDS
} scale_serve_trace_kind;

/** One request in one step. */
typedef struct {
  uint32_t request;            /**< its index in arrival order */
  uint32_t step;               /**< the step's index in the trace */
  scale_serve_trace_kind kind; /**< what it did */
  uint32_t tokens;             /**< tokens it put through the model: the chunk of a prefill or
                                    recompute, 1 + the drafts of a decode; 0 otherwise */
  uint32_t drafted;            /**< of a decode's tokens, the drafts verified */
  uint32_t made;               /**< output tokens the step gave it: 1 + the accepted drafts of
                                    a decode, 1 for the chunk that ends a prompt, else 0 */
} scale_serve_trace_event;

/** One engine step. */
typedef struct {
  double start_s;          /**< from the first arrival [s] */
  double dur_s;            /**< its duration, drafting included [s] */
  double draft_s;          /**< of which the draft steps [s] */
  scale_serve_step work;   /**< what the cost function priced */
  uint32_t first_event;    /**< its events: events[first_event, first_event + n_events) */
  uint32_t n_events;       /**< one per running request, preempted ones first */
} scale_serve_trace_step;

/** One request's life, from the first arrival [s]. */
typedef struct {
  double arrival_s;     /**< when it arrived */
  double first_token_s; /**< the end of the step that made its first token */
  double finish_s;      /**< the end of the step that made its last */
  uint32_t isl, osl;    /**< its prompt and output tokens */
} scale_serve_trace_request;

/** A caller-owned trace of a run: scale_serve_run() fills the first steps and their events
 * while they fit, and stops recording (truncated) at the first step that does not; and the
 * first requests_cap requests' lives (truncated too when there are more). Rerunning resets it.
 * The arrays must outlive the simulator's runs; with no trace (NULL) a run records nothing and
 * costs nothing more. */
typedef struct {
  scale_serve_trace_step *steps;       /**< [steps_cap] */
  size_t steps_cap;
  scale_serve_trace_event *events;     /**< [events_cap] */
  size_t events_cap;
  scale_serve_trace_request *requests; /**< [requests_cap] */
  size_t requests_cap;
  size_t n_steps, n_events, n_requests; /**< filled by the run */
  bool truncated;                       /**< the run had more than the trace holds */
} scale_serve_trace;

/** Short lowercase name of 'kind' ("idle", "prefill", "recompute", "decode", "preempted");
 * "?" when invalid. */
const char *scale_serve_trace_kind_name(scale_serve_trace_kind kind);

/** A length distribution: uniform integers in [min_tokens, max_tokens]; fixed when equal. */
typedef struct {
  double min_tokens; /**< [tokens], integer */
  double max_tokens; /**< [tokens], integer >= min_tokens */
} scale_serve_lengths;

/** A request stream and the engine serving it. */
typedef struct {
  double rate_per_s;         /**< Poisson arrival rate [1/s], > 0; INFINITY: all arrive at t = 0
                                  (an offline, saturated run) */
  double n_requests;         /**< requests simulated, integer in [1, 1e7] */
  scale_serve_lengths isl;   /**< prompt lengths, min >= 1 */
  scale_serve_lengths osl;   /**< output lengths, min >= 1 */
  uint64_t seed;             /**< seed of the generator */
  double max_batch;          /**< running requests at most, integer >= 1 */
  double max_step_tokens;    /**< token budget of a step, integer >= max_batch */
  double block_tokens;       /**< tokens per KV block, integer >= 1 */
  double kv_blocks;          /**< KV blocks of the copy, integer >= 1 */
  double ttft_slo_s;         /**< goodput SLO on TTFT [s]; INFINITY: none */
  double tpot_slo_s;         /**< goodput SLO on TPOT [s]; INFINITY: none */
  double concurrency;        /**< closed loop: this many clients, integer in [1, 1e7]; the
                                  first ones send at t = 0, each later request the moment a
                                  request finishes, and rate_per_s is unused. 0: open loop */
  const uint32_t *table_isl; /**< an empirical length table: request i takes the pair
                                  i mod n_table, in order (isl and osl unused); NULL: none.
                                  Read only by scale_serve_new(), which copies it */
  const uint32_t *table_osl; /**< the table's output lengths, each >= 1 */
  double n_table;            /**< pairs in the table, integer in [1, 1e7] when set */
  bool prefill_alone;        /**< a step with prompt work left runs no decodes: prompts first,
                                  decodes stall (vLLM's scheduler without chunked prefill);
                                  false: prompt chunks share every step with the decodes */
  bool prefilled;            /**< requests arrive with their prompt's KV cache and first token
                                  (the decode pool of disaggregated serving): no prefill work,
                                  TTFT 0, TPOT from arrival; needs osl >= 2 */
  double prefix_hit_frac;    /**< prefix caching: the share of each prompt found in the cache,
                                  in [0, 1]. floor(frac x isl) tokens, at most isl - 1 (the
                                  last is always computed, for its logits), arrive with their
                                  KV and are not prefilled; the rest attend to them. Their
                                  blocks count in the request's own reservation, as a
                                  conversation's earlier turns do (engines hold a system prompt
                                  shared by running requests once: not modelled, so KV binds
                                  early for those). 0: no cache */
  double spec_tokens;        /**< speculative decoding: tokens a draft proposes for each
                                  decoding request before each step, integer in [0, 64]
                                  (fewer near a request's end: no more than it can still use);
                                  the step verifies them as prompt tokens of that request (each
                                  through every layer, attending to its context) and keeps the
                                  accepted ones plus its own. 0: none */
  double spec_accept_frac;   /**< the chance each drafted token is accepted once those before
                                  it were, in [0, 1] (drawn per token from the seed) */
  scale_serve_cost_fn spec_draft_cost; /**< one draft step over the drafting requests
                                  (n_decode of them, decode_kv_tokens their contexts), run
                                  spec_tokens times before each step; required when
                                  spec_tokens > 0 (a draft is never free) */
  void *spec_draft_ctx;      /**< passed to spec_draft_cost */
  double request_overhead_s; /**< each request's handling outside the engine's steps
                                  (tokenizing, scheduling, detokenizing, the HTTP path) [s],
                                  in [0, 10]: its TTFT counts it, and a closed-loop client's
                                  next request reaches the engine that much after the last one
                                  finished (0: not priced; the caller says so) */
  double warmup_requests;    /**< the first this many requests (in arrival order) are left out
                                  of the latencies (TTFT, TPOT, ITL: their percentiles and
                                  means), as benchmarks leave out their warm-up, so that an empty
                                  engine's start does not set them; throughput, goodput and what
                                  bound the run count every request. Integer in [0, requests) */
  bool kv_on_demand;         /**< KV blocks as tokens need them (vLLM, SGLang): admission takes
                                  the blocks of the prompt and the next token; a step whose
                                  decodes need a block when none is free preempts the most
                                  recently admitted request (recompute: its blocks freed, its
                                  prompt and the tokens it made prefilled again, first in the
                                  queue). false: a request reserves its whole prompt and output
                                  at admission and is never preempted (TensorRT-LLM's
                                  guaranteed-no-evict scheduler) */
  scale_serve_cost_fn cost;  /**< step duration */
  void *cost_ctx;            /**< passed to cost */
  scale_serve_trace *trace;  /**< where a run records its steps (caller-owned); NULL: none */
} scale_serve_config;

/** A config with no cost function set: rate 1/s, 1000 requests, isl 1024, osl 128, seed 1, batch
 * 256, 8192 tokens a step, 16-token blocks, 1e6 blocks, no SLO, prompts to prefill. */
scale_serve_config scale_serve_config_default(void);

/** What held admission back, time-weighted over the run. */
typedef enum {
  SCALE_SERVE_BIND_LOAD = 0, /**< nothing waiting: the arrivals, not the engine, set the pace */
  SCALE_SERVE_BIND_KV,       /**< a request waited for KV blocks */
  SCALE_SERVE_BIND_BATCH,    /**< a request waited for a batch slot (max_batch running) */
  SCALE_SERVE_BIND_COMPUTE,  /**< admitted requests waited for the step's token budget */
  SCALE_SERVE_BIND_COUNT
} scale_serve_bind;

/** Short lowercase name of 'bind' ("load", "kv", "batch", "compute"); "?" when invalid. */
const char *scale_serve_bind_name(scale_serve_bind bind);

/** KV occupancy samples kept at most (decimated by two when full, so they span the run). */
#define SCALE_SERVE_N_SAMPLES 64

/** The outcome of a run. Times are from the first arrival. */
typedef struct {
  double n_requests;                         /**< requests finished [count] */
  double n_steps;                            /**< engine steps [count] */
  double input_tokens;                       /**< prompt tokens, cached ones included [tokens] */
  double cached_tokens;                      /**< of those, found in the prefix cache [tokens] */
  double drafted_tokens;                     /**< tokens drafted for verification [tokens] */
  double accepted_tokens;                    /**< of those, accepted [tokens] */
  double draft_s;                            /**< time of the draft steps (in busy_s) [s] */
  double preemptions;                        /**< requests preempted (kv_on_demand) [count] */
  double recomputed_tokens;                  /**< tokens prefilled again after them [tokens] */
  double output_tokens;                      /**< tokens generated [tokens] */
  double makespan_s;                         /**< first arrival to last finish [s] */
  double busy_s;                             /**< time the engine ran steps [s] */
  double throughput_tokens_per_s;            /**< output_tokens / makespan [tokens/s] */
  double request_rate_per_s;                 /**< requests / makespan [1/s] */
  double ttft_p50_s, ttft_p90_s, ttft_p99_s; /**< time to first token, nearest rank [s] */
  double tpot_p50_s, tpot_p90_s, tpot_p99_s; /**< time per output token (osl > 1 only) [s] */
  double itl_p50_s, itl_p90_s;     /**< inter-token latency over every token after a request's
                                        first (the duration of the step that made it), from a
                                        log-binned histogram: within 0.4% [s]; NaN when none */
  double ttft_mean_s, tpot_mean_s; /**< means [s] */
  double good_frac;                /**< share of requests meeting both SLOs [1] */
  double goodput_tokens_per_s;     /**< output tokens of those requests / makespan [tokens/s] */
  double steady_batch;             /**< running requests, time-averaged over busy steps [count] */
  double max_running;              /**< most requests running at once [count] */
  double kv_peak_frac;             /**< most KV blocks reserved at once / kv_blocks [1] */
  double bind_s[SCALE_SERVE_BIND_COUNT];        /**< step time spent under each bind [s] */
  scale_serve_bind bind;                        /**< the bind with the most time */
  int n_samples;                                /**< KV samples kept */
  double sample_t_s[SCALE_SERVE_N_SAMPLES];     /**< sample times (step starts) [s] */
  double sample_kv_frac[SCALE_SERVE_N_SAMPLES]; /**< reserved KV blocks / kv_blocks [1] */
} scale_serve_result;

/** A simulator: a validated config and its request arrays. Opaque. */
typedef struct scale_serve scale_serve;

/** Validates 'cfg' and allocates a simulator with its requests drawn from cfg->seed.
 *
 * Errors: SCALE_ERR_INVALID (NULL argument or no cost function), SCALE_ERR_RANGE (a field out of
 *         its domain, or a request whose isl + osl needs more KV blocks than exist, which could
 *         never be admitted), SCALE_ERR_NOMEM (out of memory); 'diag' names the field.
 * Owns:   on SCALE_OK *out is the caller's, released with scale_serve_free(); else *out = NULL.
 */
scale_status scale_serve_new(const scale_serve_config *cfg, scale_serve **out, scale_diag *diag);

/** Releases 'sim'; NULL is a no-op. */
void scale_serve_free(scale_serve *sim);

/** Runs the simulation from the start and fills 'out'. It reuses the scratch arrays of 'sim'
 * (no allocation); rerunning gives the same result.
 *
 * Errors: SCALE_ERR_RANGE when the cost function returns a duration that is not finite and > 0
 *         (the step is named in 'diag'). Every loop is bounded by the requests' tokens.
 */
scale_status scale_serve_run(scale_serve *sim, scale_serve_result *out, scale_diag *diag);

/** KV blocks a request of 'tokens' reserves in a paged cache of 'block_tokens' a block:
 * ceil(tokens / block_tokens), the last block partly empty (vLLM's PagedAttention).
 *
 * Units:  tokens, block_tokens [tokens] -> [count].
 * Domain: tokens >= 0, block_tokens >= 1, finite; NaN otherwise.
 * Book:   ch. 7 "Ragged reads and paging"; 37 tokens in blocks of 16: 3 blocks, 11 slots empty.
 */
double scale_serve_kv_blocks(double tokens, double block_tokens);

/** Steady batch of an offline run with fixed lengths: min(max_batch, floor(kv_blocks /
 * ceil((isl + osl) / block_tokens))) [count]; NaN outside the config's domain or with a length
 * table. */
double scale_serve_offline_batch(const scale_serve_config *cfg);

/** Reads an empirical length table: '#' comment lines, the header "isl<TAB>osl", then one
 * request a line, two integers in [1, 1e8], at most 1e6 lines.
 * Owns:   on SCALE_OK *isl and *osl are the caller's (free() each); else both NULL.
 * Errors: SCALE_ERR_IO, SCALE_ERR_PARSE, SCALE_ERR_RANGE, SCALE_ERR_NOMEM, with file:line in
 *         'diag'.
 */
scale_status scale_serve_lengths_load(const char *path, uint32_t **isl, uint32_t **osl, size_t *n,
                                      scale_diag *diag);

#endif

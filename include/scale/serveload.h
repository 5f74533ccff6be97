/* serveload.h — one model copy under a request stream: its calibrated step cost, its engine, a
 * simulated load point, and the closed forms beside them (chapter 8, "Serving under load").
 *
 * A copy is 'tp' chips of one kind serving one model with weights and KV caches in one dtype
 * and GEMMs in another, fed requests of fixed prompt and output lengths. Its engine batches
 * continuously (256 requests, 8192 tokens a step at most) over 16-token KV blocks that fill
 * 90% of the HBM the weights leave; each step is priced by the calibrated serving cost
 * (servecal.h) with the chip's fitted [serve] parameters, or the priors where it has none.
 *
 * Book: ch. 8 "Serving LLaMA 3 70B on TPUs"; the simulator is serve.h's, the cost servecal.h's.
 */
#ifndef SCALE_SERVELOAD_H
#define SCALE_SERVELOAD_H

#include "scale/hardware.h"
#include "scale/inference.h"
#include "scale/model.h"
#include "scale/serve.h"
#include "scale/servecal.h"
#include "scale/status.h"

/** One model copy under load: what it serves, its cost and its engine. */
typedef struct {
  const scale_model *model;  /**< the model (not owned) */
  const scale_chip *chip;    /**< the chip (not owned) */
  double tp;                 /**< chips of the copy [count] */
  scale_dtype dtype;         /**< weights and KV caches */
  scale_dtype compute;       /**< GEMM arithmetic */
  double isl, osl;           /**< prompt and output tokens of every request [tokens] */
  scale_serve_cost cost;     /**< the calibrated step cost */
  scale_serve_config engine; /**< the engine (rate and request count set per run) */
} scale_serveload;

/** Fills *out for a copy of 'tp' chips of 'chip' serving 'model' (weights and KV in 'dtype',
 * GEMMs in 'compute') requests of 'isl' + 'osl' tokens.
 *
 * Errors: what scale_serve_cost_of() reports (the weights leave no HBM, ...); 'diag' says.
 */
scale_status scale_serveload_setup(const scale_model *model, const scale_chip *chip, double tp,
                                   scale_dtype dtype, scale_dtype compute, double isl,
                                   double osl, scale_serveload *out, scale_diag *diag);

/** Simulates the copy at 'rate_per_s' requests/s (INFINITY: all arrive at t = 0) over
 * 'n_requests' requests into *out.
 *
 * Errors: what scale_serve_new() and scale_serve_run() report.
 */
scale_status scale_serveload_run(scale_serveload *load, double rate_per_s, double n_requests,
                                 scale_serve_result *out, scale_diag *diag);

/** The step that prefills one prompt alone [s]: at a vanishing rate, the TTFT. */
double scale_serveload_prefill_s(const scale_serveload *load);

/** The step of one request decoding alone at mid-generation (isl + osl/2 tokens) [s]: at a
 * vanishing rate, the TPOT. */
double scale_serveload_decode1_s(const scale_serveload *load);

/** The parts of a steady step at 'batch' running requests: 'batch' decodes at mid-generation
 * context and the prompts of batch / osl new requests (one finishes per osl steps each). */
scale_serve_parts scale_serveload_steady_parts(const scale_serveload *load, double batch);

/** The book's fixed-batch decode step (scale_infer_step_time_s) of the copy at 'batch'
 * (rounded, at least 1) sequences of mid-generation context [s]. Book: ch. 7 and 8. */
double scale_serveload_book_step_s(const scale_serveload *load, double batch);

/* ---- a copy's curve under load (chapter 8's figure and table) ----------------------------- */

/** Most load points scale_serveload_curve_run() takes. */
#define SCALE_SERVELOAD_POINTS_MAX 16

/** A copy swept from a vanishing rate to saturation, with the closed forms beside it. */
typedef struct {
  scale_serve_result offline;   /**< every request at t = 0: the offline maximum */
  scale_serve_result vanishing; /**< 50 requests at 1e-3 of the offline request rate */
  double prefill_s;             /**< scale_serveload_prefill_s(): the vanishing-rate TTFT [s] */
  double decode1_s;             /**< scale_serveload_decode1_s(): the vanishing-rate TPOT [s] */
  int n_points;                 /**< load points in 'point' */
  double rate_frac[SCALE_SERVELOAD_POINTS_MAX]; /**< point[i]'s rate over the offline one [1] */
  scale_serve_result point[SCALE_SERVELOAD_POINTS_MAX]; /**< at rate_frac[i] x offline rate */
  double tput_per_chip[SCALE_SERVELOAD_POINTS_MAX]; /**< point[i]'s output tokens/s per chip
                                                         (the figure's x) [tokens/s] */
  double tpot_p50_s[SCALE_SERVELOAD_POINTS_MAX];    /**< point[i]'s median TPOT [s] */
  double ttft_p90_s[SCALE_SERVELOAD_POINTS_MAX];    /**< point[i]'s p90 TTFT [s] */
  double book_step_s;           /**< the book's step at the offline steady batch [s] */
  double book_tokens_per_s_per_chip; /**< max(1, round(batch)) / book step / tp [tokens/s] */
  double book_ratio;            /**< book_tokens_per_s_per_chip over the offline run's tokens/s
                                     per chip: what the fixed batch leaves out [1] */
  scale_serve_parts steady;     /**< the steady step's parts at the offline steady batch */
} scale_serveload_curve;

/** Sweeps the copy into *out: the offline maximum over 'n_requests' requests, the vanishing
 * rate, then one run of 'n_requests' at each rate_frac[i] (i < n) of the offline request rate,
 * in that order (the simulator is seeded, so the same inputs give the same curve).
 *
 * Domain: 0 <= n <= SCALE_SERVELOAD_POINTS_MAX, rate_frac[i] > 0.
 * Errors: SCALE_ERR_INVALID for a bad n; what scale_serveload_run() reports ('diag' says).
 * Book:   ch. 8 "Serving under load": TTFT and TPOT against throughput as the rate rises.
 */
scale_status scale_serveload_curve_run(scale_serveload *load, const double *rate_frac, int n,
                                       double n_requests, scale_serveload_curve *out,
                                       scale_diag *diag);

/* ---- a small traced run (chapter 8's continuous-batching timeline) ------------------------ */

/** What a traced run of scale_serveload_trace() holds at most. */
#define SCALE_SERVELOAD_TRACE_REQUESTS 24
#define SCALE_SERVELOAD_TRACE_STEPS 2048
#define SCALE_SERVELOAD_TRACE_EVENTS 32768

/** A traced run: its trace (pointing into the arrays below) and its result. About 1 MB: give
 * it static storage. */
typedef struct {
  scale_serve_trace trace;
  scale_serve_result result;
  scale_serve_trace_step steps[SCALE_SERVELOAD_TRACE_STEPS];
  scale_serve_trace_event events[SCALE_SERVELOAD_TRACE_EVENTS];
  scale_serve_trace_request requests[SCALE_SERVELOAD_TRACE_REQUESTS];
} scale_serveload_traced;

/** Simulates the copy's engine on 'n_requests' requests (1 .. SCALE_SERVELOAD_TRACE_REQUESTS)
 * arriving at 'rate_per_s' (Poisson, the engine's seed), with prompts and outputs drawn from
 * 'isl' and 'osl' and a step budget of 'step_tokens' (chunked prefill), recording every step
 * into *out: the run scale_diagram_serving() draws.
 *
 * Errors: SCALE_ERR_INVALID for n_requests out of range; what scale_serve_new() and
 *         scale_serve_run() report; SCALE_ERR_RANGE when the run has more steps or events
 *         than *out holds ('diag' says).
 * Book:   ch. 8 "Serving under load": a handful of requests, chunks mixed with decodes.
 */
scale_status scale_serveload_trace(scale_serveload *load, double rate_per_s, double n_requests,
                                   scale_serve_lengths isl, scale_serve_lengths osl,
                                   double step_tokens, scale_serveload_traced *out,
                                   scale_diag *diag);

/** The quantities of a copy's curve in ch. 8's order: fitted (1 when the chip's step cost is
 * fitted on serving rows, 0 on the priors), the offline maximum (max_tput per chip, max_rate
 * requests/s, max_batch steady batch, max_tpot_s), the closed forms beside a vanishing rate
 * (prefill_s, low_ttft_s, decode1_s, low_tpot_s), each load point i as "rP.tput",
 * "rP.ttft_p90_s" and "rP.tpot_p50_s" with P = 100 rate_frac[i] rounded, the book's step at
 * the steady batch (book_step_s, book_tput per chip, book_ratio) and the steady step's shares
 * in percent (share_linear, share_kv, share_tp, share_overhead).
 *
 * Book:   ch. 8 "Serving under load" (its table and figure).
 */
void scale_serveload_curve_table(const scale_serveload *load, const scale_serveload_curve *c,
                                 scale_infer_table *out);

#endif

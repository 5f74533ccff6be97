/* serveplan.h — the serving planner on the request-stream simulator (issue 15): which slice, TP
 * degree, number format and batch cap serve a model most cheaply under a latency SLO.
 *
 * A candidate is one model copy on a slice of tp chips (tensor parallel over the whole slice;
 * its MLP layout chosen per phase: each step takes the cheapest of 1-D and 2-D weight-stationary
 * and weight-gathered at its token count, so a TPU's prefills and decodes may differ),
 * weights and KV cache stored in one dtype (bf16, fp8, int8 or int4; the GEMMs run in fp8 or
 * int8 where the chip has that rate and the weights are that narrow, else bf16) and a cap on
 * running requests. Its step cost is the calibrated one (servecal.h); its KV cache takes 90% of
 * the HBM the weights leave, in 16-token blocks.
 *
 * The objective is the cost per million output tokens at the SLO: the largest Poisson arrival
 * rate one copy sustains with p90 TTFT and p90 TPOT within the SLO (a bisection on the rate,
 * each probe a seeded simulation) gives its output tokens/s; the slice's price over that rate is
 * the cost. Without an SLO the rate is the offline maximum (all requests at t = 0). A candidate
 * misses the SLO even at a vanishing rate when its prefill alone (TTFT) or its batch-1 decode
 * step (TPOT) is too slow; when every candidate misses, the report says so and names the one
 * closest to the SLO (the smallest ratio of p90 latency to the SLO).
 *
 * Fleets (optional): given a total request rate, each feasible layout is replicated into the
 * fewest units that serve it, ceil(rate / the unit's sustainable rate), each unit then running
 * below its limit (so within the SLO), and the layouts rank by the fleet's price per hour.
 *
 * Disaggregated serving (optional): prefill on a pool of copies that only prefill (their TTFT
 * is the request's, plus the time to ship its KV cache at the chip's scale-out bandwidth) and
 * decode on another pool whose requests arrive with their prompt's KV present; the two pools are
 * sized so that neither is the bottleneck at the rate, and the cost counts both pools' chips.
 */
#ifndef SCALE_SERVEPLAN_H
#define SCALE_SERVEPLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "scale/hardware.h"
#include "scale/inference.h"
#include "scale/model.h"
#include "scale/serve.h"
#include "scale/status.h"
#include "scale/units.h"

#define SCALE_SERVE_PLAN_TOP 16

/** What to plan for. */
typedef struct {
  scale_serve_lengths isl, osl;        /**< request lengths */
  double ttft_slo_s, tpot_slo_s;       /**< p90 SLOs [s]; INFINITY: none */
  double max_chips;                    /**< largest slice (TP degree) tried [count] */
  bool allow_dtype[SCALE_DTYPE_COUNT]; /**< storage formats tried (weights and KV alike) */
  double n_requests;                   /**< requests of each simulation (default 400) */
  uint64_t seed;                       /**< seed of the simulations */
  bool disagg;                         /**< also try disaggregated prefill and decode */
  double fleet_rate_per_s;             /**< requests/s a fleet of replicas must serve; 0: none
                                            (rank one serving unit by its cost per token) */
} scale_serve_plan_opts;

/** Defaults: isl 1024, osl 256, no SLO, up to 8 chips, bf16/fp8/int8/int4, 400 requests,
 * seed 1, aggregated only. */
scale_serve_plan_opts scale_serve_plan_opts_default(void);

/** One evaluated layout. */
typedef struct {
  double tp;                       /**< chips of one copy (aggregated), or of each pool's copy */
  scale_dtype dtype;               /**< weights and KV cache */
  scale_dtype compute_dtype;       /**< GEMMs */
  double max_batch;                /**< running requests per copy at most */
  bool disagg;                     /**< disaggregated prefill and decode */
  double prefill_copies;           /**< disaggregated: prefill copies per decode copy [count] */
  double chips;                    /**< chips of one serving unit (a copy, or a decode copy and its
                                        share of prefill copies) [count] */
  bool feasible;                   /**< meets the SLO at some rate */
  double excess;                   /**< max(p90 TTFT / SLO, p90 TPOT / SLO) at the lowest rate: <= 1
                                        when feasible, the distance to the SLO otherwise */
  double rate_per_s;               /**< requests/s one unit sustains within the SLO [1/s] */
  double tokens_per_s;             /**< output tokens/s of one unit at that rate [tokens/s] */
  double ttft_p90_s, tpot_p90_s;   /**< at that rate (at the lowest rate when infeasible) [s] */
  double steady_batch;             /**< running requests per copy at that rate [count] */
  scale_serve_bind bind;           /**< what bound the run at that rate */
  double usd_per_million_tokens;   /**< unit's chips x price / tokens_per_s, per 1e6 tokens */
  scale_ffn_layout prefill_layout; /**< the MLP layout of its prefill steps (a full token budget,
                                        or one longest prompt if shorter) */
  scale_ffn_layout decode_layout;  /**< the MLP layout of its decode steps (at steady_batch) */
  double step_tokens;              /**< the engine's token budget a step [tokens] */
  double block_tokens;             /**< tokens per KV block [tokens] */
  double kv_frac;                  /**< share of the HBM after weights given to KV [1] */
  double unit_rate_per_s;          /**< requests/s one unit sustains (within the SLO, else the
                                        offline maximum) [1/s] */
  double replicas;                 /**< with a fleet rate: units that serve it, ceil(rate /
                                        unit_rate_per_s) [count]; 0 otherwise */
  double fleet_chips;              /**< replicas x chips [count] */
  double fleet_usd_per_hour;       /**< what the fleet costs [USD/h] */
} scale_serve_plan_entry;

/** The outcome of a search. */
typedef struct {
  scale_serve_plan_entry ranked[SCALE_SERVE_PLAN_TOP]; /**< feasible, cheapest first */
  int n_ranked;                                        /**< entries in ranked */
  bool met;                                            /**< some layout meets the SLO */
  scale_serve_plan_entry closest;                      /**< when !met: the layout nearest the SLO */
  scale_serve_plan_entry best_aggregated;    /**< the cheapest feasible aggregated layout */
  scale_serve_plan_entry best_disaggregated; /**< the cheapest feasible disaggregated one */
  bool has_aggregated, has_disaggregated;    /**< whether those exist */
  int n_candidates;                          /**< layouts evaluated */
  int n_too_big; /**< layouts whose weights or one request's KV do not fit */
  bool fitted;   /**< the chip's [serve] fit priced them (else the priors) */
} scale_serve_plan_report;

/** Searches every layout of opts on 'chip' for 'model' and fills 'out'.
 * Errors: SCALE_ERR_INVALID (NULL argument), SCALE_ERR_RANGE (bad options: lengths, SLOs,
 *         max_chips < 1, no dtype allowed, the model's context exceeded; or the chip has no price),
 *         with 'diag' filled. No layout fitting is not an error: n_candidates = n_too_big.
 */
scale_status scale_serve_plan(const scale_model *model, const scale_chip *chip,
                              const scale_serve_plan_opts *opts, scale_serve_plan_report *out,
                              scale_diag *diag);

#endif

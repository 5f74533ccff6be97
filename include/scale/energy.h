/* energy.h — what a training run also costs: energy, emissions, failures and goodput.
 *
 * Energy: chips x hours x per-chip power (the chip's TDP, or a published measured training
 * draw where one exists), plus the node's share for CPUs, NICs and fans, times the facility's
 * PUE, in kWh; times the grid's carbon intensity (kg CO2e/kWh, location-based), in tCO2e.
 *
 * Failures: an interruption rate per chip-hour from a published run (measurements/reliability.ini)
 * gives the job's mean time between interruptions M = 1 / (rate x chips). A checkpoint of the
 * weights and optimizer state takes delta = bytes / storage write bandwidth; after an
 * interruption the job restarts (R) and redoes the work since the last checkpoint. Young's
 * interval tau = sqrt(2 delta M) (first order) or Daly's higher-order one sets how often to
 * checkpoint; Daly's complete model of the wall time gives the goodput (useful time / elapsed).
 *
 * Sources: J. W. Young, "A first order approximation to the optimum checkpoint interval",
 * CACM 17(9), 1974; J. T. Daly, "A higher order estimate of the optimum checkpoint interval for
 * restart dumps", Future Generation Computer Systems 22(3), 2006, 303-312 (Figs. 3-5: M = 24 h,
 * 6 h, 15 min, R = 10 min, delta = 5 min give tau = 117, 57, 9.1 min); Llama Team, "The Llama 3
 * Herd of Models", arXiv 2407.21783, sections 3.3.1 and 3.3.4.
 * Book: ch. 6 "Training LLaMA 3 on TPUs" (the run's time and cost; this adds what it draws and
 * what failures take from it).
 * All cost functions are pure: no printing, NaN outside their domain.
 */
#ifndef SCALE_ENERGY_H
#define SCALE_ENERGY_H

#include <stdbool.h>

#include "scale/hardware.h"
#include "scale/status.h"

/* ---- energy and emissions ------------------------------------------------------------------ */

/** Energy one run draws at the wall socket: n_chips x (chip_w + node_overhead_w) x run_s x pue.
 *
 * Units:  chip_w, node_overhead_w (per chip) [W], run_s [s], pue [1] -> [J].
 * Domain: n_chips >= 1, chip_w > 0, node_overhead_w >= 0, run_s >= 0, pue >= 1; NaN otherwise.
 * Source: the Llama 3.1 model card's method (GPU-hours x 700 W TDP, "adjusted for power usage
 *         efficiency"); node_overhead_w = 0 is that accounting, which counts the GPUs alone.
 *         1024 chips x 700 W x 1 h x 1.1 = 2.838e9 J (788 kWh).
 */
double scale_energy_run_j(double n_chips, double chip_w, double node_overhead_w, double run_s,
                          double pue);

/** kWh of 'j' joules (3.6e6 J each).  Units: [J] -> [kWh].  Domain: j >= 0; NaN otherwise. */
double scale_energy_kwh(double j);

/** Location-based emissions of 'kwh' at a grid intensity: kwh x kg_co2e_per_kwh / 1000.
 *
 * Units:  kwh [kWh], kg_co2e_per_kwh [kg/kWh] -> [tCO2e] (metric tons).
 * Domain: both >= 0; NaN otherwise.
 * Source: EIA FAQ 74: US 2022 utility-scale generation, 1.65e9 t CO2 over 4.23e12 kWh = 0.390
 *         kg/kWh; 1e6 kWh there is 390 t.
 */
double scale_energy_co2e_t(double kwh, double kg_co2e_per_kwh);

/* ---- failures and checkpoints -------------------------------------------------------------- */

/** Interruptions per chip-hour of a published run: n_interruptions / (n_chips x window_s / 3600).
 *
 * Units:  window_s [s] -> [1/(chip h)].
 * Domain: n_interruptions >= 0, n_chips >= 1, window_s > 0; NaN otherwise.
 * Source: Llama 3 section 3.3.4: 419 unexpected interruptions in a 54-day snapshot on 16,384
 *         H100 (section 3.3.1: "up to 16K"): 419 / (16384 x 1296 h) = 1.973e-5 per chip-hour.
 */
double scale_energy_rate_per_chip_hour(double n_interruptions, double n_chips, double window_s);

/** The job's mean time between interruptions: 3600 / (rate x n_chips) (independent chips, any
 * one stops the synchronous job).
 *
 * Units:  rate [1/(chip h)] -> [s].  Domain: rate > 0, n_chips >= 1; NaN otherwise.
 * Source: Llama 3 at 16,384 chips: 3600 / (1.973e-5 x 16384) = 1.114e4 s (3.09 h; the paper's
 *         press summaries: "one failure every three hours").
 */
double scale_energy_mtbi_s(double rate_per_chip_hour, double n_chips);

/** Time to write a checkpoint of 'bytes' at an aggregate storage write bandwidth.
 *
 * Units:  bytes [bytes], write_bytes_per_s [bytes/s] -> [s].
 * Domain: bytes >= 0, write_bytes_per_s > 0; NaN otherwise.
 * Source: Llama 3 section 3.3.1: Tectonic sustains 2 TB/s; 405.85e9 parameters x 14 bytes
 *         (bf16 weights, fp32 master and two Adam moments) = 5.68e12 bytes take 2.84 s.
 */
double scale_energy_ckpt_s(double bytes, double write_bytes_per_s);

/** Young's first-order optimal checkpoint interval sqrt(2 delta M) (compute between dumps).
 *
 * Units:  ckpt_s (delta), mtbi_s (M) [s] -> [s].  Domain: both > 0; NaN otherwise.
 * Source: Young 1974; Daly 2006's first-order model: delta = 5 min, M = 24 h give 120 min.
 */
double scale_energy_young_interval_s(double ckpt_s, double mtbi_s);

/** Daly's higher-order optimal interval: sqrt(2 delta M) [1 + sqrt(delta/2M)/3 + (delta/2M)/9]
 * - delta for delta < 2M, and M for delta >= 2M.
 *
 * Units:  [s] -> [s].  Domain: both > 0; NaN otherwise.
 * Source: Daly 2006 (the perturbation solution); Figs. 3-5: delta = 5 min, M = 24 h, 6 h, 15 min give 117, 57 and
 *         9.1 min.
 */
double scale_energy_daly_interval_s(double ckpt_s, double mtbi_s);

/** Goodput of a run checkpointing every 'interval_s' of compute: useful time over elapsed time
 * in Daly's complete model, T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau (Poisson
 * interruptions; each one costs the restart R and the work since the last checkpoint).
 *
 * Units:  interval_s (tau), ckpt_s (delta), restart_s (R), mtbi_s (M) [s] -> [1].
 * Domain: interval_s > 0, ckpt_s >= 0, restart_s >= 0, mtbi_s > 0; NaN otherwise. Without
 *         failures (M -> inf) it tends to tau / (tau + delta).
 * Source: Daly 2006, the complete cost function. First order: 1 / (1 + delta/tau + (tau/2 + R)/M).
 */
double scale_energy_goodput_frac(double interval_s, double ckpt_s, double restart_s,
                                 double mtbi_s);

/* ---- one run ------------------------------------------------------------------------------- */

/** What a run's energy and failures are computed from; NaN marks a number not given (what
 * depends on it is reported unknown, never defaulted). */
typedef struct {
  double n_chips;             /**< chips in the job [count] */
  double useful_s;            /**< the run's time without interruptions [s] */
  double usd_per_chip_hour;   /**< price of a chip-hour [USD/h]; NaN: no cost */
  double chip_w;              /**< per-chip power used (TDP or training draw) [W] */
  double node_overhead_w;     /**< node power beyond the chips, per chip [W]; 0: not counted */
  double pue;                 /**< facility power usage effectiveness [1]; NaN: IT energy only */
  double grid_kg_per_kwh;     /**< grid carbon intensity [kg CO2e/kWh]; NaN: no emissions */
  double rate_per_chip_hour;  /**< interruptions per chip-hour; NaN: no failure model */
  double ckpt_bytes;          /**< bytes one checkpoint writes (all shards) [bytes] */
  double ckpt_write_bytes_per_s; /**< aggregate storage write bandwidth [bytes/s] */
  double restart_s;           /**< time from an interruption to training again [s] */
} scale_energy_run;

/** The run's energy, emissions, failures and goodput; NaN where an input was not given. */
typedef struct {
  double it_kwh;             /**< chips (+ node overhead) over the elapsed time [kWh] */
  double facility_kwh;       /**< it_kwh x PUE [kWh] */
  double co2e_t;             /**< facility_kwh x grid intensity [t] */
  double mtbi_s;             /**< the job's mean time between interruptions [s] */
  double ckpt_s;             /**< one checkpoint's write time [s] */
  double interval_s;         /**< Daly's optimal checkpoint interval [s] */
  double goodput_frac;       /**< useful / elapsed [1] */
  double elapsed_s;          /**< useful_s / goodput_frac (useful_s without a failure model;
                                  NaN when the goodput is 0: the run never ends) */
  double n_interruptions;    /**< expected over the elapsed time [count] */
  double cost_usd;           /**< chips x elapsed hours x price [USD] */
} scale_energy_result;

/** A run with every optional input NaN (not given) and node_overhead_w 0. */
scale_energy_run scale_energy_run_default(void);

/** Evaluates 'run' into 'out'. Energy is charged over the elapsed time (restarts and redone work
 * draw power too). */
void scale_energy_eval(const scale_energy_run *run, scale_energy_result *out);

/* ---- published interruption records (measurements/reliability.ini) ----------------------------- */

/** One published run's interruption record and the storage it checkpointed to. */
typedef struct {
  char name[64];                 /**< section name, "llama3-405b" */
  double n_interruptions;        /**< unexpected interruptions in the window [count] */
  double n_chips;                /**< chips of the job [count] */
  double window_s;               /**< the observed window [s] */
  double ckpt_write_bytes_per_s; /**< the run's storage write bandwidth [bytes/s]; NaN: unknown */
} scale_energy_source;

/** Reads the record 'name' from 'path' (NULL: measurements/reliability.ini of the data directory).
 *
 * Errors: SCALE_ERR_IO, _PARSE, _UNKNOWN_KEY, _DUPLICATE_KEY, _RANGE (with file:line),
 *         SCALE_ERR_NOT_FOUND when no section is 'name', _MISSING_KEY when it lacks a rate key.
 */
scale_status scale_energy_source_load(const char *path, const char *name,
                                      scale_energy_source *out, scale_diag *diag);

/** The run of 'n_chips' chips of 'chip' for 'useful_s' with the interruption record 'src' (may
 * be NULL: no failure model): chip power the file's measured training draw, else its TDP
 * (NaN without [power]); node overhead the file's, else 0 (not counted); the price the file's;
 * the rate and the storage bandwidth the record's. PUE, grid, checkpoint bytes and restart time
 * stay NaN for the caller. */
scale_energy_run scale_energy_run_of(const scale_chip *chip, double n_chips, double useful_s,
                                     const scale_energy_source *src);

#endif

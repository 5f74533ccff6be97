/* prices.h — what a chip-hour costs, as data: hardware/prices.tsv, one row per chip, provider
 * and offer (on-demand, committed for one or three years, spot, a short reservation), each with
 * the date and source of its number.
 *
 * A hardware file's [price] usd_per_hour stays the default (its on-demand price); a row of the
 * table is chosen by name, PROVIDER:OFFER ("google-cloud:committed-3y"), for the chip of a
 * job. The reader is strict: a bad row is an error naming the file and line.
 */
#ifndef SCALE_PRICES_H
#define SCALE_PRICES_H

#include <stddef.h>

#include "scale/status.h"

#define SCALE_PRICE_TEXT 160 /**< longest source note kept (longer ones are an error) */

/** The kinds of offer a price can be. */
typedef enum {
  SCALE_OFFER_ON_DEMAND = 0, /**< pay as you go, no commitment */
  SCALE_OFFER_COMMITTED_1Y,  /**< a one-year committed-use or reserved-instance rate */
  SCALE_OFFER_COMMITTED_3Y,  /**< three years */
  SCALE_OFFER_SPOT,          /**< preemptible capacity at a varying price */
  SCALE_OFFER_RESERVED,      /**< a short reservation bought ahead (AWS Capacity Blocks) */
  SCALE_OFFER_COUNT
} scale_offer;

/** "on-demand", "committed-1y", "committed-3y", "spot", "reserved"; "?" out of range. */
const char *scale_offer_name(scale_offer offer);

/** One row of the table. */
typedef struct {
  char chip[64];                  /**< hardware file stem (a chip, not a system) */
  char provider[32];              /**< "google-cloud", "aws", ... (lowercase, [a-z0-9-]) */
  scale_offer offer;
  double usd_per_chip_hour;       /**< [USD / (chip h)], in [0.001, 1e6] */
  char date[16];                  /**< when the price held: YYYY-MM or YYYY-MM-DD */
  char source[SCALE_PRICE_TEXT];  /**< where the number is printed */
} scale_price;

/** Reads every row of prices table 'path' (NULL: scale_data_dir()/hardware/prices.tsv) into
 * rows[0..cap) and returns how many (at most cap), or -1 with 'diag' set (file:line for a
 * bad row: wrong field count, an unknown offer, a price outside [0.001, 1e6], a malformed
 * date, an empty source, a chip/provider/offer repeated, more than cap rows).
 * Format: UTF-8, tab-separated; '#' lines and blank lines ignored; the first other line is the
 * header "chip provider offer usd_per_chip_hour date source".
 */
int scale_prices_read(const char *path, scale_price *rows, int cap, scale_diag *diag);

/** The row of rows[0..n) for 'chip' named 'name' = PROVIDER:OFFER, or PROVIDER alone when the
 * chip has exactly one offer from it. NULL when none matches (or the name is ambiguous or
 * malformed); then 'why' (if not NULL, 'size' bytes) says which in one line.
 */
const scale_price *scale_price_find(const scale_price *rows, int n, const char *chip,
                                    const char *name, char *why, size_t size);

#endif

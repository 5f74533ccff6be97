/* scale.h — umbrella header of libscale, the cost library of "How to Scale Your Model".
 *
 * Every quantity is a double in SI base units whose name ends with its unit (STYLE.md).
 * Pure cost functions never print and return NaN outside their domain; fallible functions
 * (files, parsing) return a scale_status and may fill a caller-owned scale_diag.
 */
#ifndef SCALE_H
#define SCALE_H

#include "scale/status.h"
#include "scale/units.h"
#include "scale/file.h"
#include "scale/params.h"
#include "scale/hardware.h"
#include "scale/prices.h"
#include "scale/model.h"
#include "scale/gpu.h"
#include "scale/transformer.h"
#include "scale/training.h"
#include "scale/roofline.h"
#include "scale/collectives.h"
#include "scale/inference.h"
#include "scale/sharding.h"
#include "scale/plot.h"
#include "scale/diagram.h"
#include "scale/json.h"
#include "scale/modelimport.h"
#include "scale/schedule.h"
#include "scale/plan.h"
#include "scale/step.h"
#include "scale/calibrate.h"
#include "scale/measurements.h"
#include "scale/measure.h"
#include "scale/hybrid.h"
#include "scale/hybrid_study.h"
#include "scale/memory.h"
#include "scale/energy.h"
#include "scale/precision.h"
#include "scale/serve.h"
#include "scale/steptrace.h"

#define SCALE_VERSION_MAJOR 0
#define SCALE_VERSION_MINOR 1
#define SCALE_VERSION_PATCH 0
#define SCALE_VERSION_STRING "0.1.0"

#endif

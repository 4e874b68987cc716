/*
 * The performance model's input from the emulator's metrics (the "model"
 * object of each launch, docs/emu-metrics.md): the only place where the
 * model meets the emulator's JSON.
 */
#ifndef GRADER_MODEL_MODEL_INPUT_H
#define GRADER_MODEL_MODEL_INPUT_H

#include <jansson.h>

#include "model.h"

/* The launches of metrics that ran a traced block, into a malloc'd array
 * (*out, caller frees). Returns how many, or -1 with err when the metrics are
 * malformed (a field missing, not a number, negative). */
int model_launches_from_metrics(const json_t *metrics, struct model_launch **out, char *err,
				size_t errlen);

#endif

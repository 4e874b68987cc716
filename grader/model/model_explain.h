/*
 * One sentence on what limits a predicted kernel, for the report:
 * "stores touch 32 sectors per request, 8x the bytes a coalesced store needs".
 */
#ifndef GRADER_MODEL_MODEL_EXPLAIN_H
#define GRADER_MODEL_MODEL_EXPLAIN_H

#include <stddef.h>

#include "model.h"

/* p and the launches it was predicted from. */
void model_explain(const struct model_prediction *p, const struct model_launch *l, char *buf, size_t len);

#endif

/* --batch: grading a class of untrusted submissions into a gradebook. */
#ifndef GRADER_BATCH_H
#define GRADER_BATCH_H

#include "device.h"
#include "options.h"
#include "rubric.h"

/* Returns the exit status: 0 when the batch ran (whatever the students
 * scored), 2 for bad arguments, 4 when it could not run. */
int batch_run(const struct options *o, const struct lab *lab, const struct rubric *r,
	      const struct device_info *dev);

#endif

#!/bin/sh
# The job script of a --batch --slurm array task: sbatch passes the grade
# command as arguments (grader/slurm/slurm_submit.c), so no line of this
# script holds a student's name, a path to quote, or the salt.
exec "$@"

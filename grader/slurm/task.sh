#!/bin/sh
# What runs on a node for --slurm: an array task of --batch --slurm (sbatch
# runs this file as the job script) and the one grade of --slurm (srun runs
# it). The grade's command comes as arguments (grader/slurm/), so no line
# here holds a student's name, a path to quote, or the salt.
#
# KIT_APPTAINER=IMAGE, set by the instructor before ./grade (sbatch and
# srun hand the environment on): the grade runs in that Apptainer image,
# --nv giving it the GPU Slurm allotted (CUDA_VISIBLE_DEVICES).
if [ -n "${KIT_APPTAINER:-}" ]; then
	exec apptainer exec --nv "$KIT_APPTAINER" "$@"
fi
exec "$@"

/*
 * What the grader knows about one lab. A new lab is a folder under labs/,
 * a description like these, a two-line entry adapter (labN_entry.c) and a
 * line in lab_table.c; the machinery is shared.
 *
 * Every element is a 32-bit word (unsigned int or float). Results are
 * compared bit for bit: scans wrap around exactly, a transpose only moves data.
 */
#ifndef GRADER_LAB_H
#define GRADER_LAB_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/rng.h"
#include "../../common/shape.h"

enum elem_kind { ELEM_U32, ELEM_F32 };

/* A block scan's work as the handout draws it, for a 1024-element block:
 * how many threads, and how many warps (a warp is active when any of its
 * threads is), do work in each step (one barrier interval). */
struct scan_steps {
	const char *algorithm;	/* "Hillis-Steele" */
	const char *label;	/* "lab 1, 1024 threads" */
	int threads_per_block;
	const int *threads, *warps;
	int n;			/* steps */
	int root_step;		/* 1-based step between an up-sweep and a down-sweep; 0: none */
};

struct lab {
	const char *id;		/* "lab3": what the user types */
	const char *dir;	/* "lab3-transpose": folder under labs/ and solutions/ */
	const char *file;	/* "transpose.cu": the one file the student edits */
	const char *entry;	/* "transpose": the extern "C" entry point */
	const char *title;	/* "Coalesced matrix transpose" */
	const char *asks;	/* one line for --list */
	int rank;		/* 1: shapes are n; 2: rows x cols */
	enum elem_kind elem;

	size_t (*in_count)(const struct shape *s);
	size_t (*out_count)(const struct shape *s);
	/* Minimum bytes a correct kernel must move: each input read once,
	 * each output written once. */
	double (*min_bytes)(const struct shape *s);
	/* What the in_count input words are, from a test's seed: the grader's
	 * input (lab_fill_input) and the harness's, which a GPU generates in
	 * its own memory (grader/harness/device_fill.h), follow this alone. */
	enum rng_kind input;
	void (*reference)(const uint32_t *in, uint32_t *out, const struct shape *s);
	/* Where output word i sits, in the student's terms ("index 1025",
	 * "out[7][3] (row 7, col 3)"). */
	void (*describe_index)(const struct shape *s, size_t i, char *buf, size_t len);
	/* Why a correct kernel is usually slow, for the performance message. */
	const char *slow_hint;
	/* Labs 1 and 2: the handout's steps of a block scan, drawn in the report's
	 * active-threads chart; NULL for a lab that is not a block scan. */
	const struct scan_steps *handout_steps;
	/* Lab 4: the student also writes an occupancy calculator, and a variant
	 * of the entry point that the grader sweeps over occupancy. */
	int has_calculator;
	/* Output word i depends on input word i alone (rank 1 only): the check of
	 * a timed run recomputes the reference of the changed input chunk, not of
	 * the whole input (grader/steps/bench_check.c). */
	int elementwise;
	/* Lab 3: the output is the input's words rearranged, the input word at
	 * (row, col) to output word out_position (rank 1: row 0, col i); NULL
	 * for a lab that computes. The checks hash the reference's output from
	 * the input, in the input's order (grader/steps/output_hash.h). */
	size_t (*out_position)(const struct shape *s, size_t row, size_t col);
};

/* The harness side: calls the student's entry point. Defined once per lab
 * in labN_entry.c and linked only into that lab's harness. */
void lab_entry_call(const void *d_in, void *d_out, const struct shape *s);

/* Lab 4's other entry points (common/occupancy.h); NULL in the adapters of
 * the labs that have none. */
struct occ_device;
struct occ_kernel;
struct occ_result;
extern void (*const lab_occupancy_call)(const struct occ_device *d, const struct occ_kernel *k,
					struct occ_result *r);
extern void (*const lab_sweep_call)(const void *d_in, void *d_out, const struct shape *s,
				    size_t extra_shared);

/* lab_table.c */
extern const struct lab *const lab_table[];
const struct lab *lab_find(const char *id);	/* "lab3" or "lab3-transpose"; NULL if none */
/* The table's ids, "lab1, lab2, lab3, lab4", for every message that lists
 * the labs. Returns buf. */
const char *lab_ids(char *buf, size_t len);

/* Shared helpers for descriptions. */
void lab_format_word(enum elem_kind elem, uint32_t w, char *buf, size_t len);
/* For the labs over a vector of n 32-bit words (the scans, lab 4's stream):
 * n words in and out, n read plus n written. */
size_t lab_vector_count(const struct shape *s);
double lab_vector_bytes(const struct shape *s);

/* The input of shape s for seed: its in_count words of lab->input's stream. */
void lab_fill_input(const struct lab *lab, uint32_t *in, const struct shape *s, uint64_t seed);

#endif

/* The performance model (see model.h and docs/model.md). */
#include "model.h"

#include <math.h>
#include <string.h>

static double ceil_div(double a, double b)
{
	return ceil(a / b);
}

/* The runs of DRAM work a side gives beyond one per 128 bytes: its requests
 * touch lines / sectors runs a sector (a request over 2 rows of 64 bytes: 2
 * lines for 4 sectors; a coalesced one 1 for 4), counted over the sectors
 * that reach DRAM (the blocks' new sectors: a block sum every warp reads is
 * one). */
static double short_runs(double lines, double sectors, double block_sectors)
{
	double extra = sectors > 0 ? block_sectors * (lines / sectors - 0.25) : 0;
	return extra > 0 ? extra : 0;
}

/* The requests of a side split over more lines than their sectors fill (a
 * request over 2 rows of 64 bytes, or 4 of 32; a coalesced 16-byte-a-lane
 * request fills its 4 lines and is not split): its round trip waits for the
 * later of its lines, fetched side by side, so a request over 4 rows waits
 * about as long as one over 2 (model_physics's rows.* sweep, one word a
 * thread, with a barrier or without: runs of 32 bytes 0.9 to 2.7 points of
 * copy below runs of 64, these 4.8 to 7.0 below runs of 128). DRAM's cost
 * (short_runs) does grow with the runs. The trace has sums, not each
 * request: the lines a request touches beyond those its sectors fill, at
 * most one a request. */
static double split_requests(double lines, double sectors, double requests)
{
	if (requests <= 0)
		return 0;
	double filled = sectors / 4 > requests ? sectors / 4 : requests;
	double beyond = (lines - filled) / requests;
	return requests * (beyond < 0 ? 0 : beyond > 1 ? 1 : beyond);
}

int model_blocks_per_sm(const struct gpu_model *g, const struct model_launch *l)
{
	double warps = ceil_div(l->block_threads > 0 ? l->block_threads : 1, 32);
	double by_warps = floor(g->max_warps_per_sm / warps);
	double alloc = ceil_div(l->shared_bytes + g->shared_reserved_per_block, g->shared_alloc_unit) *
		       g->shared_alloc_unit;
	double by_shared = floor(g->shared_per_sm / alloc);
	/* Registers go to warps in units, and each quarter of the SM holds whole warps. */
	double per_warp = ceil_div(g->regs_per_thread * 32, g->reg_alloc_unit) * g->reg_alloc_unit;
	double by_regs = floor(floor(g->regs_per_sm / 4 / per_warp) * 4 / warps);
	double n = by_warps;
	if (g->max_blocks_per_sm < n)
		n = g->max_blocks_per_sm;
	if (by_shared < n)
		n = by_shared;
	if (by_regs < n)
		n = by_regs;
	return n >= 1 ? (int)n : 1;
}

/* The p-norm of two times: p = 1 adds them (nothing overlaps), a large p
 * takes the larger (everything overlaps). */
static double join(double a, double b, double p)
{
	if (a <= 0 || b <= 0)
		return a + b;
	double m = a > b ? a : b;
	return m * pow(pow(a / m, p) + pow(b / m, p), 1 / p);
}

void model_launch_cost(const struct gpu_model *g, const struct model_launch *l, struct model_terms *o)
{
	memset(o, 0, sizeof *o);
	double blocks = l->grid_blocks > 0 ? l->grid_blocks : 1;
	double sampled = l->sampled_blocks > 0 ? l->sampled_blocks : 1;
	double scale = blocks / sampled;	/* from the traced blocks to the grid */
	double warps = ceil_div(l->block_threads > 0 ? l->block_threads : 1, 32);
	double sms = blocks < g->sms ? blocks : g->sms;
	double resident = model_blocks_per_sm(g, l);
	double per_sm = ceil_div(blocks, sms);
	if (per_sm < resident)
		resident = per_sm;
	double waves = blocks / (sms * resident);
	o->warps_per_sm = resident * warps;
	o->loads_in_flight = l->load_runs > 0 ? l->load_requests / l->load_runs : 0;

	/* Throughput: DRAM bytes (each block's distinct sectors: what its warps
	 * touch twice, the L2 serves), line transactions, shared wavefronts. */
	o->dram_bytes = scale * 32 * (l->load_block_sectors + l->store_block_sectors);
	/* Reads alone stream faster than a copy's mix of reads and writes. */
	double weighted = scale * 32 * (l->load_block_sectors * g->read_weight +
					l->store_block_sectors * (2 - g->read_weight));
	o->t[BOUND_DRAM] = weighted / (g->copy_gbps * g->stream_efficiency);
	double extra_runs = short_runs(l->load_lines, l->load_sectors, l->load_block_sectors) +
			    short_runs(l->store_lines, l->store_sectors, l->store_block_sectors);
	o->t[BOUND_DRAM] += scale * extra_runs * g->short_run_ns;
	/* Each sector a store request touches is a write into the L2, and the
	 * partial sectors of one scattered request contend with each other: the
	 * cost grows faster than the sectors as each holds fewer of the bytes
	 * written (measured with 4-byte lanes: 32 sectors a request, each with 4
	 * bytes, 3.3x the time of 16 with 8). A request of 4-byte lanes that
	 * touches 32 sectors uses 1/8 of each: the reference point. */
	o->store_sectors_per_request = l->store_requests > 0 ? l->store_sectors / l->store_requests : 0;
	o->store_sector_use = l->store_sectors > 0 ? l->store_bytes / (32 * l->store_sectors) : 1;
	double use = o->store_sector_use > 0 ? o->store_sector_use : 1;
	o->t[BOUND_STORE_SECTORS] = scale * l->store_sectors / g->store_sectors_per_ns *
				  pow(8 * use, 1 - g->store_exponent);
	/* The L2's request path: a store request of many sectors is taken apart
	 * there, whatever DRAM later sees (model_physics's req.store.S*: the
	 * data resident in the L2). Rates between the measured points are
	 * interpolated on log2(sectors); a request of at most 4 sectors (a
	 * coalesced one) costs no more than DRAM's share. */
	if (o->store_sectors_per_request > 4) {
		double s = o->store_sectors_per_request, lo, hi, f;
		if (s <= 16) {
			lo = s <= 8 ? g->store_requests_per_ns_8 * 2 : g->store_requests_per_ns_8;
			hi = s <= 8 ? g->store_requests_per_ns_8 : g->store_requests_per_ns_16;
			f = s <= 8 ? log2(s / 4) : log2(s / 8);
		} else {
			lo = g->store_requests_per_ns_16;
			hi = g->store_requests_per_ns_32;
			f = s < 32 ? log2(s / 16) : 1;
		}
		double rate = lo * pow(hi / lo, f);
		double t = scale * l->store_requests / rate;
		if (t > o->t[BOUND_STORE_SECTORS])
			o->t[BOUND_STORE_SECTORS] = t;
	}
	o->t[BOUND_LOAD_LINES] = scale * l->load_lines / g->load_lines_per_ns;
	o->t[BOUND_SHARED] = scale * l->shared_wavefronts / (sms * g->shared_wavefronts_per_ns);
	o->t[BOUND_BLOCKS] = blocks / g->blocks_per_ns;

	/* Latency: each wave of resident blocks takes a block's path, which
	 * waits a round trip per run of loads, issues each load, and pays a
	 * fixed cost per barrier. A run that a barrier closes (a tile loaded,
	 * then __syncthreads) or that the block's end closes (a one-shot block:
	 * its slot frees when its last warp ends) waits for the block's slowest
	 * load, not a warp's own, and the slowest of a block's loads comes later
	 * the more warps ask at once: barrier_latency_ns plus
	 * slowest_load_ns_per_warp for each warp beyond the first (model_physics's
	 * tile.* sweep: one-shot blocks of one word a thread fall from 80% of
	 * copy at 8 warps to 69% at 32, with or without a barrier). A kernel has
	 * at most one such run per barrier and one at its end; runs beyond those
	 * (a loop of loads and stores, a grid-stride loop) each wait their own. */
	double runs_per_warp = l->load_runs / (sampled * warps);
	double loads_per_warp = l->load_requests / (sampled * warps);
	double intervals = l->intervals / sampled;
	double barriers = intervals > 1 ? intervals - 1 : 0;
	double closed = runs_per_warp < barriers + 1 ? runs_per_warp : barriers + 1;
	double slowest = g->barrier_latency_ns + (warps - 1) * g->slowest_load_ns_per_warp;
	double requests = l->load_requests + l->store_requests;
	double split = split_requests(l->load_lines, l->load_sectors, l->load_requests) +
		       split_requests(l->store_lines, l->store_sectors, l->store_requests);
	double split_share = requests > 0 ? split / requests : 0;
	double by_barrier = runs_per_warp < barriers ? runs_per_warp : barriers;
	double path = (runs_per_warp - closed) * g->latency_ns + closed * slowest +
		      split_share * (runs_per_warp * g->short_run_latency_ns + by_barrier * g->short_run_barrier_ns) +
		      loads_per_warp * g->issue_ns + barriers * (g->interval_ns + warps * g->interval_ns_per_warp);
	o->t[BOUND_LATENCY] = waves * path;
	o->t[BOUND_LAUNCH] = g->launch_us * 1000;

	enum model_bound top = BOUND_DRAM;
	for (int b = BOUND_DRAM; b <= BOUND_BLOCKS; b++)
		if (o->t[b] > o->t[top])
			top = (enum model_bound)b;
	double busy = join(o->t[top], o->t[BOUND_LATENCY], g->overlap);
	o->time_ns = busy + o->t[BOUND_LAUNCH];
	if (o->t[BOUND_LATENCY] > o->t[top])
		top = BOUND_LATENCY;
	if (o->t[BOUND_LAUNCH] > busy)
		top = BOUND_LAUNCH;
	o->bound = top;
}

int model_predict(const struct gpu_model *g, const struct model_launch *l, int n, double min_bytes,
		  struct model_prediction *out)
{
	memset(out, 0, sizeof *out);
	out->min_bytes = min_bytes;
	out->launches = n;
	if (n <= 0 || min_bytes <= 0)
		return -1;
	double worst = -1;
	for (int i = 0; i < n; i++) {
		struct model_terms t;
		model_launch_cost(g, &l[i], &t);
		out->time_ns += t.time_ns;
		out->dram_bytes += t.dram_bytes;
		out->bound_ns[t.bound] += t.time_ns;
		if (t.time_ns > worst) {
			worst = t.time_ns;
			out->worst = i;
			out->worst_terms = t;
		}
	}
	out->bound = BOUND_DRAM;
	for (int b = 0; b < BOUND_COUNT; b++)
		if (out->bound_ns[b] > out->bound_ns[out->bound])
			out->bound = (enum model_bound)b;
	out->copy_ns = min_bytes / g->copy_gbps;
	out->percent_of_copy = 100 * out->copy_ns / out->time_ns;
	return 0;
}

const char *model_bound_name(enum model_bound b)
{
	static const char *const names[BOUND_COUNT] = { "dram", "store_sectors", "load_lines", "shared",
							"blocks", "latency", "launch" };
	return (unsigned)b < BOUND_COUNT ? names[b] : "?";
}

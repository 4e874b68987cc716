/*
 * Cooperative groups for the CPU emulator: the thread block, its tiles
 * (tiled_partition<N> and tiled_partition(g, n)), coalesced groups and
 * cg::sync, on top of the emulator's __syncthreads and warp intrinsics.
 *
 * Threads of a block form warps by their linear rank, as on the GPU; a tile
 * of N threads (N a power of two up to 32) is a slice of one warp, and its
 * collectives are the warp intrinsics with the tile's lanes as mask and N as
 * width. A grid group has no sync(): a grid-wide barrier needs a cooperative
 * launch, and the emulator runs one block at a time.
 *
 * Collectives called through these classes are counted at the header's
 * lines in the emulator's per-line figures.
 */
#pragma once

#include "cuemu_device.h"

namespace cooperative_groups {

#define CUEMU_CG inline __attribute__((always_inline))

namespace details {
CUEMU_CG unsigned block_rank()
{
	return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
CUEMU_CG unsigned block_threads()
{
	return blockDim.x * blockDim.y * blockDim.z;
}
/* The lanes of this thread's warp that exist (the last warp may be partial). */
CUEMU_CG unsigned warp_lanes()
{
	unsigned base = block_rank() & ~31u, n = block_threads() - base;
	return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}
/* The mask of the size-n slice of the warp holding this thread. */
CUEMU_CG unsigned tile_mask(unsigned n)
{
	unsigned lane = block_rank() & 31u;
	unsigned m = n >= 32 ? 0xffffffffu : ((1u << n) - 1) << (lane & ~(n - 1));
	return m & warp_lanes();
}
}

/* A group known at run time: the block, or a tile of it, or of a tile of it.
 * A tile's meta_group_rank() counts tiles within its parent: across the
 * block for a tile of the block, within the warp for a tile of a 32-tile. */
class thread_group {
protected:
	unsigned tile_;		/* 0: the whole block */
	unsigned parent_;	/* the tile's parent: 0 the block, else a tile of that size */
	CUEMU_CG unsigned rank_in_parent() const
	{
		return parent_ ? details::block_rank() % parent_ : details::block_rank();
	}
	CUEMU_CG unsigned parent_size() const { return parent_ ? parent_ : details::block_threads(); }
public:
	explicit CUEMU_CG thread_group(unsigned tile, unsigned parent = 0) : tile_(tile), parent_(parent) {}
	CUEMU_CG unsigned cuemu_tile_() const { return tile_; }	/* for tiled_partition */
	CUEMU_CG unsigned size() const { return tile_ ? tile_ : details::block_threads(); }
	CUEMU_CG unsigned long long num_threads() const { return size(); }
	CUEMU_CG unsigned thread_rank() const
	{
		return tile_ ? details::block_rank() % tile_ : details::block_rank();
	}
	CUEMU_CG void sync() const
	{
		if (tile_)
			__syncwarp(details::tile_mask(tile_));
		else
			__syncthreads();
	}
	CUEMU_CG unsigned meta_group_rank() const { return tile_ ? rank_in_parent() / tile_ : 0; }
	CUEMU_CG unsigned meta_group_size() const
	{
		return tile_ ? (parent_size() + tile_ - 1) / tile_ : 1;
	}
};

class thread_block : public thread_group {
public:
	CUEMU_CG thread_block() : thread_group(0, 0) {}
	CUEMU_CG void sync() const { __syncthreads(); }
	CUEMU_CG unsigned size() const { return details::block_threads(); }
	CUEMU_CG unsigned long long num_threads() const { return size(); }
	CUEMU_CG unsigned thread_rank() const { return details::block_rank(); }
	CUEMU_CG dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
	CUEMU_CG dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
	CUEMU_CG dim3 group_dim() const { return blockDim; }
	CUEMU_CG dim3 dim_threads() const { return blockDim; }
};

CUEMU_CG thread_block this_thread_block() { return thread_block(); }

/* N threads of one warp: the warp's collectives restricted to them. */
template <unsigned N> class thread_block_tile : public thread_group {
	static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
		      "a tile has a power-of-two size up to 32 threads");
	CUEMU_CG unsigned mask() const { return details::tile_mask(N); }
	CUEMU_CG unsigned first_lane() const { return details::block_rank() & 31u & ~(N - 1); }
public:
	explicit CUEMU_CG thread_block_tile(unsigned parent = 0) : thread_group(N, parent) {}
	CUEMU_CG void sync() const { __syncwarp(mask()); }
	CUEMU_CG unsigned size() const { return N; }
	CUEMU_CG unsigned long long num_threads() const { return N; }
	CUEMU_CG unsigned thread_rank() const { return details::block_rank() % N; }
	CUEMU_CG unsigned meta_group_rank() const { return rank_in_parent() / N; }
	CUEMU_CG unsigned meta_group_size() const { return (parent_size() + N - 1) / N; }
	template <class T> CUEMU_CG T shfl(T v, int src) const { return __shfl_sync(mask(), v, src, N); }
	template <class T> CUEMU_CG T shfl_up(T v, unsigned d) const { return __shfl_up_sync(mask(), v, d, N); }
	template <class T> CUEMU_CG T shfl_down(T v, unsigned d) const
	{
		return __shfl_down_sync(mask(), v, d, N);
	}
	template <class T> CUEMU_CG T shfl_xor(T v, int m) const { return __shfl_xor_sync(mask(), v, m, N); }
	/* Bit k: the tile's thread of rank k. */
	CUEMU_CG unsigned ballot(int p) const { return __ballot_sync(mask(), p) >> first_lane(); }
	CUEMU_CG int any(int p) const { return __any_sync(mask(), p); }
	CUEMU_CG int all(int p) const { return __all_sync(mask(), p); }
	template <class T> CUEMU_CG unsigned match_any(T v) const
	{
		return __match_any_sync(mask(), v) >> first_lane();
	}
};

/* A tile of the block, or of a tile (then ranked within that tile). */
template <unsigned N> CUEMU_CG thread_block_tile<N> tiled_partition(const thread_group &parent)
{
	return thread_block_tile<N>(parent.cuemu_tile_());
}

/* tiled_partition(g, n): a tile whose size is known at run time. */
CUEMU_CG thread_group tiled_partition(const thread_group &parent, unsigned n)
{
	return thread_group(n, parent.cuemu_tile_());
}

/* The threads of the warp that are here together. */
class coalesced_group {
	unsigned mask_;
	CUEMU_CG unsigned lane() const { return details::block_rank() & 31u; }
	CUEMU_CG int lane_of_rank(unsigned r) const
	{
		unsigned m = mask_;
		for (unsigned i = 0; i < r && m; i++)
			m &= m - 1;
		return m ? __builtin_ctz(m) : 0;
	}
public:
	explicit CUEMU_CG coalesced_group(unsigned mask) : mask_(mask) {}
	CUEMU_CG unsigned size() const { return (unsigned)__builtin_popcount(mask_); }
	CUEMU_CG unsigned long long num_threads() const { return size(); }
	CUEMU_CG unsigned thread_rank() const
	{
		return (unsigned)__builtin_popcount(mask_ & ((1u << lane()) - 1));
	}
	CUEMU_CG void sync() const { __syncwarp(mask_); }
	template <class T> CUEMU_CG T shfl(T v, unsigned rank) const
	{
		return __shfl_sync(mask_, v, lane_of_rank(rank));
	}
	CUEMU_CG unsigned ballot(int p) const
	{
		unsigned bits = __ballot_sync(mask_, p), out = 0, k = 0;
		for (unsigned m = mask_; m; m &= m - 1, k++)
			if (bits >> __builtin_ctz(m) & 1)
				out |= 1u << k;
		return out;
	}
	CUEMU_CG int any(int p) const { return __any_sync(mask_, p); }
	CUEMU_CG int all(int p) const { return __all_sync(mask_, p); }
	CUEMU_CG unsigned meta_group_rank() const { return 0; }
	CUEMU_CG unsigned meta_group_size() const { return 1; }
};

CUEMU_CG coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

/* The grid: ranks and sizes; no sync() (see above). */
class grid_group {
public:
	CUEMU_CG unsigned long long size() const
	{
		return (unsigned long long)details::block_threads() * gridDim.x * gridDim.y * gridDim.z;
	}
	CUEMU_CG unsigned long long num_threads() const { return size(); }
	CUEMU_CG unsigned long long thread_rank() const
	{
		unsigned long long b = blockIdx.x + (unsigned long long)gridDim.x *
							  (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
		return b * details::block_threads() + details::block_rank();
	}
	CUEMU_CG bool is_valid() const { return false; }
	template <class T = void> void sync() const
	{
		static_assert(sizeof(T *) == 0, "grid.sync() needs a cooperative launch, which the CPU "
						"emulator cannot run: end the kernel and launch another");
	}
};

CUEMU_CG grid_group this_grid() { return grid_group(); }

template <class Group> CUEMU_CG void sync(const Group &g) { g.sync(); }

}	/* namespace cooperative_groups */

#undef CUEMU_CG

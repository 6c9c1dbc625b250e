// The tile plan shared by the flash kernel (native and wasm) and the WGSL shader.
//
// A WebGPU workgroup handles `query_rows` (Br) queries, one invocation per query row, and
// walks the keys `key_rows` (Bc) at a time. It stages each K tile and V tile in workgroup
// storage: 2 · Bc · d floats of 4 bytes. WebGPU's default limits bound a plan:
//   2 · Bc · d · 4  ≤ 16,384 bytes   (maxComputeWorkgroupStorageSize)  ⇒  Bc · d ≤ 2048
//   Br              ≤ 256            (maxComputeInvocationsPerWorkgroup, and ≤ 256 in x)
// so d = 64 gets Bc = 32, d = 128 gets Bc = 16. Each invocation keeps its query row, its
// running max m, sum l and output accumulator in private memory, not in workgroup storage.
//
// The CPU kernel steps through several WebGPU key tiles at once (a macro tile of
// `cpu_key_tiles` · Bc keys) for fewer softmax rescales and better reuse of its caches;
// online softmax merges blocks associatively, so the results agree up to rounding.
#pragma once

#include <cstddef>
#include <optional>

#include "attnlab/limits.hpp"

namespace attnlab::tiling {

// WebGPU's default limits (https://www.w3.org/TR/webgpu/#limits).
inline constexpr std::size_t max_workgroup_storage_bytes = 16384;
inline constexpr std::size_t max_invocations_per_workgroup = 256;
inline constexpr std::size_t max_workgroup_size_x = 256;

inline constexpr std::size_t max_head_width =
    limits::max_head_width;  // d; Bc ≥ 2 keeps tiles useful

struct TilePlan {
  std::size_t query_rows;     // Br: queries per workgroup (one invocation each)
  std::size_t key_rows;       // Bc: keys per K/V tile
  std::size_t head_width;     // d: columns of Q, K and V per head
  std::size_t cpu_key_tiles;  // WebGPU key tiles per CPU macro tile

  // Workgroup storage the shader needs: one K tile and one V tile of f32.
  std::size_t workgroup_storage_bytes() const { return 2 * key_rows * head_width * sizeof(float); }
  std::size_t workgroup_invocations() const { return query_rows; }
  std::size_t cpu_key_rows() const { return key_rows * cpu_key_tiles; }
};

// Within WebGPU's default limits, with non-zero tiles.
bool is_valid(const TilePlan& plan);

// The plan for head width d (1 ≤ d ≤ max_head_width); nullopt beyond it.
std::optional<TilePlan> plan_for(std::size_t head_width);

}  // namespace attnlab::tiling

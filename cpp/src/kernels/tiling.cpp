#include "attnlab/tiling.hpp"

namespace attnlab::tiling {
namespace {

constexpr std::size_t query_rows = 64;    // a common workgroup size; 64 rows per CPU block
constexpr std::size_t max_key_rows = 64;  // beyond this a tile brings no more reuse
// A CPU key block of 64: its scores and its V tile (d = 64) stay in L1; measured fastest.
// (flash.cpp's cpu_plan() takes a whole number of its micro-kernel groups from there.)
constexpr std::size_t cpu_macro_keys = 64;

}  // namespace

bool is_valid(const TilePlan& plan) {
  return plan.query_rows > 0 && plan.key_rows > 0 && plan.head_width > 0 &&
         plan.cpu_key_tiles > 0 && plan.workgroup_storage_bytes() <= max_workgroup_storage_bytes &&
         plan.workgroup_invocations() <= max_invocations_per_workgroup &&
         plan.query_rows <= max_workgroup_size_x;
}

std::optional<TilePlan> plan_for(std::size_t head_width) {
  if (head_width == 0 || head_width > max_head_width) return std::nullopt;
  // The largest power of two Bc with both tiles inside the storage limit.
  std::size_t key_rows = max_key_rows;
  while (key_rows > 1 && 2 * key_rows * head_width * sizeof(float) > max_workgroup_storage_bytes)
    key_rows /= 2;
  const std::size_t tiles = key_rows >= cpu_macro_keys ? 1 : cpu_macro_keys / key_rows;
  return TilePlan{query_rows, key_rows, head_width, tiles};
}

}  // namespace attnlab::tiling

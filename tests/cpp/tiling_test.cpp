#include "attnlab/tiling.hpp"

#include <catch2/catch.hpp>

using namespace attnlab;

TEST_CASE("every plan the code can choose fits WebGPU's default limits", "[tiling]") {
  for (std::size_t d = 1; d <= tiling::max_head_width; ++d) {
    const auto plan = tiling::plan_for(d);
    REQUIRE(plan.has_value());
    INFO("d = " << d << ": Br " << plan->query_rows << ", Bc " << plan->key_rows);
    CHECK(tiling::is_valid(*plan));
    CHECK(plan->head_width == d);
    CHECK(plan->workgroup_storage_bytes() <= 16384);
    CHECK(plan->workgroup_invocations() <= 256);
    CHECK(plan->cpu_key_rows() % plan->key_rows == 0);  // a CPU macro tile is whole WebGPU tiles
  }
}

TEST_CASE("plans use the largest key tile the storage limit allows", "[tiling]") {
  // 2 tiles (K and V) · Bc · d · 4 bytes ≤ 16,384 bytes, Bc a power of two up to 64.
  CHECK(tiling::plan_for(32)->key_rows == 64);
  CHECK(tiling::plan_for(64)->key_rows == 32);
  CHECK(tiling::plan_for(128)->key_rows == 16);
  CHECK(tiling::plan_for(100)->key_rows == 16);
  CHECK(tiling::plan_for(64)->workgroup_storage_bytes() == 16384);
}

TEST_CASE("head widths outside 1 … max_head_width have no plan", "[tiling]") {
  CHECK_FALSE(tiling::plan_for(0).has_value());
  CHECK_FALSE(tiling::plan_for(tiling::max_head_width + 1).has_value());
}

TEST_CASE("is_valid rejects plans beyond the limits", "[tiling]") {
  const tiling::TilePlan ok = *tiling::plan_for(64);
  tiling::TilePlan too_much_storage = ok;
  too_much_storage.key_rows = 64;  // 2 · 64 · 64 · 4 = 32 KiB
  tiling::TilePlan too_many_invocations = ok;
  too_many_invocations.query_rows = 512;
  tiling::TilePlan empty = ok;
  empty.key_rows = 0;
  CHECK(tiling::is_valid(ok));
  CHECK_FALSE(tiling::is_valid(too_much_storage));
  CHECK_FALSE(tiling::is_valid(too_many_invocations));
  CHECK_FALSE(tiling::is_valid(empty));
}

// The flash kernel: a call split into head tasks and query blocks over the thread pool, with
// its K/V gather and buffers (the micro-kernels are in flash_block.hpp), and its tile plan.
#include "attnlab/flash.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string_view>
#include <thread>
#include <tuple>

#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/tiling.hpp"
#include "attnlab/variants.hpp"
#include "base/caches.hpp"
#include "base/parallel.hpp"
#include "base/validate.hpp"
#include "kernels/attention_checks.hpp"
#include "kernels/head_tasks.hpp"
#include "kernels/simd_kernels.hpp"
#include "kernels/workspace.hpp"

namespace attnlab {

void simd::apply_score_rules(const HeadTask& p, float* s, std::size_t keys, std::size_t rows,
                             std::size_t key_stride, std::size_t row_stride, std::size_t first,
                             std::size_t j0) {
  const HeadRules& rules = *p.rules;
  for (std::size_t j = 0; j < keys; ++j)
    for (std::size_t r = 0; r < rows; ++r) {
      float& x = s[j * key_stride + r * row_stride];
      x = rules.logit(first + r, j0 + j, x * p.scale);
    }
}

namespace {

using simd::HeadTask;
using simd::minus_infinity;
using simd::round_up;
using simd::Workspace;

// Floats of one worker's simd::BlockBuffers, and the buffers carved from `w`.
std::size_t block_floats(const simd::SpanPlan& plan, std::size_t d_v, const simd::Kernels& k) {
  const std::size_t padded = round_up(plan.tile.query_rows, k.row_group);
  return plan.blocks *
             (Workspace::rounded(plan.tile.head_width * padded) +
              Workspace::rounded(k.value_width(d_v) * padded) + 2 * Workspace::rounded(padded)) +
         Workspace::rounded(round_up(plan.tile.cpu_key_rows(), k.key_group) * padded) +
         2 * Workspace::rounded(padded);
}

simd::BlockBuffers block_buffers(Workspace& w, const simd::SpanPlan& plan, std::size_t d_v,
                                 const simd::Kernels& k) {
  const std::size_t padded = round_up(plan.tile.query_rows, k.row_group);
  simd::BlockBuffers b;
  b.qt = w.take(plan.blocks * plan.tile.head_width * padded);
  b.ot = w.take(plan.blocks * k.value_width(d_v) * padded);
  b.m = w.take(plan.blocks * padded);
  b.l = w.take(plan.blocks * padded);
  b.st = w.take(round_up(plan.tile.cpu_key_rows(), k.key_group) * padded);
  b.block_max = w.take(padded);
  b.correction = w.take(padded);
  return b;
}

// K and V of a head task, copied into the layout the micro-kernels read (flash_block.hpp):
// rows next to each other (rows a whole row of all heads apart would spread every key block
// over many more pages and TLB entries), K with key_group - 1 copies of its last row after it
// so a pass over a whole group of keys needs no bounds, and V in panels, one per value pass
// (FlashBlock::pack_values), zero columns padding it to whole passes. gather() copies into the
// floats gathered_floats() counts and repoints the task.
std::size_t gathered_floats(const HeadTask& p, const simd::Kernels& k) {
  return Workspace::rounded((p.n_k + k.key_group - 1) * p.d + k.packed_floats(p.n_k, p.d_v));
}

// What gather() saw: K's largest |value| (for bound_task) and whether K and V are finite (the
// maximum means nothing where not). It scans a head while copying it, where a scan of the whole
// call had read K from memory a second time (Zen 4, AVX-512, 1 thread, n = 256, d = 128, 8 heads:
// 0.97-0.98x the time).
struct Gathered {
  float k_max = 0.0f;
  bool finite = true;
};

Gathered gather(HeadTask& p, const simd::Kernels& kernels, float* into) {
  float* k = into;
  const float k_max = kernels.max_abs(p.k, p.n_k, p.d, p.ld_k, k, p.d);
  const std::size_t k_rows = p.n_k + kernels.key_group - 1;
  for (std::size_t j = p.n_k; j < k_rows; ++j) std::copy_n(k + (p.n_k - 1) * p.d, p.d, k + j * p.d);
  float* v = k + k_rows * p.d;
  const float v_max = kernels.pack_values(p.v, p.n_k, p.d_v, p.ld_v, v);
  p.k = k;
  p.ld_k = p.d;
  p.v = v;
  p.ld_v = 0;  // panels (FlashBlock::pack_values), no rows
  return {k_max, !std::isnan(k_max) && !std::isnan(v_max)};
}

// Q's largest |value| over a task's rows, NaN where one is not finite (Spans::max_abs). The
// flash kernel scans a head's Q as it gathers its K/V head, so that a worker's first query block
// of the head reads its rows from the L2 (Zen 4, AVX-512, 1 thread, n = 256, d = 128: that
// block's transpose 0.91-0.96x the time, the call 0.99-1.00x, of a scan of all of Q first).
float q_max(const HeadTask& p, const simd::Kernels& kernels) {
  return kernels.max_abs(p.q, p.n_q, p.d, p.ld_q, nullptr, 0);
}

using flash_tasks::group_size;
using flash_tasks::head_tasks;
using flash_tasks::output_cols;

// Bounds a task's scores, to set its flags (see HeadTask): no partial sum of q · k exceeds
// d · max|q| · max|k| (no squares, so nothing underflows or overflows on the way), with the
// maxima of the task's sequence and heads. When that bound, times the scale if above 1, is under
// half of float32's largest value, no score overflows and the kernel skips its per-score check
// (a pass over every block of scores); when the bound times the scale is under 2^20 and the
// scale times log2(e) a normal float (no overflow, no subnormal's lost bits), the softmax may run
// in base 2 and scale the scores without rounding them (flash_block.hpp).
void bound_task(HeadTask& p, float q_max, float k_max) {
  const double bound = static_cast<double>(p.d) * double{q_max} * double{k_max};
  p.may_overflow = !(bound * std::max(1.0f, p.scale) < 0.5 * std::numeric_limits<float>::max());
  p.fused_scale = bound * p.scale < 0x1p20 && std::isnormal(p.scale * std::numbers::log2e_v<float>);
}

// Whether a head's K and V come from memory rather than a cache in every span: from a quarter
// of the cache a core shares (base/caches.hpp: 8 MiB of the measured EPYC's 32 MiB L3), which
// two workers and the machine's other tenants share. Then the first query block of a span reads
// each key block in order before the micro-kernels use it (flash_span.hpp's bring_in: 0.90x
// the time at 1 thread, 0.94x at 2, n = 16,384, d = 128, measured with 256-row query blocks). At
// 8 MiB (n = 16,384, d = 64) the L3 held K and V on a quiet machine (there the reads cost
// 1.06-1.14x) but not on a busy one (0.76x at 1 thread, AVX2 0.68x); at 4 MiB they cost 1.04x.
bool streamed(const HeadTask& task) {
  return task.n_k * (task.d + task.d_v) * sizeof(float) >= shared_cache_bytes() / 4;
}

// The plan of a call on the CPU. Its tile: tiling's query blocks, halved (down to one row
// group) until every worker has several items, so that a small call keeps all threads busy to
// the end, and a key block of whole micro-kernel groups: the scores pass computes whole groups,
// so tiling's 64 keys cost AVX-512's groups of 12 the work of 72. The smallest whole number of
// tiles from 64 to 128 keys that is whole groups (96 for groups of 12 or 6; at n = 4,096,
// d = 64, AVX-512, 2 threads: 0.95x the time of 64 keys), else tiling's.
//
// Its spans: where a head's K and V fill more than half the L2 of a core (base/caches.hpp),
// as many query blocks as keep their state (Qᵀ, Oᵀ) in the other half, up to 16, walking
// stretches of up to 4 key blocks whose K and V fit a quarter of the L2 (at d = 64 four blocks
// are 192 KiB); fewer where the workers would lack items. Zen 3's 512 KiB L2 takes one block
// at d = 128 (96 keys, 96 KiB): 0.98x the time of four (AVX2, n = 1,024 and 4,096, 1 and 2
// threads). One query block at a time read the whole of K and V from the L3
// (or memory) once per 64 rows: n = 4,096, d = 64, 0.98x the time at 1 and 2 threads; d = 128
// no change; n = 16,384, d = 64, 2 threads, against the 256-row blocks streamed K and V had,
// 0.98x.
//
// Its query blocks: halved while a block's Qᵀ is over qt_bytes and two row groups remain, as
// the scores pass reads the whole of Qᵀ for each group of keys, and the block's scores should
// still be in the L1 when the softmax and the value pass read them: AVX2 takes blocks of 32 rows
// (at d = 64, 64 rows left 24 KiB of scores beside 16 KiB of Qᵀ and the key block, and took
// 1.01-1.04x the time of 32 on Zen 3), wasm and SSE 32 at d = 64 and 16 at d = 128 (wasm
// 0.96-1.01x the time of 64 and 32). AVX-512's row groups of 32 keep 64 rows (its wide passes
// take 64; 32 were slower).
constexpr std::size_t qt_bytes = std::size_t{8} << 10;  // a quarter of a 32 KiB L1 data cache

simd::SpanPlan cpu_plan(const HeadTask& task, std::size_t tasks, std::size_t threads,
                        const simd::Kernels& k) {
  simd::SpanPlan plan{*tiling::plan_for(task.d), 1, 4};
  tiling::TilePlan& tile = plan.tile;
  for (std::size_t tiles = tile.cpu_key_tiles; tiles * tile.key_rows <= 128; ++tiles)
    if (tiles * tile.key_rows % k.key_group == 0) {
      tile.cpu_key_tiles = tiles;
      break;
    }
  while (tile.query_rows * task.d * sizeof(float) > qt_bytes &&
         tile.query_rows / 2 >= 2 * k.row_group)
    tile.query_rows /= 2;
  const std::size_t half_l2 = core_cache_bytes() / 2;
  const std::size_t block_bytes =
      (task.d + k.value_width(task.d_v)) * round_up(tile.query_rows, k.row_group) * sizeof(float);
  if (task.n_k * (task.d + task.d_v) * sizeof(float) > half_l2)
    plan.blocks = std::clamp(half_l2 / block_bytes, std::size_t{1}, simd::max_span_blocks);
  const std::size_t key_block_bytes =
      tile.cpu_key_rows() * (task.d + k.value_width(task.d_v)) * sizeof(float);
  plan.stretch_blocks = std::clamp(half_l2 / 2 / key_block_bytes, std::size_t{1}, std::size_t{4});
  const auto items = [&] {
    const std::size_t rows = plan.blocks * tile.query_rows;
    return tasks * ((task.n_q + rows - 1) / rows);
  };
  // Spans are halved first, and sooner: they are large items, and a worker slowed by the
  // machine's other tenants would leave the other waiting at the end.
  while (threads > 1 && plan.blocks > 1 && items() < 16 * threads) plan.blocks /= 2;
  while (threads > 1 && tile.query_rows / 2 >= k.row_group &&
         tile.query_rows % (2 * k.row_group) == 0 && items() < 4 * threads)
    tile.query_rows /= 2;
  return plan;
}

// A call's items, task · spans + i for span spans - 1 - i, come in runs of whole K/V heads, one
// run per worker (at most one per K/V head), for parallel_for_runs: each worker gathers its own
// heads and keeps them in its core's caches, and workers starting together start on different
// heads (in one queue in head order, the second worker waited at every head for the first's
// gather: 2 threads, 8 heads, AMD EPYC, n = 256, d = 64 0.89x the time, causal 0.87x). Within a
// head, causal-heavy spans (the last query rows) go first. Returns the runs' bounds.
std::vector<std::size_t> item_runs(std::size_t kv_heads, std::size_t items_per_kv,
                                   std::size_t workers) {
  const std::size_t runs = std::min(workers, kv_heads);
  std::vector<std::size_t> bounds;
  for (std::size_t r = 0; r <= runs; ++r) bounds.push_back(r * kv_heads / runs * items_per_kv);
  return bounds;
}

// The buffer each K/V head's K and V are gathered into, and the head it waits for there: each
// run's heads take its `per_run` buffers in turn, each once the items of the head before it in
// that buffer (`after`; kv_heads for none) have finished. A buffer written again soon, by the
// same core, is still in its caches, where one buffer per head sent each gather's writes to
// memory. No wait is circular: a head waits only for an earlier head of its own run, whose items
// were all taken before its own first one; two buffers a run leave a worker a head's lead before
// one waits on a worker that helps its run.
struct BufferTurn {
  std::size_t slot, after;
};
struct BufferTurns {
  std::vector<BufferTurn> turns;  // one a K/V head
  std::size_t slots = 0;
};

BufferTurns buffer_turns(const std::vector<std::size_t>& runs, std::size_t items_per_kv,
                         std::size_t per_run) {
  const std::size_t kv_heads = runs.back() / items_per_kv;
  BufferTurns plan;
  for (std::size_t r = 0; r + 1 < runs.size(); ++r) {
    const std::size_t first = runs[r] / items_per_kv, last = runs[r + 1] / items_per_kv;
    for (std::size_t kv = first; kv < last; ++kv)
      plan.turns.push_back(
          {plan.slots + (kv - first) % per_run, kv - first >= per_run ? kv - per_run : kv_heads});
    plan.slots += std::min(per_run, last - first);
  }
  return plan;
}

}  // namespace

std::optional<Error> check_flash_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                           const LongAttentionOptions& o) {
  return flash_tasks::check(q, k, v, o, "V");
}

Result<FlashPlan> flash_plan(const Matrix& q, const Matrix& k, const Matrix& v,
                             const LongAttentionOptions& options) {
  if (auto e = check_flash_attention(q, k, v, options)) return *e;
  std::vector<HeadTask> list = head_tasks(q, k, v, options, nullptr);
  FlashPlan plan{list.front().d,
                 list.front().d_v,
                 options.scale_for(list.front().d),
                 {},
                 false,
                 {},
                 0,
                 {},
                 false,
                 {}};
  const auto heads = static_cast<std::size_t>(options.heads);
  for (std::size_t h = 0; h < heads; ++h) plan.factors.push_back(list[h].scale);
  const simd::Kernels& kernels = simd::active();
  for (HeadTask& task : list)  // the check found every value finite
    bound_task(task, q_max(task, kernels),
               kernels.max_abs(task.k, task.n_k, task.d, task.ld_k, nullptr, 0));
  for (const HeadTask& task : list) plan.may_overflow = plan.may_overflow || task.may_overflow;
  const HeadTask& first = list.front();
  for (std::size_t i = 0; i < first.n_q; ++i) {
    const KeyRange seen = first.band.range(i);  // n_k ≤ limits::flash_tokens: a u32
    plan.key_bands.insert(plan.key_bands.end(), {static_cast<std::uint32_t>(seen.begin),
                                                 static_cast<std::uint32_t>(seen.end)});
  }
  plan.position_offset = static_cast<int>(first.band.position(0));  // |n_k − n_q| < 2^31
  if (options.alibi)
    for (std::size_t h = 0; h < heads; ++h) plan.slopes.push_back(list[h].rules->slope);
  plan.bias_per_head = options.bias && options.bias->rows != first.n_q;
  plan.fully_masked_rows = flash_tasks::fully_masked(list, heads, q.rows, nullptr);
  plan.kv_group = group_size(options);
  return plan;
}

Result<LongAttentionResult> flash_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                            const LongAttentionOptions& options) {
  const std::size_t threads = resolve_threads(options.threads);
  if (threads > 1) wake_workers();  // while the checks run
  if (auto e = flash_tasks::check(q, k, v, options, "V", false)) return *e;
  // The workers scan each K/V head as they gather it, and its query heads' Q with it; where a
  // value is not finite, the items left do no work, and the check's own scan names it.
  if (auto e = flash_tasks::check_work("the flash kernel", q, k, v, options, limits::flash_scores,
                                       limits::flash_multiply_adds))
    return *e;
  LongAttentionResult result{Matrix(q.rows, output_cols(v, options)), {}};
  std::vector<HeadTask> list = head_tasks(q, k, v, options, &result.output);
  const simd::Kernels& kernels = simd::active();
  const simd::SpanPlan plan = cpu_plan(list.front(), list.size(), threads, kernels);
  const std::size_t span_rows = plan.blocks * plan.tile.query_rows;
  const std::size_t spans = (list.front().n_q + span_rows - 1) / span_rows;
  const auto heads = static_cast<std::size_t>(options.heads);
  std::vector<std::uint8_t> no_weight(heads * q.rows, 0);  // (heads, rows): each head its own

  const std::size_t workers = workers_for(list.size() * spans, threads);
  // The query heads of one K/V head are consecutive tasks: their K and V are gathered once, into
  // one of `slots` buffers (buffer_turns), two a run where several workers share the heads.
  const std::size_t group = group_size(options), shared = list.size() / group;
  const std::size_t items_per_kv = group * spans;
  const std::vector<std::size_t> runs = item_runs(shared, items_per_kv, workers);
  // One thread takes the heads in turn, each done before the next: one buffer, no turns.
  const BufferTurns turns =
      one_thread ? BufferTurns{{}, 1} : buffer_turns(runs, items_per_kv, workers == 1 ? 1 : 2);
  const std::size_t slots = turns.slots;
  const std::size_t per_kv = gathered_floats(list.front(), kernels);
  Workspace workspace(workers * block_floats(plan, list.front().d_v, kernels) + slots * per_kv);
  std::vector<float*> gathered;
  for (std::size_t s = 0; s < slots; ++s) gathered.push_back(workspace.take(per_kv));
  std::vector<simd::BlockBuffers> buffers;
  for (std::size_t w = 0; w < workers; ++w)
    buffers.push_back(block_buffers(workspace, plan, list.front().d_v, kernels));
  // One dispatch per call: the first item of a K/V head gathers it, once the head before it in
  // its buffer is done; an item that finds its head under way waits for it (another worker's
  // first item, briefly). Each K/V head's progress: 0 not yet, 1 under way, then 2, plus its
  // items done where heads take turns.
  std::vector<std::atomic<std::size_t>> progress(shared);
  std::atomic<bool> finite{true};  // Q, K and V so far: once not, items do no work
  const auto prepare = [&](std::size_t item) {
    std::size_t idle = 0;
    if (!progress[item].compare_exchange_strong(idle, 1, std::memory_order_acquire)) {
      while (progress[item].load(std::memory_order_acquire) < 2) std::this_thread::yield();
      return;
    }
    std::size_t slot = 0;
    if constexpr (!one_thread) {
      const BufferTurn turn = turns.turns[item];
      while (turn.after < shared &&
             progress[turn.after].load(std::memory_order_acquire) < 2 + items_per_kv)
        std::this_thread::yield();
      slot = turn.slot;
    }
    HeadTask source = list[item * group];
    const Gathered seen = gather(source, kernels, gathered[slot]);
    if (!seen.finite) finite.store(false, std::memory_order_relaxed);
    for (std::size_t t = item * group; t < (item + 1) * group; ++t) {
      list[t].streamed = streamed(list[t]);
      const float most = q_max(list[t], kernels);
      if (std::isnan(most)) finite.store(false, std::memory_order_relaxed);
      bound_task(list[t], most, seen.k_max);
      std::tie(list[t].k, list[t].ld_k, list[t].v, list[t].ld_v) =
          std::tuple(source.k, source.ld_k, source.v, source.ld_v);
    }
    progress[item].store(2, std::memory_order_release);
  };
  parallel_for_runs(runs, threads, [&](std::size_t item, std::size_t worker) {
    const std::size_t span = spans - 1 - item % spans;
    const std::size_t task = item / spans;
    prepare(task / group);
    if (finite.load(std::memory_order_relaxed))
      kernels.query_span(list[task], plan, span * span_rows, buffers[worker],
                         no_weight.data() + task % heads * q.rows);
    if constexpr (!one_thread) progress[task / group].fetch_add(1, std::memory_order_release);
  });
  if (!finite.load())
    if (auto e = validate::finite_qkv(q, k, v)) return *e;
  if (auto e = flash_tasks::overflow("the flash kernel", q, k, v, result.output, no_weight, list,
                                     result.fully_masked_rows, true))
    return *e;
  return result;
}

}  // namespace attnlab

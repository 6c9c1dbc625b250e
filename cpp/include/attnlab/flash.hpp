// The flash kernel: tiled, FlashAttention-style forward attention for long sequences: it walks the
// keys a tile at a time with an online softmax and never forms the (n_q, n_k) score matrix, so
// memory stays O(n·d). The tile shapes come from tiling.hpp (shared with the WGSL shader).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/key_band.hpp"
#include "attnlab/matrix.hpp"
#include "attnlab/score_rules.hpp"

namespace attnlab {

// The long-sequence kernels' options: the score rules (score_rules.hpp), the same for every
// sequence, applied by the kernels to each tile of scores in one pass (the kernel skips every
// tile of keys that no query of a block sees), and how the call runs. They take every rule but
// the mask, global tokens and a past cache (refused: attention() and the trace take them); a
// bias is (n_q, n_k) for every head, or one per head stacked: heads·n_q rows.
struct LongAttentionOptions : ScoreRules {
  int heads = 1;  // columns of Q split into equal slices, one per query head
  // K/V heads (grouped-query attention): 0 = heads; else a divisor of heads, and K, V have
  // kv_heads slices, query head h reading K/V head h / (heads / kv_heads).
  int kv_heads = 0;
  std::size_t batch = 1;    // rows of Q (and of K, V) split into equal sequences
  std::size_t threads = 0;  // worker threads; 0 = kernels::max_threads() (wasm caps it)
};

struct LongAttentionResult {
  Matrix output;  // (batch·n_q, heads·d_v)
  // The rows of Q whose query sees no key in any head under the causal rule and the window (a
  // bottom-right query before the first key, or a window past the last), or whose every key is
  // padding or blocked by the bias: their output is zeros. (A head that sees no key where others
  // do gives zeros in its columns.) Any other row left with no weight is an overflow error.
  std::vector<std::size_t> fully_masked_rows;
};

// The names before the long kernels took linear attention and retention too.
using FlashOptions [[deprecated("renamed LongAttentionOptions")]] = LongAttentionOptions;
using FlashResult [[deprecated("renamed LongAttentionResult")]] = LongAttentionResult;

// q: (batch·n_q, heads·d), k: (batch·n_k, kv_heads·d), v: (batch·n_k, kv_heads·d_v).
Result<LongAttentionResult> flash_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                            const LongAttentionOptions& options = {});

// Where flash_attention's time goes, for profiling (attnlab-profile, npm run bench:profile):
// from start_flash_profile() to stop_flash_profile(), every worker adds the time it spends in
// each phase of its query blocks, in seconds summed over the workers. The rest of a call's
// time (its wall time times its threads, less these) is the pool's and the call's own: the
// checks, the scan of the inputs, gathering K and V, waiting for work. Timing costs a call about 1%
// (bench:profile's rows: 0.98-1.06x); stopped, a flag tested per key block. Natively only (wasm's
// calls time nothing).
struct FlashProfile {
  double transpose_in = 0;   // Q's rows into the transposed query blocks
  double scores = 0;         // Sᵀ = K·Qᵀ (and the rules and masks, where a call has them)
  double softmax = 0;        // the online softmax: max, exponentials, sums, rescale factors
  double value = 0;          // Oᵀ = Oᵀ · diag(rescale) + Vᵀ·P
  double transpose_out = 0;  // Oᵀ over the sums, transposed back into the output's rows
};
void start_flash_profile();
FlashProfile stop_flash_profile();

// The problem with these inputs, if any, as flash_attention would report it, less the work
// limits (limits::flash_scores, flash_multiply_adds), which bound this library's own run:
// for callers that run the flash pass elsewhere (the WebGPU shader) and validate here.
std::optional<Error> check_flash_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                           const LongAttentionOptions& options = {});

// How the flash kernel runs a call's heads, for a pass run elsewhere (the WGSL shader): each
// query head's width d (its slice of Q's columns; K/V head h / (heads / kv_heads)), d_v, the
// scale (options.scale or 1/√d), each query head's factor (what multiplies its scores: the scale
// over the temperature, ScoreRules::head), and whether some score q·k·scale could pass float32 by
// the kernel's own bound (d · max|q| · max|k| · max(1, scale) per head, flash.cpp), when its
// per-score check is needed. Then every rule the pass applies, decided here: the keys each query
// of a sequence sees, [begin, end) as 2·n_q numbers (key_band.hpp: both ends grow with the
// query, so a block of queries walks from its first query's begin to its last query's end),
// where query i sits among the keys (at key i + position_offset, for ALiBi's distances), ALiBi's
// slope m_h of each query head (empty without ALiBi), whether the bias is one per head, and the
// rows of Q that see no key (LongAttentionResult::fully_masked_rows), and the query heads per K/V
// head.
struct FlashPlan {
  std::size_t head_width = 0, value_width = 0;
  float scale = 1.0f;
  std::vector<float> factors;  // (heads)
  bool may_overflow = false;
  std::vector<std::uint32_t> key_bands;
  int position_offset = 0;
  std::vector<float> slopes;
  bool bias_per_head = false;
  std::vector<std::size_t> fully_masked_rows;
  std::size_t kv_group = 1;  // query heads per K/V head: query head h reads K/V head h / kv_group
};
Result<FlashPlan> flash_plan(const Matrix& q, const Matrix& k, const Matrix& v,
                             const LongAttentionOptions& options = {});

// Exact attention weights A(i, j) of one head for the chosen query rows and key columns (at
// most limits::sampled_rows and sampled_cols), each row normalised over all its keys as
// softmax does, without forming the whole (n_q, n_k) matrix: a window onto the weights of a
// long sequence. Returns (rows.size(), cols.size()); masked entries are 0. Every rule of
// flash_attention applies (band, padding, softcap, bias, ALiBi); one sequence (batch 1).
Result<Matrix> sampled_weights(const Matrix& q, const Matrix& k,
                               const std::vector<std::size_t>& rows,
                               const std::vector<std::size_t>& cols, int head,
                               const LongAttentionOptions& options = {});

// Which of those cells head `head` does not see (1 = hidden: the causal rule, the window, a
// padding key or a −∞ bias), and how many keys each of those query rows sees: the rules
// sampled_weights and the kernels apply, for n_q queries over n_k keys. Indices and options as
// sampled_weights checks them.
struct SampledMask {
  BasicMatrix<std::uint8_t> hidden;       // (rows.size(), cols.size())
  std::vector<std::size_t> visible_keys;  // (rows.size())
};
Result<SampledMask> sampled_mask(std::size_t n_q, std::size_t n_k,
                                 const std::vector<std::size_t>& rows,
                                 const std::vector<std::size_t>& cols, int head,
                                 const LongAttentionOptions& options = {});

// The same computation, materialising each (n_q, n_k) score matrix: the baseline the flash
// kernel is measured and checked against. Memory O(n²) per worker.
Result<LongAttentionResult> naive_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                            const LongAttentionOptions& options = {});

}  // namespace attnlab

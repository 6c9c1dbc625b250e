// The variants of attention a learner meets in modern models, as the trace applies them
// (TraceInput: rope, kv_heads, dropout, a context; ALiBi is a score rule, score_rules.hpp),
// and generation with a KV cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"
#include "attnlab/trace.hpp"

namespace attnlab {

// RoPE (Su et al., RoFormer, 2021): frequency θ_i = base^(−2i/d) of pair i, i < d/2.
std::vector<float> rope_frequencies(std::size_t d, float base);

// angles: (positions, d/2), angle(p, i) = p · θ_i.
Matrix rope_angles(std::size_t positions, std::size_t d, float base);

// m with pair (2i, 2i+1) of row p rotated by angles(p, i): m (rows, d), angles (rows, d/2).
Matrix rotate_pairs(const Matrix& m, const Matrix& angles);

// ALiBi's slope of head h of H: alibi_slope() (score_rules.hpp).

// bias: (n_q, n_k), bias(i, j) = −slope · |p + i − j|: query i at key position p + i, p as
// CausalAlignment::offset places query 0 (so ALiBi's distances follow the causal rule's).
Matrix alibi_bias(float slope, std::size_t n_q, std::size_t n_k, std::int64_t first_position = 0);

// Dropout's keep mask for one head: (n_q, n_k), 1 where the weight is kept (probability
// 1 − rate). Cell (i, j) comes from splitmix64 (random.hpp) of the seed, the head and (i, j)
// alone, so native and wasm builds, and any size, agree on it.
BoolMatrix dropout_keep(std::uint32_t seed, int head, std::size_t n_q, std::size_t n_k, float rate);

// ---- Generation with a KV cache ----------------------------------------------------------

// One head at one position t: only the new rows are computed; the cache grows by one row.
struct DecodeHead {
  Matrix q, k, v;       // the new rows: (1, d_k), (1, d_k), (1, d_v), rotated under RoPE
  Matrix keys, values;  // the cache after adding them: (t+1, d_k), (t+1, d_v) (its K/V group's;
                        // a given past cache's rows first)
  // (1, t+1): the logits the softmax takes: q·Kᵀ · scale / temperature, plus the ALiBi bias,
  // −∞ where a rule (window, mask, padding) blocks the key.
  Matrix scores;
  Matrix weights;  // (1, t+1)
  Matrix output;   // (1, d_v)
};

struct DecodeStep {
  std::size_t position = 0;  // t: n_past + the token's row
  std::vector<DecodeHead> heads;
  Matrix output;  // (1, d_out): the heads side by side, times W_O when given
};

struct DecodeTrace {
  std::vector<DecodeStep> steps;  // one per position, in order
  Matrix output;                  // (n, d_out): the steps' output rows stacked
};

// Causal self-attention computed token by token, as in generation: the same input as
// trace() (heads, kv_heads, rope, alibi, window and the other options; causal is implied).
// Refuses a context (cross-attention has no growing cache of its own) and dropout (generation
// runs without it). With a past cache (options.past_key, past_value), it continues from it:
// the input's tokens are the next ones, at positions n_past, n_past + 1, …, each the last of
// the keys (bottom-right; an explicit top-left alignment is refused). Errors: trace()'s,
// too_large beyond limits::decode_tokens new tokens or limits::decode_keys keys in all.
Result<DecodeTrace> decode(const TraceInput& input);

// The KV cache of one token: K and V, every layer.
struct KvCacheShape {
  std::size_t layers = 1, kv_heads = 1, head_width = 1, bytes_per_value = 2;
};

// Each field 1 … its limit (limits::cache_layers, cache_kv_heads, cache_head_dim,
// cache_value_bytes), else the error naming it.
std::optional<Error> check_kv_cache_shape(const KvCacheShape& shape);

// 2 · layers · kv_heads · head_width · bytes_per_value: bytes per token. Checked shapes only.
std::size_t kv_cache_bytes(const KvCacheShape& shape);

}  // namespace attnlab

// The score rules: what turns one head's scores q·k into its logits, described once. ScoreRules
// holds every rule (scale, temperature, where the queries sit, the causal rule and the window,
// global tokens, key padding, the mask, the bias, ALiBi, soft-capping, a past cache); the option
// structs embed it beside their execution settings (AttentionOptions, LongAttentionOptions, a
// TraceInput's options). ScoreRules::head() resolves them for one head of a call (its factor,
// its ALiBi slope, its rows of a per-head bias, where its queries sit: key_band.hpp), and
// HeadRules decides each cell: blocked_by() (which rules block it) and logit() (its value).
// attention(), the trace and decode, the backward pass, the flash, naive and sampled kernels and
// flash_plan() (hence the WGSL shader) all take their rules from here.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "attnlab/key_band.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

using BoolMatrix = BasicMatrix<std::uint8_t>;

// Why a cell (query i, key j) may not be attended to: a bit per rule, 0 = allowed.
namespace mask_rule {
inline constexpr std::uint8_t causal = 1;       // key j comes after query i
inline constexpr std::uint8_t key_padding = 2;  // key j is padding
inline constexpr std::uint8_t mask = 4;         // the explicit mask says no
inline constexpr std::uint8_t window = 8;       // key j is outside query i's window
inline constexpr std::uint8_t bias = 16;        // the bias is −∞ there
}  // namespace mask_rule

struct HeadRules;

// ALiBi (Press et al., "Train Short, Test Long", 2022): head h of H gets slope
// m_h = 2^(−8(h+1)/H), the paper's geometric sequence starting at 2^(−8/H) (for H a power of
// two; other H use the same formula here).
float alibi_slope(int head, int heads);

struct ScoreRules {
  // Multiplies the scores; when absent, 1/sqrt(d_k). Must be finite and > 0.
  std::optional<float> scale;
  // Divides the scaled scores; > 1 flattens the weights, < 1 sharpens them.
  float temperature = 1.0f;
  // Query i may not attend to a key after its position (key_band.hpp).
  bool causal = false;
  // Where the queries sit among the keys, for the causal rule, the window and ALiBi: query i at
  // key i (top-left), at key i + n_k − n_q (bottom-right, the last queries of a sequence), or at
  // a given key. Unset: top-left (PyTorch's is_causal), or bottom-right with a past cache, whose
  // new queries follow the cached keys (ONNX's Attention with past_key): see alignment().
  std::optional<CausalAlignment> causal_alignment;
  // Sliding window (local attention): off by default; a number w lets query i attend to key j
  // only when |i − j| < w; Window{left, right} to keys i − left … i + right (positions as
  // causal_alignment places them).
  Window window;
  // Positions exempt from the window both ways: a global query attends to every key, every
  // query attends to a global key. At most limits::global_tokens, each below max(n_q, n_k).
  std::vector<std::size_t> global_tokens;
  // Empty, or one flag per key: true marks a padding key that no query attends to.
  std::vector<bool> key_padding;
  // Optional (n_q, n_k) matrix: nonzero where query i may attend to key j.
  std::optional<BoolMatrix> mask;
  // An additive bias on the (capped) scaled scores, (n_q, n_k): a float attention mask (ONNX's
  // and PyTorch's attn_mask) or a learned relative bias (T5). A −∞ entry blocks its key as the
  // mask does (mask_rule::bias); +∞ and NaN are refused. Or one per head, stacked:
  // (heads·n_q, n_k), head h's rows from h·n_q.
  std::optional<Matrix> bias;
  // ALiBi (variants.hpp): −m_h·|p − j| added to head h's (capped) scaled scores, p the query's
  // key position (as causal_alignment places it), m_h = alibi_slope(h, heads).
  bool alibi = false;
  // Logit soft-capping (Gemma 2): the scaled scores S̃ become softcap·tanh(S̃ / softcap), so none
  // passes ±softcap. Absent = off; else finite and > 0.
  std::optional<float> softcap;
  // A past KV cache (ONNX's past_key/past_value): rows of earlier tokens' keys and values that
  // K's and V's rows are appended to, so the keys are [past_key; K] and the values
  // [past_value; V]. Same columns as K and V (a trace's: one slice per K/V head); n_past rows
  // each; both or neither. The new rows sit at positions n_past, n_past + 1, … The mask, key
  // padding and bias then have a column per key of the whole (n_past + n_k) sequence.
  std::optional<Matrix> past_key, past_value;

  // Whether some rule may block a cell.
  bool has_mask() const {
    return causal || !key_padding.empty() || mask.has_value() || window.active() || bias_blocks();
  }
  // Whether some bias entry is −∞.
  bool bias_blocks() const;
  // Whether a rule beyond the causal band and the window applies to the scaled scores.
  bool has_cell_rules() const { return !key_padding.empty() || mask || softcap || bias || alibi; }
  // causal_alignment, or its default: bottom-right with a past cache, else top-left.
  CausalAlignment alignment() const {
    return causal_alignment.value_or(past_key ? CausalAlignment::bottom_right
                                              : CausalAlignment::top_left);
  }
  // The rows of the past cache: 0 without one.
  std::size_t past_rows() const { return past_key ? past_key->rows : 0; }
  // The scale: the option, or the default 1/√d_k.
  float scale_for(std::size_t d_k) const {
    return scale.value_or(1.0f / std::sqrt(static_cast<float>(d_k)));
  }

  // Head h of `heads` for n_q queries over n_k keys (a past cache's rows included), of width
  // d_k: the one place per-head rules are resolved. The result refers to these rules.
  HeadRules head(std::size_t h, std::size_t heads, std::size_t n_q, std::size_t n_k,
                 std::size_t d_k) const;
};

// One head's rules, resolved (ScoreRules::head): what every path asks of a cell.
struct HeadRules {
  const ScoreRules* rules;
  KeyBand band;  // where the queries sit, the causal rule and the window
  std::size_t n_q, n_k;
  float scale;        // the option or 1/√d_k, the temperature excluded
  float temperature;  // what divides the scaled scores
  float factor;       // scale / temperature: what multiplies the scores
  float slope;        // ALiBi's m_h; 0 without ALiBi
  const float* bias;  // this head's (n_q, n_k) rows of the bias (row stride n_k), or null

  // The key position of query i (CausalAlignment::offset).
  std::int64_t position(std::size_t i) const { return band.position(i); }

  // The mask_rule bits that block cell (i, j); 0 when query i may attend to key j.
  std::uint8_t blocked_by(std::size_t i, std::size_t j) const {
    const ScoreRules& r = *rules;
    std::uint8_t bits = 0;
    if (band.causal_blocks(i, j)) bits |= mask_rule::causal;
    if (!r.key_padding.empty() && r.key_padding[j]) bits |= mask_rule::key_padding;
    if (bias && bias[i * n_k + j] == -std::numeric_limits<float>::infinity())
      bits |= mask_rule::bias;
    if (r.mask && (*r.mask)(i, j) == 0) bits |= mask_rule::mask;
    if (band.window_blocks(i, j) && !global_query(i) && !global(j)) bits |= mask_rule::window;
    return bits;
  }
  // Whether a rule beyond the band (padding, the mask, a −∞ bias) blocks cell (i, j): what the
  // kernels ask of a cell inside its query's band (KeyBand::range).
  bool blocked_in_band(std::size_t i, std::size_t j) const {
    const ScoreRules& r = *rules;
    return (!r.key_padding.empty() && r.key_padding[j]) || (r.mask && (*r.mask)(i, j) == 0) ||
           (bias && bias[i * n_k + j] == -std::numeric_limits<float>::infinity());
  }

  // Soft-capping of a scaled score: softcap·tanh(x / softcap), or x without it.
  float capped(float x) const {
    return rules->softcap ? *rules->softcap * std::tanh(x / *rules->softcap) : x;
  }
  // ALiBi's −m_h·|p_i − j| at cell (i, j).
  float alibi(std::size_t i, std::size_t j) const {
    const std::int64_t distance = position(i) - static_cast<std::int64_t>(j);
    return -slope * static_cast<float>(distance < 0 ? -distance : distance);
  }
  // The bias at cell (i, j) that is added, 0 without one (a −∞ entry blocks: blocked_by).
  float bias_at(std::size_t i, std::size_t j) const {
    const float b = bias ? bias[i * n_k + j] : 0.0f;
    return std::isfinite(b) ? b : 0.0f;
  }
  // The (capped) scaled score x of cell (i, j) plus ALiBi's bias and the given bias, each added
  // in turn (every path rounds alike).
  float biased(std::size_t i, std::size_t j, float x) const {
    if (slope != 0.0f) x += alibi(i, j);
    if (bias) x += bias_at(i, j);
    return x;
  }
  // The logit of cell (i, j) inside its query's band from its scaled score, in one pass (the
  // kernels'): capped, plus ALiBi's bias and the given bias (a −∞ entry blocks; a score already
  // past float32 there gives NaN, which the kernels report as an overflow), −∞ where padding or
  // the mask blocks it.
  float logit(std::size_t i, std::size_t j, float scaled) const {
    float x = capped(scaled);
    if (slope != 0.0f) x += alibi(i, j);
    if (bias) x += bias[i * n_k + j];
    const ScoreRules& r = *rules;
    if ((!r.key_padding.empty() && r.key_padding[j]) || (r.mask && (*r.mask)(i, j) == 0))
      x = -std::numeric_limits<float>::infinity();
    return x;
  }

 private:
  bool global(std::size_t p) const {
    const auto& g = rules->global_tokens;
    return std::find(g.begin(), g.end(), p) != g.end();
  }
  // A global token is a position: the query's is its key position (after a past cache or
  // bottom-right, not its row), and one before the first key is none.
  bool global_query(std::size_t i) const {
    const std::int64_t p = position(i);
    return p >= 0 && global(static_cast<std::size_t>(p));
  }
};

inline HeadRules ScoreRules::head(std::size_t h, std::size_t heads, std::size_t n_q,
                                  std::size_t n_k, std::size_t d_k) const {
  const float base = d_k > 0 ? scale_for(d_k) : 1.0f;
  const float* rows = nullptr;
  if (bias) rows = bias->row(bias->rows == n_q ? 0 : h * n_q);  // one for all heads, or head h's
  return HeadRules{this,
                   KeyBand(causal, alignment(), window, n_q, n_k),
                   n_q,
                   n_k,
                   base,
                   temperature,
                   base / temperature,
                   alibi ? alibi_slope(static_cast<int>(h), static_cast<int>(heads)) : 0.0f,
                   rows};
}

}  // namespace attnlab

// What attention() checks and shares with the other entries that take its options (the
// flash kernels, the backward pass, the trace): the core's own, not part of the public API.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "attnlab/attention.hpp"
#include "base/validate.hpp"

namespace attnlab::detail {

// attention() of head `head` of `heads` under these rules (their checks first): a per-head bias
// gives it its rows, ALiBi its slope (ScoreRules::head).
Result<AttentionResult> attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                  const ScoreRules& rules, std::size_t head = 0,
                                  std::size_t heads = 1);

// attention() of one head's checked rules: q's rows are queries first_query, first_query + 1, …
// of the rules' n_q, k's and v's the rules' first k.rows keys (decode: one query at a time over
// the keys it has so far).
Result<AttentionResult> attention_head(const Matrix& q, const Matrix& k, const Matrix& v,
                                       const HeadRules& rules, std::size_t first_query = 0);

// The checks of every score rule (ScoreRules) for n_q queries over n_k keys, in one place for
// every path; `heads` heads also take a bias per head, stacked; q and k as messages name them.
validate::Problem check_rules(const ScoreRules& options, std::size_t n_q, std::size_t n_k,
                              const Matrix& q, const Matrix& k, std::size_t heads = 1);

// attention()'s checks of the options against Q (n_q, ·) and K (n_k, ·): check_rules(); a trace
// of `heads` heads also takes a bias per head, stacked.
validate::Problem check_attention_options(const Matrix& q, const Matrix& k,
                                          const ScoreRules& options, std::size_t heads = 1);

// Key padding (empty, or n_k flags) and a bias ((n_q, n_k), or one per head stacked: heads·n_q
// rows; no NaN or +∞, −∞ blocks) for n_q queries over n_k keys; q and k as messages name them.
validate::Problem check_key_cells(const std::vector<bool>& key_padding,
                                  const std::optional<Matrix>& bias, std::size_t n_q,
                                  std::size_t n_k, const Matrix& q, const Matrix& k,
                                  std::size_t heads = 1);

// A numeric causalAlignment (CausalAlignment::at_key) places query 0 at a key position from −n_q
// (every query before the first key) to n_k (after the last), as ONNX's offsets do: n_past with
// a cache, nonpad_kv_seqlen − n_q (possibly negative) with an external one.
validate::Problem check_alignment(const CausalAlignment& alignment, std::size_t n_q,
                                  std::size_t n_k);

// The past cache (AttentionOptions::past_key, past_value) against the new keys and values:
// both or neither, K's and V's columns (k_cols, v_cols, of the inputs named k_name and v_name),
// one length, finite, and with the k_rows new keys at most max_keys keys in all.
validate::Problem check_past(const ScoreRules& options, const char* k_name, std::size_t k_rows,
                             std::size_t k_cols, const char* v_name, std::size_t v_cols,
                             std::size_t max_keys);

// The rows of past (when given) above those of m: the keys or values with a past cache.
Matrix appended(const std::optional<Matrix>& past, const Matrix& m);

}  // namespace attnlab::detail

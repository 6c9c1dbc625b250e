// What each head of the model does, measured on its attention weights: how much each query
// attends to the previous token, to the first token (a "sink"), and, on a random sequence
// repeated (the probe of Olsson et al. 2022, "In-context Learning and Induction Heads"), to
// the earlier copy of its own token (duplicate-token) and to the token after it (induction).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"
#include "attnlab/model.hpp"

namespace attnlab {

// Each score is a mean weight, 0 … 1, over queries 1 … n − 1 (query 0 has only itself):
// previous-token A[i][i − 1], first-token A[i][0]. With a period T (the sequence is T tokens
// then the same T again, n ≥ 2T), over the repeat's queries i = T … 2T − 1: duplicate-token
// A[i][i − T], induction A[i][i − T + 1]. Without one (period 0) those two are absent.
//
// The head's role names the score that stands out: of the scores measured, the one with the
// largest ratio to what uniform causal attention (each query's weight spread evenly over its
// keys) would score on the same queries, if that ratio is at least role_factor; otherwise the
// head is "spread". The roles: "previous-token", "first-token", "duplicate-token",
// "induction", "spread"; role_score is that score (for "spread", the largest ratio's score).
inline constexpr double role_factor = 2.0;

struct HeadScores {
  double previous_token = 0, first_token = 0;
  std::optional<double> duplicate_token, induction;
  std::string role;
  double role_score = 0;
};

// weights: (n, n), n ≥ 2. Errors: shape-mismatch for a non-square matrix, invalid-argument
// for n < 2 or a period with 2·period > n.
Result<HeadScores> head_scores(const Matrix& weights, std::size_t period);

// The induction probe: `period` tokens drawn from the seed among the printable bytes
// (32 … 126) and the merged tokens (256 … vocab − 1), then the same tokens again.
std::vector<int> repeated_random_tokens(std::size_t vocab, std::size_t period, std::uint64_t seed);

// Every layer × head's scores on tokens (period as for head_scores): [layer][head].
Result<std::vector<std::vector<HeadScores>>> model_head_scores(const Model& model,
                                                               const std::vector<int>& tokens,
                                                               std::size_t period);

}  // namespace attnlab

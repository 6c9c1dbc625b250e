// The step-by-step trace: one call computes multi-head attention and keeps every
// intermediate, each labelled with a stable id, a title, its TeX formula and its shape.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab {

enum class PositionalEncoding { none, sinusoidal };

// Self-attention from token embeddings: Q = X·W_Q, K = X·W_K, V = X·W_V.
// x: (n, d_model); w_q, w_k: (d_model, heads·d_k); w_v: (d_model, heads·d_v).
struct Projections {
  Matrix x, w_q, w_k, w_v;
};

// Q, K and V given directly (cross-attention allowed: n_q may differ from n_k).
// q: (n_q, heads·d_k), k: (n_k, heads·d_k), v: (n_k, heads·d_v).
struct DirectQKV {
  Matrix q, k, v;
};

struct TraceInput {
  std::variant<Projections, DirectQKV> source;
  std::optional<Matrix> w_o;  // (heads·d_v, d_out), applied to the concatenated heads
  int heads = 1;              // splits the columns of Q, K and V into equal slices
  PositionalEncoding positional = PositionalEncoding::none;  // added to X (Projections only)
  AttentionOptions options;                                  // a given scale applies to every head
};

// Step ids, in trace order. Per-head steps repeat for each head and carry its index.
namespace step {
inline constexpr const char* positional = "positional";
inline constexpr const char* project_q = "project-q";
inline constexpr const char* project_k = "project-k";
inline constexpr const char* project_v = "project-v";
inline constexpr const char* scores = "scores";
inline constexpr const char* scale = "scale";
inline constexpr const char* mask = "mask";
inline constexpr const char* softmax = "softmax";
inline constexpr const char* aggregate = "aggregate";
inline constexpr const char* concat = "concat";
inline constexpr const char* output_projection = "output-projection";
}  // namespace step

struct TraceStep {
  std::string id;                 // one of attnlab::step
  std::optional<int> head;        // set on per-head steps when there is more than one head
  std::string title;              // short, plain-language name
  std::string formula;            // TeX, with this trace's numbers where they help (e.g. √2)
  Matrix values;                  // the step's result; shape = values.rows x values.cols
  std::vector<float> row_totals;  // sum of each row of values (a weight row sums to 1)
  // Softmax only: the parts a learner sees (row max, exp(logit - max), row sum).
  std::vector<float> row_max, row_sum;
  Matrix exponentials;
};

struct Trace {
  std::vector<TraceStep> steps;
  Matrix output;  // the last step's values: (n_q, d_out)
  std::vector<std::size_t> fully_masked_rows;
};

Result<Trace> trace(const TraceInput& input);

}  // namespace attnlab

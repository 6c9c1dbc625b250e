// The model's inference forward pass. Its attention is the stepper's: Q = X·W_Q by
// kernels::matmul, each head's column slice through attention() (causal, 1/√d_head), the heads
// concatenated and multiplied by W_O, exactly as trace() does for the same X and weights.
// Asked for the logits alone (AblationOptions::blocks false), the heads run through the flash
// kernel instead, which forms no n × n matrix and skips the causal rule's hidden tiles.
#include <algorithm>
#include <cmath>

#include "attnlab/attention.hpp"
#include "attnlab/flash.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/model.hpp"
#include "base/validate.hpp"
#include "model/forward_parts.hpp"
#include "model/ops.hpp"

namespace attnlab {

Matrix model_parts::layer_norm(const Model& m, const Matrix& x, std::size_t gain,
                               std::size_t bias) {
  Matrix y(x.rows, x.cols);
  for (std::size_t i = 0; i < x.rows; ++i)
    model_ops::layer_norm_row(x.row(i), &m.parameters[gain], &m.parameters[bias], x.cols, y.row(i),
                              static_cast<float*>(nullptr), static_cast<float*>(nullptr));
  return y;
}

Matrix model_parts::sum(const Matrix& a, const Matrix& b) {
  Matrix c = a;
  for (std::size_t i = 0; i < c.data.size(); ++i) c.data[i] += b.data[i];
  return c;
}

namespace {

// x·W + bias (bias broadcast over the rows), W the tensor at `w` with `cols` columns.
Matrix affine(const Model& m, const Matrix& x, std::size_t w, std::size_t cols, const float* bias) {
  Matrix y = m.times(x, w, cols);
  for (std::size_t i = 0; i < y.rows; ++i)
    for (std::size_t j = 0; j < y.cols; ++j) y(i, j) += bias[j];
  return y;
}

}  // namespace

Matrix model_parts::mlp(const Model& m, const ModelLayout::Layer& l, const Matrix& norm2) {
  const std::size_t d = m.config.d_model, dm = m.config.d_mlp();
  Matrix hidden = affine(m, norm2, l.w_fc, dm, &m.parameters[l.b_fc]);
  kernels::gelu(hidden);
  return affine(m, hidden, l.w_proj, d, &m.parameters[l.b_proj]);
}

std::optional<Error> model_parts::check_tokens(const Model& m, const std::vector<int>& tokens) {
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || static_cast<std::size_t>(tokens[i]) >= m.config.vocab)
      return validate::formatted(ErrorCode::invalid_argument,
                                 "token %zu is %d: token ids run from 0 to %zu", i, tokens[i],
                                 m.config.vocab - 1);
  return std::nullopt;
}

Matrix model_parts::embed(const Model& m, const ModelLayout& layout, const std::vector<int>& tokens,
                          std::size_t first) {
  const std::size_t d = m.config.d_model;
  Matrix x(tokens.size(), d);
  for (std::size_t i = 0; i < tokens.size(); ++i)
    for (std::size_t j = 0; j < d; ++j)
      x(i, j) = m.parameters[layout.embedding + static_cast<std::size_t>(tokens[i]) * d + j] +
                m.parameters[layout.positions + (first + i) * d + j];
  return x;
}

Matrix model_parts::logits(const Model& m, const ModelLayout& layout, const Matrix& x) {
  return m.times(layer_norm(m, x, layout.final_gain, layout.final_bias), layout.unembedding,
                 m.config.vocab);
}

namespace {

using model_parts::layer_norm;
using model_parts::sum;

// One head's output (n, d_head) and weights (n, n): softmax as trained, or the family that
// replaces it (model.hpp), causal as the model is.
struct HeadOutput {
  Matrix output, weights;
};

Result<HeadOutput> head_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                  const HeadReplacement* family) {
  const auto take = [](auto r, auto weights_of) -> Result<HeadOutput> {
    if (!r) return r.error();
    return HeadOutput{std::move(r.value().output), weights_of(r.value())};
  };
  switch (family ? family->family : HeadFamily::softmax) {
    case HeadFamily::softmax: {
      AttentionOptions causal;
      causal.causal = true;
      return take(attention(q, k, v, causal), [](auto& r) { return std::move(r.softmax.weights); });
    }
    case HeadFamily::linear: {
      LinearAttentionOptions o = family->linear;
      o.causal = true;
      return take(linear_attention(q, k, v, o), [](auto& r) { return std::move(*r.weights); });
    }
    case HeadFamily::retention:
      return take(retention(q, k, v, family->retention),
                  [](auto& r) { return std::move(*r.weights); });
    case HeadFamily::low_rank: {
      LowRankOptions o = family->low_rank;
      o.causal = true;
      return take(low_rank_attention(q, k, v, o), [](auto& r) { return std::move(*r.weights); });
    }
    case HeadFamily::sparse: {
      SparsePatternOptions o = family->sparse;
      o.queries = o.keys.emplace(q.rows);
      o.head_width = q.cols;
      auto pattern = sparse_pattern(o);
      if (!pattern) return pattern.error();
      AttentionOptions masked;
      masked.causal = true;
      masked.mask = std::move(pattern.value().mask);
      return take(attention(q, k, v, masked), [](auto& r) { return std::move(r.softmax.weights); });
    }
  }
  return Error{ErrorCode::invalid_argument, "replace.family is not a family of attention"};
}

// The heads' outputs side by side, (n, d_model), before W_O: without blocks, the heads as
// trained all through flash_attention at once (no weights kept), each replaced head through
// its family; with them, head by head through head_attention, its weights kept in `weights`.
// ablated[h]: head h's output is then replaced as `ablation` says (model.hpp); replaced[h]:
// head h is computed by `family`.
Result<Matrix> heads_output(const Matrix& q, const Matrix& k, const Matrix& v, std::size_t heads,
                            const std::vector<bool>& ablated, Ablation ablation,
                            const std::vector<bool>& replaced, const HeadReplacement& family,
                            std::vector<Matrix>* weights) {
  const std::size_t n = q.rows, dh = q.cols / heads;
  Matrix concat;
  if (weights) {
    concat = Matrix(n, q.cols);
  } else {
    LongAttentionOptions all;
    all.causal = true;
    all.heads = static_cast<int>(heads);
    all.threads = 1;  // 128 tokens: a thread's start costs more than it saves
    auto r = flash_attention(q, k, v, all);
    if (!r) return r.error();
    concat = std::move(r.value().output);
  }
  for (std::size_t h = 0; h < heads; ++h) {
    if (!weights && !replaced[h]) continue;
    auto r = head_attention(column_slice(q, h * dh, dh), column_slice(k, h * dh, dh),
                            column_slice(v, h * dh, dh), replaced[h] ? &family : nullptr);
    if (!r) return r.error();
    const Matrix& z = r.value().output;  // (n, d_head)
    for (std::size_t i = 0; i < n; ++i) std::copy_n(z.row(i), dh, concat.row(i) + h * dh);
    if (weights) weights->push_back(std::move(r.value().weights));
  }
  for (std::size_t h = 0; h < heads; ++h) {
    if (!ablated[h]) continue;
    for (std::size_t j = h * dh; j < (h + 1) * dh; ++j) {
      double mean = 0;
      if (ablation == Ablation::mean) {
        for (std::size_t i = 0; i < n; ++i) mean += concat(i, j);
        mean /= static_cast<double>(n);
      }
      for (std::size_t i = 0; i < n; ++i) concat(i, j) = static_cast<float>(mean);
    }
  }
  return concat;
}

Result<ModelBlockForward> block(const Model& m, const ModelLayout::Layer& l, Matrix input,
                                const std::vector<bool>& ablated, const AblationOptions& options,
                                const std::vector<bool>& replaced) {
  const std::size_t d = m.config.d_model;
  ModelBlockForward b;
  b.norm1 = layer_norm(m, input, l.ln1_gain, l.ln1_bias);
  const Matrix q = m.times(b.norm1, l.w_q, d);
  const Matrix k = m.times(b.norm1, l.w_k, d);
  const Matrix v = m.times(b.norm1, l.w_v, d);
  auto concat =
      heads_output(q, k, v, static_cast<std::size_t>(m.config.heads), ablated, options.ablation,
                   replaced, options.replace, options.blocks ? &b.attention : nullptr);
  if (!concat) return concat.error();
  b.attention_output = m.times(concat.value(), l.w_o, d);
  const Matrix attended = sum(input, b.attention_output);  // the residual stream after attention
  b.norm2 = layer_norm(m, attended, l.ln2_gain, l.ln2_bias);
  b.mlp_output = model_parts::mlp(m, l, b.norm2);
  b.output = sum(attended, b.mlp_output);
  if (auto p = validate::finite("the residual stream", b.output)) return *p;
  b.input = std::move(input);
  return b;
}

}  // namespace

Result<ModelForward> forward(const Model& m, const std::vector<int>& tokens) {
  return forward(m, tokens, AblationOptions{});
}

Result<ModelForward> forward(const Model& m, const std::vector<int>& tokens,
                             const AblationOptions& ablate) {
  const ModelConfig& c = m.config;
  if (auto p = model_parts::check_shape(c, m.parameters.size())) return *p;
  if (tokens.empty())
    return Error{ErrorCode::invalid_argument, "the forward pass needs at least one token"};
  if (tokens.size() > c.context_length)
    return validate::formatted(ErrorCode::too_large,
                               "%zu tokens are more than the model's context length of %zu",
                               tokens.size(), c.context_length);
  if (auto p = model_parts::check_tokens(m, tokens)) return *p;
  const auto heads = static_cast<std::size_t>(c.heads);
  // Each listed head's flag per layer, or the error naming the entry out of range.
  const auto flags = [&](const std::vector<HeadIndex>& list, const char* field,
                         bool all) -> Result<std::vector<std::vector<bool>>> {
    std::vector<std::vector<bool>> on(static_cast<std::size_t>(c.layers),
                                      std::vector<bool>(heads, all));
    for (std::size_t i = 0; i < list.size(); ++i) {
      const HeadIndex& at = list[i];
      if (at.layer < 0 || at.layer >= c.layers)
        return validate::formatted(ErrorCode::invalid_argument,
                                   "%s[%zu].layer is %d: the layers run from 0 to %d", field, i,
                                   at.layer, c.layers - 1);
      if (at.head < 0 || at.head >= c.heads)
        return validate::formatted(ErrorCode::invalid_argument,
                                   "%s[%zu].head is %d: the heads run from 0 to %d", field, i,
                                   at.head, c.heads - 1);
      on[static_cast<std::size_t>(at.layer)][static_cast<std::size_t>(at.head)] = true;
    }
    return on;
  };
  auto ablated = flags(ablate.heads, "ablate", false);
  if (!ablated) return ablated.error();
  const HeadReplacement& family = ablate.replace;
  auto replaced =
      flags(family.heads, "replace.heads", family.all && family.family != HeadFamily::softmax);
  if (!replaced) return replaced.error();
  const ModelLayout layout(c);
  Matrix x = model_parts::embed(m, layout, tokens, 0);
  ModelForward out;
  for (std::size_t li = 0; li < layout.layers.size(); ++li) {
    auto b = block(m, layout.layers[li], std::move(x), ablated.value()[li], ablate,
                   replaced.value()[li]);
    if (!b) return b.error();
    x = b.value().output;
    if (ablate.blocks) out.blocks.push_back(std::move(b.value()));
  }
  out.logits = model_parts::logits(m, layout, x);
  if (auto p = validate::finite("the logits", out.logits)) return *p;
  return out;
}

Result<std::vector<double>> token_losses(const Model& m, const std::vector<int>& tokens,
                                         const AblationOptions& ablate) {
  if (tokens.size() == 1)
    return Error{ErrorCode::invalid_argument,
                 "the loss of each next token needs at least 2 tokens, got 1"};
  AblationOptions logits_only = ablate;
  logits_only.blocks = false;
  auto f = forward(m, tokens, logits_only);
  if (!f) return f.error();
  const Matrix& logits = f.value().logits;
  std::vector<double> out(tokens.size() - 1);
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    const float* row = logits.row(i);
    const double top = *std::max_element(row, row + logits.cols);
    double z = 0;
    for (std::size_t j = 0; j < logits.cols; ++j) z += std::exp(row[j] - top);
    out[i] = std::log(z) + top - row[tokens[i + 1]];
  }
  return out;
}

Result<std::vector<Matrix>> attention_rollout(const Model& m, const std::vector<int>& tokens) {
  auto f = forward(m, tokens);
  if (!f) return f.error();
  const std::size_t n = tokens.size();
  std::vector<double> rollout(n * n, 0.0), step(n * n), next(n * n);
  for (std::size_t i = 0; i < n; ++i) rollout[i * n + i] = 1;  // before layer 0: each token itself
  std::vector<Matrix> out;
  for (const ModelBlockForward& b : f.value().blocks) {
    const double share = 1.0 / static_cast<double>(b.attention.size());
    for (std::size_t i = 0; i < n; ++i) {
      double total = 0;
      for (std::size_t j = 0; j < n; ++j) {
        double a = 0;
        for (const Matrix& head : b.attention) a += head(i, j);
        step[i * n + j] = 0.5 * a * share + (i == j ? 0.5 : 0.0);
        total += step[i * n + j];
      }
      for (std::size_t j = 0; j < n; ++j) step[i * n + j] /= total;
    }
    // next = step · rollout: row i mixes the rows of the earlier rollout it attends to.
    std::fill(next.begin(), next.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k <= i; ++k) {
        const double w = step[i * n + k];
        if (w == 0) continue;
        for (std::size_t j = 0; j < n; ++j) next[i * n + j] += w * rollout[k * n + j];
      }
    rollout.swap(next);
    Matrix r(n, n);
    for (std::size_t i = 0; i < n * n; ++i) r.data[i] = static_cast<float>(rollout[i]);
    out.push_back(std::move(r));
  }
  return out;
}

double next_token_loss(const Matrix& logits, const std::vector<int>& tokens) {
  double total = 0;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    const float* row = logits.row(i);
    const double top = *std::max_element(row, row + logits.cols);
    double z = 0;
    for (std::size_t j = 0; j < logits.cols; ++j) z += std::exp(row[j] - top);
    total += std::log(z) + top - row[tokens[i + 1]];
  }
  return tokens.size() > 1 ? total / static_cast<double>(tokens.size() - 1) : 0.0;
}

}  // namespace attnlab

// Generation: the KV-cache decoder and the sampler.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "attnlab/attention.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/model.hpp"
#include "attnlab/random.hpp"
#include "base/validate.hpp"
#include "model/forward_parts.hpp"

namespace attnlab {
namespace {

// Rows [0, count) and columns [first, first + width) of m.
Matrix block_of(const Matrix& m, std::size_t count, std::size_t first, std::size_t width) {
  Matrix out(count, width);
  for (std::size_t i = 0; i < count; ++i) std::copy_n(m.row(i) + first, width, out.row(i));
  return out;
}

}  // namespace

ModelDecoder::ModelDecoder(const Model& model) : model_(&model), layout_(model.config) {
  // A model that does not fit its config gets no cache: append() says what is wrong.
  if (model_parts::check_shape(model.config, model.parameters.size())) return;
  const ModelConfig& c = model.config;
  keys_.assign(layout_.layers.size(), Matrix(c.context_length, c.d_model));
  values_ = keys_;
}

Result<std::vector<float>> ModelDecoder::append(const std::vector<int>& tokens) {
  const Model& m = *model_;
  const std::size_t d = m.config.d_model, dh = m.config.d_head();
  if (auto p = model_parts::check_shape(m.config, m.parameters.size())) return *p;
  if (tokens.empty()) return Error{ErrorCode::invalid_argument, "no tokens to append"};
  if (auto p = model_parts::check_tokens(m, tokens)) return *p;
  if (length_ + tokens.size() > m.config.context_length)
    return validate::formatted(ErrorCode::too_large,
                               "%zu tokens after the %zu already read are more than the "
                               "model's context length of %zu",
                               tokens.size(), length_, m.config.context_length);
  Matrix x;
  for (int token : tokens) {
    const std::size_t t = length_;
    x = model_parts::embed(m, layout_, {token}, t);
    for (std::size_t l = 0; l < layout_.layers.size(); ++l) {
      const ModelLayout::Layer& w = layout_.layers[l];
      const Matrix norm1 = model_parts::layer_norm(m, x, w.ln1_gain, w.ln1_bias);
      const Matrix q = m.times(norm1, w.w_q, d);
      std::copy_n(m.times(norm1, w.w_k, d).data.data(), d, keys_[l].row(t));
      std::copy_n(m.times(norm1, w.w_v, d).data.data(), d, values_[l].row(t));
      Matrix concat(1, d);
      for (std::size_t h = 0; h < static_cast<std::size_t>(m.config.heads); ++h) {
        auto r = attention(column_slice(q, h * dh, dh), block_of(keys_[l], t + 1, h * dh, dh),
                           block_of(values_[l], t + 1, h * dh, dh));
        if (!r) return r.error();
        std::copy_n(r.value().output.data.data(), dh, concat.row(0) + h * dh);
      }
      x = model_parts::sum(x, m.times(concat, w.w_o, d));
      x = model_parts::sum(
          x, model_parts::mlp(m, w, model_parts::layer_norm(m, x, w.ln2_gain, w.ln2_bias)));
    }
    ++length_;
  }
  Matrix logits = model_parts::logits(m, layout_, x);
  if (auto p = validate::finite("the logits", logits)) return *p;
  return std::move(logits.data);
}

namespace {

std::optional<Error> check_sampling(const std::vector<float>& logits, float temperature) {
  if (logits.empty()) return Error{ErrorCode::invalid_argument, "no logits to sample from"};
  // NaN would break the ranking's order and ±Infinity the softmax (NaN probabilities).
  if (auto p = validate::finite("logit", logits)) return p;
  if (!std::isfinite(temperature) || temperature < 0)
    return Error{ErrorCode::invalid_argument,
                 "temperature must be 0 (the likeliest token) or a finite number above 0, got " +
                     validate::number_text(temperature)};
  return std::nullopt;
}

// Token ids by logit, largest first (ties to the smaller id), cut to top_k (0: all).
std::vector<int> ranked(const std::vector<float>& logits, std::size_t top_k) {
  std::vector<int> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return logits[std::size_t(a)] > logits[std::size_t(b)]; });
  if (top_k > 0 && top_k < order.size()) order.resize(top_k);
  return order;
}

// exp((logit − the largest) / temperature) of each ranked id, and their sum.
std::vector<double> relative_weights(const std::vector<float>& logits,
                                     const std::vector<int>& order, float temperature,
                                     double& total) {
  const double top = logits[std::size_t(order[0])];
  std::vector<double> weights;
  total = 0;
  for (int id : order)
    total += weights.emplace_back(std::exp((logits[std::size_t(id)] - top) / temperature));
  return weights;
}

}  // namespace

Result<int> sample_token(const std::vector<float>& logits, float temperature, std::size_t top_k,
                         double u) {
  if (auto p = check_sampling(logits, temperature)) return *p;
  const std::vector<int> order = ranked(logits, top_k);
  if (temperature == 0) return order[0];
  double total = 0;
  const std::vector<double> weights = relative_weights(logits, order, temperature, total);
  double reach = u * total;
  for (std::size_t i = 0; i < order.size(); ++i) {
    reach -= weights[i];
    if (reach < 0) return order[i];
  }
  return order.back();  // u · total rounded up to the total
}

Result<TokenDistribution> next_token_distribution(const std::vector<float>& logits,
                                                  float temperature, std::size_t top_k) {
  if (auto p = check_sampling(logits, temperature)) return *p;
  TokenDistribution out;
  out.token_ids = ranked(logits, temperature == 0 ? 1 : top_k);
  if (temperature == 0) {
    out.probabilities = {1.0};
    return out;
  }
  double total = 0;
  for (const double w : relative_weights(logits, out.token_ids, temperature, total))
    out.probabilities.push_back(w / total);
  return out;
}

Result<std::vector<int>> generate(const Model& model, const std::vector<int>& prompt,
                                  std::size_t count, const SampleOptions& options) {
  if (prompt.size() + count > model.config.context_length)
    return validate::formatted(ErrorCode::too_large,
                               "a prompt of %zu tokens and %zu more are more than the model's "
                               "context length of %zu",
                               prompt.size(), count, model.config.context_length);
  ModelDecoder decoder(model);
  auto logits = decoder.append(prompt);
  std::vector<int> out;
  for (std::size_t i = 0; i < count && logits; ++i) {
    const std::uint64_t bits = splitmix64_mix(options.seed + (i + 1) * 0x9e3779b97f4a7c15ULL);
    auto token = sample_token(logits.value(), options.temperature, options.top_k,
                              static_cast<double>(bits >> 11) * 0x1p-53);
    if (!token) return token.error();
    out.push_back(token.value());
    if (i + 1 < count) logits = decoder.append({token.value()});
  }
  if (!logits) return logits.error();
  return out;
}

}  // namespace attnlab

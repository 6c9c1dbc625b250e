// The model's config checks, its parameter layout and the checked Model.
#include <cmath>
#include <tuple>

#include "attnlab/kernels.hpp"
#include "attnlab/model.hpp"
#include "base/validate.hpp"
#include "model/forward_parts.hpp"

namespace attnlab {

std::optional<Error> check_model_config(const ModelConfig& c) {
  for (const auto& [name, value, most] : {std::tuple{"layers", c.layers, limits::model_layers},
                                          std::tuple{"heads", c.heads, limits::model_heads}})
    if (auto p = validate::count_within(name, value, 1, static_cast<std::size_t>(most),
                                        ErrorCode::invalid_argument))
      return p;
  for (const auto& [name, value, most] :
       {std::tuple{"d_model", c.d_model, limits::model_d_model},
        std::tuple{"context", c.context_length, limits::model_context},
        std::tuple{"vocab", c.vocab, limits::model_vocab}})
    if (auto p = validate::count_within(name, value, 1, most)) return p;
  if (c.d_model % static_cast<std::size_t>(c.heads) != 0)
    return validate::formatted(ErrorCode::invalid_argument,
                               "%d heads do not divide d_model = %zu: each head needs an equal "
                               "slice",
                               c.heads, c.d_model);
  return std::nullopt;
}

ModelLayout::ModelLayout(const ModelConfig& c) {
  const std::size_t d = c.d_model;
  const auto add = [&](std::string name, std::size_t rows, std::size_t cols, bool decay) {
    tensors.push_back({std::move(name), total, rows, cols, decay});
    total += rows * cols;
    return tensors.back().offset;
  };
  embedding = add("embedding", c.vocab, d, true);
  positions = add("positions", c.context_length, d, false);
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    Layer layer{};
    layer.ln1_gain = add(p + "ln1.gain", 1, d, false);
    layer.ln1_bias = add(p + "ln1.bias", 1, d, false);
    layer.w_q = add(p + "w_q", d, d, true);
    layer.w_k = add(p + "w_k", d, d, true);
    layer.w_v = add(p + "w_v", d, d, true);
    layer.w_o = add(p + "w_o", d, d, true);
    layer.ln2_gain = add(p + "ln2.gain", 1, d, false);
    layer.ln2_bias = add(p + "ln2.bias", 1, d, false);
    layer.w_fc = add(p + "w_fc", d, c.d_mlp(), true);
    layer.b_fc = add(p + "b_fc", 1, c.d_mlp(), false);
    layer.w_proj = add(p + "w_proj", c.d_mlp(), d, true);
    layer.b_proj = add(p + "b_proj", 1, d, false);
    layers.push_back(layer);
  }
  final_gain = add("final.gain", 1, d, false);
  final_bias = add("final.bias", 1, d, false);
  unembedding = add("unembedding", d, c.vocab, true);
}

std::optional<Error> model_parts::check_shape(const ModelConfig& config, std::size_t count) {
  if (auto p = check_model_config(config)) return p;
  const std::size_t total = ModelLayout(config).total;
  if (count != total)
    return validate::formatted(ErrorCode::shape_mismatch,
                               "the model's config needs %zu parameters, got %zu", total, count);
  return std::nullopt;
}

Result<Model> Model::create(const ModelConfig& config, std::vector<float> parameters) {
  if (auto p = model_parts::check_shape(config, parameters.size())) return *p;
  for (std::size_t i = 0; i < parameters.size(); ++i)
    if (!std::isfinite(parameters[i]))
      return validate::formatted(ErrorCode::non_finite, "parameter %zu is %s", i,
                                 validate::number_text(parameters[i]).c_str());
  return Model{config, std::move(parameters)};
}

Matrix Model::tensor(std::size_t offset, std::size_t rows, std::size_t cols) const {
  const auto first = parameters.begin() + static_cast<std::ptrdiff_t>(offset);
  return Matrix(rows, cols,
                std::vector<float>(first, first + static_cast<std::ptrdiff_t>(rows * cols)));
}

Matrix Model::times(const Matrix& x, std::size_t offset, std::size_t cols) const {
  return kernels::matmul(x, parameters.data() + offset, cols);
}

Result<ModelHeadWeights> head_weights(const Model& m, int layer, int head) {
  const ModelConfig& c = m.config;
  if (layer < 0 || layer >= c.layers || head < 0 || head >= c.heads)
    return validate::formatted(ErrorCode::invalid_argument,
                               "layer %d, head %d is not in the model: layers run from 0 to %d "
                               "and heads from 0 to %d",
                               layer, head, c.layers - 1, c.heads - 1);
  const ModelLayout::Layer l = ModelLayout(c).layers[static_cast<std::size_t>(layer)];
  const std::size_t d = c.d_model, dh = c.d_head(), first = static_cast<std::size_t>(head) * dh;
  const auto slice = [&](std::size_t offset) {
    return column_slice(m.tensor(offset, d, d), first, dh);
  };
  return ModelHeadWeights{slice(l.w_q), slice(l.w_k), slice(l.w_v)};
}

}  // namespace attnlab

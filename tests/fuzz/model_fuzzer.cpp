// libFuzzer target for the model module's core: a little model of fuzzed sizes (in and beyond
// its limits) whose parameters are a fixed pattern times a fuzzed scale (so they overflow,
// vanish or are NaN) with a few raw float32 values poked in; then forward(), the KV-cache
// decoder, head_weights(), model_head_scores(), next_token_distribution() and sample_token()
// on fuzzed token ids (negative, past the vocabulary, past the context) and logits; a
// tokenizer of fuzzed merges on fuzzed bytes; an attention import of fuzzed weights. Each call
// returns a typed error with a message or finite values; a distribution sums to 1; the
// tokenizer gives its text back, byte for byte.
// The layout: vocab, context, d_model, layers, heads, the parameters' scale (float32), pokes
// [count, (index: two bytes, value) …], token count, ids (two bytes each, signed), the
// decoder's split, layer, head, period, temperature, top-k, u; merge count, merges (two bytes
// each side); the import's layers, heads, tokens, raw flag, values; the rest is the text.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "attnlab/attention_import.hpp"
#include "attnlab/head_scores.hpp"
#include "attnlab/model.hpp"
#include "attnlab/tokenizer.hpp"
#include "fuzz_reader.hpp"

namespace {

void require(bool holds) {
  if (!holds) std::abort();  // a value escaped the checks
}

bool finite(const attnlab::Matrix& m) {
  for (float v : m.data)
    if (!std::isfinite(v)) return false;
  return true;
}

template <typename T>
bool refused(const attnlab::Result<T>& r) {
  if (r) return false;
  require(!r.error().message.empty());
  return true;
}

int token(attnlab::fuzz::Reader& in) {
  const auto low = in.byte();
  return static_cast<std::int16_t>(low | in.byte() << 8) % 600;  // −599 … 599
}

void check_model(attnlab::fuzz::Reader& in, const attnlab::Model& model) {
  std::vector<int> tokens(in.dimension(20));
  for (int& t : tokens) t = token(in);
  const auto forward = attnlab::forward(model, tokens);
  if (!refused(forward)) {
    require(finite(forward.value().logits) && forward.value().logits.rows == tokens.size());
    for (const auto& block : forward.value().blocks)
      for (const auto& head : block.attention) require(finite(head));
  }
  attnlab::ModelDecoder decoder(model);
  const std::size_t split = tokens.empty() ? 0 : in.byte() % tokens.size();
  for (const auto& part : {std::vector<int>(tokens.begin(), tokens.begin() + split),
                           std::vector<int>(tokens.begin() + split, tokens.end())}) {
    const auto logits = decoder.append(part);
    if (!refused(logits))
      for (float v : logits.value()) require(std::isfinite(v));
  }
  const int layer = static_cast<int>(in.byte() % 5) - 1, head = static_cast<int>(in.byte() % 6) - 1;
  const auto weights = attnlab::head_weights(model, layer, head);
  if (!refused(weights))
    require(finite(weights.value().w_q) && finite(weights.value().w_k) &&
            finite(weights.value().w_v));
  const auto scores = attnlab::model_head_scores(model, tokens, in.dimension(8));
  if (!refused(scores))
    for (const auto& row : scores.value())
      for (const auto& s : row)
        require(std::isfinite(s.role_score) && std::isfinite(s.previous_token));

  // The next token from fuzzed logits (raw float32: NaN, infinities, huge spreads).
  std::vector<float> logits(in.dimension(12));
  for (float& v : logits) v = in.number();
  const float temperature = in.number();
  const std::size_t top_k = in.dimension(14);
  const auto distribution = attnlab::next_token_distribution(logits, temperature, top_k);
  if (!refused(distribution)) {
    const auto& p = distribution.value().probabilities;
    for (double x : p) require(std::isfinite(x) && x >= 0.0 && x <= 1.0);
    require(std::fabs(std::accumulate(p.begin(), p.end(), 0.0) - 1.0) <= 1e-6);
    require(distribution.value().token_ids.size() == p.size() && !p.empty());
  }
  const auto drawn = attnlab::sample_token(logits, temperature, top_k, in.byte() / 256.0);
  if (!refused(drawn)) require(drawn.value() >= 0 && std::size_t(drawn.value()) < logits.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  attnlab::fuzz::Reader in(data, size);
  attnlab::ModelConfig config;
  config.vocab = in.dimension(40);
  config.context_length = in.dimension(16);
  config.d_model = in.dimension(16);
  config.layers = static_cast<int>(in.byte() % 4) - 1;
  config.heads = static_cast<int>(in.byte() % 6) - 1;
  const float scale = in.number();
  // The parameters: small enough to run in microseconds under ASan.
  std::vector<float> parameters;
  if (!attnlab::check_model_config(config)) {
    const attnlab::ModelLayout layout(config);
    parameters.resize(layout.total);
    for (std::size_t i = 0; i < parameters.size(); ++i)
      parameters[i] = scale * (static_cast<float>((i * 2654435761u) % 1000) / 500.0f - 1.0f);
  }
  const std::size_t pokes = in.dimension(3);
  for (std::size_t p = 0; p < pokes; ++p) {
    const std::size_t low = in.byte(), at = low | std::size_t{in.byte()} << 8;
    const float value = in.number();
    if (at < parameters.size()) parameters[at] = value;
  }
  if (in.byte() & 1 && !parameters.empty()) parameters.pop_back();  // one value short
  const auto model = attnlab::Model::create(config, parameters);
  if (!refused(model)) check_model(in, model.value());

  // A tokenizer of fuzzed merges (some naming tokens that do not exist yet).
  std::vector<attnlab::Tokenizer::Merge> merges(in.dimension(30));
  for (auto& [left, right] : merges) {
    left = token(in) % 300;
    right = token(in) % 300;
  }
  const auto tokenizer = attnlab::Tokenizer::from_merges(merges);

  // An attention import: each row's weights normalised (or raw with the flag).
  std::vector<std::vector<attnlab::Matrix>> attention(in.dimension(3));
  const std::size_t heads = in.dimension(3), n = in.dimension(6);
  const bool raw = in.byte() & 1;
  for (auto& layer : attention)
    for (std::size_t h = 0; h < heads; ++h) {
      attnlab::Matrix m = in.matrix(n, n);
      for (std::size_t i = 0; !raw && i < n; ++i) {
        float sum = 0;
        for (std::size_t j = 0; j < n; ++j)
          sum += (m(i, j) = std::fabs(std::tanh(m(i, j))) + 0.01f);
        for (std::size_t j = 0; j < n; ++j) m(i, j) /= sum;
      }
      layer.push_back(m);
    }
  const auto imported = attnlab::check_attention_import(attention, n + (raw ? in.byte() % 2 : 0));
  if (!refused(imported))
    for (const auto& layer : imported.value())
      for (const auto& s : layer) require(std::isfinite(s.role_score));

  // The rest of the input is the text: byte-level BPE gives it back exactly.
  if (!refused(tokenizer)) {
    std::string text;
    for (std::uint8_t b = in.byte(); b != 0; b = in.byte()) text.push_back(static_cast<char>(b));
    const std::vector<int> ids = tokenizer.value().encode(text);
    const auto decoded = tokenizer.value().decode(ids);
    require(decoded && decoded.value() == text);
  }
  return 0;
}

// Embind bindings of the model module, attnlab-model: the little language model (model.hpp),
// its tokenizer (tokenizer.hpp) and head scores (head_scores.hpp). A wasm module of its own,
// loaded by lab.loadModel(), so the core's download stays as it is. The conventions of
// bindings.cpp (js_values.hpp): plain results, errors { error: { code, message } }.
#include "attnlab/attention_import.hpp"
#include "attnlab/float16.hpp"
#include "attnlab/head_scores.hpp"
#include "attnlab/model.hpp"
#include "attnlab/tokenizer.hpp"
#include "js_values.hpp"
#include "model_requests.hpp"
#include "model_results.hpp"
#include "schema.hpp"
#include "trace_values.hpp"

namespace attnlab::bindings {
namespace {

// The model and its tokenizer, owned by the wrapper's model object (web/lib/model.js).
struct LoadedModel {
  Model model;
  Tokenizer tokenizer;
};

// { config (model_requests.hpp), weights: Uint16Array (float16), merges: [[left, right], …] },
// the files' shapes and types checked by the wrapper: a LoadedModel, or { error }.
val load_model(const val& request) {
  const ModelConfig c = read_request<ModelConfig>(request["config"], model_entries::load);
  const auto halves = numbers_from_js<std::uint16_t>(request["weights"]);
  std::vector<float> parameters(halves.size());
  for (std::size_t i = 0; i < halves.size(); ++i) parameters[i] = from_float16(halves[i]);
  std::vector<Tokenizer::Merge> merges;
  const val list = request["merges"];
  for (std::size_t i = 0, n = list["length"].as<std::size_t>(); i < n; ++i)
    merges.emplace_back(list[i][0].as<int>(), list[i][1].as<int>());
  auto tokenizer = Tokenizer::from_merges(std::move(merges));
  if (!tokenizer) return val(ErrorValue{tokenizer.error()});
  if (tokenizer.value().vocab() != c.vocab)
    return val(ErrorValue{{ErrorCode::shape_mismatch,
                           "the tokenizer has " + std::to_string(tokenizer.value().vocab()) +
                               " tokens but the model's vocab is " + std::to_string(c.vocab)}});
  auto model = Model::create(c, std::move(parameters));
  if (!model) return val(ErrorValue{model.error()});
  return val(LoadedModel{std::move(model.value()), std::move(tokenizer.value())});
}

// The number of parameters a config needs, or the config's error: what the wrapper checks
// weights.bin against before copying a byte of it into this heap (web/lib/model-files.js).
val parameter_count(const val& config) {
  const ModelConfig c = read_request<ModelConfig>(config, model_entries::load);
  if (auto p = check_model_config(c)) return val(ErrorValue{*p});
  return val(static_cast<double>(ModelLayout(c).total));
}

val tokenize(const LoadedModel& m, const std::string& text) {
  return to_js(attnlab::tokenize(m.tokenizer, text));
}

// A token's bytes (UTF-8 pieces, which may split a character).
val token_bytes(const LoadedModel& m, int token) {
  if (token < 0 || static_cast<std::size_t>(token) >= m.tokenizer.vocab())
    return val(ErrorValue{{ErrorCode::invalid_argument,
                           "token " + std::to_string(token) + " is not in the vocabulary (0 to " +
                               std::to_string(m.tokenizer.vocab() - 1) + ")"}});
  const std::string& bytes = m.tokenizer.bytes(token);
  return to_js(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
}

// Pairs [layer, head, layer, head, …] (Int32Array) as heads.
std::vector<HeadIndex> heads_of(const val& pairs) {
  const auto numbers = numbers_from_js<int>(pairs);
  std::vector<HeadIndex> out;
  for (std::size_t i = 0; i + 1 < numbers.size(); i += 2)
    out.push_back({numbers[i], numbers[i + 1]});
  return out;
}

// The interventions, as the wrapper hands them over once it has checked them: the heads to
// ablate as pairs, the ablation's index in ablation_names, and the replacement (undefined, or
// { family: its name in head_family_names, all, heads: pairs, options: that family's
// replace entry's request }).
AblationOptions ablation_of(const val& heads, int ablation, const val& replace) {
  AblationOptions o;
  o.heads = heads_of(heads);
  o.ablation = ablation == 1 ? Ablation::mean : Ablation::zero;
  if (replace.isUndefined()) return o;
  HeadReplacement& r = o.replace;
  const std::string family = replace["family"].as<std::string>();
  for (std::size_t i = 0; i < std::size(head_family_names); ++i)
    if (family == head_family_names[i]) r.family = static_cast<HeadFamily>(i);
  r.all = replace["all"].as<bool>();
  r.heads = heads_of(replace["heads"]);
  const val options = replace["options"];
  switch (r.family) {
    case HeadFamily::linear:
      r.linear = read_request<LinearAttentionOptions>(options, model_entries::replace_linear);
      break;
    case HeadFamily::retention:
      r.retention = read_request<RetentionOptions>(options, model_entries::replace_retention);
      break;
    case HeadFamily::low_rank:
      r.low_rank = read_request<LowRankOptions>(options, model_entries::replace_low_rank);
      break;
    case HeadFamily::sparse:
      r.sparse = read_request<SparsePatternOptions>(options, model_entries::replace_sparse);
      break;
    case HeadFamily::softmax:
      break;
  }
  return o;
}

// The model's methods, each reading its request (model_requests.hpp).
// forward: without `blocks`, the logits alone cross into JavaScript.
val forward_of(const LoadedModel& m, const val& request, const val& heads, int ablation,
               const val& replace) {
  const auto r = read_request<ModelTokens>(request, model_entries::forward);
  AblationOptions options = ablation_of(heads, ablation, replace);
  options.blocks = r.blocks;
  return to_js(forward(m.model, r.token_ids, options));
}

// The loss of each next token (nats), with the interventions: Float64Array of n − 1.
val token_losses_of(const LoadedModel& m, const val& request, const val& heads, int ablation,
                    const val& replace) {
  return to_js(token_losses(m.model,
                            read_request<ModelTokens>(request, model_entries::forward).token_ids,
                            ablation_of(heads, ablation, replace)));
}

// Attention rollout after each layer: [layer] (n, n).
val rollout_of(const LoadedModel& m, const val& request) {
  return to_js(attention_rollout(
      m.model, read_request<ModelTokens>(request, model_entries::forward).token_ids));
}

val generate_from(const LoadedModel& m, const val& request) {
  const auto r = read_request<GenerateRequest>(request, model_entries::generate);
  return to_js(generate(m.model, r.prompt, r.count, r.sampling));
}

val head_scores_of(const LoadedModel& m, const val& request) {
  const auto r = read_request<ModelTokens>(request, model_entries::head_scores);
  return to_js(model_head_scores(m.model, r.token_ids, r.period));
}

val distribution_of(const LoadedModel&, const val& request) {
  const auto r = read_request<DistributionRequest>(request, model_entries::distribution);
  return to_js(next_token_distribution(r.logits, r.sampling.temperature, r.sampling.top_k));
}

val head_weights_of(const LoadedModel& m, const val& request) {
  const auto r = read_request<HeadAt>(request, model_entries::head_weights);
  return to_js(head_weights(m.model, r.layer, r.head));
}

// The induction probe of head_scores.hpp: `period` random tokens of this vocabulary, twice.
val induction_probe(const LoadedModel& m, const val& request) {
  const auto r = read_request<ProbeRequest>(request, model_entries::probe);
  return to_js(repeated_random_tokens(m.model.config.vocab, r.period, r.seed));
}

// An imported JSON as requests.js reads it (its matrices { rows, cols, data }): every head's
// scores, or { error }.
val check_import(const val& request) {
  const auto r = read_request<AttentionImportRequest>(request, model_entries::imported);
  return to_js(check_attention_import(r.layers, r.tokens.size()));
}

}  // namespace

// The model's requests (model_requests.hpp), which the entry's checks take in once the module
// has loaded (web/lib/model.js).
std::string model_schema() { return schema({model_entries::all}); }

EMSCRIPTEN_BINDINGS(attnlab_model) {
  register_common();
  emscripten::function("schema", &model_schema);
  register_model_results();
  // The one stateful object: the wrapper's model owns it and deletes it.
  emscripten::class_<LoadedModel>("LoadedModel")
      .function("tokenize", &guarded<&tokenize>::call)
      .function("tokenBytes", &guarded<&token_bytes>::call)
      .function("forward", &guarded<&forward_of>::call)
      .function("tokenLosses", &guarded<&token_losses_of>::call)
      .function("rollout", &guarded<&rollout_of>::call)
      .function("generate", &guarded<&generate_from>::call)
      .function("headScores", &guarded<&head_scores_of>::call)
      .function("nextTokenDistribution", &guarded<&distribution_of>::call)
      .function("headWeights", &guarded<&head_weights_of>::call)
      .function("inductionProbe", &guarded<&induction_probe>::call);
  emscripten::function("loadModel", &guarded<&load_model>::call);
  emscripten::function("parameterCount", &guarded<&parameter_count>::call);
  emscripten::function("checkAttention", &guarded<&check_import>::call);
}

}  // namespace attnlab::bindings

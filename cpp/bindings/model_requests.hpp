// The model module's requests (model_bindings.cpp: lab.loadModel() and the model's methods),
// declared as requests.hpp declares the core's: a row a field, read by read_request and
// exported by lab.schema() with the core's entries. A range that depends on the loaded model
// (a token below its vocab, a layer below its layers) is checked against that model.
#pragma once

#include <string_view>

#include "attnlab/model.hpp"
#include "request_reader.hpp"
#include "requests.hpp"  // the families' option rows, which their own entries read too

namespace attnlab::bindings {

#define F ATTNLAB_FIELD

// ---- Request structs of the model's methods ------------------------------------------------

struct ModelTokens {
  std::vector<int> token_ids;
  std::size_t period = 0;  // headScores() only
  bool blocks = true;      // forward() only
};
struct HeadAt {
  int layer = 0, head = 0;
};
struct GenerateRequest {
  std::vector<int> prompt;
  std::size_t count = 0;
  SampleOptions sampling;
};
struct DistributionRequest {
  std::vector<float> logits;
  SampleOptions sampling;
};
// lab.importAttention()'s JSON: a real model's weights, either form read into `layers`.
struct AttentionImportRequest {
  std::vector<std::string> tokens;
  std::vector<std::vector<Matrix>> layers;  // [layer][head]
};
struct ProbeRequest {
  std::size_t period = 0;
  std::uint64_t seed = 1;
};

// ---- Groups ----------------------------------------------------------------------------------

inline constexpr Field model_config_fields[] = {
    F(ModelConfig, vocab, "vocab", "Token ids 0 … vocab − 1.").need(),
    F(ModelConfig, context_length, "contextLength", "The most tokens one forward pass reads.")
        .need(),
    F(ModelConfig, d_model, "dModel", "Width of the residual stream.").need(),
    F(ModelConfig, layers, "layers", "Decoder blocks.").need(),
    F(ModelConfig, heads, "heads", "Heads per block, dividing dModel (d_k = dModel / heads).")
        .need(),
};
inline constexpr Group model_config_group = group<ModelConfig>("ModelConfig", model_config_fields);

inline constexpr Field head_scores_fields[] = {
    F(ModelTokens, token_ids, "tokenIds",
      "Token ids, each below the model's vocab, at most its context length.")
        .need(),
    F(ModelTokens, period, "period",
      "The length of a sequence the tokens repeat (0: none), for the duplicate-token and "
      "induction scores; at most half the context length."),
};
inline constexpr Group head_scores_group =
    group<ModelTokens>("HeadScoresRequest", head_scores_fields);

// forward(): the token ids, and whether every block's numbers are copied out with the logits.
inline constexpr Field forward_fields[] = {
    head_scores_fields[0],
    F(ModelTokens, blocks, "blocks",
      "false: blocks is [] and no head's n × n weights are formed (the flash kernel runs the "
      "heads): the logits alone, faster, equal to the full pass's within float rounding."),
};
inline constexpr Group forward_group = group<ModelTokens>("ForwardRequest", forward_fields);

inline constexpr Field head_at_fields[] = {
    F(HeadAt, layer, "layer", "The block, 0 … layers − 1.").need(),
    F(HeadAt, head, "head", "The head of that block, 0 … heads − 1.").need(),
};
inline constexpr Group head_at_group = group<HeadAt>("HeadAt", head_at_fields);

// forward()'s and loss()'s replace: each family's options as its own entry reads them, less
// what the model sets (causal, the form, the sizes; Linformer has no causal form).
inline constexpr Field replace_linear_fields[] = {linear_fields[0], linear_fields[3],
                                                  linear_fields[4], linear_fields[5]};
inline constexpr Field replace_retention_fields[] = {retention_fields[0]};
inline constexpr Field replace_low_rank_fields[] = {low_rank_fields[1]};
inline constexpr Field replace_sparse_fields[] = {sparse_fields[2], sparse_fields[3],
                                                  sparse_fields[4], sparse_fields[5],
                                                  sparse_fields[6], sparse_fields[7]};
template <std::size_t N>
constexpr bool named(const Field (&fields)[N], std::initializer_list<std::string_view> names) {
  std::size_t i = 0;
  for (std::string_view name : names)
    if (i >= N || fields[i++].name != name) return false;
  return i == N;
}
static_assert(named(replace_linear_fields, {"featureMap", "scale", "features", "seed"}) &&
                  named(replace_retention_fields, {"decay"}) &&
                  named(replace_low_rank_fields, {"rank"}) &&
                  named(replace_sparse_fields,
                        {"window", "globalTokens", "random", "blockSize", "stride", "seed"}),
              "the rows taken from requests.hpp moved: take them by their new places");
inline constexpr Group replace_linear_group =
    group<LinearAttentionOptions>("ReplaceLinear", replace_linear_fields);
inline constexpr Group replace_retention_group =
    group<RetentionOptions>("ReplaceRetention", replace_retention_fields);
inline constexpr Group replace_low_rank_group =
    group<LowRankOptions>("ReplaceLowRank", replace_low_rank_fields);
inline constexpr Group replace_sparse_group =
    group<SparsePatternOptions>("ReplaceSparse", replace_sparse_fields);

inline constexpr Field sample_fields[] = {
    F(SampleOptions, temperature, "temperature",
      "Divides the logits before the softmax; 0 takes the likeliest token."),
    F(SampleOptions, top_k, "topK", "Keeps the k likeliest tokens (0: all), at most the vocab."),
    F(SampleOptions, seed, "seed", "The same seed draws the same tokens everywhere."),
};
inline constexpr Group sample_group = group<SampleOptions>("SampleOptions", sample_fields);

// nextTokenDistribution() draws nothing: no seed.
inline constexpr Field distribution_fields[] = {sample_fields[0], sample_fields[1]};
inline constexpr Group distribution_group =
    group<SampleOptions>("DistributionOptions", distribution_fields);

inline constexpr Field generate_fields[] = {
    F(GenerateRequest, prompt, "prompt", "The token ids to continue.").need(),
    F(GenerateRequest, count, "count",
      "Tokens to generate, 1 … the context length less the prompt's length.")
        .need(),
};
inline constexpr Group generate_group = group<GenerateRequest>("GenerateRequest", generate_fields);

inline constexpr Field logits_fields[] = {
    F(DistributionRequest, logits, "logits", "One row of forward()'s logits: vocab numbers.")
        .need(),
};
inline constexpr Group logits_group = group<DistributionRequest>("LogitsRow", logits_fields);

inline constexpr Field probe_fields[] = {
    F(ProbeRequest, period, "period", "Random tokens drawn, then repeated: 1 … contextLength / 2.")
        .need(),
    F(ProbeRequest, seed, "seed", "The same seed draws the same tokens everywhere."),
};
inline constexpr Group probe_group = group<ProbeRequest>("InductionProbeRequest", probe_fields);

inline constexpr Field import_fields[] = {
    F(AttentionImportRequest, tokens, "tokens", "Each token's text, in order.").need(),
    F(AttentionImportRequest, layers, "attentions",
      "Every layer, as model(…, output_attentions=True) gives it: [layer][batch][head][query]"
      "[key], a batch of one sequence; or attention instead."),
    F(AttentionImportRequest, layers, "attention",
      "One layer: [head][query][key]; or attentions instead.")
        .as(Kind::heads),
};
inline constexpr Group import_group =
    group<AttentionImportRequest>("ImportedAttentionFields", import_fields);

#undef F

// ---- Entries ---------------------------------------------------------------------------------

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Winvalid-offsetof"

namespace model_parts {
inline constexpr Part load[] = {Part{&model_config_group, 0}};
inline constexpr Part forward[] = {Part{&forward_group, 0}};
inline constexpr Part head_scores[] = {Part{&head_scores_group, 0}};
inline constexpr Part head_weights[] = {Part{&head_at_group, 0}};
inline constexpr Part generate[] = {
    Part{&generate_group, 0},
    Part{&sample_group, static_cast<std::uint16_t>(offsetof(GenerateRequest, sampling))}};
inline constexpr Part distribution[] = {
    Part{&logits_group, 0},
    Part{&distribution_group, static_cast<std::uint16_t>(offsetof(DistributionRequest, sampling))}};
inline constexpr Part probe[] = {Part{&probe_group, 0}};
inline constexpr Part imported[] = {Part{&import_group, 0}};
inline constexpr Part replace_linear[] = {Part{&replace_linear_group, 0}};
inline constexpr Part replace_retention[] = {Part{&replace_retention_group, 0}};
inline constexpr Part replace_low_rank[] = {Part{&replace_low_rank_group, 0}};
inline constexpr Part replace_sparse[] = {Part{&replace_sparse_group, 0}};
}  // namespace model_parts

#pragma clang diagnostic pop

// The model's entries, under their JavaScript names (loadModel reads its request's config).
namespace model_entries {
inline constexpr Entry load = entry("loadModel", model_parts::load);
inline constexpr Entry forward = entry("forward", model_parts::forward);
inline constexpr Entry head_scores = entry("headScores", model_parts::head_scores);
inline constexpr Entry head_weights = entry("headWeights", model_parts::head_weights);
inline constexpr Entry generate = entry("generate", model_parts::generate);
inline constexpr Entry distribution = entry("nextTokenDistribution", model_parts::distribution);
inline constexpr Entry probe = entry("inductionProbe", model_parts::probe);
inline constexpr Entry imported = entry("importAttention", model_parts::imported);
// forward()'s replace, one entry a family, named for it (head_family_names).
inline constexpr Entry replace_linear = entry("replaceLinear", model_parts::replace_linear);
inline constexpr Entry replace_retention =
    entry("replaceRetention", model_parts::replace_retention);
inline constexpr Entry replace_low_rank = entry("replaceLowRank", model_parts::replace_low_rank);
inline constexpr Entry replace_sparse = entry("replaceSparse", model_parts::replace_sparse);
inline constexpr const Entry* all[] = {
    &load,  &forward,  &head_scores,    &head_weights,      &generate,         &distribution,
    &probe, &imported, &replace_linear, &replace_retention, &replace_low_rank, &replace_sparse};
}  // namespace model_entries

}  // namespace attnlab::bindings

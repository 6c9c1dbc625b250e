// The core's and the learning module's entry points, each its request's groups (requests.hpp)
// placed in its request struct, under its JavaScript name: what read_request reads and
// lab.schema() exports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "request_reader.hpp"
#include "requests.hpp"

namespace attnlab::bindings {

// ---- Entries: each entry point's request, its groups placed in its request struct ----------

#define ATTNLAB_PART(Struct, member, group) \
  Part { &group##_group, static_cast<std::uint16_t>(offsetof(Struct, member)) }

struct AttentionRequest {
  DirectQKV qkv;
  AttentionGradientInput gradient;
  AttentionOptions options;
};
struct TraceRequest {
  Projections projected;
  DirectQKV direct;
  TraceInput input;
  PermutationOrder order;
};
struct LongRequest {
  DirectQKV qkv;
  LongAttentionOptions options;
  SampledCells cells;
};
struct WalkRequest {
  DirectQKV qkv;
  WalkOptions options;
};
struct LinearAttentionRequest {
  DirectQKV qkv;
  LinearAttentionOptions options;
};
struct RetentionRequest {
  DirectQKV qkv;
  RetentionOptions options;
};
struct LongLinearRequest {
  DirectQKV qkv;
  LongLinearOptions options;
};
struct LongRetentionRequest {
  DirectQKV qkv;
  LongRetentionOptions options;
};
struct LowRankRequest {
  DirectQKV qkv;
  LowRankOptions options;
};

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Winvalid-offsetof"

namespace parts {
inline constexpr Part attention[] = {ATTNLAB_PART(AttentionRequest, qkv, qkv),
                                     ATTNLAB_PART(AttentionRequest, options, attention)};
inline constexpr Part attention_backward[] = {ATTNLAB_PART(AttentionRequest, qkv, qkv),
                                              ATTNLAB_PART(AttentionRequest, gradient, gradient),
                                              ATTNLAB_PART(AttentionRequest, options, attention)};
inline constexpr Part trace[] = {ATTNLAB_PART(TraceRequest, projected, projections),
                                 ATTNLAB_PART(TraceRequest, direct, qkv),
                                 ATTNLAB_PART(TraceRequest, input, trace),
                                 ATTNLAB_PART(TraceRequest, input.options, attention),
                                 ATTNLAB_PART(TraceRequest, input, backward),
                                 ATTNLAB_PART(TraceRequest, input, family)};
inline constexpr Part permutation[] = {
    ATTNLAB_PART(TraceRequest, projected, projections), ATTNLAB_PART(TraceRequest, direct, qkv),
    ATTNLAB_PART(TraceRequest, input, trace), ATTNLAB_PART(TraceRequest, input.options, attention),
    ATTNLAB_PART(TraceRequest, order, order)};
inline constexpr Part decode[] = {
    ATTNLAB_PART(TraceRequest, projected, projections), ATTNLAB_PART(TraceRequest, direct, qkv),
    ATTNLAB_PART(TraceRequest, input, trace), ATTNLAB_PART(TraceRequest, input.options, attention)};
inline constexpr Part long_sequence[] = {
    ATTNLAB_PART(LongRequest, qkv, qkv), ATTNLAB_PART(LongRequest, options, long_sequence),
    ATTNLAB_PART(LongRequest, options, kernel), ATTNLAB_PART(LongRequest, options, score_rules)};
inline constexpr Part sampled[] = {
    ATTNLAB_PART(LongRequest, qkv, qk), ATTNLAB_PART(LongRequest, options, long_sequence),
    ATTNLAB_PART(LongRequest, options, score_rules), ATTNLAB_PART(LongRequest, cells, sampled)};
inline constexpr Part walk[] = {ATTNLAB_PART(WalkRequest, qkv, qkv),
                                ATTNLAB_PART(WalkRequest, options, walk)};
inline constexpr Part linear[] = {ATTNLAB_PART(LinearAttentionRequest, qkv, qkv),
                                  ATTNLAB_PART(LinearAttentionRequest, options, linear)};
inline constexpr Part retention[] = {ATTNLAB_PART(RetentionRequest, qkv, qkv),
                                     ATTNLAB_PART(RetentionRequest, options, retention)};
inline constexpr Part long_linear[] = {ATTNLAB_PART(LongLinearRequest, qkv, qkv),
                                       ATTNLAB_PART(LongLinearRequest, options, long_layout),
                                       ATTNLAB_PART(LongLinearRequest, options, long_linear)};
inline constexpr Part long_retention[] = {
    ATTNLAB_PART(LongRetentionRequest, qkv, qkv),
    ATTNLAB_PART(LongRetentionRequest, options, long_layout),
    ATTNLAB_PART(LongRetentionRequest, options, long_retention)};
inline constexpr Part low_rank[] = {ATTNLAB_PART(LowRankRequest, qkv, qkv),
                                    ATTNLAB_PART(LowRankRequest, options, low_rank)};
inline constexpr Part sparse[] = {Part{&sparse_group, 0}};
inline constexpr Part cache[] = {Part{&cache_group, 0}};
inline constexpr Part sinusoidal[] = {Part{&sinusoidal_group, 0}};
inline constexpr Part softmax[] = {Part{&softmax_group, 0}};
inline constexpr Part tile[] = {Part{&tile_group, 0}};
inline constexpr Part scaling[] = {Part{&scaling_group, 0}};
inline constexpr Part normal[] = {Part{&normal_group, 0}};
inline constexpr Part trainer[] = {Part{&trainer_group, 0}};
inline constexpr Part step[] = {Part{&step_group, 0}};
inline constexpr Part gradient_at[] = {Part{&gradient_at_group, 0}};
}  // namespace parts

#pragma clang diagnostic pop

#undef ATTNLAB_PART

// Every entry point that takes a request, under its JavaScript name.
namespace entries {
inline constexpr Entry attention = entry("attention", parts::attention);
inline constexpr Entry attention_backward = entry("attentionBackward", parts::attention_backward);
inline constexpr Entry trace = entry("trace", parts::trace);
inline constexpr Entry check_gradient = entry("checkGradient", parts::trace);
inline constexpr Entry permutation = entry("permutationCheck", parts::permutation);
inline constexpr Entry decode = entry("decode", parts::decode);
inline constexpr Entry cache = entry("kvCacheBytes", parts::cache);
inline constexpr Entry flash = entry("flashAttention", parts::long_sequence);
inline constexpr Entry naive = entry("naiveAttention", parts::long_sequence);
inline constexpr Entry check_flash = entry("checkFlashAttention", parts::long_sequence);
inline constexpr Entry plan = entry("flashPlan", parts::long_sequence);
inline constexpr Entry sampled = entry("sampledWeights", parts::sampled);
inline constexpr Entry walk = entry("flashWalk", parts::walk);
inline constexpr Entry sinusoidal = entry("sinusoidalEncoding", parts::sinusoidal);
inline constexpr Entry softmax = entry("softmaxBreakdown", parts::softmax);
inline constexpr Entry tile = entry("tilePlan", parts::tile);
inline constexpr Entry scaling = entry("scalingStudy", parts::scaling);
inline constexpr Entry normal = entry("normalMatrix", parts::normal);
inline constexpr Entry trainer = entry("trainer", parts::trainer);
inline constexpr Entry step = entry("step", parts::step);
inline constexpr Entry gradient_at = entry("gradientAt", parts::gradient_at);
inline constexpr Entry linear = entry("linearAttention", parts::linear);
inline constexpr Entry retention = entry("retention", parts::retention);
inline constexpr Entry sparse = entry("sparsePattern", parts::sparse);
inline constexpr Entry low_rank = entry("lowRankAttention", parts::low_rank);
inline constexpr Entry long_linear = entry("longLinearAttention", parts::long_linear);
inline constexpr Entry long_retention = entry("longRetention", parts::long_retention);
inline constexpr const Entry* all[] = {&attention,     &attention_backward,
                                       &trace,         &check_gradient,
                                       &permutation,   &decode,
                                       &cache,         &flash,
                                       &naive,         &check_flash,
                                       &plan,          &sampled,
                                       &walk,          &sinusoidal,
                                       &softmax,       &tile,
                                       &scaling,       &normal,
                                       &trainer,       &step,
                                       &gradient_at,   &linear,
                                       &retention,     &sparse,
                                       &low_rank,      &long_linear,
                                       &long_retention};
}  // namespace entries

// The trace's input from its read request: X, Wq, Wk, Wv (projected) or Q, K, V (direct).
inline TraceInput trace_input(TraceRequest& r, const val& js) {
  if (!js["X"].isUndefined())
    r.input.source = std::move(r.projected);
  else
    r.input.source = std::move(r.direct);
  return std::move(r.input);
}

inline TraceInput trace_input(const val& js, const Entry& entry = entries::trace) {
  TraceRequest r = read_request<TraceRequest>(js, entry);
  return trace_input(r, js);
}

}  // namespace attnlab::bindings

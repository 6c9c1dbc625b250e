// The trace's pieces shared by its sources (trace.cpp, variants.cpp, the backward steps and
// the gradient check): the core's own, not part of the public API.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "attnlab/trace.hpp"
#include "base/validate.hpp"
#include "kernels/attention_checks.hpp"

namespace attnlab::detail {

// trace()'s checks of its input, every size and value, before anything is computed.
validate::Problem check_trace_input(const TraceInput& input);

// The trace's forward steps (trace.cpp), without the groups; group() adds them once every
// step is in. trace() (trace_backward.cpp) appends the backward steps in between.
Result<Trace> forward_steps(const TraceInput& input, const struct FamilySteps* families = nullptr);
void group(Trace& t);

// Q (n_q, heads·d_k), K (n_k, kv_heads·d_k) and V (n_k, kv_heads·d_v) of a checked input,
// with the projection steps recorded in t when the input has X.
struct Qkv {
  Matrix q, k, v;
  std::optional<std::size_t> q_step, k_step, v_step;
};
Result<Qkv> qkv_of(Trace& t, const TraceInput& input);

// The K/V heads of a checked input: kv_heads, or heads when 0.
inline std::size_t kv_heads_of(const TraceInput& input) {
  return static_cast<std::size_t>(input.kv_heads > 0 ? input.kv_heads : input.heads);
}

// The trace's checks of the variants (RoPE, dropout) given the head width d_k.
validate::Problem check_variants(const TraceInput& input, std::size_t d_k);

// What the variants did to one head (variants.cpp), for the trace's steps.
struct HeadVariants {
  std::optional<Rotation> q_rotation, k_rotation;  // RoPE
  Matrix rotated_q, rotated_k;
  std::optional<float> slope;  // ALiBi
  // B, ALiBi's bias plus the given bias, and the (capped) scaled scores plus B (with either)
  Matrix bias, biased;
  std::optional<DropoutCells> dropout;
  Matrix dropped;  // the weights after dropout
};

// Head h's Q (n_q, d_k), K (n_k, d_k) and V (n_k, d_v): its slices (K and V its group's),
// Q and K rotated under RoPE (with their rotations in variants).
struct HeadInputs {
  Matrix q, k, v;
  HeadVariants variants;
};
HeadInputs head_inputs(const TraceInput& input, const Qkv& qkv, std::size_t h);

// A rotation of head_inputs() that overflowed float32, named as the rotated q or k.
validate::Problem rotation_overflowed(const HeadInputs& in);

// Head h through every variant: attention() under the head's rules, then dropout (result.output
// is then the dropped weights times V).
struct HeadRun {
  AttentionResult result;
  HeadVariants variants;
  HeadRules rules;  // the head's (ScoreRules::head of input.options)
};
Result<HeadRun> run_head(const TraceInput& input, const Qkv& qkv, std::size_t h);

// Head h under linear attention or retention: its steps appended to t from the head's Q, K and V
// operands (as trace.cpp names them); the aggregate step's index, the head's output and the
// queries whose weights are zeros (a zero normaliser).
struct HeadOperands {
  Operand q, k, v;
};
struct FamilyHead {
  std::size_t aggregate;
  Matrix output;
  std::vector<std::size_t> zero_rows;
};
// The cheaper attentions' trace (trace_families.cpp): their checks (the rules and variants they
// have no steps for refused by name) and their steps per head. trace() (the learning module)
// hands them to forward_steps; forward_trace() (the core module) does not, so the core links
// without them (its download budget) and refuses a family.
struct FamilySteps {
  validate::Problem (*check)(const TraceInput& input);
  Result<FamilyHead> (*add)(Trace& t, const TraceInput& input, const Qkv& qkv, std::size_t h,
                            std::optional<int> head, HeadOperands ops);
};
const FamilySteps& family_steps();

}  // namespace attnlab::detail

// A flash call's checks and its (batch, head) tasks, shared by the flash and naive kernels, the
// plan of a pass run elsewhere and the sampled weights (internal; flash.cpp, sampled.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "attnlab/flash.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab::flash_tasks {

// The query heads per K/V head of these options (1 without grouped-query attention).
std::size_t group_size(const FlashOptions& o);

// check_flash_attention(); sampled_weights() passes K as V, named "K": no message names a V
// the call does not take. A caller that has already found Q, K and V finite skips that scan.
std::optional<Error> check(const Matrix& q, const Matrix& k, const Matrix& v, const FlashOptions& o,
                           const char* v_name, bool known_finite = false);

// The (batch, head) tasks of a call, with the output they write (when given): query head h
// reads K/V head h / group_size.
std::vector<simd::HeadTask> head_tasks(const Matrix& q, const Matrix& k, const Matrix& v,
                                       const FlashOptions& o, Matrix* out);

// Head h's (n_q, n_k) rows of the bias (row stride n_k), or null without one.
const float* head_bias(const FlashOptions& o, std::size_t n_q, std::size_t h);

// Whether a padding key or a −∞ bias blocks key j for query i (bias: head_bias()'s rows).
bool rule_blocks(const FlashOptions& o, const float* bias, std::size_t n_k, std::size_t i,
                 std::size_t j);

}  // namespace attnlab::flash_tasks

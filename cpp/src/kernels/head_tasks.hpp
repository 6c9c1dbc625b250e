// A flash call's checks and its (batch, head) tasks, shared by the flash and naive kernels, the
// plan of a pass run elsewhere and the sampled weights, and what the two kernels share after
// the call (internal; head_tasks.cpp; used by flash.cpp, naive.cpp, sampled.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "attnlab/flash.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab::flash_tasks {

// The query heads per K/V head of these options (1 without grouped-query attention).
std::size_t group_size(const LongAttentionOptions& o);

// check_flash_attention(); sampled_weights() passes K as V, named "K": no message names a V
// the call does not take. A caller that scans the values itself (the flash kernel) checks all but
// them with `values` false. `kernel` names the caller in shape errors (the long linear kernels
// take the same inputs).
std::optional<Error> check(const Matrix& q, const Matrix& k, const Matrix& v,
                           const LongAttentionOptions& o, const char* v_name, bool values = true,
                           const char* kernel = "the flash kernel");

// The score rules these kernels do not take (the mask, global tokens, a past cache), refused.
std::optional<Error> untaken_rule(const LongAttentionOptions& o);

// The (batch, head) tasks of a call, with the output they write (when given): query head h
// reads K/V head h / group_size.
std::vector<simd::HeadTask> head_tasks(const Matrix& q, const Matrix& k, const Matrix& v,
                                       const LongAttentionOptions& o, Matrix* out);

// The output's width: heads·d_v, V's columns once per query head.
std::size_t output_cols(const Matrix& v, const LongAttentionOptions& o);

// The work of a call (see limits.hpp): its scores and multiply-adds against a kernel's limits.
std::optional<Error> check_work(const char* kernel, const Matrix& q, const Matrix& k,
                                const Matrix& v, const LongAttentionOptions& o,
                                std::uint64_t scores, std::uint64_t multiply_adds);

// The rows of Q (every sequence) that see no key in any of the first `heads` tasks (one
// sequence's heads: the rules are the same for each sequence); clears the no-weight flag 1
// (heads, rows) of each head and row that sees none, when given: its zeros are expected. Flag 2
// (a non-finite output, flash_block.hpp) stays.
std::vector<std::size_t> fully_masked(const std::vector<simd::HeadTask>& list, std::size_t heads,
                                      std::size_t rows, std::vector<std::uint8_t>* no_weight);

// The non-finite error of a call whose no-weight flags (heads, rows) or output say that a
// score or the weighted sum of V overflowed (head_tasks.cpp says why), else nullopt; sets the
// fully masked rows. outputs_flagged: the kernel flagged its non-finite outputs itself.
std::optional<Error> overflow(std::string_view kernel, const Matrix& q, const Matrix& k,
                              const Matrix& v, const Matrix& out,
                              std::vector<std::uint8_t>& no_weight,
                              const std::vector<simd::HeadTask>& list,
                              std::vector<std::size_t>& fully_masked_rows, bool outputs_flagged);

}  // namespace attnlab::flash_tasks

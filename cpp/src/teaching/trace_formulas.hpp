// The TeX formulas of the trace's forward steps and the mask step's cells (trace.cpp): what a
// learner reads above each step, written from the options the step ran with.
#pragma once

#include <cstddef>
#include <string>

#include "attnlab/attention.hpp"
#include "attnlab/trace.hpp"
#include "teaching/trace_steps.hpp"

namespace attnlab::trace_steps {

// S̃ = S / √d_k, or the given scale and the head's temperature.
std::string scale_formula(const Symbols& s, const ScaleFactors& factors);

// S̃_ij ← −∞ where a rule blocks: causal (at the aligned position), padding, the mask, the
// window (both sides), of the head's rules.
std::string mask_formula(const Symbols& s, const HeadRules& rules);

// S̃_ij ← S̃_ij plus ALiBi's −m·|p_i − j| (p_i: query i's key position under the head's
// alignment, as HeadRules::alibi computes it), the given bias B, or both.
std::string bias_formula(const Symbols& s, const HeadRules& rules, bool given_bias);

// C = [O^{(1)} | O^{(2)}], or with many heads [O^{(1)} | ... | O^{(h)}].
std::string concat_formula(std::size_t heads);

// Q or K rotated in pairs by position (RoPE).
std::string rotate_formula(const Symbols& s, const char* base, float rope_base);

// Which cells the head's rules block, and why (mask_rule bits), for the mask step.
MaskCells mask_cells(const HeadRules& rules);

}  // namespace attnlab::trace_steps

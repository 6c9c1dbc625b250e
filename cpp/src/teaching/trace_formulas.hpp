// The TeX formulas of the trace's forward steps and the mask step's cells (trace.cpp): what a
// learner reads above each step, written from the options the step ran with.
#pragma once

#include <cstddef>
#include <string>

#include "attnlab/attention.hpp"
#include "attnlab/trace.hpp"
#include "teaching/trace_steps.hpp"

namespace attnlab::trace_steps {

// S̃ = S / √d_k, or the given scale and temperature.
std::string scale_formula(const Symbols& s, const AttentionOptions& options, std::size_t d_k);

// S̃_ij ← −∞ where a rule blocks: causal (at the aligned position), padding, the mask, the
// window (both sides).
std::string mask_formula(const Symbols& s, const AttentionOptions& options, std::size_t n_q,
                         std::size_t n_k);

// C = [O^{(1)} | O^{(2)}], or with many heads [O^{(1)} | ... | O^{(h)}].
std::string concat_formula(std::size_t heads);

// Q or K rotated in pairs by position (RoPE).
std::string rotate_formula(const Symbols& s, const char* base, float rope_base);

// Which cells the options block, and why (mask_rule bits), for the mask step.
MaskCells mask_cells(const AttentionOptions& options, std::size_t n_q, std::size_t n_k);

}  // namespace attnlab::trace_steps

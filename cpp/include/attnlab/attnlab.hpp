// attnlab's attention API in one include: attention, its trace and backward pass, the flash
// kernels, training. The little language model (model.hpp, tokenizer.hpp, float16.hpp,
// head_scores.hpp, attention_import.hpp, model_training.hpp) has headers of its own.
#pragma once

#include "attnlab/attention.hpp"
#include "attnlab/attention_backward.hpp"
#include "attnlab/error.hpp"
#include "attnlab/favor.hpp"
#include "attnlab/flash.hpp"
#include "attnlab/flash_walk.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/linear_attention.hpp"
#include "attnlab/long_linear.hpp"
#include "attnlab/low_rank.hpp"
#include "attnlab/matrix.hpp"
#include "attnlab/permutation.hpp"
#include "attnlab/positional.hpp"
#include "attnlab/random.hpp"
#include "attnlab/retention.hpp"
#include "attnlab/scaling_study.hpp"
#include "attnlab/softmax_breakdown.hpp"
#include "attnlab/sparse_pattern.hpp"
#include "attnlab/tiling.hpp"
#include "attnlab/trace.hpp"
#include "attnlab/trace_backward.hpp"
#include "attnlab/training.hpp"
#include "attnlab/variants.hpp"

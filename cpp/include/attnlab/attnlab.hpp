// The whole public C++ API of attnlab.
#pragma once

#include "attnlab/attention.hpp"
#include "attnlab/attention_backward.hpp"
#include "attnlab/error.hpp"
#include "attnlab/flash.hpp"
#include "attnlab/flash_walk.hpp"
#include "attnlab/kernels.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/matrix.hpp"
#include "attnlab/permutation.hpp"
#include "attnlab/positional.hpp"
#include "attnlab/random.hpp"
#include "attnlab/scaling_study.hpp"
#include "attnlab/softmax_breakdown.hpp"
#include "attnlab/tiling.hpp"
#include "attnlab/trace.hpp"
#include "attnlab/trace_backward.hpp"

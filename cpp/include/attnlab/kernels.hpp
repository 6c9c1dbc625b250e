// The float32 SIMD kernels (xsimd). Each has a plain scalar twin in reference.hpp,
// and the tests compare the two with an explicit tolerance.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab::kernels {

// out: (m, n) = a: (m, k) · b: (k, n)
Matrix matmul(const Matrix& a, const Matrix& b);

// out: (m, n) = a: (m, k) · b: (k, n), b row-major at `b` (a tensor inside a larger array, read
// where it lies).
Matrix matmul(const Matrix& a, const float* b, std::size_t n);

// out: (m, n) = a: (m, k) · b: (n, k)ᵀ.
Matrix matmul_transposed(const Matrix& a, const Matrix& b);

// sums: (rows) = the sum of each row of x: (rows, cols)
std::vector<float> row_sums(const Matrix& x);

// x *= factor, in place.
void scale(Matrix& x, float factor);

// x = GELU(x) in GPT-2's tanh form, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), in place;
// within 1.2e-7·|x| + float32 rounding of it.
void gelu(Matrix& x);

// Row softmax that subtracts each row's max before exp. Entries equal to -inf (masked)
// get weight 0; a row with no finite entry gets all zeros, max -inf and sum 0.
struct Softmax {
  Matrix exponentials;         // exp(logit - row max): (rows, cols)
  Matrix weights;              // exponentials / row sum: (rows, cols)
  std::vector<float> row_max;  // (rows)
  std::vector<float> row_sum;  // (rows)
};
Softmax softmax_rows(const Matrix& logits);

// The instruction sets the library has kernels for, by xsimd's names, best first. Natively on
// x86-64: "avx512bw" (AVX-512 F, CD, DQ and BW), "fma3+avx2", "sse4.2" and "sse2", picked at run
// time; in wasm only "sse4.1" (SSE4.1 intrinsics that Emscripten maps onto SIMD128).
struct SimdArch {
  std::string name;
  bool available;  // this CPU runs it
};
std::vector<SimdArch> simd_arches();

// The instruction set the kernels run with: the best this CPU runs, unless the environment
// variable ATTNLAB_SIMD_ARCH (read at the first kernel call) or force_simd_arch named another.
const char* simd_arch();

// The most threads one call of the long-sequence kernels uses: the hardware's count natively,
// 1 in the single-threaded wasm build, at most 4 in the wasm build with pthreads.
std::size_t max_threads();

// Runs the kernels with the named instruction set from now on, e.g. to compare them; each
// kernel call takes the set once, at its start. An invalid-argument error, and no change,
// for a name not in simd_arches() or one this CPU lacks.
std::optional<Error> force_simd_arch(std::string_view name);

}  // namespace attnlab::kernels

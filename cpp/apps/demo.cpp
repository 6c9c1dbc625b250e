// Prints the trace of the tiny worked example (Q 2x2, K 3x2, V 3x2), step by step.
#include <cstdio>

#include "attnlab/attnlab.hpp"

namespace {

void print_matrix(const attnlab::Matrix& m) {
  for (std::size_t r = 0; r < m.rows; ++r) {
    std::printf("    ");
    for (std::size_t c = 0; c < m.cols; ++c) std::printf(" %10.6f", m(r, c));
    std::printf("\n");
  }
}

}  // namespace

int main() {
  using attnlab::Matrix;
  attnlab::TraceInput input;
  input.source = attnlab::DirectQKV{
      Matrix::from_rows({{1, 0}, {0, 1}}),
      Matrix::from_rows({{1, 0}, {1, 1}, {0, 1}}),
      Matrix::from_rows({{1, 0}, {0, 2}, {1, 1}}),
  };
  const auto result = attnlab::trace(input);
  if (!result) {
    const auto& e = result.error();
    std::fprintf(stderr, "%s: %s\n", attnlab::to_string(e.code).data(), e.message.c_str());
    return 1;
  }
  std::printf("attnlab: the tiny example, softmax(QK^T / sqrt(d_k)) V  [SIMD: %s]\n\n",
              attnlab::kernels::simd_arch());
  for (const auto& step : result.value().steps) {
    std::printf("%-10s %s  (%zux%zu)\n  %s\n", step.id.c_str(), step.title.c_str(),
                step.values.rows, step.values.cols, step.formula.c_str());
    print_matrix(step.values);
    std::printf("\n");
  }
  return 0;
}

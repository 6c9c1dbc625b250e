// Every error code, each from a real bad input, through attention() and trace(). The code must
// have its stable spelling and the message must name the offending input and its shape.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attnlab/attention.hpp"
#include "attnlab/error.hpp"
#include "attnlab/flash.hpp"
#include "attnlab/limits.hpp"
#include "attnlab/trace.hpp"
#include "test_support.hpp"

namespace {

using attnlab::AttentionOptions;
using attnlab::BoolMatrix;
using attnlab::DirectQKV;
using attnlab::Error;
using attnlab::LongAttentionOptions;
using attnlab::Matrix;
using attnlab::Projections;
using attnlab::TraceInput;

constexpr float not_a_number = std::numeric_limits<float>::quiet_NaN();
constexpr float infinity = std::numeric_limits<float>::infinity();

// A rows x cols matrix of `value`.
Matrix filled(std::size_t rows, std::size_t cols, float value = 0.5f) {
  return Matrix(rows, cols, value);
}

// m with entry (r, c) replaced.
Matrix with_entry(Matrix m, std::size_t r, std::size_t c, float value) {
  m(r, c) = value;
  return m;
}

template <class T>
std::optional<Error> error_of(const attnlab::Result<T>& result) {
  if (result) return std::nullopt;
  return result.error();
}

std::optional<Error> attention_error(const Matrix& q, const Matrix& k, const Matrix& v,
                                     const AttentionOptions& options = {}) {
  return error_of(attnlab::attention(q, k, v, options));
}

// Valid shapes to start from: Q (2x2), K (3x2), V (3x2); X (3x4), W_* (4x2).
const Matrix q_ok = filled(2, 2), k_ok = filled(3, 2), v_ok = filled(3, 2);
const Matrix x_ok = filled(3, 4), w_ok = filled(4, 2);

TraceInput direct(Matrix q = q_ok, Matrix k = k_ok, Matrix v = v_ok) {
  TraceInput input;
  input.source = DirectQKV{std::move(q), std::move(k), std::move(v)};
  return input;
}

TraceInput projected(Matrix x = x_ok, Matrix w_q = w_ok, Matrix w_k = w_ok, Matrix w_v = w_ok) {
  TraceInput input;
  input.source = Projections{std::move(x), std::move(w_q), std::move(w_k), std::move(w_v)};
  return input;
}

// trace(input) after `change` edits it.
template <class Change>
std::optional<Error> trace_error(TraceInput input, Change change) {
  change(input);
  return error_of(attnlab::trace(input));
}
std::optional<Error> trace_error(const TraceInput& input) {
  return trace_error(input, [](TraceInput&) {});
}

AttentionOptions with_options(void (*change)(AttentionOptions&)) {
  AttentionOptions options;
  change(options);
  return options;
}

struct Case {
  std::string what;                   // the bad input
  std::optional<Error> error;         // what the call returned
  std::vector<std::string> mentions;  // fragments the message must contain
};

void check_cases(const std::vector<Case>& cases, std::string_view code) {
  for (const Case& c : cases) {
    INFO(c.what);
    if (!c.error) {
      FAIL_CHECK("the call succeeded instead of failing with " << code);
      continue;
    }
    INFO("message: " << c.error->message);
    CHECK(attnlab::to_string(c.error->code) == code);
    for (const std::string& fragment : c.mentions)
      CHECK_THAT(c.error->message, Catch::Contains(fragment));
  }
}

}  // namespace

TEST_CASE("error codes have their stable spellings", "[errors]") {
  using attnlab::ErrorCode;
  CHECK(attnlab::to_string(ErrorCode::shape_mismatch) == "shape-mismatch");
  CHECK(attnlab::to_string(ErrorCode::non_finite) == "non-finite");
  CHECK(attnlab::to_string(ErrorCode::empty) == "empty");
  CHECK(attnlab::to_string(ErrorCode::too_large) == "too-large");
  CHECK(attnlab::to_string(ErrorCode::invalid_argument) == "invalid-argument");
  CHECK(attnlab::to_string(ErrorCode::out_of_memory) == "out-of-memory");
}

TEST_CASE("the valid inputs the error cases start from succeed", "[errors]") {
  CHECK_FALSE(attention_error(q_ok, k_ok, v_ok));
  CHECK_FALSE(trace_error(direct()));
  CHECK_FALSE(trace_error(projected()));
  CHECK_FALSE(trace_error(projected(), [](TraceInput& in) {
    in.heads = 2;
    in.w_o = filled(2, 3);
    in.positional = attnlab::PositionalEncoding::sinusoidal;
  }));
}

TEST_CASE("shape-mismatch: inputs that disagree on a dimension", "[errors]") {
  const auto bad_mask = [](AttentionOptions& o) { o.mask = BoolMatrix(3, 3, 1); };
  const auto bad_padding = [](AttentionOptions& o) { o.key_padding = {false, true}; };
  check_cases(
      {
          {"attention: Q and K widths differ",
           attention_error(filled(2, 3), k_ok, v_ok),
           {"Q (2×3)", "K (3×2)"}},
          {"attention: K and V rows differ",
           attention_error(q_ok, k_ok, filled(4, 2)),
           {"K (3×2)", "V (4×2)"}},
          {"attention: mask 3×3 for 2 queries and 3 keys",
           attention_error(q_ok, k_ok, v_ok, with_options(bad_mask)),
           {"mask (3×3)", "2×3", "Q (2×2)", "K (3×2)"}},
          {"attention: 2 key padding flags for 3 keys",
           attention_error(q_ok, k_ok, v_ok, with_options(bad_padding)),
           {"key padding", "2 flags", "K (3×2)"}},
          {"trace: Q and K widths differ",
           trace_error(direct(filled(2, 3))),
           {"Q (2×3)", "K (3×2)"}},
          {"trace: K and V rows differ",
           trace_error(direct(q_ok, k_ok, filled(4, 2))),
           {"K (3×2)", "V (4×2)"}},
          {"trace: mask 3×3 for 2 queries and 3 keys",
           trace_error(direct(), [&](TraceInput& in) { bad_mask(in.options); }),
           {"mask (3×3)", "2×3"}},
          {"trace: 2 key padding flags for 3 keys",
           trace_error(direct(), [&](TraceInput& in) { bad_padding(in.options); }),
           {"key padding", "K (3×2)"}},
          {"trace: X has 4 columns, W_Q 5 rows",
           trace_error(projected(x_ok, filled(5, 2))),
           {"X (3×4)", "Wq (5×2)"}},
          {"trace: X has 4 columns, W_K 3 rows",
           trace_error(projected(x_ok, w_ok, filled(3, 2))),
           {"X (3×4)", "Wk (3×2)"}},
          {"trace: X has 4 columns, W_V 6 rows",
           trace_error(projected(x_ok, w_ok, w_ok, filled(6, 2))),
           {"X (3×4)", "Wv (6×2)"}},
          {"trace: W_Q and W_K widths differ",
           trace_error(projected(x_ok, w_ok, filled(4, 3))),
           {"Wq (4×2)", "Wk (4×3)"}},
          {"trace: W_O rows differ from V columns",
           trace_error(direct(), [](TraceInput& in) { in.w_o = filled(3, 5); }),
           {"Wo (3×5)", "V (3×2)"}},
          {"trace: W_O rows differ from W_V columns",
           trace_error(projected(), [](TraceInput& in) { in.w_o = filled(3, 5); }),
           {"Wo (3×5)", "Wv (4×2)"}},
      },
      "shape-mismatch");
}

// Regression: trace() once sliced d_k = Q.cols / heads columns out of K without comparing the
// widths of Q and K, so a wider K was silently cut and a narrower K read out of bounds.
TEST_CASE("shape-mismatch: trace() checks the widths of Q and K for any head count", "[errors]") {
  const int heads = GENERATE(1, 2);
  const std::size_t q_width = 4 * static_cast<std::size_t>(heads);
  const std::size_t k_width = GENERATE_COPY(q_width + 2, q_width - 2);  // wider, narrower
  CAPTURE(heads, q_width, k_width);
  const std::string q_shape = "Q (2×" + std::to_string(q_width) + ")";
  const std::string k_shape = "K (3×" + std::to_string(k_width) + ")";
  check_cases({{"trace: " + q_shape + " and " + k_shape,
                trace_error(direct(filled(2, q_width), filled(3, k_width), filled(3, q_width)),
                            [&](TraceInput& in) { in.heads = heads; }),
                {q_shape, k_shape}}},
              "shape-mismatch");
}

TEST_CASE("non-finite: NaN or Infinity in an input", "[errors]") {
  const float bad = GENERATE(as<float>{}, not_a_number, infinity, -infinity);
  CAPTURE(bad);
  const Matrix q_bad = with_entry(q_ok, 1, 0, bad);
  const Matrix k_bad = with_entry(k_ok, 2, 1, bad);
  const Matrix v_bad = with_entry(v_ok, 0, 1, bad);
  const Matrix x_bad = with_entry(x_ok, 1, 3, bad);
  const Matrix w_bad = with_entry(w_ok, 3, 0, bad);
  check_cases(
      {
          {"attention: Q", attention_error(q_bad, k_ok, v_ok), {"Q (2×2)", "row 2, column 1"}},
          {"attention: K", attention_error(q_ok, k_bad, v_ok), {"K (3×2)", "row 3, column 2"}},
          {"attention: V", attention_error(q_ok, k_ok, v_bad), {"V (3×2)", "row 1, column 2"}},
          {"trace: Q", trace_error(direct(q_bad)), {"Q (2×2)"}},
          {"trace: K", trace_error(direct(q_ok, k_bad)), {"K (3×2)"}},
          {"trace: V", trace_error(direct(q_ok, k_ok, v_bad)), {"V (3×2)"}},
          {"trace: X", trace_error(projected(x_bad)), {"X (3×4)", "row 2, column 4"}},
          {"trace: W_Q", trace_error(projected(x_ok, w_bad)), {"Wq (4×2)"}},
          {"trace: W_K", trace_error(projected(x_ok, w_ok, w_bad)), {"Wk (4×2)"}},
          {"trace: W_V", trace_error(projected(x_ok, w_ok, w_ok, w_bad)), {"Wv (4×2)"}},
          {"trace: W_O",
           trace_error(projected(),
                       [&](TraceInput& in) { in.w_o = with_entry(filled(2, 3), 1, 2, bad); }),
           {"Wo (2×3)"}},
      },
      "non-finite");
}

TEST_CASE("non-finite: finite inputs whose products overflow float32", "[errors]") {
  const Matrix huge_q = filled(2, 2, 1e20f), huge_k = filled(3, 2, 1e20f);
  const Matrix big_q = filled(2, 2, 1e5f), big_k = filled(3, 2, 1e5f);
  AttentionOptions large_scale;
  large_scale.scale = 1e30f;  // scores of 2e10 scale to 2e40
  const auto huge_weights = [](TraceInput& in) {
    auto& p = std::get<Projections>(in.source);
    p.x = filled(3, 4, 1e20f);
    p.w_q = p.w_k = p.w_v = filled(4, 2, 1e20f);
  };
  check_cases(
      {
          {"attention: Q·Kᵀ with entries 1e20",
           attention_error(huge_q, huge_k, v_ok),
           {"scores", "Q·Kᵀ", "2×3", "too large for float32"}},
          {"attention: scores 2e10 times scale 1e30",
           attention_error(big_q, big_k, v_ok, large_scale),
           {"scaled scores", "2×3"}},
          {"trace: Q·Kᵀ with entries 1e20", trace_error(direct(huge_q, huge_k)), {"Q·Kᵀ", "2×3"}},
          {"trace: X·W_Q with entries 1e20",
           trace_error(projected(), huge_weights),
           {"Q = X·Wq", "3×2"}},
          {"trace: the output projection of values 1e20 by W_O 1e20",
           trace_error(direct(q_ok, k_ok, filled(3, 2, 1e20f)),
                       [](TraceInput& in) { in.w_o = filled(2, 2, 1e20f); }),
           {"output-projection", "2×2"}},
      },
      "non-finite");
}

TEST_CASE("non-finite: the long-sequence kernels report overflow as attention() does", "[errors]") {
  // Scores of 2e40 (+), of -2e40 for every key (a row that looks masked), and values whose
  // weighted sum exceeds float32 (3e38 + 3e38 over two equal weights, in float accumulation).
  const Matrix huge_q = filled(2, 2, 1e20f), huge_k = filled(3, 2, 1e20f);
  const Matrix negative_k = filled(3, 2, -1e20f);
  const Matrix near_max_v = filled(3, 2, 3e38f);
  // Key 1's score is +1e40, but its first partial sum, -1e40, is -Infinity in float32 (the
  // long-sequence fuzzer's find): the kernels left key 1 out instead of reporting it.
  const Matrix passing_k = Matrix::from_rows({{1, 1}, {-1e20f, 2e20f}, {1, 1}});
  for (const bool causal : {false, true}) {
    CAPTURE(causal);
    LongAttentionOptions options;
    options.causal = causal;
    options.threads = 1;
    const auto flash = [&](const Matrix& q, const Matrix& k, const Matrix& v) {
      return error_of(attnlab::flash_attention(q, k, v, options));
    };
    const auto naive = [&](const Matrix& q, const Matrix& k, const Matrix& v) {
      return error_of(attnlab::naive_attention(q, k, v, options));
    };
    const auto sampled = [&](const Matrix& q, const Matrix& k) {
      return error_of(attnlab::sampled_weights(q, k, {0, 1}, {0, 1, 2}, 0, options));
    };
    check_cases(
        {
            {"flash: scores +2e40",
             flash(huge_q, huge_k, v_ok),
             {"flash kernel", "float32", "Q (2×2)", "K (3×2)"}},
            {"flash: every score -2e40",
             flash(huge_q, negative_k, v_ok),
             {"flash kernel", "row 1"}},
            {"flash: values summing past float32", flash(q_ok, k_ok, near_max_v), {"V (3×2)"}},
            {"naive: scores +2e40", naive(huge_q, huge_k, v_ok), {"naive kernel", "float32"}},
            {"naive: every score -2e40",
             naive(huge_q, negative_k, v_ok),
             {"naive kernel", "row 1"}},
            {"sampled weights: scores +2e40",
             sampled(huge_q, huge_k),
             {"sampled weights", "float32"}},
            {"sampled weights: every score -2e40",
             sampled(huge_q, negative_k),
             {"sampled weights", "row 1"}},
            {"flash: a partial sum past -3.4e38", flash(huge_q, passing_k, v_ok), {"float32"}},
            {"naive: a partial sum past -3.4e38", naive(huge_q, passing_k, v_ok), {"float32"}},
            {"sampled weights: a partial sum past -3.4e38",
             sampled(huge_q, passing_k),
             {"float32"}},
        },
        "non-finite");
  }
}

TEST_CASE("row totals of a trace stay finite where float32 values sum past its limit", "[errors]") {
  // V rows of 3e38: the output rows are 3e38 each (weights ½, ½), their totals 6e38.
  const auto trace =
      attnlab::trace(direct(filled(1, 2, 0.0f), filled(2, 2, 0.0f), filled(2, 2, 3e38f)));
  REQUIRE(trace);
  for (const auto& step : trace.value().steps)
    for (const double total : step.row_totals) {
      CAPTURE(step.id);
      CHECK(std::isfinite(total));
    }
}

TEST_CASE("empty: a matrix with no rows or no columns", "[errors]") {
  check_cases(
      {
          {"attention: Q 0×2", attention_error(filled(0, 2), k_ok, v_ok), {"Q (0×2)"}},
          {"attention: Q 0×0", attention_error(Matrix{}, k_ok, v_ok), {"Q (0×0)"}},
          {"attention: K 0×2", attention_error(q_ok, filled(0, 2), filled(0, 2)), {"K (0×2)"}},
          {"attention: V 3×0", attention_error(q_ok, k_ok, filled(3, 0)), {"V (3×0)"}},
          {"trace: Q 2×0", trace_error(direct(filled(2, 0), filled(3, 0))), {"Q (2×0)"}},
          {"trace: V 0×2", trace_error(direct(q_ok, k_ok, filled(0, 2))), {"V (0×2)"}},
          {"trace: X 0×4", trace_error(projected(filled(0, 4))), {"X (0×4)"}},
          {"trace: W_Q 4×0", trace_error(projected(x_ok, filled(4, 0))), {"Wq (4×0)"}},
          {"trace: W_O 0×0",
           trace_error(direct(), [](TraceInput& in) { in.w_o = Matrix{}; }),
           {"Wo (0×0)"}},
      },
      "empty");
}

TEST_CASE("too-large: beyond the documented limits", "[errors]") {
  constexpr std::size_t tokens = attnlab::limits::trace_tokens + 1;      // 513
  constexpr std::size_t features = attnlab::limits::trace_features + 1;  // 513
  constexpr std::size_t big = attnlab::limits::attention_tokens + 1;     // 513
  static_assert(attnlab::limits::attention_features + 1 == big);
  // 65 tokens x 64 heads of width 1: 65 · 65 · 64 = 270,400 scores, above trace_scores.
  static_assert(65 * 65 * 64 > attnlab::limits::trace_scores);
  const auto sixty_four_heads = [](TraceInput& in) { in.heads = 64; };
  const std::vector<std::size_t> rows_33(attnlab::limits::sampled_rows + 1, 0);
  const std::vector<std::size_t> cols_4097(attnlab::limits::sampled_cols + 1, 0);
  check_cases(
      {
          {"trace: X with 513 tokens",
           trace_error(projected(filled(tokens, 4))),
           {"X (513×4)", "512"}},
          {"trace: X with 513 features",
           trace_error(projected(filled(3, features), filled(features, 2), filled(features, 2),
                                 filled(features, 2))),
           {"X (3×513)", "512"}},
          {"trace: W_Q with 513 columns",
           trace_error(projected(x_ok, filled(4, features))),
           {"Wq (4×513)"}},
          {"trace: Q with 513 tokens", trace_error(direct(filled(tokens, 2))), {"Q (513×2)"}},
          {"trace: K and V with 513 tokens",
           trace_error(direct(q_ok, filled(tokens, 2), filled(tokens, 2))),
           {"K (513×2)"}},
          {"trace: W_O with 513 columns",
           trace_error(direct(), [](TraceInput& in) { in.w_o = filled(2, features); }),
           {"Wo (2×513)"}},
          {"trace: scores over 64 heads",
           trace_error(direct(filled(65, 64), filled(65, 64), filled(65, 64)), sixty_four_heads),
           {"270400 scores", "65 queries x 65 keys x 64 heads", "262144"}},
          {"attention: Q with 513 tokens",
           attention_error(filled(big, 1), filled(3, 1), filled(3, 1)),
           {"Q (513×1)", "512"}},
          {"attention: K and V with 513 tokens",
           attention_error(filled(2, 1), filled(big, 1), filled(big, 1)),
           {"K (513×1)"}},
          {"attention: V with 513 features",
           attention_error(filled(2, 1), filled(3, 1), filled(3, big)),
           {"V (3×513)"}},
          // 4097 x 4096 = 16,781,312 values, above flash_values.
          {"flash: Q with more values than flash_values",
           error_of(attnlab::flash_attention(filled(4097, 4096), filled(1, 4096), filled(1, 1))),
           {"Q (4097×4096)", "16777216 values"}},
          {"sampled weights: 33 rows",
           error_of(attnlab::sampled_weights(q_ok, k_ok, rows_33, {0}, 0)),
           {"rows lists 33 indices", "32"}},
          {"sampled weights: 4097 columns",
           error_of(attnlab::sampled_weights(q_ok, k_ok, {0}, cols_4097, 0)),
           {"cols lists 4097 indices", "4096"}},
      },
      "too-large");
}

// The long-sequence kernels' work limits hold where a call runs on a page's thread: the wasm
// build. The native library runs these kernels on every core without them.
TEST_CASE("too-large: the work of the long-sequence kernels in wasm", "[errors]") {
  if constexpr (!attnlab::limits::bounded_work) return;
  const auto flash = [](const Matrix& q, const Matrix& k, const Matrix& v) {
    return error_of(attnlab::flash_attention(q, k, v));
  };
  const auto naive = [](const Matrix& q, const Matrix& k, const Matrix& v) {
    return error_of(attnlab::naive_attention(q, k, v));
  };
  // 17 x 1,048,576 scores, above flash_scores (2^24); 2,897 x 2,896 above naive_scores (2^23);
  // 4,096² x (129 + 129) multiply-adds above flash's 2^32, 2,048² x 258 above naive's 2^30.
  const Matrix long_k = filled(std::size_t{1} << 20, 1);
  const Matrix wide = filled(4096, 129), half_wide = filled(2048, 129);
  check_cases({{"flash: scores", flash(filled(17, 1), long_k, long_k), {"17825792 scores"}},
               {"naive: scores",
                naive(filled(2897, 1), filled(2896, 1), filled(2896, 1)),
                {"8389712 scores", "8388608"}},
               {"flash: multiply-adds", flash(wide, wide, wide), {"multiply-adds", "4294967296"}},
               {"naive: multiply-adds",
                naive(half_wide, half_wide, half_wide),
                {"multiply-adds", "1073741824"}}},
              "too-large");
  // The check for a backend that computes elsewhere (WebGPU) leaves the work limits out.
  CHECK_FALSE(attnlab::check_flash_attention(filled(17, 1), long_k, long_k));
}

TEST_CASE("too-large: the limits themselves are allowed", "[errors]") {
  constexpr std::size_t tokens = attnlab::limits::trace_tokens;
  CHECK_FALSE(trace_error(projected(filled(tokens, 4, 0.01f))));
  // 64 tokens x 64 heads: 262,144 scores, trace_scores itself.
  CHECK_FALSE(trace_error(direct(filled(64, 64), filled(64, 64), filled(64, 64)),
                          [](TraceInput& in) { in.heads = 64; }));
  CHECK_FALSE(attention_error(filled(2, 1), filled(attnlab::limits::attention_tokens, 1),
                              filled(attnlab::limits::attention_tokens, 1)));
}

TEST_CASE("invalid-argument: heads", "[errors]") {
  const int heads = GENERATE(0, -1, attnlab::limits::max_heads + 1);
  CAPTURE(heads);
  const std::string got = "got " + std::to_string(heads);
  check_cases({{"trace, direct",
                trace_error(direct(), [&](TraceInput& in) { in.heads = heads; }),
                {"heads", got}},
               {"trace, projections",
                trace_error(projected(), [&](TraceInput& in) { in.heads = heads; }),
                {"heads", got}}},
              "invalid-argument");
}

TEST_CASE("invalid-argument: heads that do not divide the width", "[errors]") {
  const auto three_heads = [](TraceInput& in) { in.heads = 3; };
  check_cases(
      {
          {"Q (2×4) into 3 heads",
           trace_error(direct(filled(2, 4), filled(3, 4), filled(3, 6)), three_heads),
           {"3 heads", "Q (2×4)"}},
          {"V (3×4) into 3 heads",
           trace_error(direct(filled(2, 6), filled(3, 6), filled(3, 4)), three_heads),
           {"3 heads", "V (3×4)"}},
          {"W_Q (4×4) into 3 heads",
           trace_error(projected(x_ok, filled(4, 4), filled(4, 4), filled(4, 6)), three_heads),
           {"3 heads", "Wq (4×4)"}},
          {"W_V (4×5) into 3 heads",
           trace_error(projected(x_ok, filled(4, 6), filled(4, 6), filled(4, 5)), three_heads),
           {"3 heads", "Wv (4×5)"}},
      },
      "invalid-argument");
}

TEST_CASE("invalid-argument: scale and temperature must be finite and above 0", "[errors]") {
  const float bad = GENERATE(0.0f, -1.0f, not_a_number, infinity);
  CAPTURE(bad);
  AttentionOptions bad_scale, bad_temperature;
  bad_scale.scale = bad;
  bad_temperature.temperature = bad;
  check_cases(
      {
          {"attention: scale", attention_error(q_ok, k_ok, v_ok, bad_scale), {"scale"}},
          {"attention: temperature",
           attention_error(q_ok, k_ok, v_ok, bad_temperature),
           {"temperature"}},
          {"trace: scale",
           trace_error(direct(), [&](TraceInput& in) { in.options = bad_scale; }),
           {"scale"}},
          {"trace: temperature",
           trace_error(projected(), [&](TraceInput& in) { in.options = bad_temperature; }),
           {"temperature"}},
      },
      "invalid-argument");
}

TEST_CASE("messages quote a number as it was written, not as %f prints it", "[errors]") {
  // The float nearest each literal, and the text the caller wrote.
  const auto [value, written] = GENERATE(table<float, const char*>({{0.0f, "0"},
                                                                    {-0.1f, "-0.1"},
                                                                    {-2.5f, "-2.5"},
                                                                    {-1e-7f, "-1e-7"},
                                                                    {-3e+30f, "-3e+30"},
                                                                    {-123456.7f, "-123456.7"},
                                                                    {-0.3f, "-0.3"},
                                                                    {-1.0f / 3, "-0.33333334"},
                                                                    {-16777216.0f, "-16777216"}}));
  CAPTURE(written);
  AttentionOptions options;
  options.temperature = value;
  const auto error = attention_error(q_ok, k_ok, v_ok, options);
  REQUIRE(error);
  CHECK_THAT(error->message, Catch::Matchers::EndsWith(std::string("got ") + written));
}

TEST_CASE("invalid-argument: a scale / temperature ratio beyond float32", "[errors]") {
  AttentionOptions options;
  options.scale = 1e30f;
  options.temperature = 1e-10f;  // each valid alone, 1e40 together
  check_cases({{"attention", attention_error(q_ok, k_ok, v_ok, options), {"scale / temperature"}}},
              "invalid-argument");
}

TEST_CASE("invalid-argument: positional encoding without X", "[errors]") {
  check_cases({{"sinusoidal with Q, K and V given directly",
                trace_error(direct(),
                            [](TraceInput& in) {
                              in.positional = attnlab::PositionalEncoding::sinusoidal;
                            }),
                {"positional"}}},
              "invalid-argument");
}

TEST_CASE("error_codes lists every code once, each with its own spelling", "[errors]") {
  const std::vector<std::string> want{"shape-mismatch", "non-finite",       "empty",
                                      "too-large",      "invalid-argument", "out-of-memory"};
  std::vector<std::string> got;
  for (attnlab::ErrorCode code : attnlab::error_codes) got.emplace_back(attnlab::to_string(code));
  CHECK(got == want);
  // The enumerators are 0 … n−1 in order, so the list is the whole enum.
  for (std::size_t i = 0; i < attnlab::error_codes.size(); ++i)
    CHECK(static_cast<std::size_t>(attnlab::error_codes[i]) == i);
}

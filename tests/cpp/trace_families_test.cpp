// trace() with family 'linear' and 'retention': the steps in order, each head the family's
// own entry (linear_attention(), retention()) on its slices, and the state, normaliser and
// output against float64 references written here from the papers' formulas.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/kernels.hpp"
#include "attnlab/linear_attention.hpp"
#include "attnlab/retention.hpp"
#include "attnlab/trace.hpp"
#include "test_support.hpp"

namespace attnlab::test {
namespace {

using Doubles = BasicMatrix<double>;

Matrix columns(const Matrix& m, std::size_t first, std::size_t count) {
  Matrix out(m.rows, count);
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t c = 0; c < count; ++c) out(r, c) = m(r, first + c);
  return out;
}

std::vector<const TraceStep*> steps_of(const Trace& t, const std::string& id) {
  std::vector<const TraceStep*> out;
  for (const TraceStep& s : t.steps)
    if (s.id == id) out.push_back(&s);
  return out;
}

// elu(x) + 1 in float64.
double elu1(double x) { return x > 0 ? x + 1 : std::exp(x); }

// φ(K)ᵀV, z_i and o_i = Σ_j φ(q_i)ᵀφ(k_j) v_j / z_i (keys j ≤ i when causal), in float64.
struct LinearReference {
  Doubles state, normalizer, output;
};
LinearReference linear_reference(const Matrix& q, const Matrix& k, const Matrix& v, bool causal) {
  LinearReference r{Doubles(k.cols, v.cols), Doubles(q.rows, 1), Doubles(q.rows, v.cols)};
  for (std::size_t j = 0; j < k.rows; ++j)
    for (std::size_t a = 0; a < k.cols; ++a)
      for (std::size_t b = 0; b < v.cols; ++b) r.state(a, b) += elu1(k(j, a)) * v(j, b);
  for (std::size_t i = 0; i < q.rows; ++i) {
    for (std::size_t j = 0; j < k.rows && (!causal || j <= i); ++j) {
      double kernel = 0;
      for (std::size_t a = 0; a < q.cols; ++a) kernel += elu1(q(i, a)) * elu1(k(j, a));
      r.normalizer(i, 0) += kernel;
      for (std::size_t b = 0; b < v.cols; ++b) r.output(i, b) += kernel * v(j, b);
    }
    for (std::size_t b = 0; b < v.cols; ++b) r.output(i, b) /= r.normalizer(i, 0);
  }
  return r;
}

TEST_CASE("trace with family linear: the steps, linearAttention's numbers, float64 references",
          "[trace-families]") {
  const bool causal = GENERATE(false, true);
  INFO("causal " << causal);
  const std::size_t heads = 2, n = 5, d_k = 3, d_v = 2;
  TraceInput input;
  input.source = random_qkv(n, n, heads * d_k, heads * d_v, 71);
  input.heads = heads;
  input.family = TraceFamily::linear;
  input.options.causal = causal;
  input.w_o = random_matrix(heads * d_v, 3, 75);
  const Trace t = ok(trace(input));
  std::vector<std::string> groups;
  for (const auto& g : t.groups) groups.push_back(g.id);
  CHECK(groups == std::vector<std::string>{"feature-q", "feature-k", "kv-state", "normalizer",
                                           "implied-weights", "aggregate", "concat",
                                           "output-projection"});
  const auto& qkv = std::get<DirectQKV>(input.source);
  for (std::size_t h = 0; h < heads; ++h) {
    INFO("head " << h);
    const Matrix q = columns(qkv.q, h * d_k, d_k), k = columns(qkv.k, h * d_k, d_k),
                 v = columns(qkv.v, h * d_v, d_v);
    LinearAttentionOptions options;
    options.causal = causal;
    const LinearAttentionResult want = ok(linear_attention(q, k, v, options));
    CHECK(max_abs_diff(steps_of(t, "feature-q")[h]->values, want.feature_q) <= 1e-5);
    CHECK(max_abs_diff(steps_of(t, "feature-k")[h]->values, want.feature_k) <= 1e-5);
    CHECK(max_abs_diff(steps_of(t, "implied-weights")[h]->values, *want.weights) <= 1e-5);
    CHECK(max_abs_diff(steps_of(t, "aggregate")[h]->values, want.output) <= 1e-5);
    const LinearReference ref = linear_reference(q, k, v, causal);
    CHECK(max_abs_diff(steps_of(t, "kv-state")[h]->values, ref.state) <= 1e-5);
    CHECK(relative_error(steps_of(t, "normalizer")[h]->values, ref.normalizer) <= 1e-5);
    CHECK(max_abs_diff(steps_of(t, "aggregate")[h]->values, ref.output) <= 1e-5);
    // Every weight row sums to 1 (the normaliser's point); causal: zeros above the diagonal.
    const Matrix& w = steps_of(t, "implied-weights")[h]->values;
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(std::abs(row_sum(w, i) - 1.0) <= 1e-5);
      for (std::size_t j = i + 1; causal && j < n; ++j) CHECK(w(i, j) == 0.0f);
    }
    CHECK(steps_of(t, "aggregate")[h]->head == static_cast<int>(h));
  }
}

TEST_CASE("trace with family linear takes X and the projections, and favor's m and seed",
          "[trace-families]") {
  TraceInput input = random_tokens(4, 6, 4, 4, 81);
  input.family = TraceFamily::linear;
  input.feature_map = FeatureMap::favor;
  input.features = 32;
  input.seed = 9;
  const Trace t = ok(trace(input));
  CHECK(t.groups.front().id == "project-q");
  const TraceStep& fq = *steps_of(t, "feature-q")[0];
  CHECK(fq.values.cols == 32);  // m features
  const auto& p = std::get<Projections>(input.source);
  LinearAttentionOptions options;
  options.feature_map = FeatureMap::favor;
  options.features = 32;
  options.seed = 9;
  const Matrix q = t.steps[0].values, k = t.steps[1].values, v = t.steps[2].values;
  CHECK(max_abs_diff(q, kernels::matmul(p.x, p.w_q)) == 0.0);
  const LinearAttentionResult want = ok(linear_attention(q, k, v, options));
  CHECK(max_abs_diff(t.output, want.output) <= 1e-5);
}

TEST_CASE("trace with family retention: D, the state and the output against float64",
          "[trace-families]") {
  const std::size_t n = 6, d_k = 3, d_v = 2;
  TraceInput input;
  input.source = random_qkv(n, n, d_k, d_v, 91);
  input.family = TraceFamily::retention;
  input.decay = 0.75f;
  const Trace t = ok(trace(input));
  std::vector<std::string> groups;
  for (const auto& g : t.groups) groups.push_back(g.id);
  CHECK(groups == std::vector<std::string>{"decay", "kv-state", "implied-weights", "aggregate"});
  const auto& [q, k, v] = std::get<DirectQKV>(input.source);
  Doubles state(d_k, d_v), output(n, d_v), d(n, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      d(i, j) = std::pow(0.75, double(i - j));
      double score = 0;
      for (std::size_t a = 0; a < d_k; ++a) score += double(q(i, a)) * k(j, a);
      for (std::size_t b = 0; b < d_v; ++b) output(i, b) += score * d(i, j) * v(j, b);
    }
  for (std::size_t j = 0; j < n; ++j)  // S_n = Σ_j γ^(n−1−j) k_jᵀv_j
    for (std::size_t a = 0; a < d_k; ++a)
      for (std::size_t b = 0; b < d_v; ++b)
        state(a, b) += std::pow(0.75, double(n - 1 - j)) * k(j, a) * v(j, b);
  CHECK(max_abs_diff(steps_of(t, "decay")[0]->values, d) <= 1e-6);
  CHECK(max_abs_diff(steps_of(t, "kv-state")[0]->values, state) <= 1e-5);
  CHECK(max_abs_diff(t.output, output) <= 1e-5);
  RetentionOptions options;
  options.decay = 0.75f;
  const RetentionResult want = ok(retention(q, k, v, options));
  CHECK(max_abs_diff(steps_of(t, "implied-weights")[0]->values, *want.weights) <= 1e-5);
}

// φ of one row x (the step's operand row times its factor), in float64 from the step's parts.
std::vector<double> features_of(const FamilyParts& f, const Trace& t, const float* input,
                                std::size_t d) {
  std::vector<double> x(d), out;
  double half = 0;
  for (std::size_t a = 0; a < d; ++a) {
    x[a] = double(*f.factor) * input[a];
    half += x[a] * x[a] / 2;
  }
  if (f.feature_map != FeatureMap::favor) {
    for (double value : x)
      out.push_back(f.feature_map == FeatureMap::relu ? std::max(value, 0.0) : elu1(value));
    return out;
  }
  const Matrix& w = *t.random_features;
  for (std::size_t l = 0; l < w.rows; ++l) {
    double dot = 0;
    for (std::size_t a = 0; a < d; ++a) dot += double(w(l, a)) * x[a];
    out.push_back(std::exp(dot - half) / std::sqrt(double(w.rows)));
  }
  return out;
}

TEST_CASE("trace's family steps carry what recomputes them: φ, its factor and W, γ, causal",
          "[trace-families]") {
  const FeatureMap map = GENERATE(FeatureMap::elu, FeatureMap::relu, FeatureMap::favor);
  const bool causal = GENERATE(false, true);
  INFO("map " << int(map) << ", causal " << causal);
  TraceInput input;
  input.source = random_qkv(4, 4, 6, 4, 111);
  input.heads = 2;
  input.family = TraceFamily::linear;
  input.feature_map = map;
  input.options.causal = causal;
  input.options.scale = 0.7f;
  if (map == FeatureMap::favor) input.features = 5;
  const Trace t = ok(trace(input));
  for (const char* id : {"feature-q", "feature-k"})
    for (const TraceStep* s : steps_of(t, id)) {
      INFO(id << ", head " << s->head.value_or(0));
      REQUIRE(s->family);
      const FamilyParts& f = *s->family;
      CHECK(f.feature_map == map);
      // elu and relu scale Q only; favor takes √scale on both sides.
      const bool query = std::string(id) == "feature-q";
      const float want_factor = map == FeatureMap::favor ? std::sqrt(0.7f) : (query ? 0.7f : 1.0f);
      CHECK(f.factor == want_factor);
      CHECK(t.random_features.has_value() == (map == FeatureMap::favor));
      const Matrix& operand = operand_values(t, s->operands.at(0));
      for (std::size_t r = 0; r < operand.rows; ++r) {
        const std::vector<double> want = features_of(f, t, operand.row(r), operand.cols);
        REQUIRE(want.size() == s->values.cols);
        for (std::size_t c = 0; c < want.size(); ++c)
          CHECK(std::abs(s->values(r, c) - want[c]) <= 1e-5 * std::max(1.0, std::abs(want[c])));
      }
    }
  for (const char* id : {"normalizer", "implied-weights"})
    for (const TraceStep* s : steps_of(t, id)) CHECK(s->family->causal == std::optional(causal));
  for (const TraceStep& s : t.steps)
    if (s.id != "normalizer" && s.id != "implied-weights")
      CHECK_FALSE((s.family && s.family->causal));

  TraceInput retention_input;
  retention_input.source = random_qkv(3, 3, 2, 2, 113);
  retention_input.family = TraceFamily::retention;
  retention_input.decay = 0.8f;
  const Trace r = ok(trace(retention_input));
  for (const char* id : {"decay", "kv-state"}) CHECK(steps_of(r, id)[0]->family->decay == 0.8f);
  CHECK_FALSE(steps_of(r, "implied-weights")[0]->family);
  CHECK_FALSE(r.random_features);
}

TEST_CASE("trace's families refuse what they have no steps for, by name", "[trace-families]") {
  TraceInput input;
  input.source = random_qkv(3, 3, 2, 2, 101);
  const auto message = [&](TraceInput in) {
    auto r = trace(in);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::invalid_argument);
    return r.error().message;
  };
  TraceInput linear = input;
  linear.family = TraceFamily::linear;
  TraceInput alibi = linear;
  alibi.options.alibi = true;
  CHECK_THAT(message(alibi), Catch::Contains("alibi"));
  TraceInput backward = linear;
  backward.d_output = Matrix(3, 2, 1.0f);
  CHECK_THAT(message(backward), Catch::Contains("dOutput"));
  TraceInput retention_input = input;
  retention_input.family = TraceFamily::retention;
  CHECK_THAT(message(retention_input), Catch::Contains("decay"));  // required
  TraceInput softmax = input;
  softmax.decay = 0.5f;
  CHECK_THAT(message(softmax), Catch::Contains("decay"));
  // forward_trace() (the core module) has no families' steps: it says where they are.
  auto forward = forward_trace(linear);
  REQUIRE_FALSE(forward);
  CHECK_THAT(forward.error().message, Catch::Contains("family"));
  // The default family is softmax: none of the families' steps.
  for (const TraceStep& s : ok(trace(input)).steps)
    CHECK((s.id != "feature-q" && s.id != "kv-state" && s.id != "implied-weights"));
}

}  // namespace
}  // namespace attnlab::test

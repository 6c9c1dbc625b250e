// Linear attention and retention over long sequences (long_linear.hpp): one (sequence, head) per
// item on the worker pool, each walking its tokens a chunk at a time with the SIMD table's
// matmul, dots and axpy (simd_kernels.hpp, xsimd per instruction set).
#include "attnlab/long_linear.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

#include "attnlab/limits.hpp"
#include "attnlab/retention.hpp"
#include "base/parallel.hpp"
#include "base/validate.hpp"
#include "kernels/head_tasks.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab {
namespace {

constexpr std::size_t default_chunk = 64;

// One call's rule for a token: linear attention's φ and normaliser, or retention's decay.
struct Rule {
  bool retention = false;
  FeatureMap map = FeatureMap::elu;
  float scale = 1.0f;
  bool causal = true;
  std::size_t chunk = default_chunk;
  std::vector<float> powers;  // retention: γ^m, m = 0 … chunk
};

// One (sequence, head): its slices of Q, K, V and the output, with their row strides.
struct Task {
  const float *q, *k, *v;
  float* out;
  std::size_t ld_q, ld_k, ld_v, ld_out, n_q, n_k, d, d_v, first_row;
};

// A worker's chunk buffers and the state it carries; `zero_rows` collects rows of Q whose
// normaliser is 0 in some head.
struct Buffers {
  std::vector<float> fq, fk, fkt, vc, a, num, state, z;
  std::vector<std::size_t> zero_rows;
  void reset(const Task& t, std::size_t chunk) {
    fq.assign(chunk * t.d, 0.0f);
    fk.assign(chunk * t.d, 0.0f);
    fkt.assign(t.d * chunk, 0.0f);
    vc.assign(chunk * t.d_v, 0.0f);
    a.assign(chunk * chunk, 0.0f);
    num.assign(chunk * t.d_v, 0.0f);
    state.assign(t.d * t.d_v, 0.0f);
    z.assign(t.d, 0.0f);
  }
};

// The features (or, for retention, the rows) of `count` rows from `first`: (count, d).
void feature_rows(const float* x, std::size_t ld, std::size_t first, std::size_t count,
                  std::size_t d, float factor, FeatureMap map, float* out) {
  for (std::size_t r = 0; r < count; ++r)
    for (std::size_t a = 0; a < d; ++a)
      out[r * d + a] = feature_value(factor * x[(first + r) * ld + a], map);
}

void copy_rows(const float* x, std::size_t ld, std::size_t first, std::size_t count,
               std::size_t width, float* out) {
  for (std::size_t r = 0; r < count; ++r) std::copy_n(x + (first + r) * ld, width, out + r * width);
}

// S += Σ_r w_r · k_rᵀ v_r over a chunk's L rows (k: (L, d) in b.fk, v in b.vc): through Kᵀ,
// (d, L), as one matmul; weights w_r are 1 or retention's γ^(L−1−r).
void add_to_state(const simd::Kernels& simd, const Task& t, std::size_t count, const float* weights,
                  Buffers& b) {
  for (std::size_t r = 0; r < count; ++r)
    for (std::size_t a = 0; a < t.d; ++a)
      b.fkt[a * count + r] =
          weights ? b.fk[r * t.d + a] * weights[count - 1 - r] : b.fk[r * t.d + a];
  simd.matmul(b.fkt.data(), b.vc.data(), b.state.data(), t.d, count, t.d_v);
}

// Writes output rows [first, first + count) from b.num over the normalisers `den` (linear
// attention) or as they are (retention, den null).
void write_rows(const Task& t, std::size_t first, std::size_t count, const float* den, Buffers& b) {
  for (std::size_t r = 0; r < count; ++r) {
    float* out = t.out + (first + r) * t.ld_out;
    const float* num = b.num.data() + r * t.d_v;
    if (!den) {
      std::copy_n(num, t.d_v, out);
    } else if (den[r] == 0.0f) {  // no weight to share out: zeros, listed
      std::fill_n(out, t.d_v, 0.0f);
      b.zero_rows.push_back(t.first_row + first + r);
    } else {
      const float inverse = 1.0f / den[r];
      for (std::size_t c = 0; c < t.d_v; ++c) out[c] = num[c] * inverse;
    }
  }
}

// Non-causal linear attention: S = φ(K)ᵀV and z = Σφ(k_j) once, then o_i = φ(q_i)ᵀS / φ(q_i)ᵀz.
void linear_whole(const simd::Kernels& simd, const Rule& rule, const Task& t, Buffers& b) {
  const std::size_t c = rule.chunk;
  for (std::size_t c0 = 0; c0 < t.n_k; c0 += c) {
    const std::size_t count = std::min(c, t.n_k - c0);
    feature_rows(t.k, t.ld_k, c0, count, t.d, 1.0f, rule.map, b.fk.data());
    copy_rows(t.v, t.ld_v, c0, count, t.d_v, b.vc.data());
    add_to_state(simd, t, count, nullptr, b);
    for (std::size_t r = 0; r < count; ++r) simd.axpy(1.0f, b.fk.data() + r * t.d, b.z.data(), t.d);
  }
  std::vector<float> den(c);
  for (std::size_t c0 = 0; c0 < t.n_q; c0 += c) {
    const std::size_t count = std::min(c, t.n_q - c0);
    feature_rows(t.q, t.ld_q, c0, count, t.d, rule.scale, rule.map, b.fq.data());
    std::fill_n(b.num.data(), count * t.d_v, 0.0f);
    simd.matmul(b.fq.data(), b.state.data(), b.num.data(), count, t.d, t.d_v);
    for (std::size_t r = 0; r < count; ++r)
      den[r] = simd.dot(b.fq.data() + r * t.d, b.z.data(), t.d);
    write_rows(t, c0, count, den.data(), b);
  }
}

// Causal, chunk by chunk: the masked product inside the chunk, then the state carried in from
// the chunks before (linear attention: S, z; retention: S decayed, γ^(r+1) for row r).
void causal_chunks(const simd::Kernels& simd, const Rule& rule, const Task& t, Buffers& b) {
  const std::size_t c = rule.chunk;
  const float* powers = rule.retention ? rule.powers.data() : nullptr;
  std::vector<float> den(c);
  for (std::size_t c0 = 0; c0 < t.n_q; c0 += c) {
    const std::size_t count = std::min(c, t.n_q - c0);
    if (rule.retention) {
      copy_rows(t.q, t.ld_q, c0, count, t.d, b.fq.data());
      copy_rows(t.k, t.ld_k, c0, count, t.d, b.fk.data());
    } else {
      feature_rows(t.q, t.ld_q, c0, count, t.d, rule.scale, rule.map, b.fq.data());
      feature_rows(t.k, t.ld_k, c0, count, t.d, 1.0f, rule.map, b.fk.data());
    }
    copy_rows(t.v, t.ld_v, c0, count, t.d_v, b.vc.data());
    // A = φ(Q_c)·φ(K_c)ᵀ (retention: Q_c·K_cᵀ ⊙ γ^(r−s)), zero above the diagonal: (count, count).
    for (std::size_t r = 0; r < count; ++r) {
      float* row = b.a.data() + r * count;
      simd.dots(b.fq.data() + r * t.d, b.fk.data(), t.d, r + 1, t.d, row);
      if (powers)
        for (std::size_t s = 0; s <= r; ++s) row[s] *= powers[r - s];
      std::fill(row + r + 1, row + count, 0.0f);
      if (!powers) den[r] = simd.sum(row, r + 1) + simd.dot(b.fq.data() + r * t.d, b.z.data(), t.d);
    }
    std::fill_n(b.num.data(), count * t.d_v, 0.0f);
    simd.matmul(b.a.data(), b.vc.data(), b.num.data(), count, count, t.d_v);
    if (powers)  // the state reaches row r through r + 1 decays
      for (std::size_t r = 0; r < count; ++r) simd.scale(b.fq.data() + r * t.d, t.d, powers[r + 1]);
    simd.matmul(b.fq.data(), b.state.data(), b.num.data(), count, t.d, t.d_v);
    write_rows(t, c0, count, powers ? nullptr : den.data(), b);
    // Carry the chunk into the state: S ← γ^count·S + Σ_s γ^(count−1−s) k_sᵀv_s (γ = 1: a sum).
    if (powers && powers[1] != 1.0f) simd.scale(b.state.data(), b.state.size(), powers[count]);
    add_to_state(simd, t, count, powers, b);
    if (!powers)
      for (std::size_t r = 0; r < count; ++r)
        simd.axpy(1.0f, b.fk.data() + r * t.d, b.z.data(), t.d);
  }
}

std::optional<Error> check(const Matrix& q, const Matrix& k, const Matrix& v, const LongLayout& o,
                           bool causal, const char* kernel) {
  LongAttentionOptions
      layout;  // the flash kernel's checks of shapes, heads, kvHeads, batch, values
  layout.heads = o.heads;
  layout.kv_heads = o.kv_heads;
  layout.batch = o.batch;
  if (auto e = flash_tasks::check(q, k, v, layout, "V", true, kernel)) return e;
  if (causal && q.rows != k.rows)
    return validate::formatted(ErrorCode::shape_mismatch,
                               "%s reads query t after key t: Q (%zu rows) and K (%zu rows) need "
                               "the same number of rows",
                               kernel, q.rows, k.rows);
  if (auto p = validate::count_within("chunk", o.chunk == 0 ? default_chunk : o.chunk, 1,
                                      limits::long_chunk))
    return *p;
  const std::uint64_t chunk = o.chunk == 0 ? default_chunk : o.chunk;
  const std::uint64_t d = q.cols / static_cast<std::size_t>(o.heads);
  const std::uint64_t d_v = flash_tasks::output_cols(v, layout) / static_cast<std::size_t>(o.heads);
  const std::uint64_t work =
      std::uint64_t(o.heads) * std::max(q.rows, k.rows) * (chunk * (d + d_v) + 2 * d * d_v);
  if (work > limits::long_linear_multiply_adds)
    return validate::formatted(ErrorCode::too_large,
                               "%s: %llu multiply-adds, more than the %llu allowed here: use fewer "
                               "tokens or heads",
                               kernel, static_cast<unsigned long long>(work),
                               static_cast<unsigned long long>(limits::long_linear_multiply_adds));
  return std::nullopt;
}

Result<LongLinearResult> run(const Matrix& q, const Matrix& k, const Matrix& v, const LongLayout& o,
                             const Rule& rule, const char* kernel) {
  LongAttentionOptions layout;
  layout.heads = o.heads;
  layout.kv_heads = o.kv_heads;
  layout.batch = o.batch;
  const auto heads = static_cast<std::size_t>(o.heads);
  const std::size_t group = flash_tasks::group_size(layout);
  const std::size_t d = q.cols / heads, d_v = v.cols / (heads / group);
  const std::size_t n_q = q.rows / o.batch, n_k = k.rows / o.batch;
  LongLinearResult result{Matrix(q.rows, heads * d_v), {}};
  std::vector<Task> tasks;
  for (std::size_t s = 0; s < o.batch; ++s)
    for (std::size_t h = 0; h < heads; ++h)
      tasks.push_back(Task{q.row(s * n_q) + h * d, k.row(s * n_k) + h / group * d,
                           v.row(s * n_k) + h / group * d_v, result.output.row(s * n_q) + h * d_v,
                           q.cols, k.cols, v.cols, result.output.cols, n_q, n_k, d, d_v, s * n_q});
  const std::size_t threads = resolve_threads(o.threads);
  std::vector<Buffers> buffers(workers_for(tasks.size(), threads));
  std::atomic<bool> state_finite{true};
  const simd::Kernels& simd = simd::active();
  parallel_for(tasks.size(), threads, [&](std::size_t item, std::size_t worker) {
    Buffers& b = buffers[worker];
    b.reset(tasks[item], rule.chunk);
    if (rule.causal)
      causal_chunks(simd, rule, tasks[item], b);
    else
      linear_whole(simd, rule, tasks[item], b);
    if (!simd.all_finite(b.state.data(), b.state.size()) ||
        !simd.all_finite(b.z.data(), b.z.size()))
      state_finite.store(false, std::memory_order_relaxed);
  });
  if (!state_finite.load() ||
      !simd.all_finite(result.output.data.data(), result.output.data.size()))
    return validate::formatted(ErrorCode::non_finite,
                               "%s: a head's state or output passed float32 (±3.4e38); scale the "
                               "inputs down",
                               kernel);
  for (const Buffers& b : buffers)
    result.zero_normalizer_rows.insert(result.zero_normalizer_rows.end(), b.zero_rows.begin(),
                                       b.zero_rows.end());
  std::sort(result.zero_normalizer_rows.begin(), result.zero_normalizer_rows.end());
  result.zero_normalizer_rows.erase(
      std::unique(result.zero_normalizer_rows.begin(), result.zero_normalizer_rows.end()),
      result.zero_normalizer_rows.end());
  return result;
}

}  // namespace

Result<LongLinearResult> long_linear_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                               const LongLinearOptions& o) {
  constexpr const char* kernel = "long linear attention";
  if (auto e = check(q, k, v, o, o.causal, kernel)) return *e;
  if (o.feature_map == FeatureMap::favor)
    return Error{
        ErrorCode::invalid_argument,
        "featureMap: the long kernel takes 'elu' or 'relu' ('favor' is linearAttention's)"};
  if (o.scale)
    if (auto p = validate::positive_finite("scale", *o.scale)) return *p;
  Rule rule;
  rule.map = o.feature_map;
  rule.scale = o.scale.value_or(1.0f);
  rule.causal = o.causal;
  rule.chunk = o.chunk == 0 ? default_chunk : o.chunk;
  return run(q, k, v, o, rule, kernel);
}

Result<LongLinearResult> long_retention(const Matrix& q, const Matrix& k, const Matrix& v,
                                        const LongRetentionOptions& o) {
  constexpr const char* kernel = "long retention";
  if (auto e = check(q, k, v, o, true, kernel)) return *e;
  if (auto e = check_decay(o.decay)) return *e;
  Rule rule;
  rule.retention = true;
  rule.chunk = o.chunk == 0 ? default_chunk : o.chunk;
  for (double p : decay_powers(*o.decay, rule.chunk + 1)) rule.powers.push_back(float(p));
  return run(q, k, v, o, rule, kernel);
}

}  // namespace attnlab

// Span-level SIMD primitives shared by the kernels (internal), for one xsimd architecture.
// Each is written once against xsimd::batch<float, Arch>: a vector loop over full batches,
// then a scalar tail for the last (n mod lanes) elements. Only simd_arch.cpp includes this.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "kernels/gelu_form.hpp"
#include "kernels/simd_kernels.hpp"

namespace attnlab::simd {

template <class Arch>
struct Spans {
  using Batch = xsimd::batch<float, Arch>;
  static constexpr std::size_t lanes = Batch::size;

  // x · y + z in one rounding. xsimd 8.1 has no fused multiply-add for AVX-512: its generic
  // one is a product and a sum (the build bans contraction, see cpp/CMakeLists.txt), twice the
  // instructions and a second rounding, so AVX-512 takes the intrinsic. Wasm's SIMD128 has no
  // fused form: there this is mul + add too.
  static Batch fma(Batch x, Batch y, Batch z) {
#if XSIMD_WITH_AVX512F
    if constexpr (std::is_base_of_v<xsimd::avx512f, Arch>)
      return Batch(_mm512_fmadd_ps(x, y, z));
    else
#endif
      return xsimd::fma(x, y, z);
  }

  // sum(a[i] * b[i]) for i < n
  static float dot(const float* a, const float* b, std::size_t n) {
    Batch acc(0.0f);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes)
      acc = fma(Batch::load_unaligned(a + i), Batch::load_unaligned(b + i), acc);
    float sum = xsimd::hadd(acc);
    for (; i < n; ++i) sum += a[i] * b[i];
    return sum;
  }

  // y[i] += alpha * x[i] for i < n
  static void axpy(float alpha, const float* x, float* y, std::size_t n) {
    const Batch a(alpha);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes)
      fma(a, Batch::load_unaligned(x + i), Batch::load_unaligned(y + i)).store_unaligned(y + i);
    for (; i < n; ++i) y[i] += alpha * x[i];
  }

  // x[i] *= factor for i < n
  static void scale(float* x, std::size_t n, float factor) {
    const Batch f(factor);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) (Batch::load_unaligned(x + i) * f).store_unaligned(x + i);
    for (; i < n; ++i) x[i] *= factor;
  }

  static float sum(const float* x, std::size_t n) {
    Batch acc(0.0f);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) acc += Batch::load_unaligned(x + i);
    float total = xsimd::hadd(acc);
    for (; i < n; ++i) total += x[i];
    return total;
  }

  static float max_of(const float* x, std::size_t n) {
    Batch acc(minus_infinity);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) acc = xsimd::max(acc, Batch::load_unaligned(x + i));
    float parts[lanes];
    acc.store_unaligned(parts);
    float max = minus_infinity;
    for (float part : parts) max = std::max(max, part);
    for (; i < n; ++i) max = std::max(max, x[i]);
    return max;
  }

  // The largest |value| of the (rows, cols) block x, rows ld apart, or NaN where one is not
  // finite (tested as all_finite does: a NaN's max would be lost). Given `to`, it also copies the
  // block there, rows `width` apart, zeros from cols to width: the flash kernel scans K and V as
  // it gathers them, in one pass (a copy, then a scan of the copy, read each value twice). A
  // head's rows lie a row of all heads apart, each on a page of its own: it asks for the row four
  // ahead meanwhile (Zen 3, AVX2, n = 256, d = 128, 8 heads: its share of the call 7.2% -> 5.4%).
  // Out of line: inlined into FlashBlock::pack_values as well, it cost the wasm core 270 B.
  [[gnu::noinline]] static float max_abs(const float* x, std::size_t rows, std::size_t cols,
                                         std::size_t ld, float* to, std::size_t width) {
    Batch most(0.0f), bits(0.0f);
    float rest = 0.0f;
    bool finite = true;
    for (std::size_t r = 0; r < rows; ++r, x += ld) {
      if (r + 4 < rows) prefetch_row(x + 4 * ld, cols);
      std::size_t c = 0;
      for (; c + lanes <= cols; c += lanes) {
        const Batch b = Batch::load_unaligned(x + c);
        bits = bits | (b - b);
        most = xsimd::max(most, xsimd::abs(b));
        if (to) b.store_unaligned(to + c);
      }
      for (; c < cols; ++c) {
        finite = finite && std::isfinite(x[c]);
        rest = std::max(rest, std::fabs(x[c]));
        if (to) to[c] = x[c];
      }
      if (!to) continue;
      std::fill(to + cols, to + width, 0.0f);
      to += width;
    }
    if (!finite || !xsimd::all(bits == Batch(0.0f))) return std::numeric_limits<float>::quiet_NaN();
    float parts[lanes];
    most.store_unaligned(parts);
    for (const float part : parts) rest = std::max(rest, part);
    return rest;
  }

  // Whether every x[i] is finite, for i < n: x - x is +0 (no bit set) for a finite x and NaN for
  // ±Infinity or NaN, whose bits the or keeps; no branch per batch. An or, not a sum: a chain of
  // additions made each batch wait for the last one's.
  static bool all_finite(const float* x, std::size_t n) {
    Batch bits(0.0f);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      const Batch b = Batch::load_unaligned(x + i);
      bits = bits | (b - b);
    }
    bool finite = xsimd::all(bits == Batch(0.0f));
    for (; i < n; ++i) finite = finite && std::isfinite(x[i]);
    return finite;
  }

  // Whether some x[i] is -Infinity, for i < n.
  static bool any_minus_infinity(const float* x, std::size_t n) {
    const Batch low(minus_infinity);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes)
      if (xsimd::any(Batch::load_unaligned(x + i) == low)) return true;
    return std::find(x + i, x + n, minus_infinity) != x + n;
  }

  // exp(x) for the x <= 0 of a softmax (scores less their max), within 1.2e-7 relative like
  // xsimd::exp, from operations that every instruction set has, wasm's SIMD128 included
  // (xsimd::exp's float-to-int conversions and blends cost several wasm instructions each,
  // and it was 43% of the flash kernel's time there). Cephes' polynomial on [-ln 2/2, ln 2/2]
  // times 2^n, n = round(x / ln 2) read from the low bits of x / ln 2 + 1.5 · 2^23. Below
  // -87.33, where exp leaves float32's normal range, it returns 0; NaN stays NaN.
  static Batch exp_nonpositive(Batch x) {
    using Ints = xsimd::batch<std::int32_t, Arch>;
    const Batch magic(12582912.0f);  // 1.5 · 2^23
    const Batch shifted = fma(x, Batch(1.44269504088896341f), magic);
    const Batch n = shifted - magic;
    Batch r = fma(n, Batch(-0.693359375f), x);  // x - n · ln 2, ln 2 in two parts
    r = fma(n, Batch(2.12194440e-4f), r);
    Batch p(1.9875691500e-4f);
    for (const float c :
         {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f})
      p = fma(p, r, Batch(c));
    p = fma(p, r * r, r + Batch(1.0f));
    const Ints exponent = xsimd::bitwise_cast<Ints>(shifted) - xsimd::bitwise_cast<Ints>(magic);
    const Batch power = xsimd::bitwise_cast<Batch>((exponent + Ints(127)) << 23);  // 2^n
    return xsimd::select(x < Batch(-87.33654f), Batch(0.0f), p * power);
  }

  // 2^x for the x <= 0 of a softmax in base 2 (the flash kernel's, log2(e) in its scale),
  // within 2.1e-7 relative (1.7e-7 where the multiply-adds are fused). Base 2 makes the reduction
  // r = x - round(x) exact, where base e splits ln 2 in two parts; exp2_reduced() gives 2^r, and
  // the result is 2^r times 2^n (n = round(x)). NaN stays NaN.
  //
  // AVX-512 has an instruction for each part: vreduceps gives r and vscalefps multiplies by 2^n
  // (9 operations where the portable form takes 11). A mask makes every result below float32's
  // normal range (x under -126) 0: vscalefps's subnormal results, and those it rounds to 0, took
  // Intel's microcode assists, 11-28x the time (docs/long-sequences.md). The portable form, from
  // operations that every instruction set has, finds 2^n's biased exponent n + 127 in the low bits
  // of x + 1.5 · 2^23 + 127 and shifts it into place (what lies above shifts out); x is held at
  // -127 or above, where the biased exponent is 0 and the product exactly 0, so below -126 it
  // returns 0 or, down to -126.5, a subnormal (the max keeps its second operand's NaN).
  static Batch exp2_nonpositive(Batch x) {
#if XSIMD_WITH_AVX512DQ
    if constexpr (std::is_base_of_v<xsimd::avx512dq, Arch>) {
      const Batch r(_mm512_reduce_ps(x, 0));  // x - round(x), ties to even as the sum below
      const __mmask16 normal = _mm512_cmp_ps_mask(x, Batch(-126.0f), _CMP_NLT_UQ);  // NaN too
      return Batch(_mm512_maskz_scalef_ps(normal, exp2_reduced(r), x - r));
    }
#endif
    using Ints = xsimd::batch<std::int32_t, Arch>;
    const Batch magic(12583039.0f);  // 1.5 · 2^23 + 127
    x = xsimd::max(Batch(-127.0f), x);
    const Batch shifted = x + magic;
    const Batch r = x - (shifted - magic);
    return exp2_reduced(r) * xsimd::bitwise_cast<Batch>(xsimd::bitwise_cast<Ints>(shifted) << 23);
  }

  // 2^r for r in [-1/2, 1/2]: a polynomial of degree 5 whose constant term is exactly 1
  // (scripts/fit-exp2.py fits it to 2^r's relative error, 9.1e-8 in float64; degree 6 took one
  // more multiply-add, 1/8 of the softmax's time on Zen 4, for 1e-7 less error).
  static Batch exp2_reduced(Batch r) {
    Batch p(1.32647273e-3f);
    for (const float c : {9.67151299e-3f, 5.55073358e-2f, 2.40222424e-1f, 6.93147004e-1f, 1.0f})
      p = fma(p, r, Batch(c));
    return p;
  }

  // x[i] = GELU(x[i]) for i < n, in GPT-2's tanh form (gelu_form.hpp), with
  // tanh(|z|) = (1 − e) / (1 + e) and e = exp(−2|z|) from exp_nonpositive: libm's scalar tanhf
  // was a third of the model's forward pass. Its error in tanh is under 2.4e-7 absolute, so
  // under 1.2e-7·|u| in the GELU.
  static void gelu(float* x, std::size_t n) {
    const Batch c(static_cast<float>(gelu_form::sqrt_2_over_pi)),
        cubic(static_cast<float>(gelu_form::cubic)), half(0.5f), one(1.0f);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      const Batch u = Batch::load_unaligned(x + i);
      const Batch z = c * fma(cubic * u, u * u, u);
      const Batch e = exp_nonpositive(Batch(-2.0f) * xsimd::abs(z));
      const Batch t = xsimd::copysign((one - e) / (one + e), z);
      (half * u * (one + t)).store_unaligned(x + i);
    }
    for (; i < n; ++i) {
      const float u = x[i];
      x[i] = 0.5f * u * (1.0f + std::tanh(gelu_form::inner(u)));
    }
  }

  // out[i] = exp(x[i] - shift) for a shift >= every x[i] (their max); returns the sum of out.
  static float exp_shifted(const float* x, float shift, float* out, std::size_t n) {
    const Batch s(shift);
    Batch acc(0.0f);
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      const Batch e = exp_nonpositive(Batch::load_unaligned(x + i) - s);
      e.store_unaligned(out + i);
      acc += e;
    }
    float sum = xsimd::hadd(acc);
    for (; i < n; ++i) {
      out[i] = std::exp(x[i] - shift);
      sum += out[i];
    }
    return sum;
  }
};

}  // namespace attnlab::simd

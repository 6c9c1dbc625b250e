#include "base/validate.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <utility>

#include "kernels/simd_kernels.hpp"

namespace attnlab::validate {
namespace {

std::string described(std::string_view name, const Matrix& m) {
  return std::string(name) + " (" + shape_string(m) + ")";
}

std::string describe_value(float v) {
  if (std::isnan(v)) return "NaN";
  return v > 0 ? "Infinity" : "-Infinity";
}

Problem outside(std::string_view name, bool below, const std::string& got, std::size_t lo,
                std::size_t hi, ErrorCode above) {
  return Error{below ? ErrorCode::invalid_argument : above,
               std::string(name) + " must be a whole number from " + std::to_string(lo) + " to " +
                   std::to_string(hi) + ", got " + got};
}

// 10^e by repeated multiplication: exact up to 10^22, and all number_text needs (std::pow
// would link ~2 KB of wasm for this one use).
double power_of_ten(int e) {
  double p = 1;
  for (int i = 0; i < (e < 0 ? -e : e); ++i) p *= 10;
  return e < 0 ? 1 / p : p;
}

}  // namespace

Problem well_formed(std::string_view name, std::size_t rows, std::size_t cols, std::size_t size) {
  // rows · cols without overflow: the size divided back.
  if (rows == 0 || cols == 0 ? size == 0 : size % rows == 0 && size / rows == cols)
    return std::nullopt;
  return formatted(ErrorCode::shape_mismatch,
                   "%.*s holds %zu values where its shape (%zu, %zu) needs rows × columns",
                   static_cast<int>(name.size()), name.data(), size, rows, cols);
}

Problem not_empty(std::string_view name, const Matrix& m) {
  if (auto p = well_formed(name, m)) return p;
  if (!m.empty()) return std::nullopt;
  return Error{ErrorCode::empty,
               described(name, m) + " is empty: it needs at least one row and one column"};
}

Problem finite(std::string_view name, const Matrix& m) {
  if (simd::active().all_finite(m.data.data(), m.data.size())) return std::nullopt;
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t c = 0; c < m.cols; ++c)
      if (!std::isfinite(m(r, c)))
        return Error{ErrorCode::non_finite, described(name, m) + " has " + describe_value(m(r, c)) +
                                                " at row " + std::to_string(r + 1) + ", column " +
                                                std::to_string(c + 1)};  // 1-based, as read
  return std::nullopt;
}

Problem overflowed(std::string_view what, const Matrix& m) {
  auto p = finite(what, m);
  if (p) p->message += ": the values are too large for float32; use smaller inputs";
  return p;
}

Problem finite(std::string_view entry, std::span<const float> values) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      return Error{ErrorCode::non_finite, std::string(entry) + " " + std::to_string(i + 1) +
                                              " is " + describe_value(values[i]) + ": every " +
                                              std::string(entry) + " must be a finite number"};
  return std::nullopt;
}

Problem within(std::string_view name, const Matrix& m, std::size_t max_rows, std::size_t max_cols,
               std::string_view what) {
  if (auto p = well_formed(name, m)) return p;
  if (m.rows <= max_rows && m.cols <= max_cols) return std::nullopt;
  return Error{ErrorCode::too_large, described(name, m) + " is too large: " + std::string(what) +
                                         " allows at most " + std::to_string(max_rows) +
                                         " rows and " + std::to_string(max_cols) + " columns"};
}

Problem same_extent(std::string_view a_name, const Matrix& a, bool a_rows, std::string_view b_name,
                    const Matrix& b, bool b_rows, std::string_view reason) {
  const std::size_t a_extent = a_rows ? a.rows : a.cols;
  const std::size_t b_extent = b_rows ? b.rows : b.cols;
  if (a_extent == b_extent) return std::nullopt;
  return Error{ErrorCode::shape_mismatch, described(a_name, a) + " and " + described(b_name, b) +
                                              " do not fit: " + std::string(reason) + " (" +
                                              std::to_string(a_extent) + " vs " +
                                              std::to_string(b_extent) + ")"};
}

Problem positive_finite(std::string_view name, float value) {
  if (std::isfinite(value) && value > 0) return std::nullopt;
  return Error{ErrorCode::invalid_argument,
               std::string(name) + " must be a finite number above 0, got " + number_text(value)};
}

std::string number_text(float value) {
  if (!std::isfinite(value)) return describe_value(value);
  // The fewest significant digits whose rounding reads back as the same float; rounding in
  // double arithmetic keeps the C library's decimal parser (kilobytes of wasm) out.
  const double v = value;
  const int magnitude = v == 0 ? 0 : static_cast<int>(std::floor(std::log10(std::fabs(v))));
  int digits = 1;
  for (; digits < 9; ++digits) {  // 9 significant digits always round-trip a float
    const double unit = power_of_ten(magnitude + 1 - digits);
    if (static_cast<float>(std::nearbyint(v / unit) * unit) == value) break;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
  // An exponent as JavaScript writes it: 1e-7, not printf's 1e-07.
  std::string text = buffer;
  if (const auto e = text.find('e'); e != std::string::npos) {
    const auto first = e + 2;  // past the exponent's sign
    while (text.size() > first + 1 && text[first] == '0') text.erase(first, 1);
  }
  return text;
}

Problem count_within(std::string_view name, std::size_t value, std::size_t lo, std::size_t hi,
                     ErrorCode above) {
  if (value >= lo && value <= hi) return std::nullopt;
  return outside(name, value < lo, std::to_string(value), lo, hi, above);
}

Problem count_within(std::string_view name, int value, std::size_t lo, std::size_t hi,
                     ErrorCode above) {
  if (value >= 0 && static_cast<std::size_t>(value) >= lo && static_cast<std::size_t>(value) <= hi)
    return std::nullopt;
  return outside(name, value < 0 || static_cast<std::size_t>(value) < lo, std::to_string(value), lo,
                 hi, above);
}

Error formatted(ErrorCode code, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::va_list again;
  va_copy(again, args);
  std::string message(static_cast<std::size_t>(std::vsnprintf(nullptr, 0, format, args)), '\0');
  va_end(args);
  std::vsnprintf(message.data(), message.size() + 1, format, again);
  va_end(again);
  return Error{code, std::move(message)};
}

Problem attention_shapes(const Matrix& q, const Matrix& k, const Matrix& v, std::size_t max_rows,
                         std::size_t max_cols, std::string_view what, bool same_width) {
  const std::pair<const char*, const Matrix*> inputs[] = {{"Q", &q}, {"K", &k}, {"V", &v}};
  for (const auto& [name, m] : inputs)
    if (auto p = not_empty(name, *m)) return p;
  for (const auto& [name, m] : inputs)
    if (auto p = within(name, *m, max_rows, max_cols, what)) return p;
  if (same_width)
    if (auto p = same_extent("Q", q, false, "K", k, false, "queries and keys need the same width"))
      return p;
  return same_extent("K", k, true, "V", v, true,
                     "every key needs one value, so K and V need the same number of rows");
}

Problem finite_qkv(const Matrix& q, const Matrix& k, const Matrix& v) {
  if (auto p = finite("Q", q)) return p;
  if (auto p = finite("K", k)) return p;
  return finite("V", v);
}

}  // namespace attnlab::validate

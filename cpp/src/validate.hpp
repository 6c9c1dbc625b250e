// Input checks shared by attention() and trace(). Each returns the first problem found,
// as an Error whose message names the matrix and its shape.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "attnlab/error.hpp"
#include "attnlab/matrix.hpp"

namespace attnlab::validate {

using Problem = std::optional<Error>;

Problem not_empty(std::string_view name, const Matrix& m);
Problem finite(std::string_view name, const Matrix& m);
Problem within(std::string_view name, const Matrix& m, std::size_t max_rows, std::size_t max_cols,
               std::string_view what);
// a and b must agree: a's `a_side` ("rows" or "columns") against b's `b_side`.
Problem same_extent(std::string_view a_name, const Matrix& a, bool a_rows, std::string_view b_name,
                    const Matrix& b, bool b_rows, std::string_view reason);
Problem positive_finite(std::string_view name, float value);

}  // namespace attnlab::validate

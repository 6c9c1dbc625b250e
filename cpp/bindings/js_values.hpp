// What the wasm modules' bindings share (bindings.cpp, the core; learn_bindings.cpp, the
// learning module; model_bindings.cpp, the model): results converted to JavaScript values by kind,
// value_object fields declared as member paths, errors as { error: { code, message } }, and the one
// out-of-memory catch.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/em_js.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "attnlab/attnlab.hpp"

namespace attnlab::bindings {

using emscripten::val;

// ---- JavaScript → C++ -------------------------------------------------------------------

// A JavaScript array or typed array of numbers as a vector, through one TypedArray.set into
// uninitialised memory and one copy (a memcpy). Embind's convertJSArrayToNumberVector resizes
// the vector first, and the size-optimised core zero-fills it a float at a time: two thirds of
// reading Q, K and V (n = 512, d = 64: 0.30 against 0.09 ms in the speed-optimised build).
template <class T>
std::vector<T> numbers_from_js(const val& array) {
  const auto n = array["length"].as<std::size_t>();
  const std::unique_ptr<T[]> staging(new T[n]);
  val(emscripten::typed_memory_view(n, staging.get())).call<void>("set", array);
  return std::vector<T>(staging.get(), staging.get() + n);
}

// ---- C++ → JavaScript, by kind of value -------------------------------------------------

// The types that to_js(const T&) hands to Embind whole (registered structs, strings): no
// overload of their own.
template <class T>
inline constexpr bool converts_as_struct = std::is_class_v<T>;
template <class T>
inline constexpr bool converts_as_struct<std::vector<T>> = false;
template <class T>
inline constexpr bool converts_as_struct<std::optional<T>> = false;
template <>
inline constexpr bool converts_as_struct<val> = false;

template <class T>
inline val to_js(const T& value);
template <class T>
inline val to_js(const std::vector<T>& values);
template <class T>
inline val to_js(const std::optional<T>& value);
template <class T>
inline val to_js(const Result<T>& result);
template <class T>
inline val to_js(Result<T>&& result);

// view.slice(), or null when the JS engine cannot allocate the copy: its RangeError must not
// cross the C++ frames (nor Embind's conversion of a result, whose heap copy would stay).
EM_JS(emscripten::EM_VAL, attnlab_copy_or_null, (emscripten::EM_VAL view), {
  try {
    return Emval.toHandle(Emval.toValue(view).slice());
  } catch (e) {
    return Emval.toHandle(null);
  }
});

// Set when a copy out of the heap failed during a call; catch_out_of_memory then answers
// out-of-memory instead of the half-converted result.
inline bool copy_failed = false;

// Copies out of the wasm heap, so the result stays valid after the next call.
template <class T>
inline val typed_array(const std::vector<T>& values) {
  const val view(emscripten::typed_memory_view(values.size(), values.data()));
  val copy = val::take_ownership(attnlab_copy_or_null(view.as_handle()));
  if (copy.isNull()) copy_failed = true;
  return copy;
}

inline val to_js(const std::vector<float>& values) { return typed_array(values); }
inline val to_js(const std::vector<double>& values) { return typed_array(values); }
inline val to_js(const std::vector<std::uint8_t>& values) { return typed_array(values); }
inline val to_js(const std::vector<std::uint32_t>& values) { return typed_array(values); }
inline val to_js(const val& value) { return value; }
inline val to_js(ErrorCode code) { return val(std::string(to_string(code))); }
inline val to_js(WalkEvent::Kind kind) {
  return val(std::string(kind == WalkEvent::Kind::tile ? "tile" : "finish"));
}

// Registered result structs, strings and numbers: Embind converts them.
template <class T>
inline val to_js(const T& value) {
  return val(value);
}

template <class T>
inline val to_js(const std::vector<T>& values) {
  val out = val::array();
  for (const T& v : values) out.call<void>("push", to_js(v));
  return out;
}

template <class T>
inline val to_js(const std::optional<T>& value) {
  return value ? to_js(*value) : val::undefined();
}

struct ErrorValue {
  Error error;
};

template <class T>
inline val to_js(const Result<T>& result) {
  return result ? to_js(result.value()) : val(ErrorValue{result.error()});
}

// A result the call no longer needs: a registered struct moves to the heap for the
// conversion of its fields, where a const one is copied (its matrices included).
template <class T>
inline val to_js(Result<T>&& result) {
  if (!result) return val(ErrorValue{result.error()});
  if constexpr (converts_as_struct<T>)
    return val(std::move(result).value());
  else
    return to_js(result.value());
}

// A boolean matrix as nested rows of true/false (the mask step's `allowed`), built in one
// call: a push through Embind per cell took ~150 ms of a 512-token trace in Chromium.
EM_JS(emscripten::EM_VAL, attnlab_boolean_rows,
      (const std::uint8_t* data, std::size_t rows, std::size_t cols), {
        const out = new Array(rows);
        for (let r = 0; r < rows; r++) {
          const row = new Array(cols);
          for (let c = 0; c < cols; c++) row[c] = HEAPU8[data + r * cols + c] != 0;
          out[r] = row;
        }
        return Emval.toHandle(out);
      });

inline val boolean_rows(const BoolMatrix& m) {
  return val::take_ownership(attnlab_boolean_rows(m.data.data(), m.rows, m.cols));
}

// ---- value_object fields: a path of members, converted by kind -------------------------

template <class>
struct owner;
template <class C, class F>
struct owner<F C::*> {
  using type = C;
};

template <class>
inline constexpr bool is_optional = false;
template <class T>
inline constexpr bool is_optional<std::optional<T>> = true;
template <class T>
struct optional_value {
  using type = T;
};
template <class T>
struct optional_value<std::optional<T>> {
  using type = T;
};
template <class>
inline constexpr bool is_list = false;
template <class T>
inline constexpr bool is_list<std::vector<T>> = true;

// object.*first.*rest…, where each step is a data member, a const member function or a
// converter function; `undefined` when an optional on the way is empty.
template <auto First, auto... Rest, class T>
inline val at_path(const T& object) {
  const auto& next = std::invoke(First, object);
  using Next = std::decay_t<decltype(next)>;
  if constexpr (sizeof...(Rest) == 0)
    return to_js(next);
  else if constexpr (is_optional<Next>)
    return next ? at_path<Rest...>(*next) : val::undefined();
  else
    return at_path<Rest...>(next);
}

template <auto First, auto... Rest>
inline val getter(const typename owner<decltype(First)>::type& object) {
  return at_path<First, Rest...>(object);
}

// Results only travel out; a value_object field still needs a setter.
template <class T>
void read_only(T&, val) {}

// ---- The typings' account of the results ------------------------------------------------
// Each result field as attnlab.d.ts types it, recorded where its value_object field is
// registered (only in the typings module, built with ATTNLAB_RESULT_DOCS: the shipped modules
// neither keep the docs nor the table) and exported as results() for scripts/typings.mjs. A
// field's type is named by its C++ type, as the core sends it: a registered result by its
// name, a float vector as the typed array it arrives as (Float32Array; the package's fromCore
// turns it into number[]).

// A result's or a field's doc: kept in the typings module only.
#ifdef ATTNLAB_RESULT_DOCS
#define ATTNLAB_RESULT_DOC(doc) doc
#else
#define ATTNLAB_RESULT_DOC(doc) ""
#endif

template <class T>
inline const char* result_name = nullptr;  // the interface of a registered result struct

template <class M>
std::string type_name() {
  if constexpr (is_optional<M>)
    return type_name<typename M::value_type>();
  else if constexpr (std::is_same_v<M, bool>)
    return "boolean";
  else if constexpr (std::is_arithmetic_v<M>)
    return "number";
  else if constexpr (std::is_same_v<M, std::string>)
    return "string";
  else if constexpr (std::is_same_v<M, Matrix>)
    return "Matrix";
  else if constexpr (std::is_same_v<M, std::vector<float>>)
    return "Float32Array";
  else if constexpr (std::is_same_v<M, std::vector<std::uint32_t>>)
    return "Uint32Array";
  else if constexpr (std::is_same_v<M, std::vector<std::uint8_t>>)
    return "Uint8Array";
  else if constexpr (std::is_same_v<M, std::vector<double>>)
    return "Float64Array";
  else if constexpr (is_list<M>)
    return type_name<typename M::value_type>() + "[]";
  else
    return result_name<M> ? result_name<M> : "unknown";
}

struct ResultField {
  const char* result;
  const char* name;       // none: the doc is the result's own
  std::string (*type)();  // asked once every result is registered (a later one's name)
  const char* type_override;
  const char* doc;
  bool optional;
};
inline std::vector<ResultField>& result_fields() {
  static std::vector<ResultField> fields;
  return fields;
}

// The type of object.*First.*Rest…, and whether an optional on the way may leave it undefined.
template <class T, auto First, auto... Rest>
struct path_leaf {
  using Next = std::decay_t<std::invoke_result_t<decltype(First), const T&>>;
  using Inner = std::conditional_t<is_optional<Next>, typename optional_value<Next>::type, Next>;
  using Tail = path_leaf<Inner, Rest...>;
  using type = typename Tail::type;
  static constexpr bool optional = is_optional<Next> || Tail::optional;
};
template <class T, auto Last>
struct path_leaf<T, Last> {
  using type = std::decay_t<std::invoke_result_t<decltype(Last), const T&>>;
  static constexpr bool optional = is_optional<type>;
};

// value_object<T> whose fields are declared as member paths: .field<&T::member>("name"), with
// a line of doc for the typings (ATTNLAB_RESULT_DOC) and, where the C++ type does not say it (a
// converter's val), its type.
template <class T>
struct result : emscripten::value_object<T> {
  explicit result(const char* name, const char* doc = "")
      : emscripten::value_object<T>(name), name_(name) {
    result_name<T> = name;
#ifdef ATTNLAB_RESULT_DOCS
    if (*doc) result_fields().push_back({name, nullptr, nullptr, nullptr, doc, false});
#else
    (void)doc;
#endif
  }
  template <auto... Path>
  result& field(const char* name, const char* doc = "", const char* type = nullptr) {
    emscripten::value_object<T>::field(name, &getter<Path...>, &read_only<T>);
#ifdef ATTNLAB_RESULT_DOCS
    using Leaf = path_leaf<T, Path...>;
    result_fields().push_back(
        {name_, name, &type_name<typename Leaf::type>, type, doc, Leaf::optional});
#else
    (void)doc, (void)type;
#endif
    return *this;
  }

 private:
  const char* name_;
};

// ---- Out of memory -----------------------------------------------------------------------

// The wasm heap could not grow, or (copy_failed) the JS engine could not copy the result.
inline val out_of_memory() {
  char message[200];
  std::snprintf(message, sizeof message,
                copy_failed ? "out of memory: the JavaScript engine could not allocate the result; "
                              "everything the call took has been given back"
                            : "out of memory: the WebAssembly heap could not grow enough for this "
                              "call (it holds %zu MiB of at most %zu MiB); everything the call "
                              "took has been given back",
                emscripten_get_heap_size() >> 20, emscripten_get_heap_max() >> 20);
  return val(ErrorValue{{ErrorCode::out_of_memory, message}});
}

// call(context), or the out-of-memory error when an allocation fails on the way, in the heap
// or in the JS engine (a copy out of the heap). The one catch of every entry: a catch in each
// would add its handler code to the download each time.
[[gnu::noinline]] inline val catch_out_of_memory(val (*call)(const void*), const void* context) {
  copy_failed = false;
  try {
    val out = call(context);
    if (copy_failed) return out_of_memory();
    return out;
  } catch (const std::bad_alloc&) {
    return out_of_memory();
  }
}

// entry(args…) through catch_out_of_memory.
template <auto entry>
struct guarded;
template <class... Args, val (*entry)(Args...)>
struct guarded<entry> {
  static val call(Args... args) {
    const auto packed = std::forward_as_tuple(args...);
    return catch_out_of_memory(
        [](const void* p) { return std::apply(entry, *static_cast<decltype(&packed)>(p)); },
        &packed);
  }
};

// What every module returns: matrices, and errors as { error: { code, message } }.
inline void register_common() {
  result<Matrix>("Matrix")
      .field<&Matrix::rows>("rows")
      .field<&Matrix::cols>("cols")
      .field<&Matrix::data>("data");
  result<Error>("Error").field<&Error::code>("code").field<&Error::message>("message");
  result<ErrorValue>("ErrorValue").field<&ErrorValue::error>("error");
}

}  // namespace attnlab::bindings

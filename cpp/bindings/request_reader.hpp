// Requests declared once: each field of a request object as a row of a table (its name as
// JavaScript spells it, the C++ member it fills, its range in the core's limits, a line of
// doc), read by one loop, and exported as lab.schema(), from which web/lib/requests.js builds
// its type checks and scripts/typings.mjs the request interfaces of attnlab.d.ts. The rows are
// data: one reader per C++ member type, not per field, keeps the download small.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "attnlab/attnlab.hpp"
#include "js_values.hpp"

namespace attnlab::bindings {

// How JavaScript checks a field's value before the trip (requests.js has one reader per kind).
enum class Kind : std::uint8_t {
  boolean,
  number,
  probability,  // a number in [0, 1)
  whole,        // a whole number, 0 … the member type's largest (bound)
  matrix,
  mask,
  flags,
  indices,
  row,
  window,
  choice,     // one of `choices`, stored as the enum of that index
  alignment,  // CausalAlignment: one of `choices` (its named kinds) or a key position
  text,
  labels,  // strings (token labels)
  layers,  // matrices [layer][head] (Hugging Face's [layer][batch][head][query][key], batch 1)
  heads,   // one layer's matrices [head], stored as the one layer of a [layer][head] member
};
inline constexpr const char* kind_names[] = {
    "boolean", "number", "probability", "whole",     "matrix", "mask",   "flags",  "indices",
    "row",     "window", "choice",      "alignment", "text",   "labels", "layers", "heads"};

template <class T>
BasicMatrix<T> matrix_from_js(const val& m) {
  return BasicMatrix<T>(m["rows"].as<std::size_t>(), m["cols"].as<std::size_t>(),
                        numbers_from_js<T>(m["data"]));
}

// Where query 0 sits: a named alignment ("top-left", "bottom-right") or a key position.
inline CausalAlignment alignment_from_js(const val& a) {
  if (a.isNumber()) return CausalAlignment::at_key(static_cast<std::int64_t>(a.as<double>()));
  return a.as<std::string>() == "bottom-right" ? CausalAlignment::bottom_right
                                               : CausalAlignment::top_left;
}

// A window: a number (symmetric) or { left?, right? }, a side left out unbounded.
inline Window window_from_js(const val& w) {
  if (w.isNumber()) return Window(w.as<std::size_t>());
  const auto side = [&w](const char* name) {
    return w[name].isUndefined() ? Window::unbounded : w[name].as<std::size_t>();
  };
  return Window(side("left"), side("right"));
}

struct Field;
using Store = void (*)(void* member, const val& value, const Field& field);
using Load = bool (*)(const void* member, double& value);

struct Field {
  const char* name;  // as JavaScript spells it
  Store store;       // value → member
  Load load;         // member → its default, for the schema
  // The documented range, each end a number or a name in lab.limits(); none: 0 … the bound.
  const char* min = nullptr;
  const char* max = nullptr;
  const char* const* choices = nullptr;
  const char* doc = "";
  const char* alias_of = nullptr;  // a deprecated older name of that field
  std::uint16_t offset = 0;
  Kind kind = Kind::boolean;
  bool required = false;
  // A whole number's largest value that JavaScript sends unchanged: 2³¹ − 1 for an int, else
  // 2³² − 1 (a size_t in wasm; a 64-bit seed too).
  bool signed_whole = false;
  std::uint8_t choice_count = 0;

  constexpr Field need() const {
    Field f = *this;
    f.required = true;
    return f;
  }
  constexpr Field range(const char* lo, const char* hi) const {
    Field f = *this;
    f.min = lo;
    f.max = hi;
    return f;
  }
  constexpr Field as(Kind k) const {
    Field f = *this;
    f.kind = k;
    return f;
  }
  template <std::size_t N>
  constexpr Field one_of(const char* const (&names)[N]) const {
    Field f = *this;
    f.choices = names;
    f.choice_count = N;
    return f;
  }
  constexpr Field deprecated_name(const char* older) const {
    Field f = *this;
    f.alias_of = f.name;
    f.name = older;
    f.doc = "";
    f.required = false;  // the field's own row says whether one of the two is needed
    return f;
  }
};

// ---- One reader per member type ------------------------------------------------------------

template <class>
inline constexpr bool is_vector = false;
template <class T>
inline constexpr bool is_vector<std::vector<T>> = true;

template <class M>
M from_js(const val& v, const Field& f) {
  if constexpr (is_optional<M>)
    return from_js<typename M::value_type>(v, f);
  else if constexpr (std::is_enum_v<M>) {
    const std::string name = v.as<std::string>();
    for (std::uint8_t i = 0; i < f.choice_count; ++i)
      if (name == f.choices[i]) return static_cast<M>(i);
    return M{};
  } else if constexpr (std::is_same_v<M, std::uint64_t>)
    return static_cast<std::uint64_t>(v.as<double>());  // a seed, ≤ 2⁵³ (checked in JS)
  else if constexpr (std::is_same_v<M, Matrix>)
    return matrix_from_js<float>(v);
  else if constexpr (std::is_same_v<M, BoolMatrix>)
    return matrix_from_js<std::uint8_t>(v);
  else if constexpr (std::is_same_v<M, Window>)
    return window_from_js(v);
  else if constexpr (std::is_same_v<M, CausalAlignment>)
    return alignment_from_js(v);
  else if constexpr (std::is_same_v<M, std::vector<bool>>) {
    const auto flags = numbers_from_js<std::uint8_t>(v);  // 0/1 each
    return std::vector<bool>(flags.begin(), flags.end());
  } else if constexpr (std::is_same_v<M, std::vector<std::string>> ||
                       std::is_same_v<M, std::vector<Matrix>> ||
                       std::is_same_v<M, std::vector<std::vector<Matrix>>>) {
    M out(v["length"].as<std::size_t>());  // a list of non-numbers: one entry at a time
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = from_js<typename M::value_type>(v[i], f);
    return out;
  } else if constexpr (is_vector<M>)
    return numbers_from_js<typename M::value_type>(v);
  else
    return v.as<M>();
}

template <class M>
void store(void* member, const val& v, const Field& f) {
  *static_cast<M*>(member) = from_js<M>(v, f);
}

// The default a default-constructed request holds, as a number (a choice: its index), when
// it has one: numbers, booleans and choices only.
template <class M>
bool load(const void* member, double& value) {
  const M& m = *static_cast<const M*>(member);
  if constexpr (is_optional<M>)
    return m && load<typename M::value_type>(&*m, value);
  else if constexpr (std::is_enum_v<M> || std::is_arithmetic_v<M>)
    return value = static_cast<double>(m), true;
  else if constexpr (std::is_same_v<M, CausalAlignment>)  // a named kind: its choice's index
    return m.kind != CausalAlignment::Kind::at_key && (value = static_cast<double>(m.kind), true);
  else
    return false;
}

template <class M>
constexpr Kind kind_of() {
  if constexpr (is_optional<M>)
    return kind_of<typename M::value_type>();
  else if constexpr (std::is_same_v<M, bool>)
    return Kind::boolean;
  else if constexpr (std::is_floating_point_v<M>)
    return Kind::number;
  else if constexpr (std::is_integral_v<M>)
    return Kind::whole;
  else if constexpr (std::is_enum_v<M>)
    return Kind::choice;
  else if constexpr (std::is_same_v<M, Matrix>)
    return Kind::matrix;
  else if constexpr (std::is_same_v<M, BoolMatrix>)
    return Kind::mask;
  else if constexpr (std::is_same_v<M, Window>)
    return Kind::window;
  else if constexpr (std::is_same_v<M, CausalAlignment>)
    return Kind::alignment;
  else if constexpr (std::is_same_v<M, std::vector<bool>>)
    return Kind::flags;
  else if constexpr (std::is_same_v<M, std::vector<float>>)
    return Kind::row;
  else if constexpr (std::is_same_v<M, std::string>)
    return Kind::text;
  else if constexpr (std::is_same_v<M, std::vector<std::string>>)
    return Kind::labels;
  else if constexpr (std::is_same_v<M, std::vector<std::vector<Matrix>>>)
    return Kind::layers;
  else
    return Kind::indices;
}

template <class M>
constexpr bool is_signed_whole() {
  if constexpr (is_optional<M> || is_vector<M>)  // a list's entries (token ids: int)
    return is_signed_whole<typename M::value_type>();
  else
    return std::is_integral_v<M> && std::is_signed_v<M>;
}

template <class M>
constexpr Field field(std::size_t offset, const char* name, const char* doc) {
  Field f{name, &store<M>, &load<M>};
  f.doc = doc;
  f.offset = static_cast<std::uint16_t>(offset);
  f.kind = kind_of<M>();
  f.signed_whole = is_signed_whole<M>();
  return f;
}

}  // namespace attnlab::bindings

// The docs of fields travel in the learning module's schema (for the typings), not in the
// core's download.
#ifdef ATTNLAB_REQUEST_DOCS
#define ATTNLAB_DOC(doc) doc
#else
#define ATTNLAB_DOC(doc) ""
#endif

// A field of Struct::member named `name` in JavaScript, with a line of doc. offsetof on a
// struct with std::vector members is conditionally supported; clang computes it as for any
// other struct.
#define ATTNLAB_FIELD(Struct, member, name, doc)                                            \
  _Pragma("clang diagnostic push")                                                          \
      _Pragma("clang diagnostic ignored \"-Winvalid-offsetof\"")::attnlab::bindings::field< \
          decltype(std::declval<Struct&>().member)>(                                        \
          offsetof(Struct, member), name, ATTNLAB_DOC(doc)) _Pragma("clang diagnostic pop")

namespace attnlab::bindings {

// A run of fields of one struct, named for the typings (an interface of attnlab.d.ts).
struct Group {
  const char* name;
  const Field* fields;
  std::uint8_t count;
  void (*defaults)(void* storage);  // constructs the struct of these fields, default
};

// A default request owns no memory (empty vectors and optionals): the schema constructs one
// into a buffer and reads its defaults without a destructor, and no global is constructed at
// load for it.
inline constexpr std::size_t defaults_storage = 512;

template <class T>
void construct_defaults(void* storage) {
  static_assert(sizeof(T) <= defaults_storage && alignof(T) <= 16);
  new (storage) T{};
}

template <class T, std::size_t N>
constexpr Group group(const char* name, const Field (&fields)[N]) {
  return Group{name, fields, static_cast<std::uint8_t>(N), &construct_defaults<T>};
}

// A group placed at `offset` in an entry's request struct.
struct Part {
  const Group* group;
  std::uint16_t offset;
};

// An entry point's request: its JavaScript name and its parts in order.
struct Entry {
  const char* name;
  const Part* parts;
  std::uint8_t count;
};

template <std::size_t N>
constexpr Entry entry(const char* name, const Part (&parts)[N]) {
  return Entry{name, parts, static_cast<std::uint8_t>(N)};
}

// Fills `out` from the request's fields that are present (requests.js has checked their
// types and dropped nulls); a field left out keeps the struct's default.
inline void read_fields(void* out, const val& request, const Entry& entry) {
  for (const Part* part = entry.parts; part != entry.parts + entry.count; ++part)
    for (const Field* f = part->group->fields; f != part->group->fields + part->group->count; ++f) {
      const val value = request[f->name];
      if (!value.isUndefined())
        f->store(static_cast<char*>(out) + part->offset + f->offset, value, *f);
    }
}

template <class Request>
Request read_request(const val& request, const Entry& entry) {
  Request out;
  read_fields(&out, request, entry);
  return out;
}

}  // namespace attnlab::bindings

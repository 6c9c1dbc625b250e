// lab.schema(): the request tables of requests.hpp as JSON text, with the defaults of their
// default-constructed structs and the mask's blockedBy bits; the learning module's also with
// the fields' docs (scripts/typings.mjs writes the typings from it).
#pragma once

#include <cstdio>
#include <initializer_list>
#include <span>
#include <string>

#include "model_requests.hpp"
#include "requests.hpp"

namespace attnlab::bindings {

// JSON text is the least code for a table walked once.
inline void json_number(std::string& out, double x) {
  char text[32];
  std::snprintf(text, sizeof text,
                x == static_cast<double>(static_cast<long long>(x)) ? "%.0f" : "%.7g", x);
  out += text;
}

// `"key":"text"` (names and docs hold no quote or backslash) and `"key":number`.
inline void json_text(std::string& out, const char* key, const char* text) {
  ((((out += ",\"") += key) += "\":\"") += text) += '"';
}
inline void json_key(std::string& out, const char* key) { ((out += ",\"") += key) += "\":"; }

// { name, kind, required?, min?, max?, bound?, choices?, default?, doc?, aliasOf? }
inline void field_json(std::string& out, const Field& f, const void* defaults) {
  ((out += "{\"name\":\"") += f.name) += '"';
  json_text(out, "kind", kind_names[static_cast<int>(f.kind)]);
  if (f.required) out += ",\"required\":true";
  if (f.min) json_text(out, "min", f.min);
  if (f.max) json_text(out, "max", f.max);
  if (f.kind == Kind::whole || f.kind == Kind::indices) {
    json_key(out, "bound");
    json_number(out, f.signed_whole ? 2147483647.0 : 4294967295.0);
  }
  for (std::uint8_t i = 0; i < f.choice_count; ++i)
    (((out += i ? ",\"" : ",\"choices\":[\"") += f.choices[i]) += '"') +=
        i + 1 == f.choice_count ? "]" : "";
  double value;
  if (f.load(static_cast<const char*>(defaults) + f.offset, value)) {
    if (f.choices)
      json_text(out, "default", f.choices[static_cast<std::size_t>(value)]);
    else if (f.kind == Kind::boolean)
      (json_key(out, "default"), out) += value ? "true" : "false";
    else
      (json_key(out, "default"), json_number(out, value));
  }
  if (*f.doc) json_text(out, "doc", f.doc);
  if (f.alias_of) json_text(out, "aliasOf", f.alias_of);
  out += '}';
}

// The requests of these entry lists (each module its own: the core's, the model module's; the
// learning module's both, with the docs the typings need): { groups: { name: fields },
// requests: { entry: group names }, maskRules: { rule: its blockedBy bit } }, as JSON text.
inline std::string schema(std::initializer_list<std::span<const Entry* const>> entry_lists) {
  std::string groups, requests;
  alignas(16) unsigned char defaults[defaults_storage];
  for (const auto& list : entry_lists)
    for (const Entry* entry : list) {
      ((requests += requests.empty() ? "\"" : ",\"") += entry->name) += "\":[";
      for (std::uint8_t p = 0; p < entry->count; ++p) {
        const Group& g = *entry->parts[p].group;
        ((requests += p ? ",\"" : "\"") += g.name) += '"';
        g.defaults(defaults);
        ((groups += groups.empty() ? "\"" : ",\"") += g.name) += "\":[";
        for (std::uint8_t i = 0; i < g.count; ++i) {
          if (i) groups += ',';
          field_json(groups, g.fields[i], defaults);
        }
        groups += ']';
      }
      requests += ']';
    }
  namespace rule = mask_rule;
  char rules[100];
  std::snprintf(
      rules, sizeof rules,
      "\"maskRules\":{\"causal\":%d,\"keyPadding\":%d,\"mask\":%d,\"window\":%d,\"bias\":%d}}",
      rule::causal, rule::key_padding, rule::mask, rule::window, rule::bias);
  return "{\"groups\":{" + groups + "},\"requests\":{" + requests + "}," + rules;
}

// results(): every registered result's fields (result_fields(), js_values.hpp) as JSON text,
// { Result: [{ doc } (its own, if any), { name, type, optional?, doc? }…] } in the order they
// were registered, for scripts/typings.mjs. Empty in a module built without
// ATTNLAB_REQUEST_DOCS.
inline std::string results() {
  std::string out = "{";
  const char* open = nullptr;
  for (const ResultField& f : result_fields()) {
    if (open != f.result) {
      ((out += open ? "]," : "") += '"') += f.result;
      out += "\":[";
      open = f.result;
    } else {
      out += ',';
    }
    if (!f.name) {  // the result's own doc
      ((out += "{\"doc\":\"") += f.doc) += "\"}";
      continue;
    }
    ((out += "{\"name\":\"") += f.name) += '"';
    json_text(out, "type", f.type_override ? f.type_override : f.type().c_str());
    if (f.optional) out += ",\"optional\":true";
    if (*f.doc) json_text(out, "doc", f.doc);
    out += '}';
  }
  return out + (open ? "]}" : "}");
}

}  // namespace attnlab::bindings

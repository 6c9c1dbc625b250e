// Embind bindings of the learning module, attnlab-learn: the trace with its backward steps,
// the gradient check (trace_backward.hpp) and the trainer (training.hpp). A wasm module of its
// own, loaded by the first call that needs it, so the core's download stays small. The same
// conventions as bindings.cpp (js_values.hpp): results are plain objects, errors
// { error: { code, message } }, an allocation that fails is the error out-of-memory.
#include <malloc.h>

#include "attnlab/training.hpp"
#include "js_values.hpp"
#include "learn_results.hpp"
#include "request_entries.hpp"
#include "schema.hpp"
#include "trace_values.hpp"

namespace attnlab::bindings {
namespace {

// A Trainer of the request's config (a field not given keeps TrainingConfig's default), or
// { error }.
val trainer(const val& request) {
  auto made = Trainer::create(read_request<TrainingConfig>(request, entries::trainer));
  return made ? val(std::move(made.value())) : val(ErrorValue{made.error()});
}

val train_step(Trainer& t, const val& request) {
  return to_js(t.step(read_request<StepRequest>(request, entries::step).count));
}
val train_attention(const Trainer& t) { return to_js(t.attention()); }
// layer: 0 … layers − 1, undefined for 0 (the wrapper has checked it is a whole number).
val train_model(const Trainer& t, const val& layer) {
  return to_js(t.model(layer.isUndefined() ? 0 : layer.as<int>()));
}

// Every step: the forward ones and, with dOutput, the backward ones.
val trace(const val& request) { return to_js(attnlab::trace(trace_input(request))); }

// request as for trace(), with dOutput; at: { parameter: "X", "Q", … "Wo", row, col }.
val check_gradient(const val& request, const val& at) {
  const auto where = read_request<GradientAt>(at, entries::gradient_at);
  return to_js(attnlab::check_gradient(trace_input(request, entries::check_gradient),
                                       where.parameter, where.row, where.col));
}

// Bytes in use by malloc, for leak checks of the trainer's own heap.
double allocated_bytes() { return static_cast<double>(mallinfo().uordblks); }

}  // namespace

// Every module's requests, with their docs: what scripts/typings.mjs writes attnlab.d.ts from.
std::string every_schema() { return schema({entries::all, model_entries::all}); }

EMSCRIPTEN_BINDINGS(attnlab_learn) {
  register_common();
  register_trace_results<true>();
  register_learning_results();
  // The one stateful object: the wrapper's trainer() owns it and deletes it.
  emscripten::class_<Trainer>("Trainer")
      .function("step", &guarded<&train_step>::call)
      .function("attention", &guarded<&train_attention>::call)
      .function("model", &guarded<&train_model>::call);

  // Not "trace": the core module's trace() has the forward steps only.
  emscripten::function("traceWithBackward", &guarded<&trace>::call);
  emscripten::function("checkGradient", &guarded<&check_gradient>::call);
  emscripten::function("trainer", &guarded<&trainer>::call);
  emscripten::function("allocatedBytes", &allocated_bytes);
  emscripten::function("schema", &every_schema);  // with the fields' docs, for the typings
}

}  // namespace attnlab::bindings

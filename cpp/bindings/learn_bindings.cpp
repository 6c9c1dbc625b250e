// Embind bindings of the learning module, attnlab-learn: the trace with its backward steps,
// the gradient check (trace_backward.hpp) and the trainer (training.hpp). A wasm module of its
// own, loaded by the first call that needs it, so the core's download stays small. The same
// conventions as bindings.cpp (js_values.hpp): results are plain objects, errors
// { error: { code, message } }, an allocation that fails is the error out-of-memory.
#include <malloc.h>

#include "attnlab/training.hpp"
#include "js_values.hpp"
#include "trace_values.hpp"

namespace attnlab::bindings {
namespace {

// `out` = request[name] when given.
template <class T>
void read_field(const val& request, const char* name, T& out) {
  if (!request[name].isUndefined()) out = request[name].as<T>();
}

// { task?, layers?, heads?, dModel?, context?, vocab?, batch?, learningRate?, seed? }: a
// Trainer, or { error }. A field not given keeps TrainingConfig's default.
val trainer(const val& request) {
  TrainingConfig config;
  read_field(request, "task", config.task);
  read_field(request, "layers", config.layers);
  read_field(request, "heads", config.heads);
  read_field(request, "dModel", config.d_model);
  read_field(request, "context", config.context);
  read_field(request, "vocab", config.vocab);
  read_field(request, "batch", config.batch);
  read_field(request, "learningRate", config.learning_rate);
  if (!request["seed"].isUndefined()) config.seed = seed_at(request);
  auto made = Trainer::create(config);
  return made ? val(std::move(made.value())) : val(ErrorValue{made.error()});
}

val train_step(Trainer& t, std::size_t count) { return to_js(t.step(count)); }
val train_attention(const Trainer& t) { return to_js(t.attention()); }
val train_model(const Trainer& t) { return to_js(t.model()); }

// Every step: the forward ones and, with dOutput, the backward ones.
val trace(const val& request) { return to_js(attnlab::trace(trace_input_from_js(request))); }

// request as for trace(), with dOutput; parameter: "X", "Q", … "Wo"; row, col: its entry.
val check_gradient(const val& request, const std::string& parameter, std::size_t row,
                   std::size_t col) {
  return to_js(attnlab::check_gradient(trace_input_from_js(request), parameter, row, col));
}

// Bytes in use by malloc, for leak checks of the trainer's own heap.
double allocated_bytes() { return static_cast<double>(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_learn) {
  register_common();
  register_trace_results();
  result<GradientCheck>("GradientCheck")
      .field<&GradientCheck::analytic>("analytic")
      .field<&GradientCheck::numeric>("numeric")
      .field<&GradientCheck::relative_error>("relativeError")
      .field<&GradientCheck::epsilon>("epsilon");
  result<TrainingProgress>("TrainingProgress")
      .field<&TrainingProgress::step>("step")
      .field<&TrainingProgress::loss>("loss")
      .field<&TrainingProgress::accuracy>("accuracy");
  result<TrainingAttention>("TrainingAttention")
      .field<&TrainingAttention::tokens>("tokens")
      .field<&TrainingAttention::weights>("weights");
  result<TrainedLayer>("TrainedLayer")
      .field<&TrainedLayer::x>("X")
      .field<&TrainedLayer::w_q>("Wq")
      .field<&TrainedLayer::w_k>("Wk")
      .field<&TrainedLayer::w_v>("Wv")
      .field<&TrainedLayer::w_o>("Wo")
      .field<&TrainedLayer::heads>("heads")
      .field<&TrainedLayer::tokens>("tokens");
  emscripten::enum_<TrainingTask>("TrainingTask")
      .value("previous-token", TrainingTask::previous_token)
      .value("copy-first", TrainingTask::copy_first)
      .value("reverse", TrainingTask::reverse)
      .value("induction", TrainingTask::induction)
      .value("induction-anywhere", TrainingTask::induction_anywhere);
  // The one stateful object: the wrapper's trainer() owns it and deletes it.
  emscripten::class_<Trainer>("Trainer")
      .function("step", &guarded<&train_step>::call)
      .function("attention", &guarded<&train_attention>::call)
      .function("model", &guarded<&train_model>::call);

  emscripten::function("trace", &guarded<&trace>::call);
  emscripten::function("checkGradient", &guarded<&check_gradient>::call);
  emscripten::function("trainer", &guarded<&trainer>::call);
  emscripten::function("allocatedBytes", &allocated_bytes);
}

}  // namespace attnlab::bindings

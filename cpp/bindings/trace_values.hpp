// The trace's results, shared by the core module (bindings.cpp: the forward steps) and the
// learning module (learn_bindings.cpp: the backward steps too); its requests are read through
// requests.hpp.
#pragma once

#include "attnlab/attnlab.hpp"
#include "js_values.hpp"

namespace attnlab::bindings {

// The trace's result types, declared once for both modules.
inline void register_trace_results() {
  result<BoolMatrix>("BoolMatrix")
      .field<&BoolMatrix::rows>("rows")
      .field<&BoolMatrix::cols>("cols")
      .field<&BoolMatrix::data>("data");

  result<Operand>("Operand")
      .field<&Operand::name>("name")
      .field<&Operand::symbol>("symbol")
      .field<&Operand::head>("head")
      .field<&Operand::step>("step")
      .field<&Operand::values>("values")
      .field<&Operand::past_rows>("pastRows");
  result<TraceStep>("TraceStep")
      .field<&TraceStep::id>("id")
      .field<&TraceStep::head>("head")
      .field<&TraceStep::title>("title")
      .field<&TraceStep::formula>("formula")
      .field<&TraceStep::values>("values")
      .field<&TraceStep::row_totals>("rowTotals")
      .field<&TraceStep::operands>("operands")
      .field<&TraceStep::softmax, &SoftmaxParts::row_max>("rowMax")
      .field<&TraceStep::softmax, &SoftmaxParts::row_sum>("rowSum")
      .field<&TraceStep::softmax, &SoftmaxParts::exponentials>("exponentials")
      .field<&TraceStep::scaling, &ScaleFactors::scale>("scale")
      .field<&TraceStep::scaling, &ScaleFactors::temperature>("temperature")
      .field<&TraceStep::scaling, &ScaleFactors::factor>("factor")
      .field<&TraceStep::scaling, &ScaleFactors::dk>("dk")
      .field<&TraceStep::scaling, &ScaleFactors::default_scale>("defaultScale")
      .field<&TraceStep::mask, &MaskCells::allowed, &boolean_rows>("allowed")
      .field<&TraceStep::mask, &MaskCells::blocked_by>("blockedBy")
      .field<&TraceStep::rotation, &Rotation::angles>("angles")
      .field<&TraceStep::rotation, &Rotation::frequencies>("frequencies")
      .field<&TraceStep::rotation, &Rotation::base>("ropeBase")
      .field<&TraceStep::slope>("slope")
      .field<&TraceStep::softcap>("softcap")
      .field<&TraceStep::dropout, &DropoutCells::keep, &boolean_rows>("keep")
      .field<&TraceStep::dropout, &DropoutCells::rate>("rate")
      .field<&TraceStep::dropout, &DropoutCells::keep_scale>("keepScale")
      .field<&TraceStep::jacobian, &SoftmaxJacobian::row_dot>("rowDot")
      .field<&TraceStep::jacobian, &SoftmaxJacobian::jacobian_rows>("jacobianRows")
      .field<&TraceStep::jacobian, &SoftmaxJacobian::jacobians>("jacobians");
  result<TraceGroup>("TraceGroup")
      .field<&TraceGroup::id>("id")
      .field<&TraceGroup::title>("title")
      .field<&TraceGroup::steps>("steps");
  result<Trace>("Trace")
      .field<&Trace::steps>("steps")
      .field<&Trace::groups>("groups")
      .field<&Trace::output>("output")
      .field<&Trace::fully_masked_rows>("fullyMaskedRows");
}

}  // namespace attnlab::bindings

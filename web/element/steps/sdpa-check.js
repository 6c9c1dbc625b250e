// The PyTorch export of the aggregate step also computes each head's output with
// F.scaled_dot_product_attention, the call PyTorch models make, and asserts it is the same:
// attnlab's numbers are then seen to be PyTorch's. Its inputs are the trace's own, like the
// rest of the export: the head's q and k as the scores step took them (rotated by RoPE, after
// a past cache), its v, the scale step's factor, and as a float attn_mask the bias step's B
// (ALiBi in it) with −∞ where the mask step blocked a cell. Soft-capping and dropout have no
// SDPA form that gives the trace's numbers, so there the check is left out and says why.

const stepOf = (trace, id, head) => trace.steps.find((s) => s.id === id && s.head === head);

/** Why the aggregate step of `trace` has no SDPA check, or null when it has one. */
function sdpaProblem(trace) {
  if (trace.groups.some((g) => g.id === 'normalizer')) return 'linear attention (family linear) is not softmax attention, which SDPA computes';
  if (trace.groups.some((g) => g.id === 'decay')) return 'retention (family retention) is not softmax attention, which SDPA computes';
  if (trace.groups.some((g) => g.id === 'softcap')) return 'soft-capping (softcap) has no form in F.scaled_dot_product_attention';
  if (trace.groups.some((g) => g.id === 'dropout')) return "SDPA's dropout draws its own random mask, not the core's seeded one";
  return null;
}

/**
 * The check's code for the aggregate steps `steps` (one per head): `table(kind, rows, indent)`
 * and `scalar(v)` write literals as the rest of the export does.
 */
export function sdpaCheck(trace, steps, { table, scalar }) {
  const problem = sdpaProblem(trace);
  if (problem) return ['', `# No check with F.scaled_dot_product_attention here: ${problem}.`];
  const indent = '        ';
  const call = (step) => {
    const scores = stepOf(trace, 'scores', step.head);
    const bias = stepOf(trace, 'bias', step.head);
    const mask = stepOf(trace, 'mask', step.head);
    const [q, k] = scores.operands.map((o) => o.values);
    return [
      `    sdpa(${step.head === undefined ? '' : `  # head ${step.head + 1}`}`,
      `${indent}q=${table('matrix', q, indent)},`,
      `${indent}k=${table('matrix', k, indent)},`,
      `${indent}v=${table('matrix', step.operands[1].values, indent)},`,
      `${indent}factor=${scalar(stepOf(trace, 'scale', step.head).factor)},`,
      ...(bias ? [`${indent}B=${table('matrix', bias.operands[1].values, indent)},`] : []),
      ...(mask ? [`${indent}blocked_by=${table('int', mask.blockedBy, indent)},`] : []),
      '    ),',
    ];
  };
  return [
    '',
    '# Check: the same outputs from F.scaled_dot_product_attention, the call PyTorch models make,',
    "# given each head's q and k (as the scores step took them), v, the scale step's factor, and",
    "# as a float attn_mask the bias step's B with -inf where the mask step blocked a cell.",
    'import torch.nn.functional as F  # noqa: E402',
    '',
    '',
    'def sdpa(q, k, v, factor, B=None, blocked_by=None):',
    '    attn_mask = torch.zeros(q.shape[0], k.shape[0]) if B is None else B',
    '    if blocked_by is not None:',
    '        attn_mask = torch.where(blocked_by != 0, torch.full_like(attn_mask, -math.inf), attn_mask)',
    '    out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, scale=factor)',
    '    return torch.nan_to_num(out, nan=0.0)  # a row with every key blocked: zeros, as attnlab defines',
    '',
    '',
    'checks = [',
    ...steps.flatMap(call),
    ']',
    'for head, (result, check) in enumerate(zip(results, checks), 1):',
    '    assert torch.allclose(result, check, atol=1e-5), f"head {head}: SDPA gives other outputs"',
    'print("F.scaled_dot_product_attention gives the same outputs.")',
  ];
}

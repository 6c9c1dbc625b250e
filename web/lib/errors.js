// The error type of the package. ERROR_CODES are the C++ core's codes, unchanged;
// attnlab/webgpu throws two more of its own (its GPU_ERROR_CODES).

export const ERROR_CODES = Object.freeze(['shape-mismatch', 'non-finite', 'empty', 'too-large', 'invalid-argument', 'out-of-memory']);

export class AttnLabError extends Error {
  /**
   * @param {string} code one of ERROR_CODES, or of attnlab/webgpu's GPU_ERROR_CODES
   * @param {string} message names the offending matrices and their shapes
   */
  constructor(code, message) {
    super(message);
    this.name = 'AttnLabError';
    this.code = code;
  }
}

/** A core result, or its error value ({ error: { code, message } }) thrown as AttnLabError. */
export function unwrap(result) {
  if (result.error) throw new AttnLabError(result.error.code, result.error.message);
  return result;
}

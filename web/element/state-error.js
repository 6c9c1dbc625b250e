// The error of a state that is malformed: a field of the wrong type, an unknown one, or a
// value that is not data. Its own module, so the modules that check a state share it.

export class StateError extends Error {
  constructor(message) {
    super(message);
    this.name = 'StateError';
  }
}

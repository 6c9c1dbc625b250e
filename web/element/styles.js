// The host element's styles: the base every part shares and the stepper's own rules.
import { stepperStyles } from './stepper/styles.js';
import { baseStyles } from './shared/styles.js';

export const styles = [baseStyles, stepperStyles];

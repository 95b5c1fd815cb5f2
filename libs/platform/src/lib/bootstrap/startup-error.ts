/**
 * A start failure the operator fixes with a setting (a taken port, an unreachable database): its
 * message is one line that names the variable, printed without a stack, since it is not a bug.
 */
export class StartupError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'StartupError';
  }
}

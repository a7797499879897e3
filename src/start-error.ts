/**
 * A mistake in the service's configuration or surroundings that stops the start (a setting out of
 * range, a folder that does not exist, a database that cannot be opened): its message names the
 * setting and says what to fix, and is logged as one line, without a stack.
 */
export class StartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartError';
  }
}

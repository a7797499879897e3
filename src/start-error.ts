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

/**
 * A failed listen as the setting to fix (HOST or PORT), or undefined for another failure: Node
 * says `getaddrinfo ENOTFOUND not-a-host` or `EADDRINUSE`, without the setting's name.
 */
export function listenStartError(err: unknown, host: string, port: number): StartError | undefined {
  switch ((err as NodeJS.ErrnoException | undefined)?.code) {
    case 'EADDRINUSE':
      return new StartError(`PORT: the port ${port} on ${host} is used by another process: stop it or choose another PORT (0: any free port)`);
    case 'EACCES':
      return new StartError(`PORT: listening on the port ${port} is not allowed to this user (below 1024 it needs privileges): choose another PORT`);
    case 'EADDRNOTAVAIL':
      return new StartError(`HOST: ${host} is not an address of this machine: correct HOST (127.0.0.1 for this machine only, 0.0.0.0 for all its addresses)`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return new StartError(`HOST: ${JSON.stringify(host)} is not an address nor a host name that resolves: correct HOST (127.0.0.1 for this machine only, 0.0.0.0 for all its addresses)`);
    default:
      return undefined;
  }
}

/** Error codes of `listen()` that mean the address cannot be had, with what to do about each. */
const UNAVAILABLE: Readonly<Record<string, string>> = {
  EADDRINUSE: 'is already in use (another server listens there)',
  EACCES: 'needs privileges this process does not have (ports below 1024 usually do)',
  EADDRNOTAVAIL: 'is not an address of this machine',
};

/**
 * The error `start()` rejects with when listening failed: for an address that cannot be had, one that says which
 * and what to do, keeping node's `code` (`EADDRINUSE`...) and the original as its `cause`; anything else as it is.
 */
export function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: unknown })?.code;
  const why = typeof code === 'string' ? UNAVAILABLE[code] : undefined;
  if (!why) return error;
  return Object.assign(
    new Error(
      `cannot listen on ${host}:${port}: the address ${why}; choose another port (the port option; 0 picks a free one)${code === 'EADDRNOTAVAIL' ? ' or another host' : ''}`,
      { cause: error },
    ),
    { code },
  );
}

/**
 * Resolves once `condition()` holds, checked every 10 ms; rejects after `timeout` ms naming `what`. For what happens
 * on another process's time (a broker, rsyslog, a server restarting) or on a timer the test configured: the wait ends
 * as soon as the condition holds, and the deadline only turns a hang into a failure.
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeout = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

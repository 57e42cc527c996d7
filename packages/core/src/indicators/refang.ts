// Only at the start: the scheme is the one place where `hxxp` is certainly a defanged `http`; elsewhere (a path, a
// query) it may be literal data that must be kept.
const DEFANGED_SCHEME = /^(?:hxxp|fxp)(s?)(?=[[({]?:)/i;

const TOKEN = String.raw`(\.|dot|:\/\/|:|@|at)`;
// Brackets must pair up: `[.]`, `(.)` and `{.}` are deliberate defanging, a lone `[.` or `.)` is more likely data.
const DEFANGED_TOKEN = new RegExp(String.raw`\[${TOKEN}\]|\(${TOKEN}\)|\{${TOKEN}\}`, 'gi');

const MAYBE_DEFANGED = /[[({]|^(?:hxxp|fxp)/i;

const REFANGED: Readonly<Record<string, string>> = { '.': '.', dot: '.', '://': '://', ':': ':', '@': '@', at: '@' };

/**
 * Undoes the usual ways threat reports defang indicators so that nobody clicks them: `hxxp`/`hxxps`/`fxp` schemes,
 * and `[.]`, `(.)`, `{.}`, `[dot]`, `(dot)`, `[:]`, `[://]`, `[@]`, `[at]`, `(at)` (any case, in square, round or
 * curly brackets). Text that is not defanged comes back unchanged.
 *
 * @example
 * ```ts
 * refang('hxxps[://]evil[.]com/x'); // 'https://evil.com/x'
 * refang('user[at]example(dot)com'); // 'user@example.com'
 * ```
 */
export function refang(input: string): string {
  // Most input is not defanged: no bracket and no hxxp/fxp scheme means nothing to undo (and no regex to run).
  if (!MAYBE_DEFANGED.test(input)) return input;
  return input
    .replace(
      DEFANGED_SCHEME,
      (match, secure: string) => `${match[0]?.toLowerCase() === 'h' ? 'http' : 'ftp'}${secure.toLowerCase()}`,
    )
    .replace(DEFANGED_TOKEN, (match, ...groups: unknown[]) => {
      const token = groups.slice(0, 3).find((group): group is string => typeof group === 'string');
      return token === undefined ? match : (REFANGED[token.toLowerCase()] ?? match);
    });
}

import { accepted, type CheckResult, refused } from './check-result.js';
import { checkDomain } from './domain.js';

const MAX_LOCAL_PART_LENGTH = 64;
// RFC 5322 `atext` plus non-ASCII (RFC 6531 allows UTF-8 local parts). Quoted local parts are left out on purpose:
// they are vanishingly rare in threat data and would let almost any text through.
const LOCAL_ATOM = /^[a-z0-9!#$%&'*+/=?^_`{|}~\u{80}-\u{10FFFF}-]+$/iu;

/** Whether `text` looks like it was meant as an email address: it contains an `@`. */
export function looksLikeEmail(text: string): boolean {
  return text.includes('@');
}

/**
 * Checks that `text` is `local@domain` with a valid domain, and returns it with the domain lower-cased and in
 * punycode; the local part is kept as given, since only the receiving server may decide whether its case matters.
 */
export function checkEmail(text: string): CheckResult {
  const at = text.indexOf('@');
  if (at === -1) return refused('has no "@"');
  if (text.indexOf('@', at + 1) !== -1) return refused('has more than one "@"');
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (local === '') return refused('has nothing before the "@"');
  const localLength = [...local].length;
  if (localLength > MAX_LOCAL_PART_LENGTH) {
    return refused(`local part is ${localLength} characters long (at most ${MAX_LOCAL_PART_LENGTH})`);
  }
  const atoms = local.split('.');
  if (atoms.some((atom) => atom === '')) return refused('local part starts or ends with ".", or has ".." in it');
  const badAtom = atoms.find((atom) => !LOCAL_ATOM.test(atom));
  if (badAtom !== undefined) {
    const character = [...badAtom].find((c) => !LOCAL_ATOM.test(c)) ?? badAtom;
    return refused(`local part contains "${character}", which is not allowed there`);
  }
  if (domain === '') return refused('has nothing after the "@"');
  if (domain.startsWith('[')) return refused('IP-literal domains (user@[192.0.2.1]) are not supported');
  const checked = checkDomain(domain);
  if (!checked.ok) return refused(`domain "${domain}": ${checked.reason}`);
  return accepted('email', `${local}@${checked.value}`);
}

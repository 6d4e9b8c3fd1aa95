/**
 * Numbers as text. Strict parsing (CSV cells, LIBSVM tokens): `Number()` is
 * too lenient for data files — it reads `''` and `' '` as 0, `'0x1F'` as 31
 * and `'Infinity'` as a number — so only plain decimal notation is accepted,
 * and the reason for a rejection is put in words. And counts printed with
 * thousands separators ({@link thousands}).
 */

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const NON_FINITE = /^[+-]?(?:nan|inf|infinity)$/i;

/**
 * The finite number `text` spells in decimal notation, or `undefined`.
 *
 * @example
 * parseFiniteNumber('-1.5e3'); // -1500
 * parseFiniteNumber('NaN');    // undefined
 * parseFiniteNumber('1e999');  // undefined (overflows to Infinity)
 */
export function parseFiniteNumber(text: string): number | undefined {
  if (!DECIMAL.test(text)) return undefined;
  const v = Number(text);
  return Number.isFinite(v) ? v : undefined;
}

/**
 * Why `text` is not a finite number, as the tail of an error message.
 *
 * @example
 * whyNotFinite('inf');  // "value is inf (not finite); features must be finite numbers"
 * whyNotFinite('abc');  // "value 'abc' is not a number"
 */
export function whyNotFinite(text: string, what = 'features'): string {
  if (text === '') return `value is missing; ${what} must be numbers`;
  if (NON_FINITE.test(text) || (DECIMAL.test(text) && !Number.isFinite(Number(text)))) {
    return `value is ${text} (not finite); ${what} must be finite numbers`;
  }
  return `value '${text.length > 40 ? text.slice(0, 40) + '…' : text}' is not a number`;
}

/**
 * `n` with a comma every three digits when it is a whole number below 1e21
 * (what `toLocaleString('en')` prints), else `String(n)`: how messages and
 * reports print counts ("50,000 rows", "T = 1,600"). Not `toLocaleString`:
 * its first call loads ICU's number formatting, about 20 ms that every
 * `train` paid for one separator.
 *
 * @example
 * thousands(1234567); // '1,234,567'
 * thousands(-1000);   // '-1,000'
 * thousands(0.5);     // '0.5'
 */
export function thousands(n: number): string {
  if (!Number.isInteger(n) || Math.abs(n) >= 1e21) return String(n);
  const digits = String(Math.abs(n));
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? `-${out}` : out;
}

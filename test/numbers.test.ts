import { describe, expect, it } from 'vitest';
import { parseFiniteNumber, thousands } from '../src/data/numbers.ts';

describe('thousands', () => {
  it('prints whole numbers as toLocaleString("en") does, without loading ICU', () => {
    for (const n of [0, 7, 999, 1000, 12345, -1000, -999999, 1234567, 2 ** 53, 1e20]) expect(thousands(n), String(n)).toBe(n.toLocaleString('en'));
  });

  it('leaves what is not a whole number below 1e21 as String gives it', () => {
    for (const n of [0.5, -2.25, 1e21, NaN, Infinity]) expect(thousands(n)).toBe(String(n));
  });
});

describe('parseFiniteNumber', () => {
  it('reads plain decimal notation only', () => {
    expect(parseFiniteNumber('-1.5e3')).toBe(-1500);
    for (const text of ['', ' ', '0x1F', 'Infinity', 'NaN', '1e999']) expect(parseFiniteNumber(text), text).toBeUndefined();
  });
});

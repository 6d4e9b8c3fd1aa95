import { describe, expect, it } from 'vitest';
import { markdownTable } from '../bench/lib/index.ts';

describe('markdownTable', () => {
  it('aligns columns, right-aligns numbers, formats them readably', () => {
    const table = markdownTable([
      { threads: 1, 'ms/iter': 12.3456, note: 'baseline' },
      { threads: 2, 'ms/iter': 6.5 },
      { threads: 16, 'ms/iter': 0.0000123, note: 'a|b' },
    ]);
    expect(table).toBe(
      [
        '| threads | ms/iter | note     |',
        '| ------: | ------: | -------- |',
        '|       1 |   12.35 | baseline |',
        '|       2 |     6.5 |          |',
        '|      16 | 1.23e-5 | a\\|b     |',
        '',
      ].join('\n'),
    );
  });

  it('takes the union of keys as columns, or the order given', () => {
    const rows = [{ a: 1 }, { b: 'x', a: 2 }];
    expect(markdownTable(rows).split('\n')[0]).toBe('|   a | b   |');
    expect(markdownTable(rows, { columns: ['b', 'a'] }).split('\n')[0]).toBe('| b   |   a |');
    expect(markdownTable([])).toBe('');
  });
});

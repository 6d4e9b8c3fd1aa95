import { describe, expect, it } from 'vitest';
import { gapToBestPeer, latestCells, tally, type QualityCell } from '../bench/lib/quality.ts';

/** A cell of set 'a' (labeled protocol) with only the fields the summary reads set by the caller. */
function cell(method: string, seed: number, metric: number, accuracy: number, kind: 'peer' | 'dsgkit' = 'peer'): QualityCell {
  return { set: 'a', task: 'binary', protocol: 'labeled', seed, method, kind, metric, accuracy, seconds: 1, rows: 10, trainRows: 8, labeledTrainRows: 2, testRows: 2, srcTree: 'x', loadavg: [0], date: '' };
}

describe('bench:quality summary', () => {
  it('compares a learner with the peer best on the learner’s own measure, seed by seed', () => {
    const cells = [
      // svc is best by AUC, knn by accuracy.
      cell('svc', 1, 0.95, 0.8), cell('svc', 2, 0.93, 0.82),
      cell('label-spreading-knn', 1, 0.9, 0.9), cell('label-spreading-knn', 2, 0.9, 0.88),
      cell('qsg-s2auc', 1, 0.96, 0.85, 'dsgkit'), cell('qsg-s2auc', 2, 0.9, 0.85, 'dsgkit'),
    ];
    const peers = ['svc', 'label-spreading-knn'];
    const byAuc = gapToBestPeer(cells, 'qsg-s2auc', 'metric', peers)!;
    expect(byAuc.peer).toBe('svc');
    expect(byAuc.gap).toBeCloseTo((0.96 - 0.95 + 0.9 - 0.93) / 2, 12);
    expect(byAuc.sdGap).toBeCloseTo(Math.SQRT2 * 0.02, 12);
    const byAccuracy = gapToBestPeer(cells, 'qsg-s2auc', 'accuracy', peers)!;
    expect(byAccuracy.peer).toBe('label-spreading-knn');
    expect(byAccuracy.gap).toBeCloseTo(0.85 - 0.89, 12);
  });

  it('compares on the seeds the learner shares with every peer that ran, so the best peer always competes', () => {
    // svc lacks seed 2: the comparison is on seed 1, where svc is best (a weaker peer with more seeds does not stand in for it).
    const cells = [cell('svc', 1, 0.99, 0.9), cell('label-spreading-knn', 1, 0.8, 0.8), cell('label-spreading-knn', 2, 0.8, 0.8), cell('dsg', 1, 0.85, 0.8, 'dsgkit'), cell('dsg', 2, 0.75, 0.8, 'dsgkit')];
    const g = gapToBestPeer(cells, 'dsg', 'metric', ['svc', 'label-spreading-knn'])!;
    expect(g).toMatchObject({ peer: 'svc', seeds: 1, value: 0.85 });
    expect(g.gap).toBeCloseTo(0.85 - 0.99, 12);
    // No peer ran on the learner's seeds, or the learner did not run: no gap.
    expect(gapToBestPeer([cell('svc', 3, 0.9, 0.9), cell('dsg', 1, 0.85, 0.8, 'dsgkit')], 'dsg', 'metric', ['svc'])).toBeUndefined();
    expect(gapToBestPeer(cells, 'gkm', 'metric', ['svc'])).toBeUndefined();
  });

  it('counts a gap of exactly ±0.005 as a tie and names the worst set', () => {
    const t = tally([{ set: 'a', gap: 0.905 - 0.9 }, { set: 'b', gap: 0.0051 }, { set: 'c', gap: 0.9 - 0.905 }, { set: 'd', gap: -0.03 }], 0.005);
    expect(t).toMatchObject({ wins: 1, ties: 2, losses: 1, worst: { set: 'd', gap: -0.03 } });
    expect(t.meanGap).toBeCloseTo(0.0051 / 4 - 0.03 / 4, 12);
    expect(() => tally([], 0.005)).toThrow(RangeError);
  });

  it('keeps the newest cell of a re-run', () => {
    const old = cell('svc', 1, 0.5, 0.5);
    const fresh = cell('svc', 1, 0.7, 0.7);
    const other = cell('svc', 2, 0.6, 0.6);
    expect(latestCells([old, other, fresh])).toEqual([fresh, other]);
  });
});

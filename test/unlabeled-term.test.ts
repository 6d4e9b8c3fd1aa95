/**
 * Switching off a semi-supervised learner's unlabeled term (its supervised
 * special case) must change what it predicts on held-out rows: a learner whose
 * unlabeled term is inert at its defaults is a slower supervised learner.
 * Spam, 200 labeled rows and ≈ 3,500 unlabeled ones (many more unlabeled
 * than labeled rows, where a C* that shrinks with n_l/n_u goes inert), at a
 * small budget so the test stays fast; the benchmark shows the size of the
 * change on the public sets (docs/algorithms.md § TSGS3VM).
 */
import { describe, expect, it } from 'vitest';
// Learners chosen by name at run time: the untyped entry (the typed `train` checks literal options at compile time).
import { trainModel as train } from '../src/train/train.ts';
import { readDataset, splitDataset } from '../src/data/index.ts';

const spam = await readDataset('data/spam.arrow');
const { train: tr, test } = splitDataset(spam, { labeled: 200, test: 0.2, seed: 1 });

/** Share of held-out rows whose predicted label differs between the learner at its defaults and with `off` (its unlabeled term switched off). */
async function changedShare(learner: string, off: Record<string, unknown>, run: Record<string, unknown> = { T: 200, m: 32, seed: 1, threads: 1 }): Promise<number> {
  const on = await (await train({ learner, data: tr, ...run })).predict(test!);
  const without = await (await train({ learner, data: tr, ...run, ...off })).predict(test!);
  let changed = 0;
  for (let i = 0; i < on.length; i++) if (on[i] !== without[i]) changed++;
  return changed / on.length;
}

describe('the unlabeled term changes held-out predictions (spam, 200 labeled rows)', () => {
  it('tsgs3vm: the default C* against C* = 0', async () => {
    const share = await changedShare('tsgs3vm', { Cstar: 0 });
    expect(share, `share of held-out labels changed by C* = 0: ${share}`).toBeGreaterThan(0);
  }, 60_000);

  it('qsg-s2auc: the default γ against γ = 1', async () => {
    const share = await changedShare('qsg-s2auc', { gamma: 1 });
    expect(share, `share of held-out labels changed by γ = 1: ${share}`).toBeGreaterThan(0);
  }, 60_000);

  // The graph learners at their own budget (T and B follow the labeled rows), on the same split.
  for (const learner of ['gkm', 'lapsvm']) {
    it(`${learner}: the default C′ against C′ = 0`, async () => {
      const share = await changedShare(learner, { Cprime: 0 }, { seed: 1, threads: 1 });
      expect(share, `share of held-out labels changed by C′ = 0: ${share}`).toBeGreaterThan(0);
    }, 60_000);
  }
});

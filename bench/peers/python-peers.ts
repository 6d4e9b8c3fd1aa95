/**
 * Running the scikit-learn peers (bench/peers/run_peers.py) on dsgkit's own
 * splits: each split's training and test rows are scaled by a min-max scaler
 * fitted on the training rows (what `train` does) and written as CSV, so the
 * Python peers see the same rows and the same numbers bit for bit; one
 * `python3` process runs every peer on every split and its JSON comes back.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MinMaxScaler, type Dataset } from '../../src/data/index.ts';

/** The Python side of the peers benchmarks. */
export const PEERS_RUNNER = fileURLToPath(new URL('./run_peers.py', import.meta.url));

/** One split handed to the peers. */
/** What run_peers.py returns per peer and seed: its held-out scores and labels, the settings its CV chose, its time. */
export interface PeerRecord {
  method: string;
  seed: number;
  seconds: number;
  metric: number;
  accuracy: number;
  /** Ordinal tasks: mean absolute error of the predicted classes. */
  mae?: number;
  params: Record<string, unknown>;
  scores: number[];
  predicted: number[];
}

export interface PeerSplit {
  readonly seed: number;
  readonly train: Dataset;
  readonly test: Dataset;
}

/** What the manifest says besides the splits (see run_peers.py). */
export interface PeerRunSpec {
  readonly dataset: string;
  readonly task: 'binary' | 'ordinal';
  readonly peers: readonly string[];
  readonly unlabeledCap: number;
  /** CV scoring for the peers' grids (run_peers.py's default is the task's metric). */
  readonly cvScoring?: 'accuracy';
}

/**
 * A dataset as the CSV run_peers.py reads: `label,f1..fd`, an empty label for
 * an unlabeled row, numbers in round-trip form.
 *
 * @example
 * writeFileSync('train.csv', peerCsv(scaler.transform(train)));
 */
export function peerCsv(ds: Dataset): string {
  const lines = [['label', ...Array.from({ length: ds.d }, (_, k) => `f${k + 1}`)].join(',')];
  for (let i = 0; i < ds.n; i++) {
    const row = [ds.labeled[i] ? String(ds.y[i]) : ''];
    for (let k = 0; k < ds.d; k++) row.push(String(ds.X[i * ds.d + k]));
    lines.push(row.join(','));
  }
  return lines.join('\n') + '\n';
}

/**
 * Runs the peers named in `spec` on every split (scaled as `train` scales)
 * with `python`, and returns run_peers.py's JSON output (`versions` and one
 * record per peer and seed). Its temporary folder is removed either way.
 *
 * @example
 * const { records } = await runPythonPeers('/usr/bin/python3', { dataset: 'spam', task: 'binary', peers: ['svc'], unlabeledCap: 4000 }, splits);
 */
export async function runPythonPeers<R>(python: string, spec: PeerRunSpec, splits: readonly PeerSplit[]): Promise<{ versions: Record<string, string>; records: R[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'dsgkit-peers-'));
  try {
    const files = splits.map(({ seed, train, test }) => {
      const scaler = MinMaxScaler.fit(train);
      const paths = { seed, train: join(dir, `train-${seed}.csv`), test: join(dir, `test-${seed}.csv`) };
      writeFileSync(paths.train, peerCsv(scaler.transform(train)));
      writeFileSync(paths.test, peerCsv(scaler.transform(test)));
      return paths;
    });
    const manifest = join(dir, 'manifest.json');
    const out = join(dir, 'out.json');
    writeFileSync(manifest, JSON.stringify({ ...spec, splits: files }));
    await new Promise<void>((resolve, reject) => {
      const child = spawn(python, [PEERS_RUNNER, manifest, out], { stdio: ['ignore', 'inherit', 'inherit'] });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${python} ${PEERS_RUNNER} exited with ${code}`))));
    });
    return JSON.parse(readFileSync(out, 'utf8')) as { versions: Record<string, string>; records: R[] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

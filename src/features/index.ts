export * from './kernel-spec.ts';
export * from './spectral.ts';
export * from './feature-map.ts';
export * from './median-heuristic.ts';

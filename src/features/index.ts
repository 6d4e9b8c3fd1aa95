export * from './kernel-spec.ts';
export * from './spectral.ts';
export * from './feature-map.ts';

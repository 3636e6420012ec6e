/**
 * Upper bounds that specs put on elapsed time. Such a bound has two parts: the product's own
 * figure (a deadline or retry window the test gave the mesh, or the spec's number), which an
 * assertion keeps as written, and an allowance for scheduling on the machine the test runs on
 * (a process or timer run late, a child starting, a TCP round trip). Only the allowance is the
 * harness's: `allowance(ms)` is `ms` times `TEST_TIMING_SCALE` (default 1, the bounds as written),
 * so a slow or loaded machine raises the scale instead of a spec raising its constants
 * (docs/testing.md, "Harness settings"). Lower bounds (a wait that must have happened) never scale.
 */
function settingScale(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 1) throw new Error(`${name} must be a number of at least 1, not ${raw}`);
  return value;
}

export const TIMING_SCALE = settingScale('TEST_TIMING_SCALE', 1);

/** A scheduling allowance of `ms` on this machine: `ms` × TEST_TIMING_SCALE. */
export function allowance(ms: number): number {
  return Math.round(ms * TIMING_SCALE);
}

/** Least-squares line through RSS samples, and whether it is a growth trend. */

export interface Slope {
  /** MB per minute. */
  mbPerMinute: number;
  /** Standard error of the slope (MB per minute). */
  stdErr: number;
  /** MB the fitted line rises over the samples' span. */
  fittedGrowthMb: number;
  meanMb: number;
  samples: number;
  /**
   * The rise is both real and material: the slope's 95% interval lies above zero, and the
   * fitted rise over the window is more than 5% of the mean RSS (V8's heap grows and
   * shrinks by a few MB with every GC; a leak keeps rising).
   */
  trend: boolean;
}

export function slope(points: Array<{ x: number; y: number }>): Slope {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.x - mx) ** 2;
    sxy += (p.x - mx) * (p.y - my);
  }
  const b = sxx > 0 ? sxy / sxx : 0;
  const a = my - b * mx;
  const residual = points.reduce((s, p) => s + (p.y - (a + b * p.x)) ** 2, 0);
  const stdErr = n > 2 && sxx > 0 ? Math.sqrt(residual / (n - 2) / sxx) : Infinity;
  const span = n ? Math.max(...points.map((p) => p.x)) - Math.min(...points.map((p) => p.x)) : 0;
  const fittedGrowthMb = b * span;
  return { mbPerMinute: b, stdErr, fittedGrowthMb, meanMb: my, samples: n, trend: b - 1.96 * stdErr > 0 && fittedGrowthMb > 0.05 * my };
}

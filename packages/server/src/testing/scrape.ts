/** Reading Prometheus' text format in tests: the samples of one metric name, by labels. */

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export function samples(text: string, name: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line)!;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    out.push({ labels, value: Number(m[2]) });
  }
  return out;
}

/** The value of the one sample whose labels include `want`; undefined when there is none. */
export function value(text: string, name: string, want: Record<string, string>): number | undefined {
  return samples(text, name).find((s) => Object.entries(want).every(([k, v]) => s.labels[k] === v))?.value;
}

/**
 * The e2e files run on two workers, and a few take minutes where most take seconds: started
 * last, one of them would run alone at the end while the other worker idles. Jest starts the
 * longest first only when its cache knows their durations (a clean clone's does not; it falls
 * back to file size, which says little here). These files start first, longest first, by what
 * they took on CI's two cores with two workers; the rest follow in Jest's own order.
 */
import { createRequire } from 'node:module';
import { basename } from 'node:path';

const fromJest = createRequire(createRequire(import.meta.url).resolve('jest'));
const fromCore = createRequire(fromJest.resolve('@jest/core'));
const { default: Sequencer } = fromCore('@jest/test-sequencer');

/** Seconds each file took (2026-11, two workers on two cores). */
const long = {
  'real-manifests.test.js': 190,
  'golden.test.js': 60,
  'real-manifests-ssa.test.js': 59,
  'mixin.test.js': 58,
  'kubectl-commands.test.js': 50,
  'authentication.test.js': 42,
  'informer-restart.test.js': 33,
  'authorization.test.js': 31,
  'faults.test.js': 26,
  'python-watch.test.js': 26,
  'watch-consistency.test.js': 25,
  'compact.test.js': 25,
  'workers.test.js': 22,
};

export default class LongFirst extends Sequencer {
  async sort(tests) {
    const ordered = [...(await super.sort(tests))];
    const weight = (t) => long[basename(t.path)] ?? 0;
    // Array.prototype.sort is stable: files without a weight keep Jest's order.
    return ordered.sort((a, b) => weight(b) - weight(a));
  }
}

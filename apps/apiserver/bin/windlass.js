#!/usr/bin/env node
// The bundle (scripts/bundle.mjs) starts faster; it is used only while no file it was made
// from has changed since (a package rebuilt without the app).
import { readFileSync, statSync } from 'node:fs';

const app = new URL('../', import.meta.url);
const dist = new URL('dist/', app);

function bundleIsCurrent() {
  try {
    const built = statSync(new URL('bundle/main.mjs', dist)).mtimeMs;
    const inputs = JSON.parse(readFileSync(new URL('bundle/inputs.json', dist), 'utf8'));
    return inputs.every((file) => statSync(new URL(file, app)).mtimeMs <= built);
  } catch {
    return false;
  }
}

await import(process.env.WINDLASS_NO_BUNDLE !== '1' && bundleIsCurrent() ? '../dist/bundle/main.mjs' : '../dist/main.js');

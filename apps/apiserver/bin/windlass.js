#!/usr/bin/env node
// The bundle (scripts/bundle.mjs) starts faster; it is used only while no file it was made
// from has changed since (a package rebuilt without the app).
//
// The bundle is one CommonJS script compiled through V8's code cache: Node 20 has no compile
// cache for ES modules, and compiling the ES module bundle was ~0.2 s of every start. The cache (dist/bundle/main.cjs.cache) is written once the server
// serves, so it holds every function start-up compiled; the build writes one with a warm-up
// start, and a start whose cache is missing or rejected (another Node or other V8 flags)
// writes it again when it can.
import { existsSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';

// Set before the bundle is compiled: V8's code cache records the flags it was made under, and
// the server sets this one as it loads (@windlass/schemas, for Go regular expressions in linear
// time), so a cache written while serving is accepted only by a compile that already had it.
v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

const app = fileURLToPath(new URL('../', import.meta.url));
const bundleDir = `${app}dist/bundle/`;
const bundle = `${bundleDir}main.cjs`;
const cacheFile = `${bundleDir}main.cjs.cache`;

// Cheap on purpose, it runs before every start: stat calls on plain strings, half as many as
// files bundled (one per dependency version, whose files never change).
function bundleIsCurrent() {
  try {
    const built = statSync(bundle).mtimeMs;
    const { files, packages } = JSON.parse(readFileSync(`${bundleDir}inputs.json`, 'utf8'));
    for (const file of files) if (statSync(app + file).mtimeMs > built) return false;
    for (const dir of packages) if (!existsSync(app + dir)) return false;
    return true;
  } catch {
    return false;
  }
}

function readCache() {
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

function writeCache(script) {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, cacheFile);
  } catch {
    // A read-only install (the image's runtime user) runs without a cache it could not write.
    try { unlinkSync(tmp); } catch {}
  }
}

function runBundle() {
  // A function expression, as Node wraps a CommonJS module, in ASCII: latin1 reads it without a UTF-8 decode.
  const code = readFileSync(bundle, 'latin1');
  const cachedData = readCache();
  const script = new vm.Script(code, {
    filename: bundle,
    cachedData,
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const warmUp = process.env.WINDLASS_CODE_CACHE_WARMUP === '1';
  if (warmUp || cachedData === undefined || script.cachedDataRejected) {
    process.once('windlass:serving', () => setImmediate(() => {
      writeCache(script);
      if (warmUp) process.exit(0);
    }));
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, bundleDir.slice(0, -1));
}

if (process.env.WINDLASS_NO_BUNDLE !== '1' && bundleIsCurrent()) runBundle();
else await import('../dist/main.js');

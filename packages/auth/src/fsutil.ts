import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';

/**
 * Writes through a temporary file and a rename so that a crash mid-write never
 * leaves a truncated key or certificate behind: readers see the old file or the new one.
 */
export async function writeFileAtomic(path: string, data: string, mode: number): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, data, { mode, flag: 'wx' });
    // The mode given to writeFile is filtered by the umask; secrets must be 0600 regardless.
    await chmod(tmp, mode);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** The file's text, or null when it does not exist; every other error is the caller's problem. */
export async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Creates a private directory (0700) for secrets; an existing directory keeps its mode. */
export async function ensurePrivateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
}

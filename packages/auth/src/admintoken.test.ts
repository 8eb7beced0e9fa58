import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ADMIN_GROUPS, ADMIN_USER_NAME, adminTokenEntry, ensureAdminToken } from './admintoken.js';
import { tempDirs } from './testutil.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

describe('ensureAdminToken', () => {
  it('creates a 32-byte base64url token in <dataDir>/admin-token, mode 0600', async () => {
    const dataDir = join(await dirs.make(), 'not-yet-created');
    const token = await ensureAdminToken(dataDir);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const path = join(dataDir, 'admin-token');
    expect((await readFile(path, 'utf8')).trim()).toBe(token);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('reuses the stored token', async () => {
    const dataDir = await dirs.make();
    const token = await ensureAdminToken(dataDir);
    expect(await ensureAdminToken(dataDir)).toBe(token);
  });

  it('makes a different token for a different data directory', async () => {
    expect(await ensureAdminToken(await dirs.make())).not.toBe(await ensureAdminToken(await dirs.make()));
  });

  it('keeps a token written by hand, and replaces an empty file', async () => {
    const dataDir = await dirs.make();
    await writeFile(join(dataDir, 'admin-token'), 'my-dev-token\n');
    expect(await ensureAdminToken(dataDir)).toBe('my-dev-token');
    await writeFile(join(dataDir, 'admin-token'), '\n');
    expect(await ensureAdminToken(dataDir)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses a stored token no client could send', async () => {
    const dataDir = await dirs.make();
    await writeFile(join(dataDir, 'admin-token'), 'two words\n');
    await expect(ensureAdminToken(dataDir)).rejects.toThrow(/visible ASCII characters without spaces/);
  });
});

describe('adminTokenEntry', () => {
  it('maps the token to windlass-admin in system:masters', () => {
    expect(ADMIN_USER_NAME).toBe('windlass-admin');
    expect(adminTokenEntry('t')).toEqual({ token: 't', user: { name: 'windlass-admin', uid: '', groups: ['system:masters', 'system:authenticated'] } });
    expect(ADMIN_GROUPS).toEqual(['system:masters', 'system:authenticated']);
  });
});

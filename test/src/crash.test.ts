import { adminToken, httpsCall, removeDir, startWindlass, tempDir } from './harness.js';

test('kill -9 during writes on the embedded backend loses no acknowledged write', async () => {
  const dir = tempDir();
  const s = await startWindlass([], dir);
  const token = adminToken(s);
  const acked: string[] = [];
  let stop = false;
  // Four concurrent writers; a create counts once the server answered 201.
  const writer = async (w: number) => {
    for (let i = 0; !stop; i++) {
      const name = `w${w}-${i}`;
      try {
        const r = await httpsCall(s, 'POST', '/api/v1/namespaces/default/configmaps', { token, body: { metadata: { name }, data: { i: String(i) } } });
        if (r.status === 201) acked.push(name);
      } catch {
        return; // the server died mid-request: that write was never acknowledged
      }
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  while (acked.length < 150) await new Promise((r) => setTimeout(r, 10));
  s.proc.kill('SIGKILL');
  stop = true;
  await Promise.all(writers);
  await s.stop();

  const again = await startWindlass([], dir);
  try {
    const list = await httpsCall(again, 'GET', '/api/v1/namespaces/default/configmaps', { token });
    expect(list.status).toBe(200);
    const names = new Set(list.body.items.map((i: any) => i.metadata.name));
    const lost = acked.filter((n) => !names.has(n));
    expect(lost).toEqual([]);
    expect(acked.length).toBeGreaterThanOrEqual(150);
  } finally {
    await again.stop();
    removeDir(dir);
  }
});

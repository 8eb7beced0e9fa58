/**
 * A keep-alive connection's requests carry the same Authorization header: a stable (static
 * token) authenticator is asked once per connection and header, and any other header on the
 * connection, or any other connection, is looked up again — a bad token is never let through.
 */
import http from 'node:http';
import { EmbeddedStorage } from '@windlass/storage';
import { TokenAuthenticator } from '@windlass/auth';
import { APIServer, type Authenticator } from './apiserver.js';

/** The real token authenticator, its lookups counted; `stable` as given. */
function counted(stable: boolean) {
  const inner = new TokenAuthenticator([
    { token: 'alice-token', user: { name: 'alice', uid: '1', groups: ['system:masters'] } },
    { token: 'bob-token', user: { name: 'bob', uid: '2', groups: ['system:masters'] } },
  ]);
  const calls = { n: 0 };
  const auth: Authenticator = { stable, authenticate: (h) => { calls.n++; return inner.authenticate(h); } };
  return { auth, calls };
}

function get(port: number, agent: http.Agent, token: string, path = '/api/v1/namespaces/default/configmaps'): Promise<{ status: number; socket: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ port, host: '127.0.0.1', path, agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, socket: req.socket }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('authentication per connection', () => {
  let storage: EmbeddedStorage;
  let server: APIServer;
  afterEach(async () => {
    await server.close();
    await storage.close();
  });

  async function start(auth: Authenticator): Promise<number> {
    storage = new EmbeddedStorage(':memory:');
    server = new APIServer({ storage, authenticator: auth });
    return server.listen(0, '127.0.0.1');
  }

  test('a stable authenticator answers once per connection and header; a changed header is looked up again', async () => {
    const { auth, calls } = counted(true);
    const port = await start(auth);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const first = await get(port, agent, 'alice-token');
    expect(first.status).toBe(200);
    const base = calls.n;
    for (let i = 0; i < 5; i++) {
      const r = await get(port, agent, 'alice-token');
      expect(r.status).toBe(200);
      expect(r.socket).toBe(first.socket);
    }
    expect(calls.n).toBe(base);
    // Another token on the same connection: looked up, and a wrong one refused.
    expect((await get(port, agent, 'bob-token')).status).toBe(200);
    expect(calls.n).toBe(base + 1);
    const bad = await get(port, agent, 'alice-token-guess');
    expect(bad.status).toBe(401);
    expect(bad.socket).toBe(first.socket);
    expect(calls.n).toBe(base + 2);
    // The refused header replaced nothing: the last good one is still answered from the connection.
    expect((await get(port, agent, 'bob-token')).status).toBe(200);
    expect(calls.n).toBe(base + 2);
    // A new connection knows nothing of the old one's header.
    const other = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await get(port, other, 'bob-token')).status).toBe(200);
    expect(calls.n).toBe(base + 3);
    agent.destroy();
    other.destroy();
  });

  test('an authenticator that is not stable is asked for every request', async () => {
    const { auth, calls } = counted(false);
    const port = await start(auth);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 4; i++) expect((await get(port, agent, 'alice-token')).status).toBe(200);
    expect(calls.n).toBe(4);
    agent.destroy();
  });
});

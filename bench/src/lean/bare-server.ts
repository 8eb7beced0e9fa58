/**
 * The bare floor (a child process): a plain Node HTTPS server with Windlass's certificate and
 * key, keep-alive, that answers every GET with the bytes (status, headers, body) Windlass
 * returned for the ConfigMap and every POST, after reading the request body, with the bytes of
 * Windlass's 201. No routing, no auth, no storage: what any Node HTTPS server must spend.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';

export interface CannedReply {
  status: number;
  headers: Record<string, string>;
  /** base64 */
  body: string;
}

export interface BareSpec {
  certFile: string;
  keyFile: string;
  get: CannedReply;
  post: CannedReply;
}

process.once('message', (m: { t: string; spec: BareSpec }) => {
  const { spec } = m;
  // Status, headers and body built once; each reply only writes them.
  const prepare = (c: CannedReply): { status: number; headers: Record<string, string | number>; bytes: Buffer } => {
    const bytes = Buffer.from(c.body, 'base64');
    return { status: c.status, headers: { ...c.headers, 'content-length': bytes.length }, bytes };
  };
  const get = prepare(spec.get);
  const post = prepare(spec.post);
  const reply = (res: import('node:http').ServerResponse, r: typeof get): void => {
    res.writeHead(r.status, r.headers);
    res.end(r.bytes);
  };
  // keepAliveTimeout: Node's default, as Windlass has it, so even the Keep-Alive header is the same.
  const server = https.createServer({ cert: readFileSync(spec.certFile), key: readFileSync(spec.keyFile), keepAliveTimeout: 5000 }, (req, res) => {
    if (req.method === 'GET') {
      reply(res, get);
      return;
    }
    let n = 0;
    req.on('data', (c: Buffer) => (n += c.length));
    req.on('end', () => (n > 0 ? reply(res, post) : ((res.statusCode = 400), res.end())));
  });
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    process.send!({ t: 'listening', port: typeof addr === 'object' && addr ? addr.port : 0 });
  });
  process.on('disconnect', () => process.exit(0));
});

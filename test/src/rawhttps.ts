/**
 * Raw HTTPS requests for tests that send what no client library would: bodies that are not
 * JSON or not UTF-8, any Content-Type and Accept, any method, and requests abandoned halfway
 * through their body. Answers are never parsed by a client library either: the status, the
 * headers and the bytes as the server wrote them.
 */
import https from 'node:https';
import tls from 'node:tls';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as JSON, when it is JSON. */
  json?: any;
}

export interface RawRequest {
  method: string;
  path: string;
  body?: string | Buffer;
  /** Headers besides the token; `content-type` defaults to application/json when there is a body. */
  headers?: Record<string, string>;
}

export class RawHttps {
  private readonly agent: https.Agent;
  private readonly host: string;
  private readonly port: number;

  constructor(url: string, private readonly ca: Buffer, private readonly token: string) {
    const u = new URL(url);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 16, ca, servername: 'localhost' });
  }

  destroy(): void {
    this.agent.destroy();
  }

  /** One request; a server that does not answer within `timeoutMs` fails it (a hang is a failure). */
  send(r: RawRequest, timeoutMs = 20000): Promise<RawAnswer> {
    const body = r.body === undefined ? undefined : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body);
    const headers: Record<string, string | number> = { authorization: `Bearer ${this.token}`, accept: 'application/json' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = body.length;
    }
    Object.assign(headers, r.headers ?? {});
    return new Promise((resolve, reject) => {
      const req = https.request({ host: this.host, port: this.port, method: r.method, path: r.path, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      });
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`${r.method} ${r.path.slice(0, 120)}: no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  /**
   * Sends a request's headers and the first `sent` bytes of a body announced as `declared`
   * bytes long, then drops the connection: a client gone mid-body.
   */
  abandonBody(path: string, declared: number, sent: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host: this.host, port: this.port, ca: this.ca, servername: 'localhost' }, () => {
        socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${this.token}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
        socket.write(sent, () => {
          // Give the server the bytes before the connection goes.
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 100);
        });
      });
      socket.on('error', reject);
    });
  }

  /** Opens a watch, waits for its first bytes, then drops the connection: a client gone mid-watch. */
  abandonWatch(path: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = https.get({ host: this.host, port: this.port, path, ca: this.ca, servername: 'localhost', agent: false, headers: { authorization: `Bearer ${this.token}` } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    });
  }
}

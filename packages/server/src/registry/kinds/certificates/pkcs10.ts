/**
 * What kube reads from a certificate signing request (certificates.ParseCSR and
 * x509.CertificateRequest.CheckSignature) and from an issued certificate chain: PEM blocks, a
 * minimal DER reader for PKCS#10, the subject's organizations and the self-signature, checked
 * with Node's crypto.
 */
import { X509Certificate, createPublicKey, verify } from 'node:crypto';

export interface PEMBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

/** Go's pem.Decode: the first well-formed block of `data` and what follows it, or undefined. */
export function decodePEM(data: string): { block: PEMBlock; rest: string } | undefined {
  let from = 0;
  for (;;) {
    const begin = data.indexOf('-----BEGIN ', from);
    if (begin < 0) return undefined;
    // Go only takes a BEGIN line at the start of the data or of a line.
    if (begin > 0 && data[begin - 1] !== '\n') {
      from = begin + 1;
      continue;
    }
    const typeEnd = data.indexOf('-----', begin + 11);
    const lineEnd = data.indexOf('\n', begin);
    if (typeEnd < 0 || (lineEnd >= 0 && typeEnd > lineEnd)) {
      from = begin + 1;
      continue;
    }
    const type = data.slice(begin + 11, typeEnd);
    const bodyStart = lineEnd < 0 ? data.length : lineEnd + 1;
    const endMarker = `-----END ${type}-----`;
    const end = data.indexOf(endMarker, bodyStart);
    if (end < 0) {
      from = begin + 1;
      continue;
    }
    const lines = data.slice(bodyStart, end).split(/\r?\n/);
    const headers: Record<string, string> = {};
    let i = 0;
    for (; i < lines.length; i++) {
      const colon = lines[i].indexOf(':');
      if (colon < 0) break;
      headers[lines[i].slice(0, colon).trim()] = lines[i].slice(colon + 1).trim();
    }
    const b64 = lines.slice(i).join('').replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) {
      from = begin + 1;
      continue;
    }
    let restStart = end + endMarker.length;
    if (data[restStart] === '\r') restStart++;
    if (data[restStart] === '\n') restStart++;
    return { block: { type, headers, bytes: Buffer.from(b64, 'base64') }, rest: data.slice(restStart) };
  }
}

interface DER {
  tag: number;
  /** The whole element, header included. */
  raw: Buffer;
  content: Buffer;
}

function readDER(buf: Buffer, at = 0): DER {
  if (at + 2 > buf.length) throw new Error('asn1: syntax error: data truncated');
  const tag = buf[at];
  let len = buf[at + 1];
  let header = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || at + 2 + n > buf.length) throw new Error('asn1: syntax error: data truncated');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[at + 2 + i];
    header += n;
  }
  if (at + header + len > buf.length) throw new Error('asn1: syntax error: data truncated');
  return { tag, raw: buf.subarray(at, at + header + len), content: buf.subarray(at + header, at + header + len) };
}

function children(el: DER): DER[] {
  const out: DER[] = [];
  for (let at = 0; at < el.content.length;) {
    const c = readDER(el.content, at);
    out.push(c);
    at += c.raw.length;
  }
  return out;
}

function oid(content: Buffer): string {
  const parts = [Math.floor(content[0] / 40), content[0] % 40];
  let v = 0;
  for (let i = 1; i < content.length; i++) {
    v = v * 128 + (content[i] & 0x7f);
    if (!(content[i] & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

const organizationOID = '2.5.4.10';

/** Signature algorithms Go verifies, by OID: the digest and the key type. */
const signatureAlgorithms: Record<string, string> = {
  '1.2.840.113549.1.1.5': 'sha1', '1.2.840.113549.1.1.11': 'sha256', '1.2.840.113549.1.1.12': 'sha384', '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1', '1.2.840.10045.4.3.2': 'sha256', '1.2.840.10045.4.3.3': 'sha384', '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': '',
};

export interface CertificateRequest {
  organizations: string[];
  checkSignature(): string | undefined;
}

/** x509.ParseCertificateRequest over DER bytes; throws with a Go-like message. */
function parseCertificateRequest(der: Buffer): CertificateRequest {
  const top = readDER(der);
  if (top.tag !== 0x30) throw new Error('asn1: structure error: tags don\'t match');
  const [info, algorithm, signature] = children(top);
  if (!info || !algorithm || !signature || info.tag !== 0x30 || signature.tag !== 0x03) throw new Error('asn1: structure error: tags don\'t match');
  const infoFields = children(info);
  const subject = infoFields[1];
  const spki = infoFields[2];
  if (!subject || !spki) throw new Error('asn1: structure error: tags don\'t match');
  const organizations: string[] = [];
  for (const rdn of children(subject)) {
    for (const atv of children(rdn)) {
      const [type, value] = children(atv);
      if (type && value && oid(type.content) === organizationOID) organizations.push(value.content.toString('utf8'));
    }
  }
  const algOID = oid(children(algorithm)[0]?.content ?? Buffer.alloc(1));
  return {
    organizations,
    checkSignature() {
      const digest = signatureAlgorithms[algOID];
      if (digest === undefined) return 'x509: cannot verify signature: algorithm unimplemented';
      try {
        const key = createPublicKey({ key: spki.raw, format: 'der', type: 'spki' });
        const ok = verify(digest || null, info.raw, key, signature.content.subarray(1));
        if (ok) return undefined;
        const kind = key.asymmetricKeyType;
        return kind === 'ec' ? 'x509: ECDSA verification failure' : kind === 'ed25519' ? 'x509: Ed25519 verification failure' : 'crypto/rsa: verification error';
      } catch (err) {
        return `x509: ${(err as Error).message}`;
      }
    },
  };
}

/** certificates.ParseCSR: the first PEM block must be a CERTIFICATE REQUEST. */
export function parseCSR(pemBytes: Buffer): CertificateRequest {
  const decoded = decodePEM(pemBytes.toString('latin1'));
  if (!decoded || decoded.block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  return parseCertificateRequest(decoded.block.bytes);
}

/** validateCertificate: every PEM block a CERTIFICATE without headers, at least one. Undefined when valid. */
export function certificateError(pemBytes: Buffer): string | undefined {
  if (pemBytes.length === 0) return undefined;
  let data = pemBytes.toString('latin1');
  let blocks = 0;
  for (;;) {
    const decoded = decodePEM(data);
    if (!decoded) break;
    const { block, rest } = decoded;
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (Object.keys(block.headers).length !== 0) return 'no PEM block headers are permitted';
    blocks++;
    try {
      new X509Certificate(block.bytes);
    } catch {
      return 'x509: malformed certificate';
    }
    data = rest;
  }
  return blocks === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

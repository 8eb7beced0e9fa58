/**
 * Content negotiation: which representation a response uses (JSON, YAML, protobuf, CBOR,
 * Table, PartialObjectMetadata) from the Accept header, and how a request body is encoded.
 */
import { newNotAcceptable, newRouteUnsupportedMediaType, newUnsupportedMediaType, protobufMediaType } from '@windlass/machinery';
import { applyCBORPatchType, cborMediaType, cborSeqMediaType, setCBOREnabled } from './cbor.js';

export type Representation = 'object' | 'Table' | 'PartialObjectMetadata';

export type MediaType = 'application/json' | 'application/yaml' | typeof protobufMediaType | typeof cborMediaType;

export interface Negotiated {
  mediaType: MediaType;
  as: Representation;
  pretty: boolean;
}

interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
}

/** What an endpoint serves, in kube's order (its 406 lists them so). Custom resources have no protobuf form. */
const typedMediaTypes: MediaType[] = ['application/json', 'application/yaml', protobufMediaType];
const unstructuredMediaTypes: MediaType[] = ['application/json', 'application/yaml'];
/** The watch streams among them: YAML has none; CBOR's is a CBOR sequence (kube's MediaTypesForSerializer). */
const streamMediaTypes = (types: MediaType[]) =>
  types.filter((t) => t !== 'application/yaml').map((t) => (t === cborMediaType ? cborSeqMediaType : `${t};stream=watch`));

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [type, ...rest] = part.split(';').map((s) => s.trim());
    if (!type) continue;
    const params: Record<string, string> = {};
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim().replace(/^"|"$/g, '');
    }
    const q = params.q !== undefined ? Number(params.q) : 1;
    ranges.push({ type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 });
  }
  // Stable sort by quality: equal q keeps the client's order.
  return ranges.map((r, i) => ({ r, i })).sort((a, b) => b.r.q - a.r.q || a.i - b.i).map(({ r }) => r);
}

function representationOf(r: MediaRange): Representation | null {
  const as = r.params.as;
  if (!as) return 'object';
  if (r.params.g !== 'meta.k8s.io' || r.params.v !== 'v1') return null;
  if (as === 'Table') return 'Table';
  if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return 'PartialObjectMetadata';
  return null;
}

const prettyAgents = /^(curl|Wget|Mozilla)\//;

export interface NegotiateOptions {
  watch?: boolean;
  userAgent?: string;
  pretty?: string | null;
  /** The endpoint has protobuf messages (built-in kinds and discovery; not custom resources). */
  protobuf?: boolean;
}

/** Picks the first acceptable media range; a watch is JSON or protobuf (a YAML watch is 406, as kube). */
export function negotiate(accept: string | undefined, opts: NegotiateOptions = {}): Negotiated {
  const pretty = opts.pretty != null ? opts.pretty !== 'false' && opts.pretty !== '0' : prettyAgents.test(opts.userAgent ?? '');
  if (!accept || accept.trim() === '') return pretty ? defaultPretty : defaultPlain;
  // Clients send the same few Accept headers over and over: answer each from a small cache.
  const key = `${opts.watch ? 'w' : '-'}${pretty ? 'p' : '-'}${opts.protobuf ? 'b' : '-'}${accept}`;
  let n = negotiated.get(key);
  if (!n) {
    n = Object.freeze(pick(accept, !!opts.watch, pretty, opts.protobuf ? typedMediaTypes : unstructuredMediaTypes));
    if (negotiated.size >= maxCachedNegotiations) negotiated.clear();
    negotiated.set(key, n);
  }
  return n;
}

const defaultPlain: Negotiated = Object.freeze({ mediaType: 'application/json', as: 'object', pretty: false });
const defaultPretty: Negotiated = Object.freeze({ mediaType: 'application/json', as: 'object', pretty: true });
const negotiated = new Map<string, Negotiated>();
const maxCachedNegotiations = 256;

/**
 * kube negotiates twice for a watch: first among every media type (406 lists them all), then
 * among those with a stream form (406 lists the stream types), so a YAML watch fails second.
 */
function pick(accept: string, watch: boolean, pretty: boolean, served: MediaType[]): Negotiated {
  for (const r of parseAccept(accept)) {
    if (r.q <= 0) continue;
    const as = representationOf(r);
    if (as === null) continue;
    const mediaType = r.type === '*/*' ? 'application/json' : served.find((t) => t === r.type);
    if (!mediaType) continue;
    if (watch && mediaType === 'application/yaml') throw newNotAcceptable(streamMediaTypes(served));
    return { mediaType, as, pretty };
  }
  throw newNotAcceptable(served);
}

/** The Content-Type of a watch stream in this media type (a watch accepting application/cbor gets a CBOR sequence, as kube answers it). */
export function watchContentType(mediaType: MediaType): string {
  if (mediaType === cborMediaType) return cborSeqMediaType;
  return mediaType === protobufMediaType ? `${protobufMediaType};stream=watch` : mediaType;
}

/** The media type of a request body, without parameters. */
export function bodyMediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

export const objectBodyTypes: string[] = typedMediaTypes;
export const unstructuredBodyTypes: string[] = unstructuredMediaTypes;
export const applyPatchType = 'application/apply-patch+yaml';
export const patchBodyTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', applyPatchType];

/** Server-side apply, in YAML or (with CBORServingAndStorage) CBOR. */
export function isApplyPatchType(t: string): boolean {
  return t === applyPatchType || t === applyCBORPatchType;
}

/**
 * The CBORServingAndStorage feature gate: with it, every endpoint also serves and accepts
 * application/cbor (listed last, after kube's default serializers), watches stream
 * application/cbor-seq and PATCH accepts application/apply-patch+cbor. The lists change in
 * place: handlers hold them (requireBodyType knows the patch list by identity).
 */
export function setCBORServingAndStorage(on: boolean): void {
  setCBOREnabled(on);
  const set = <T>(list: T[], item: T) => {
    const at = list.indexOf(item);
    if (on && at < 0) list.push(item);
    if (!on && at >= 0) list.splice(at, 1);
  };
  set(typedMediaTypes, cborMediaType);
  set(unstructuredMediaTypes, cborMediaType);
  set(patchBodyTypes, applyCBORPatchType);
  negotiated.clear();
}

/**
 * The body's media type, or 415. For patches the refusal is go-restful's, whose PATCH route
 * consumes only the patch types (`415: Unsupported Media Type`; a missing Content-Type is
 * application/octet-stream there); other bodies get the handler's message listing the types.
 */
export function requireBodyType(contentType: string | undefined, accepted: string[]): string {
  const t = bodyMediaType(contentType) || 'application/json';
  if (accepted.includes(t)) return t;
  if (accepted === patchBodyTypes) throw newRouteUnsupportedMediaType();
  throw newUnsupportedMediaType(t, accepted);
}

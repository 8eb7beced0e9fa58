/**
 * The schema data is ~1 MB of JSON: importing it costs tens of milliseconds a server start
 * should not pay, so it is imported when a request first needs a schema (an OpenAPI
 * document, a patch's merge keys, a typed decoding) and kept for the process's life.
 */
import { Schemas } from './definitions.js';

let loading: Promise<Schemas> | undefined;
let loaded: Schemas | undefined;

export function loadSchemas(): Promise<Schemas> {
  loading ??= import('./generated/openapi.js').then((m) => (loaded = new Schemas(m.extracted)));
  return loading;
}

/** The schemas if a load has finished, for callers on a hot path that must not await. */
export function loadedSchemas(): Schemas | undefined {
  return loaded;
}

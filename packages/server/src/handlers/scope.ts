/** Everything a verb handler needs about one request. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestInfo } from '../requestinfo.js';
import type { ResourceDefinition, UserInfo } from '../registry/types.js';
import type { Store } from '../registry/store.js';
import type { Negotiated } from '../negotiation.js';
import type { WatchHooks } from '../filters/operations.js';

export interface RequestScope {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  def: ResourceDefinition;
  store: Store;
  negotiated: Negotiated;
  /** The request body, read only for the verbs that have one (empty otherwise). */
  body: Buffer;
  /** Large responses are gzipped: the server compresses and the client accepts it. */
  gzip: boolean;
  /** The authenticated requester (the system user when the server runs without authentication). */
  user: UserInfo;
  /** Watches only: where events are counted, and how shutdown ends the stream cleanly. */
  watch?: WatchHooks;
}

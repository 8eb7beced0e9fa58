/**
 * The event stream of a watch on a version served by a conversion webhook. Events are encoded
 * synchronously as the cache dispatches them, but converting an object is an outside call: such
 * an event is a placeholder, filled in once converted, and every write after it waits its turn,
 * so the client sees the events in the cache's order.
 */
export class OrderedWrites {
  private readonly pending = new WeakMap<Buffer, () => Promise<Buffer>>();
  private chain: Promise<void> | undefined;
  private queued = 0;

  constructor(
    private readonly writeNow: (bytes: Buffer) => void,
    /** A placeholder that could not be filled: the stream ends with this error. */
    private readonly fail: (err: unknown) => void,
  ) {}

  /** An event written as `produce` resolves, in its place in the stream. */
  placeholder(produce: () => Promise<Buffer>): Buffer {
    const marker = Buffer.alloc(0);
    this.pending.set(marker, produce);
    return marker;
  }

  write(bytes: Buffer): void {
    const produce = this.pending.get(bytes);
    if (!produce && this.queued === 0) return this.writeNow(bytes);
    this.queued++;
    this.chain = (this.chain ?? Promise.resolve())
      .then(async () => this.writeNow(produce ? await produce() : bytes))
      .catch((err) => this.fail(err))
      .finally(() => void this.queued--);
  }
}

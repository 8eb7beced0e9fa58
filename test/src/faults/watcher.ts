/**
 * A raw HTTP watch through the balancer that keeps going as client-go's reflector does:
 * when the stream breaks or the server ends it, it watches again from the last
 * resourceVersion it received; on 410 Gone it lists (everything, so the checker can place
 * the list in the history) and watches from the list's resourceVersion. Each watch request
 * is one segment for the checker (test/src/watchcheck.ts).
 */
import { objectState, type KubeHttp, type WatchEnd, type WatchStream } from '../kubehttp.js';
import type { Filter, Segment, SegmentStart } from '../watchcheck.js';
import { classifyError, classifyStatus, type ErrorLog } from './errors.js';
import { collectionPath } from './writer.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ResumingWatcher {
  readonly segments: Segment[] = [];
  private stream?: WatchStream;
  private lastRv?: string;
  private stopping = false;
  relists = 0;
  /** Events received (kept in `segments` only with `keepEvents`). */
  eventCount = 0;

  constructor(readonly id: string, readonly filter: Filter, private client: KubeHttp, private errors: ErrorLog, private keepEvents = true) {}

  /** The resourceVersion of the last event received. */
  get position(): string | undefined {
    return this.lastRv;
  }

  start(from: SegmentStart): void {
    this.open(from);
  }

  stop(): void {
    this.stopping = true;
    this.stream?.close();
  }

  private path(start: SegmentStart): string {
    const q = new URLSearchParams();
    if (start.kind !== 'initial' || start.rv === '0') q.set('resourceVersion', start.rv);
    if (this.filter.labelSelector) q.set('labelSelector', this.filter.labelSelector);
    if (this.filter.fieldSelector) q.set('fieldSelector', this.filter.fieldSelector);
    return `${collectionPath(this.filter.namespace)}?${q}`;
  }

  private open(start: SegmentStart): void {
    if (this.stopping) return;
    const seg: Segment = { start, events: [] };
    this.segments.push(seg);
    let next: 'relist' | 'resume' | undefined;
    this.stream = this.client.watch(this.path(start), (ev) => {
      if (ev.type === 'BOOKMARK') return;
      if (ev.type === 'ERROR') {
        const code = ev.object?.code;
        seg.end = `ERROR ${code}`;
        if (code === 410) {
          this.errors.note('watch ERROR 410 Expired (relist)');
          next = 'relist';
        } else {
          this.errors.see(classifyStatus(code, ev.object), `${this.id} watch ERROR event ${JSON.stringify(ev.object).slice(0, 200)}`);
          next = 'resume';
        }
        this.stream?.close();
        return;
      }
      if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED') {
        this.errors.see({ kind: `watch event of unknown type ${ev.type}`, retryable: false }, this.id);
        return;
      }
      this.eventCount++;
      if (this.keepEvents) seg.events.push({ type: ev.type, obj: objectState(ev.object) });
      this.lastRv = ev.object?.metadata?.resourceVersion;
    }, (why: WatchEnd) => this.onEnd(seg, why, next));
  }

  /** Where to watch from again: after the last event received, or from the same start. */
  private resumeFrom(seg: Segment): SegmentStart {
    return this.lastRv !== undefined ? { kind: 'rv', rv: this.lastRv } : seg.start;
  }

  private onEnd(seg: Segment, why: WatchEnd, next: 'relist' | 'resume' | undefined): void {
    seg.end ??= why.kind === 'status' ? `HTTP ${why.status}` : why.kind === 'error' ? `error: ${why.error.message}` : why.kind;
    if (this.stopping) return;
    // Spread the reconnections of the watchers a dead replica dropped all at once.
    const later = (f: () => void, base: number) => setTimeout(f, base + Math.random() * 300);
    if (why.kind === 'closed') {
      if (next === 'relist') void this.relist();
      else later(() => this.open(this.resumeFrom(seg)), 100);
      return;
    }
    if (why.kind === 'status') {
      if (why.status === 410) {
        this.errors.note('watch answered 410 Gone (relist)');
        void this.relist();
        return;
      }
      this.errors.see(classifyStatus(why.status, why.body), `${this.id} watch answered ${why.status} ${JSON.stringify(why.body).slice(0, 200)}`);
      later(() => this.open(this.resumeFrom(seg)), 200);
      return;
    }
    if (why.kind === 'error') this.errors.see(classifyError(why.error), `${this.id} watch stream`);
    else this.errors.note('watch ended by the server (resumed)');
    later(() => this.open(this.resumeFrom(seg)), 50);
  }

  private async relist(): Promise<void> {
    this.relists++;
    for (;;) {
      if (this.stopping) return;
      try {
        const r = await this.client.request('GET', collectionPath());
        if (r.status === 200) {
          this.lastRv = undefined;
          this.open({ kind: 'list', rv: r.body.metadata.resourceVersion, items: r.body.items.map(objectState) });
          return;
        }
        this.errors.see(classifyStatus(r.status, r.body), `${this.id} relist`);
      } catch (err) {
        this.errors.see(classifyError(err), `${this.id} relist`);
      }
      await sleep(200);
    }
  }
}

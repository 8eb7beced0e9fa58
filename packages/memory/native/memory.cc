// What Node does not expose for giving memory back to the system:
// - glibc keeps what the process freed in its arenas and returns it only from the top of the
//   main arena; malloc_trim(0) also gives back the free pages in the middle of every arena, and
//   mallinfo2 says how much is free, so the caller trims only when that moved;
// - V8 collects only when allocation asks it to, so garbage from a burst that ends (and the
//   Buffers it holds) can stay until the next burst; a memory-pressure notification collects
//   it and shrinks the heap at once, where Node's own `gc()` would need --expose-gc.
// The V8 API (not N-API) for the latter: the addon is compiled where it is installed, against
// the Node that runs it.
#include <node.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

void TrimAllocator(const v8::FunctionCallbackInfo<v8::Value>& args) {
  bool released = false;
#if defined(__GLIBC__)
  released = malloc_trim(0) == 1;
#endif
  args.GetReturnValue().Set(released);
}

// Bytes in free chunks of every arena (mallinfo2's fordblks); -1 without glibc >= 2.33.
void AllocatorFreeBytes(const v8::FunctionCallbackInfo<v8::Value>& args) {
  double free_bytes = -1;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  free_bytes = static_cast<double>(mallinfo2().fordblks);
#endif
  args.GetReturnValue().Set(free_bytes);
}

// A full, memory-reducing collection, synchronous: what V8 does under critical memory pressure.
void CollectGarbage(const v8::FunctionCallbackInfo<v8::Value>& args) {
  args.GetIsolate()->MemoryPressureNotification(v8::MemoryPressureLevel::kCritical);
  // And back to none, so that no later allocation is treated as under pressure.
  args.GetIsolate()->MemoryPressureNotification(v8::MemoryPressureLevel::kNone);
}

void Init(v8::Local<v8::Object> exports) {
  NODE_SET_METHOD(exports, "trimAllocator", TrimAllocator);
  NODE_SET_METHOD(exports, "allocatorFreeBytes", AllocatorFreeBytes);
  NODE_SET_METHOD(exports, "collectGarbage", CollectGarbage);
}

}  // namespace

NODE_MODULE(NODE_GYP_MODULE_NAME, Init)

{
  "targets": [
    {
      "target_name": "windlass_memory",
      "sources": ["native/memory.cc"],
      "cflags_cc": ["-O2"]
    }
  ]
}

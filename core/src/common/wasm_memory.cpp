// memcpy / memmove / memset for the WebAssembly build, on the bulk-memory instructions
// (memory.copy, memory.fill; compiled with -mbulk-memory, see CMakeLists.txt).
//
// Emscripten 3.1.6 links the `-optz` variant of its libc when the link is -Oz (as ours is, for
// size), and there memcpy and memset are one-byte-per-iteration loops: about 0.5 GB/s, which made
// copying and zeroing a 45 MB model (resnet18) cost ~200 ms of its 360 ms cold start. Defining the
// three functions here keeps that libc member out of the link (the linker takes the first
// definition it meets, and popart_core comes before libc) and turns every call into one
// instruction that the engine runs as a native memmove / memset. Newer Emscripten releases do the
// same when bulk memory is enabled. Bulk memory is in every engine we target (Node >= 12.5,
// Chrome 75, Firefox 79, Safari 15).
#if defined(__EMSCRIPTEN__)

#if !defined(__wasm_bulk_memory__)
#error "wasm_memory.cpp needs -mbulk-memory"
#endif

#include <cstddef>

extern "C" {

// With bulk memory the WebAssembly backend lowers these builtins to memory.copy / memory.fill
// (never to a libcall), so the definitions do not call themselves.
void* memcpy(void* __restrict dst, const void* __restrict src, std::size_t n) {
  return __builtin_memcpy(dst, src, n);
}

void* memmove(void* dst, const void* src, std::size_t n) {
  return __builtin_memmove(dst, src, n);
}

void* memset(void* dst, int c, std::size_t n) {
  return __builtin_memset(dst, c, n);
}

}  // extern "C"

#endif  // __EMSCRIPTEN__

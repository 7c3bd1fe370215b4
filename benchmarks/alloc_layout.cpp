//===- alloc_layout.cpp - A heap layout control for the unused-cost rows --===//
//
// An LD_PRELOAD library for benchmarks/run.sh, built there with the system
// compiler. The series makes `Block` and the block argument implementation 8
// bytes larger, which changes glibc's heap layout: which freed chunks a later
// malloc finds in its per-thread cache, which reallocs can grow in place. In
// the parse + canonicalize workload that alone moves the instruction count by
// about a percent either way. To tell that effect from the instructions the
// patch runs, run.sh gives the baseline binary the patched build's allocation
// sizes and counts it again.
//
//   ALLOC_HISTOGRAM=FILE  at exit, writes "size count" for every size that
//                         `operator new(size_t)` was asked for;
//   ALLOC_GROW=S1,S2,...  requests of exactly these sizes (up to 4096) get 8
//                         more bytes.
//
// Only the replaceable `operator new(size_t)` is replaced (Block and block
// arguments are allocated through it, and libstdc++'s `new[]` and nothrow
// `new` call it too); its memory comes from malloc, and the default
// `operator delete` frees it. Aligned `new` (LLVM's allocate_buffer) is not
// intercepted. Both binaries of a comparison are run
// with this library loaded, so that its own cost is on both sides. The
// histogram's counts are not atomic: the workloads it is used on run on one
// thread.
//
//===----------------------------------------------------------------------===//

#include <cstdio>
#include <cstdlib>
#include <new>

namespace {
constexpr size_t kMaxSize = 4096;
unsigned long histogram[kMaxSize + 1];
// Bytes added to a request of each size: a table, so that every run pays the
// same instructions per request whether it grows sizes or not.
unsigned char growBy[kMaxSize + 1];
const char *histogramPath;

__attribute__((constructor)) void init() {
  histogramPath = std::getenv("ALLOC_HISTOGRAM");
  const char *list = std::getenv("ALLOC_GROW");
  while (list && *list) {
    char *end;
    size_t size = std::strtoul(list, &end, 10);
    if (end == list)
      break;
    if (size <= kMaxSize)
      growBy[size] = 8;
    list = *end == ',' ? end + 1 : end;
  }
}

__attribute__((destructor)) void report() {
  if (!histogramPath)
    return;
  if (FILE *f = std::fopen(histogramPath, "w")) {
    for (size_t size = 1; size <= kMaxSize; ++size)
      if (histogram[size])
        std::fprintf(f, "%zu %lu\n", size, histogram[size]);
    std::fclose(f);
  }
}
} // namespace

void *operator new(size_t size) {
  if (size <= kMaxSize) {
    if (histogramPath)
      ++histogram[size];
    size += growBy[size];
  }
  for (;;) {
    if (void *p = std::malloc(size ? size : 1))
      return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler)
      throw std::bad_alloc();
    handler();
  }
}

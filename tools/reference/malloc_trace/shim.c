// LD_PRELOAD shim: records glibc allocations between trace_on() and trace_off(PATH) as lines
// "OP ADDRESS OLD_ADDRESS BYTES THREAD" (OP: + malloc, c calloc, a aligned allocation with the alignment
// as OLD_ADDRESS, - free, r realloc, m a mark trace_mark() left between steps; THREAD the calling thread's id). With
// TRACE_FROM_START=1 in the environment it records from the process's start. Calls glibc's own
// __libc_* entry points, so the allocator's behaviour is glibc's. Used by trace_step.py.
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
extern void* __libc_malloc(size_t);
extern void __libc_free(void*);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);
typedef struct { char op; void* p; void* q; size_t n; int tid; } rec;
#define CAP 30000000  // records per trace (a whole process: about 2 million before a step)
static rec recs[CAP];
static size_t nrec;
static __thread int inside;
static volatile int on;
static void log1(char op, void* p, void* q, size_t n) {
  if (!on || inside) return;
  size_t i = __atomic_fetch_add(&nrec, 1, __ATOMIC_RELAXED);
  if (i < CAP) { recs[i].op = op; recs[i].p = p; recs[i].q = q; recs[i].n = n; recs[i].tid = gettid(); }
}
__attribute__((constructor)) static void start(void) {
  const char* v = getenv("TRACE_FROM_START");
  if (v && v[0] == '1') on = 1;
}
void* malloc(size_t n) { void* p = __libc_malloc(n); log1('+', p, 0, n); return p; }
void free(void* p) { if (p) log1('-', p, 0, 0); __libc_free(p); }
void* calloc(size_t a, size_t b) { void* p = __libc_calloc(a, b); log1('c', p, 0, a * b); return p; }
void* realloc(void* o, size_t n) { void* p = __libc_realloc(o, n); log1('r', p, o, n); return p; }
int posix_memalign(void** r, size_t a, size_t n) { void* p = __libc_memalign(a, n); if (!p) return ENOMEM; *r = p; log1('a', p, (void*)a, n); return 0; }
void* aligned_alloc(size_t a, size_t n) { void* p = __libc_memalign(a, n); log1('a', p, (void*)a, n); return p; }
void* memalign(size_t a, size_t n) { void* p = __libc_memalign(a, n); log1('a', p, (void*)a, n); return p; }
void trace_on(void) { nrec = 0; on = 1; }
void trace_mark(void) { log1('m', 0, 0, 0); }
void trace_off(const char* path) {
  on = 0; inside = 1;
  FILE* f = fopen(path, "w");
  size_t n = nrec < CAP ? nrec : CAP;
  for (size_t i = 0; i < n; ++i) fprintf(f, "%c %#lx %#lx %zu %d\n", recs[i].op, (unsigned long)recs[i].p, (unsigned long)recs[i].q, recs[i].n, recs[i].tid);
  fclose(f); inside = 0;
}

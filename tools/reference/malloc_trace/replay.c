// Replays one training step's allocation trace (trace_step.py) through glibc ITERATIONS times,
// writing one byte per page of every allocation as the program would, and prints the minor page
// faults, system time and wall time per step after a quarter of the iterations as warm-up.
// Allocations the step leaves live are freed by the next iteration's frees of unknown addresses.
//   replay TRACE [ITERATIONS=40]   (V=1 in the environment: the heap after every iteration)
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <malloc.h>
typedef struct { char op; unsigned long p, q; size_t n; } ev;
typedef struct { unsigned long key; void* ptr; size_t n; } slot;
#define H (1 << 20)
static slot tab[H];
static slot* find(unsigned long k, int add) {
  size_t h = (k * 11400714819323198485ull) >> 44;
  while (tab[h].key && tab[h].key != k) h = (h + 1) & (H - 1);
  if (!tab[h].key && add) tab[h].key = k;
  return tab[h].key ? &tab[h] : NULL;
}
static void touch(char* p, size_t n) { for (size_t i = 0; i < n; i += 4096) p[i] = 1; if (n) p[n - 1] = 1; }
int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: replay TRACE [ITERATIONS]\n"); return 2; }
  FILE* f = fopen(argv[1], "r");
  if (!f) { perror(argv[1]); return 1; } int iters = argc > 2 ? atoi(argv[2]) : 40;
  ev* e = malloc(sizeof(ev) * 5000000); size_t m = 0;
  int tid;
  while (fscanf(f, " %c %lx %lx %zu %d", &e[m].op, &e[m].p, &e[m].q, &e[m].n, &tid) == 5) m++;
  void* carry[4096]; int nc = 0; void* next[4096]; int nn = 0;
  struct rusage r0, r1; struct timespec t0, t1; long warm = iters / 4;
  for (int it = 0; it < iters; ++it) {
    if (it == warm) { getrusage(RUSAGE_SELF, &r0); clock_gettime(CLOCK_MONOTONIC, &t0); }
    int ci = 0; nn = 0;
    for (size_t i = 0; i < m; ++i) {
      if (e[i].op == 'm') continue;
      if (e[i].op == '+' || e[i].op == 'c' || e[i].op == 'a') { void* p = NULL;
        if (posix_memalign(&p, 64, e[i].n ? e[i].n : 1) != 0) { perror("posix_memalign"); return 1; }
        touch(p, e[i].n);
        slot* s = find(e[i].p, 1); s->ptr = p; s->n = e[i].n; }
      else if (e[i].op == '-') { slot* s = find(e[i].p, 0);
        if (s && s->ptr) { free(s->ptr); s->ptr = NULL; } else if (ci < nc) free(carry[ci++]); }
      else { slot* s = e[i].q ? find(e[i].q, 0) : NULL; void* old = s && s->ptr ? s->ptr : NULL; if (s) s->ptr = NULL;
        void* p = realloc(old, e[i].n); touch(p, e[i].n); slot* d = find(e[i].p, 1); d->ptr = p; d->n = e[i].n; }
    }
    for (size_t h = 0; h < H; ++h) if (tab[h].key && tab[h].ptr) { next[nn++] = tab[h].ptr; tab[h].ptr = NULL; }
    if (getenv("V")) { struct mallinfo2 mi = mallinfo2(); fprintf(stderr, "carry %d ", nn); fprintf(stderr, "it %d arena %.1f MB keepcost %.1f MB hblkhd %.1f MB\n", it, mi.arena/1e6, mi.keepcost/1e6, mi.hblkhd/1e6); }
    memcpy(carry, next, sizeof(void*) * nn); nc = nn;
  }
  getrusage(RUSAGE_SELF, &r1); clock_gettime(CLOCK_MONOTONIC, &t1);
  double steps = iters - warm;
  printf("minor faults/step %.0f (%.1f MB)  sys ms/step %.2f  wall ms/step %.2f\n",
    (r1.ru_minflt - r0.ru_minflt) / steps, (r1.ru_minflt - r0.ru_minflt) * 4096.0 / steps / 1e6,
    ((r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1e3 + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e3) / steps,
    ((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6) / steps);
}

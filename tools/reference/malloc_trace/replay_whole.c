// Replays a whole process's allocation trace (trace_step.py --from-start) through glibc, call for
// call (malloc, calloc, aligned allocation with the recorded alignment, realloc, free), each on a
// thread of its own for each thread of the traced process (so that glibc gives each the arena it
// gave the original), in the recorded order, writing one byte per page of every allocation as
// the program would; prints the minor page faults between each pair of step marks: what glibc
// alone makes of the process's allocation history.
//   gcc -O2 -pthread replay_whole.c -o replay_whole && ./replay_whole TRACE
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
typedef struct { char op; unsigned long p, q; size_t n; int tid; } ev;
typedef struct { unsigned long key; void* ptr; } slot;
#define H (1 << 24)  // live addresses of the traced process (a million or two at most)
#define MAX_THREADS 256
static slot* tab;
static ev* e;
static size_t m;
static atomic_size_t next_event;  // the event to replay next, by the thread that owns it
static int tids[MAX_THREADS], nthreads;
static long last_faults = -1;

static slot* find(unsigned long k, int add) {
  size_t h = (k * 11400714819323198485ull) >> 40;
  while (tab[h].key && tab[h].key != k) h = (h + 1) & (H - 1);
  if (!tab[h].key && add) tab[h].key = k;
  return tab[h].key ? &tab[h] : NULL;
}
static void touch(char* p, size_t n) { for (size_t i = 0; i < n; i += 4096) p[i] = 1; if (n) p[n - 1] = 1; }

static void replay(const ev* x) {
  if (x->op == 'm') {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);  // every thread's faults
    if (last_faults >= 0) printf(" %ld", r.ru_minflt - last_faults);
    last_faults = r.ru_minflt;
    return;
  }
  if (x->op == '-') {
    slot* s = find(x->p, 0);
    if (s && s->ptr) { free(s->ptr); s->ptr = NULL; }  // an address from before the trace: skip
    return;
  }
  void* p = NULL;
  if (x->op == '+') p = malloc(x->n);
  else if (x->op == 'c') p = calloc(1, x->n);
  else if (x->op == 'a') p = memalign(x->q, x->n);
  else if (x->op == 'r') {
    slot* s = x->q ? find(x->q, 0) : NULL;
    void* old = s && s->ptr ? s->ptr : NULL;
    if (s) s->ptr = NULL;
    p = realloc(old, x->n);
  }
  if (!p) return;
  touch(p, x->n);
  find(x->p, 1)->ptr = p;
}

// Replays the events of thread `tid` as their turns come; the others wait (yielding the core).
static void* run(void* arg) {
  const int tid = (int)(long)arg;
  for (;;) {
    size_t i = atomic_load_explicit(&next_event, memory_order_acquire);
    if (i >= m) return NULL;
    if (e[i].tid != tid) { sched_yield(); continue; }
    replay(&e[i]);
    atomic_store_explicit(&next_event, i + 1, memory_order_release);
  }
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: replay_whole TRACE\n"); return 2; }
  FILE* f = fopen(argv[1], "r");
  if (!f) { perror(argv[1]); return 1; }
  // Read before replaying: the trace's own memory comes from mmap (far above glibc's mmap
  // threshold), not from the heap the replay exercises.
  tab = calloc(H, sizeof(slot));
  size_t cap = 40000000;
  e = malloc(sizeof(ev) * cap);
  while (m < cap && fscanf(f, " %c %lx %lx %zu %d", &e[m].op, &e[m].p, &e[m].q, &e[m].n,
                           &e[m].tid) == 5) {
    int known = 0;
    for (int t = 0; t < nthreads; ++t) known |= tids[t] == e[m].tid;
    if (!known) {
      if (nthreads == MAX_THREADS) { fprintf(stderr, "more than %d threads\n", MAX_THREADS); return 1; }
      tids[nthreads++] = e[m].tid;
    }
    m++;
  }
  fclose(f);
  printf("minor faults of each step (%d threads):", nthreads);
  // The traced process's first allocating thread is the main one; the others get threads of
  // their own, started before the replay as the originals were before their first allocation.
  pthread_t threads[MAX_THREADS];
  for (int t = 1; t < nthreads; ++t)
    pthread_create(&threads[t], NULL, run, (void*)(long)tids[t]);
  run((void*)(long)tids[0]);
  for (int t = 1; t < nthreads; ++t) pthread_join(threads[t], NULL);
  printf("\n");
  return 0;
}

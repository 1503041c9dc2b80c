// How long a cache line takes from one CPU to another and back: two threads pinned to CPUs A
// and B (default 0 and 1) hand a flag to each other 200,000 times; prints the nanoseconds per
// round trip. On a cloud VM it tells whether the hypervisor runs two vCPUs on cores near each
// other (~60 ns on the tenth Zen 4 VM) or far apart (~370 ns there, for spells of seconds to
// minutes), which sets what each multi-threaded op's fork and join cost (docs/accuracy.md,
// "Near and far vCPUs"). Not used by the product.
//
//   gcc -O2 -pthread tools/reference/core_round_trip.c -o /tmp/core_round_trip
//   /tmp/core_round_trip [A B]
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kRoundTrips = 200000 };
static _Atomic int flag __attribute__((aligned(64)));
static int cpu_a = 0, cpu_b = 1;

static int Pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void* Answer(void* unused) {
  (void)unused;
  if (Pin(cpu_b) != 0) {
    fprintf(stderr, "core_round_trip: cannot run on CPU %d\n", cpu_b);
    exit(1);
  }
  for (int i = 0; i < kRoundTrips; ++i) {
    while (atomic_load_explicit(&flag, memory_order_acquire) != 1) {
    }
    atomic_store_explicit(&flag, 0, memory_order_release);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 1 && argc != 3) {
    fprintf(stderr, "usage: core_round_trip [CPU_A CPU_B]\n");
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    char* end;
    const long cpu = strtol(argv[i], &end, 10);
    if (*argv[i] == '\0' || *end != '\0' || cpu < 0 || cpu >= CPU_SETSIZE) {
      fprintf(stderr, "core_round_trip: CPU '%s' is not a CPU number\n", argv[i]);
      return 2;
    }
    *(i == 1 ? &cpu_a : &cpu_b) = (int)cpu;
  }
  if (Pin(cpu_a) != 0) {
    fprintf(stderr, "core_round_trip: cannot run on CPU %d\n", cpu_a);
    return 1;
  }
  pthread_t other;
  if (pthread_create(&other, NULL, Answer, NULL) != 0) {
    fprintf(stderr, "core_round_trip: cannot start a thread\n");
    return 1;
  }
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int i = 0; i < kRoundTrips; ++i) {
    atomic_store_explicit(&flag, 1, memory_order_release);
    while (atomic_load_explicit(&flag, memory_order_acquire) != 0) {
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  pthread_join(other, NULL);
  const double ns = (end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec);
  printf("%.0f\n", ns / kRoundTrips);
  return 0;
}

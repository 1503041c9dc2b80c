# Sourced by the reference scripts: glibc's malloc told to keep the memory it frees (trim and
# mmap thresholds and the top pad raised), as the run log's `allocator` column reads `keeps`
# (tools/reference/torch_step.py, allocator_keeps) and `predict --allocator keeps` predicts.
export MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=17179869184 \
  MALLOC_TOP_PAD_=268435456

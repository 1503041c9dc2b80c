// The published-runs CSV the project's benchmark runs were collected in (shared/validation/
// published-runs.csv; docs/run-logs.md, "Published-runs files"), read as run-log records so that
// `epochcost validate` and `calibrate` take such a file as it is. Its columns: source, model,
// framework, framework_version, hardware, instance_type, vcpus, gpu, gpu_count, compiled,
// batch_size, epochs, seconds_per_epoch, first_epoch_seconds, price_per_hour_usd, notes.
#ifndef EPOCHCOST_VALIDATION_PUBLISHED_RUNS_H_
#define EPOCHCOST_VALIDATION_PUBLISHED_RUNS_H_

#include <string>

#include "engine/csv.h"
#include "validation/run_log.h"

namespace epochcost::validation {

// Whether a table is in that format: it has instance_type and batch_size and no target.
bool IsPublishedRunsTable(const CsvTable& t);

// Each row as a run: the target from the machine description (GCE MACHINE, GCE GPU + MACHINE,
// AWS TYPE, Azure SIZE), the kind from the words preemptible or spot in it, the samples of an
// epoch from the notes' batches/epoch (times the batch) or else the model's own, recurrent
// layers unrolled unless the notes name a cuDNN RNN layer, " compiled" added to the version of a
// build compiled from source. Errors name FILE:LINE and the column, as ParseRunLog's do.
Result<RunLog> ParsePublishedRuns(const CsvTable& t, const std::string& origin, bool skip_bad);

}  // namespace epochcost::validation

#endif  // EPOCHCOST_VALIDATION_PUBLISHED_RUNS_H_

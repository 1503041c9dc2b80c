// The run-log readers: the project's CSV, the published-runs format and Keras CSVLogger files,
// each column read or refused with an error naming the file, the line and the column.
#include "validation/run_log.h"

#include <gtest/gtest.h>

#include "engine/file_util.h"

namespace epochcost::validation {
namespace {

const std::string kFixtures = EPOCHCOST_FIXTURES "/validation/";

// Each of `bad`, ending a run-log line that `head_and_run` begins: refused, the message naming
// `where` (the file, the line and the column).
void ExpectEachRefused(const std::string& head_and_run, std::initializer_list<const char*> bad,
                       const std::string& where) {
  for (const char* value : bad) {
    Result<RunLog> r = ParseRunLog(head_and_run + value + "\n", "f.csv", false);
    ASSERT_FALSE(r.ok()) << value;
    EXPECT_NE(r.status().message().find(where), std::string::npos) << r.status().message();
  }
}

TEST(RunLogTest, ReadsEveryColumn) {
  Result<std::string> text = ReadFile(kFixtures + "runs.csv");
  ASSERT_TRUE(text.ok());
  Result<RunLog> log = ParseRunLog(*text, "runs.csv", false);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 3u);
  const RunRecord& r = log->runs[1];
  EXPECT_EQ(r.origin, "runs.csv:3");
  EXPECT_EQ(r.model, "mnist_mlp");
  EXPECT_EQ(r.target, "gcp:n1-standard-1+K80");
  EXPECT_EQ(r.kind, "on-demand");
  EXPECT_EQ(r.batch, 128);
  EXPECT_EQ(r.samples, 60000);
  EXPECT_EQ(r.val_samples, 10000);
  EXPECT_DOUBLE_EQ(r.seconds_per_epoch, 3.2);
  ASSERT_TRUE(r.usd_per_hour.has_value());
  EXPECT_DOUBLE_EQ(*r.usd_per_hour, 0.745);
  EXPECT_EQ(r.precision, "fp32");
  EXPECT_EQ(r.framework_version, "1.2.1");
  EXPECT_EQ(r.rnn, "unrolled");
  EXPECT_EQ(log->runs[0].rnn, "");  // not stated: predict's default for the device
}

// The published-runs format (shared/validation/published-runs.csv) is read as it is: targets
// from the machine descriptions, samples from the notes or the model, the build in the version.
TEST(RunLogTest, ReadsThePublishedRunsFormat) {
  Result<std::string> text = ReadFile(kFixtures + "published-format.csv");
  ASSERT_TRUE(text.ok());
  Result<RunLog> log = ParseRunLog(*text, "p.csv", false);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 4u);
  const RunRecord& k80 = log->runs[0];
  EXPECT_EQ(k80.origin, "p.csv:2");
  EXPECT_EQ(k80.target, "gcp:n1-standard-1+K80");
  EXPECT_EQ(k80.kind, "on-demand");
  EXPECT_EQ(k80.gpus, 1);
  EXPECT_EQ(k80.samples, 60000);  // mnist_mlp's own epoch
  EXPECT_EQ(k80.val_samples, 10000);
  EXPECT_EQ(k80.rnn, "unrolled");
  EXPECT_DOUBLE_EQ(k80.seconds_per_epoch, 3.187);
  ASSERT_TRUE(k80.first_epoch_seconds.has_value());
  EXPECT_DOUBLE_EQ(*k80.first_epoch_seconds, 3.858);
  EXPECT_DOUBLE_EQ(*k80.usd_per_hour, 0.745);
  EXPECT_EQ(k80.source,
            "woolf2017_cpu_or_gpu minimaxir/deep-learning-cpu-gpu-benchmark:logs/gpu/"
            "mnist_mlp_tensorflow.csv@08adcf499e");
  const RunRecord& cpu = log->runs[1];
  EXPECT_EQ(cpu.target, "gcp:n1-highcpu-8");
  EXPECT_EQ(cpu.kind, "preemptible");
  EXPECT_EQ(cpu.gpus, 0);
  EXPECT_EQ(cpu.samples, 49984);
  EXPECT_EQ(cpu.framework_version, "1.2.1 compiled");
  const RunRecord& lstm = log->runs[2];
  EXPECT_EQ(lstm.model, "lstm_char_cnn");
  EXPECT_EQ(lstm.target, "aws:p2.xlarge");
  EXPECT_EQ(lstm.samples, 265 * 100);  // batches/epoch=265 in the notes, at batch 100
  EXPECT_EQ(lstm.val_samples, 0);
  EXPECT_EQ(lstm.framework_version, "0.10/0.12");
  const RunRecord& p100 = log->runs[3];
  EXPECT_EQ(p100.target, "gcp:n1-standard-8+P100x2");
  EXPECT_EQ(p100.gpus, 2);
  EXPECT_EQ(p100.rnn, "fused");  // CuDNNLSTM in the notes
  EXPECT_FALSE(p100.usd_per_hour.has_value());

  Result<std::string> bad = ReadFile(kFixtures + "published-format-bad.csv");
  ASSERT_TRUE(bad.ok());
  Result<RunLog> strict = ParseRunLog(*bad, "b.csv", false);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().message().rfind("b.csv:2: instance_type 'IBM bx2-4x16 (on-demand)' "
                                            "names no machine",
                                            0),
            0u);
  Result<RunLog> lenient = ParseRunLog(*bad, "b.csv", true);
  ASSERT_TRUE(lenient.ok());
  EXPECT_EQ(lenient->runs.size(), 1u);
  ASSERT_EQ(lenient->skipped.size(), 2u);
  EXPECT_EQ(lenient->skipped[1], "b.csv:3: batch_size 'many' is not a number");
}

TEST(RunLogTest, BadRecordsNameFileLineAndColumn) {
  Result<std::string> text = ReadFile(kFixtures + "runs-bad.csv");
  ASSERT_TRUE(text.ok());
  Result<RunLog> strict = ParseRunLog(*text, "runs-bad.csv", false);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().message(), "runs-bad.csv:3: seconds_per_epoch 0 is not positive");
  Result<RunLog> lenient = ParseRunLog(*text, "runs-bad.csv", true);
  ASSERT_TRUE(lenient.ok());
  EXPECT_EQ(lenient->runs.size(), 5u);  // unknown models and machines fail later, when predicted
  ASSERT_EQ(lenient->skipped.size(), 2u);
  EXPECT_EQ(lenient->skipped[1], "runs-bad.csv:4: seconds_per_epoch 'fast' is not a number");
}

// faults_per_step: empty is "not stated", 0 is a count; anything but a whole number of faults is
// an error naming the column.
TEST(RunLogTest, FaultsPerStepIsACountWhereStated) {
  const std::string head =
      "model,target,batch,samples,seconds_per_epoch,framework,faults_per_step\n";
  const std::string run = "mnist_mlp,local-cpu,128,60000,7.0,pytorch,";
  Result<RunLog> log =
      ParseRunLog(head + run + "19127\n" + run + "0\n" + run + "\n", "f.csv", false);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 3u);
  EXPECT_EQ(log->runs[0].faults_per_step, std::optional<int64_t>(19127));
  EXPECT_EQ(log->runs[1].faults_per_step, std::optional<int64_t>(0));
  EXPECT_FALSE(log->runs[2].faults_per_step.has_value());
  ExpectEachRefused(head + run, {"-3", "12.5", "many"}, "f.csv:2: faults_per_step");
}

// page_fault_us: what a fault cost on the run's machine, above 0 and at most 1 ms; empty is "not
// stated" (validate then prices the faults at the profile's 1-thread page_fault_seconds).
TEST(RunLogTest, PageFaultPriceIsPositiveMicrosecondsWhereStated) {
  const std::string head =
      "model,target,batch,samples,seconds_per_epoch,framework,faults_per_step,page_fault_us\n";
  const std::string run = "imdb_fasttext,local-cpu,32,25000,19.0,pytorch,1654,";
  Result<RunLog> log = ParseRunLog(head + run + "12.05\n" + run + "\n", "f.csv", false);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 2u);
  EXPECT_EQ(log->runs[0].page_fault_us, std::optional<double>(12.05));
  EXPECT_FALSE(log->runs[1].page_fault_us.has_value());
  ExpectEachRefused(head + run, {"0", "-1.5", "fast", "2000", "12us"}, "f.csv:2: page_fault_us '");
}

// parallel_pass_us_before and _after: what a parallel pass cost before and after the run's steps,
// 0 to 1000 us, both or neither.
TEST(RunLogTest, ParallelPassIsStatedBeforeAndAfterOrNotAtAll) {
  const std::string head =
      "model,target,batch,samples,seconds_per_epoch,framework,threads,parallel_pass_us_before,"
      "parallel_pass_us_after\n";
  const std::string run = "imdb_fasttext,local-cpu,32,25000,19.0,pytorch,2,";
  Result<RunLog> log =
      ParseRunLog(head + run + "1.16,3.22\n" + run + "0,0\n" + run + ",\n", "f.csv", false);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 3u);
  EXPECT_EQ(log->runs[0].parallel_pass_us_before, std::optional<double>(1.16));
  EXPECT_EQ(log->runs[0].parallel_pass_us_after, std::optional<double>(3.22));
  EXPECT_EQ(log->runs[1].parallel_pass_us_before, std::optional<double>(0));
  EXPECT_FALSE(log->runs[2].parallel_pass_us_before.has_value());
  EXPECT_FALSE(log->runs[2].parallel_pass_us_after.has_value());
  ExpectEachRefused(head + run, {"-1,1", "1,fast", "1,2000", "1us,1"},
                    "f.csv:2: parallel_pass_us_");
  Result<RunLog> before_only = ParseRunLog(head + run + "1.2,\n", "f.csv", false);
  ASSERT_FALSE(before_only.ok());
  EXPECT_EQ(before_only.status().message(),
            "f.csv:2: parallel_pass_us_after is empty where parallel_pass_us_before is given");
  Result<RunLog> after_only = ParseRunLog(head + run + ",1.2\n", "f.csv", false);
  ASSERT_FALSE(after_only.ok());
  EXPECT_EQ(after_only.status().message(),
            "f.csv:2: parallel_pass_us_before is empty where parallel_pass_us_after is given");
}

// unstated: the model parameters the run's source leaves open, names separated by ';', each once
// (calibrate fits nothing to such a run).
TEST(RunLogTest, UnstatedIsAListOfParameterNames) {
  const std::string head = "model,target,batch,samples,seconds_per_epoch,framework,unstated\n";
  const std::string run = "imdb_fasttext,local-cpu,32,25000,19.0,pytorch,";
  Result<RunLog> log = ParseRunLog(
      head + run + "max_features\n" + run + "max_features;maxlen\n" + run + "\n", "f.csv", false);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 3u);
  EXPECT_EQ(log->runs[0].unstated, std::vector<std::string>{"max_features"});
  EXPECT_EQ(log->runs[1].unstated, (std::vector<std::string>{"max_features", "maxlen"}));
  EXPECT_TRUE(log->runs[2].unstated.empty());
  ExpectEachRefused(head + run, {"max_features;", ";maxlen", "a;;b", "1st", "max features"},
                    "f.csv:2: unstated '");
  Result<RunLog> twice = ParseRunLog(head + run + "maxlen;maxlen\n", "f.csv", false);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(), "f.csv:2: unstated 'maxlen;maxlen' names 'maxlen' twice");
}

// The allocator column: keeps or returns (empty: returns, glibc's malloc as it comes).
TEST(RunLogTest, AllocatorKeepsOrReturns) {
  const std::string head = "model,target,batch,samples,seconds_per_epoch,framework,allocator\n";
  const std::string run = "mnist_mlp,local-cpu,128,60000,7.0,pytorch,";
  Result<RunLog> log =
      ParseRunLog(head + run + "keeps\n" + run + "returns\n" + run + "\n", "f.csv", false);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 3u);
  EXPECT_TRUE(log->runs[0].allocator_keeps);
  EXPECT_FALSE(log->runs[1].allocator_keeps);
  EXPECT_FALSE(log->runs[2].allocator_keeps);
  Result<RunLog> bad = ParseRunLog(head + run + "jemalloc\n", "f.csv", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "f.csv:2: allocator 'jemalloc' is not keeps or returns");
}

// The input pipeline's CPU time per sample (input_ms_per_sample), as predict's
// --input-ms-per-sample takes it: empty is none; a negative, non-numeric or absurd value names
// the line and the column.
TEST(RunLogTest, InputPipelinePerSample) {
  const std::string head =
      "model,target,batch,samples,seconds_per_epoch,framework,input_ms_per_sample\n";
  const std::string run = "cifar10_cnn,gcp:n1-standard-1+K80,32,49984,37.78,keras+tensorflow,";
  Result<RunLog> log = ParseRunLog(head + run + "0.123\n" + run + "\n", "f.csv", false);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 2u);
  EXPECT_DOUBLE_EQ(log->runs[0].input_ms_per_sample, 0.123);
  EXPECT_DOUBLE_EQ(log->runs[1].input_ms_per_sample, 0);
  for (const char* bad : {"-1", "fast", "700000", "nan"}) {
    Result<RunLog> b = ParseRunLog(head + run + bad + "\n", "f.csv", false);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_EQ(b.status().message(), std::string("f.csv:2: input_ms_per_sample '") + bad +
                                        "' is not a number of milliseconds from 0 to 600000");
  }
}

TEST(RunLogTest, MissingColumnIsAnError) {
  Result<std::string> text = ReadFile(kFixtures + "runs-no-framework.csv");
  ASSERT_TRUE(text.ok());
  Result<RunLog> log = ParseRunLog(*text, "r.csv", false);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().message(), "r.csv:1: no column 'framework'");
  EXPECT_FALSE(ParseRunLog("model,target,batch,samples,seconds_per_epoch,framework,kind\n"
                           "m,t,1,1,1,f,cheap\n",
                           "k.csv", false)
                   .ok());
  Result<RunLog> rnn = ParseRunLog(
      "model,target,batch,samples,seconds_per_epoch,framework,rnn\n"
      "m,t,1,1,1,f,static\n",
      "r.csv", false);
  ASSERT_FALSE(rnn.ok());
  EXPECT_EQ(rnn.status().message(), "r.csv:2: rnn 'static' is not aten, unrolled or fused");
  Result<RunLog> isa = ParseRunLog(
      "model,target,batch,samples,seconds_per_epoch,framework,isa\n"
      "m,t,1,1,1,f,avx2\n"
      "m,t,1,1,1,f,mmx\n",
      "r.csv", false);
  ASSERT_FALSE(isa.ok());
  EXPECT_EQ(isa.status().message(),
            "r.csv:3: isa: vector instruction set 'mmx' is not native, sse2, avx, avx2 or avx512");
}

TEST(RunLogTest, IsaColumnIsKept) {
  Result<RunLog> log = ParseRunLog(
      "model,target,batch,samples,seconds_per_epoch,framework,isa\n"
      "m,t,1,1,1,f,sse2\n"
      "m,t,1,1,1,f,\n",
      "r.csv", false);
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_EQ(log->runs[0].isa, "sse2");
  EXPECT_EQ(log->runs[1].isa, "");  // not stated: native
}

TEST(RunLogTest, KerasLogIsTheMedianOfTheLaterEpochs) {
  Result<std::string> text = ReadFile(kFixtures + "keras-log.csv");
  ASSERT_TRUE(text.ok());
  Result<KerasLogTimes> t = ParseKerasLog(*text, "keras-log.csv", "");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->epochs, 4);
  EXPECT_DOUBLE_EQ(t->first_epoch_seconds, 5.0);
  EXPECT_DOUBLE_EQ(t->seconds_per_epoch, 3.1);  // median of 3.0, 3.4, 3.1
  EXPECT_FALSE(ParseKerasLog("epoch,loss\n0,1\n", "x.csv", "").ok());
  Result<KerasLogTimes> bad = ParseKerasLog("epoch,elapsed\n0,-1\n", "x.csv", "");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "x.csv:2: elapsed -1 is not positive");
}

TEST(RunLogTest, ShippedLogsParse) {
  for (const std::string& name : ShippedRunLogNames()) {
    Result<std::string_view> text = ShippedRunLog(name);
    ASSERT_TRUE(text.ok());
    Result<RunLog> log = ParseRunLog(*text, name, false);
    ASSERT_TRUE(log.ok()) << log.status().message();
    EXPECT_FALSE(log->runs.empty());
  }
  EXPECT_FALSE(ShippedRunLog("nothing").ok());
}

// The hint where no calibration is stored names the shipped logs of that framework and device
// kind: a GPU run states its GPU count or names a gpu: target.
TEST(RunLogTest, ShippedLogsOfAFrameworkAndKind) {
  const auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(ShippedRunLogsOf("pytorch", "cpu")),
            (std::vector<std::string>{"dev-cpu-pytorch",
                                      "dev-cpu-pytorch-avx2",
                                      "dev-cpu-pytorch-avx2-rerun",
                                      "dev-cpu-pytorch-xeon-amx-keep",
                                      "dev-cpu-pytorch-zen4",
                                      "dev-cpu-pytorch-zen4-amp-bf16",
                                      "dev-cpu-pytorch-zen4-bf16",
                                      "dev-cpu-pytorch-zen4-fifth",
                                      "dev-cpu-pytorch-zen4-fourth",
                                      "dev-cpu-pytorch-zen4-rerun",
                                      "dev-cpu-pytorch-zen4-seventh",
                                      "dev-cpu-pytorch-zen4-seventh-lr",
                                      "dev-cpu-pytorch-zen4-seventh-rerun",
                                      "dev-cpu-pytorch-zen4-sixth",
                                      "dev-cpu-pytorch-zen4-third",
                                      "dev-cpu-pytorch-zen5",
                                      "dev-cpu-pytorch-zen5-glibc",
                                      "dev-cpu-pytorch-zen5-keep",
                                      "dev-cpu-pytorch-zen5-keep-fourth",
                                      "dev-cpu-pytorch-zen5-keep-rerun",
                                      "dev-cpu-pytorch-zen5-keep-third",
                                      "dev-cpu-pytorch-zen5-rerun"}));
  EXPECT_EQ(sorted(ShippedRunLogsOf("pytorch", "gpu")),
            (std::vector<std::string>{"h100-pytorch", "h100-pytorch-emr", "h100-pytorch-hosts",
                                      "h200-pytorch"}));
  EXPECT_EQ(ShippedRunLogsOf("pytorch-ngc", "gpu"), (std::vector<std::string>{"lambda-resnet50"}));
  EXPECT_EQ(ShippedRunLogsOf("keras+tensorflow", "gpu"),
            (std::vector<std::string>{"published-runs"}));
  EXPECT_EQ(ShippedRunLogsOf("pytorch", "").size(), 26u);
  EXPECT_TRUE(ShippedRunLogsOf("caffe", "").empty());
}

}  // namespace
}  // namespace epochcost::validation

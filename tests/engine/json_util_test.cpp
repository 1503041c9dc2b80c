// Regression tests for what fuzzing found in the readers (docs/reliability.md): JSON that parses
// but does not fit, error messages broken by quoted input, absurd sizes.
#include <gtest/gtest.h>

#include "engine/json_util.h"
#include "engine/model_json.h"
#include "engine/status.h"

namespace epochcost {
namespace {

TEST(JsonUtilTest, NumberBeyondDoubleIsAnErrorNamingTheFile) {
  // nlohmann throws out_of_range here, not parse_error: it used to escape every reader.
  Result<Json> j = ParseJson(R"({"units": 1e999})", "m.json");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().message(), "m.json: number overflow parsing '1e999'");
  EXPECT_EQ(ParseJson("{oops", "m.json").status().message(),
            "m.json: malformed JSON at line 1, column 2");
}

TEST(JsonUtilTest, WrongTypeBecomesAnError) {
  const Json j = Json::parse(R"({"name": ["not", "a", "string"]})");
  Result<std::string> name =
      GuardJson("layers[0]", [&]() -> Result<std::string> { return j["name"].get<std::string>(); });
  ASSERT_FALSE(name.ok());
  EXPECT_EQ(name.status().message(), "layers[0]: type must be string, but is array");
  Status s = GuardJson("", [&] {
    (void)j.at("missing");
    return Status::Ok();
  });
  EXPECT_EQ(s.message(), "key 'missing' not found");
}

TEST(StatusTest, MessagesStayOneLine) {
  // A price file's quoted field held a newline; the error quoting it spanned two lines.
  EXPECT_EQ(Status::InvalidArgument("kind 'on\ndemand'\r\t\x01").message(),
            "kind 'on\\ndemand'\\r\\t\\x01");
  EXPECT_EQ(Status::InvalidArgument("a").WithContext("f\n.csv").message(), "f\\n.csv: a");
}

TEST(ModelLimitsTest, AbsurdSizesAreRefusedNotOverflowed) {
  const std::string head = R"({"format": "epochcost-model", "version": 1, "name": "m",
    "training": {"batch": 1, "samples": 1}, "layers": [)";
  const std::string loss = R"(, {"name": "l", "kind": "loss", "inputs": ["d"]}]})";
  // An input of 784 billion values per sample used to be accepted and counted.
  Result<Model> huge =
      ParseModelJson(head + R"({"name": "x", "kind": "input", "shape": [784000000000]},
    {"name": "d", "kind": "dense", "inputs": ["x"], "units": 4})" +
                         loss,
                     "m.json");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().message(),
            "m.json: model 'm': layer 'x' (input): shape 784000000000 is absurd (at most "
            "2147483647)");
  Result<Model> wide = ParseModelJson(head + R"({"name": "x", "kind": "input", "shape": [8]},
    {"name": "d", "kind": "dense", "inputs": ["x"], "units": 100000000})" + loss, "m.json");
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.status().message(),
            "m.json: model 'm': layer 'd' (dense): units 100000000 is absurd (at most 16777216)");
  // Each dimension is fine, their product is not.
  Result<Model> product =
      ParseModelJson(head + R"({"name": "x", "kind": "input", "shape": [65536, 65536]},
    {"name": "d", "kind": "dense", "inputs": ["x"], "units": 4})" +
                         loss,
                     "m.json");
  ASSERT_FALSE(product.ok());
  EXPECT_EQ(product.status().message(),
            "m.json: model 'm': layer 'x' (input): output (None, 65536, 65536) is absurd (more "
            "than 2147483647 values per sample)");
}

// Regression (profile_json_fuzzer, CI seed 1): a fractional or huge "threads" reached a C++ int
// through nlohmann's unchecked cast (UBSan: 4.17e13 outside the range of int).
TEST(JsonUtilTest, IntegerFieldAcceptsOnlyIntegersInRange) {
  const Json doc = Json::parse(R"({"a": 3, "b": 2.5, "c": 4.17e13, "d": -1, "e": "7",
                                   "f": 18446744073709551615})");
  EXPECT_EQ(*IntegerField(doc, "a", 0, 1, 10), 3);
  EXPECT_EQ(*IntegerField(doc, "missing", 5, 1, 10), 5);
  for (const char* key : {"b", "c", "d", "e", "f"}) {
    Result<int64_t> r = IntegerField(doc, key, 0, 0, 100, "m[1]");
    ASSERT_FALSE(r.ok()) << key;
    EXPECT_EQ(r.status().message(),
              std::string("m[1].") + key + ": expected an integer from 0 to 100");
  }
  EXPECT_EQ(IntegerField(doc, "a", 0, 4, 10).status().message(),
            "a: expected an integer from 4 to 10");
}

}  // namespace
}  // namespace epochcost

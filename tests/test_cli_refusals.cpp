// End to end: what ampbench refuses before it trains: one line, exit 2, nothing written.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_fixture.h"

namespace fs = std::filesystem;
using namespace ampbench::testing;

// A flag replaces a config value; it does not excuse a bad one, which would come back without the flag.
TEST_F(Cli, AConfigValueAFlagReplacesMustStillBeValid) {
  auto config = tiny_config();
  config["output"]["dir"] = 17;
  config["train"]["epochs"] = -3;
  auto out = run("--config " + write_config(config).string() + " --out " + (dir_ / "elsewhere").string() +
                 " --epochs 1");
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.err, "config error: /train/epochs: expected an integer in [1, 1000000], got -3\n");
  config["train"]["epochs"] = 1;
  out = run("--config " + write_config(config).string() + " --out " + (dir_ / "elsewhere").string());
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.err, "config error: /output/dir: expected a string, got 17\n");
  EXPECT_FALSE(fs::exists(dir_ / "elsewhere"));
}

// A CI job validates a config with --dry-run: it must fail wherever the run itself would refuse to start.
TEST_F(Cli, ADryRunRefusesWhatTheRunWouldRefuseAndWritesNothing) {
  const auto config = write_config(tiny_config()).string();
  auto dry_run = [&](const std::string& args) { return run("--config " + config + " --dry-run " + args); };

  if (!torch::cuda::is_available()) {
    auto cuda = dry_run("--device cuda:0");
    EXPECT_EQ(cuda.exit_code, 2);
    EXPECT_EQ(cuda.err.rfind("config error: /device (from --device): cuda:0 requested", 0), 0u) << cuda.err;
  }
  auto missing_data = tiny_config();
  missing_data["data"] = {{"mnist", {{"dir", (dir_ / "mnist").string()}}}};
  auto data = run("--config " + write_config(missing_data, "mnist.json").string() + " --dry-run");
  EXPECT_EQ(data.exit_code, 2);
  EXPECT_EQ(data.err, "config error: /data/mnist/dir: missing data file " +
                          (dir_ / "mnist" / "train-images-idx3-ubyte").string() + "\n");

  auto export_path = dry_run("--export-csv " + (dir_ / "no" / "folder.csv").string());
  EXPECT_EQ(export_path.exit_code, 2);
  EXPECT_EQ(export_path.err.rfind("output error: cannot write", 0), 0u) << export_path.err;

  std::ofstream(dir_ / "a-file") << "in the way";
  auto out_dir = dry_run("--out " + (dir_ / "a-file" / "results").string());
  EXPECT_EQ(out_dir.exit_code, 2);
  EXPECT_EQ(out_dir.err, "output error: cannot create output folder " +
                             (dir_ / "a-file" / "results").string() + ": " + (dir_ / "a-file").string() +
                             " is not a folder\n");
  auto real_run = run("--config " + config + " --out " + (dir_ / "a-file" / "results").string());
  EXPECT_EQ(real_run.exit_code, 2);
  EXPECT_EQ(real_run.err, out_dir.err);  // the run itself refuses it in the same words

  auto fault = dry_run("--modes fp32 --inject-fault nan:bf16:1");
  EXPECT_EQ(fault.exit_code, 2);
  EXPECT_EQ(fault.err.rfind("usage error: --inject-fault: ", 0), 0u) << fault.err;

  for (const auto& result : {data, export_path, out_dir, fault})
    EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  EXPECT_FALSE(fs::exists(dir_ / "no"));
  EXPECT_EQ(dry_run("--out " + (dir_ / "new" / "results").string()).exit_code, 0);
  EXPECT_FALSE(fs::exists(dir_ / "new"));  // a folder that a run would create is fine, and not created
}

TEST_F(Cli, ABadConfigExitsTwoWithOneLineAndWritesNothing) {
  auto config = tiny_config();
  config["train"]["epochs"] = -3;
  auto result = run("--config " + write_config(config).string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "config error: /train/epochs: expected an integer in [1, 1000000], got -3\n");
  EXPECT_TRUE(result.out.empty());
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(Cli, MalformedJsonExitsTwo) {
  auto path = dir_ / "broken.json";
  std::ofstream(path) << "{\"name\": \"x\",";
  auto result = run("--config " + path.string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(line_count(result.err), 1u);
  EXPECT_NE(result.err.find("invalid JSON"), std::string::npos) << result.err;
}

TEST_F(Cli, UsageErrorsExitTwo) {
  auto config = write_config(tiny_config()).string();
  for (const std::string& args :
       std::vector<std::string>{"--config " + config + " --modes fp32,fp4",
                                "--config " + config + " --epochs 0", "--config " + config + " --device tpu",
                                "--no-such-option", "", "--config " + (dir_ / "missing.json").string(),
                                "--config " + config + " --inject-fault nan:bf16:0",
                                // an output folder that cannot be made: fails before training
                                "--config " + config + " --out " + config + "/runs"}) {
    auto result = run(args);
    EXPECT_EQ(result.exit_code, 2) << args;
    EXPECT_EQ(line_count(result.err), 1u) << args << ": " << result.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(Cli, UnavailableCudaIsAUsageError) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "this machine has a GPU";
  auto result = run("--config " + write_config(tiny_config()).string() + " --device cuda:0");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("config error: /device (from --device): cuda:0 requested"), std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(Cli, AnUnwritableExportFailsBeforeTraining) {
  auto result = run("--config " + write_config(tiny_config()).string() + " --export-csv " +
                    (dir_ / "no" / "such" / "folder.csv").string());
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err.rfind("output error: cannot write", 0), 0u) << result.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));  // no run folder, no training
}

TEST_F(Cli, CommandLineValuesAreCheckedWithTheOptionNamed) {
  const auto config = write_config(tiny_config()).string();
  auto refused = [&](const std::string& options, const std::string& message) {
    auto result = run("--config " + config + " -q " + options);
    EXPECT_EQ(result.exit_code, 2) << options;
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_NE(result.err.find(message), std::string::npos) << options << ": " << result.err;
  };
  refused("--seed abc", "usage error: --seed: expected an integer in [0, 9223372036854775807], got \"abc\"");
  refused("--seed 99999999999999999999", "got \"99999999999999999999\"");  // not clamped to the largest
  refused("--epochs 0", "usage error: --epochs: expected an integer in [1, 1000000], got \"0\"");
  refused("--export-json ''", "usage error: --export-json: expected a file path, or - for stdout");
  refused("--list-modes ''", "usage error: --list-modes: an empty format: give text or json, or no value");
  refused("--peak-tflops fp32=1,fp32=2",
          "usage error: --peak-tflops: expected X or MODE=X,MODE=X with each mode once");
  for (const std::string peak : {"nan", "inf", "bf16=nan"})
    refused("--peak-tflops " + peak, "usage error: --peak-tflops: expected X or MODE=X,MODE=X");
  refused("--modes fp32,fp32",
          "config error: /precision/modes/1 (from --modes): mode \"fp32\" is listed twice");
  // An empty name anywhere in the list is refused, never dropped.
  for (const std::string list : {",", "fp32,,bf16", "fp32,", " ,bf16"})
    refused("--modes '" + list + "' --out " + (dir_ / "x").string(),
            "usage error: --modes: an empty mode in \"" + list +
                "\": expected a comma-separated list of modes, such as fp32,bf16");
  // A planted fault that could never fire would let a test pass without it.
  refused("--modes fp32 --inject-fault nan:bf16:2",
          "usage error: --inject-fault: mode bf16 is not among the modes that run here");
  refused("--inject-fault nan:fp32:9", "usage error: --inject-fault: step 9 is past a trial's last step (8)");
  refused("--modes fp32 --inject-fault fp8scale:fp32:1",
          "usage error: --inject-fault: mode fp32 has no float8 scales");
  refused("--inject-fault nan:fp32:2:2",
          "usage error: --inject-fault: trial 2 is past the last trial of each mode (1)");
  refused("--inject-fault nan:fp32:2:0", "usage error: --inject-fault: expected KIND:MODE:STEP[:TRIAL]");
  // The config's device is the CPU, where tf32 is skipped.
  refused("--modes fp32,tf32 --inject-fault nan:tf32:2",
          "usage error: --inject-fault: mode tf32 is not among the modes that run here");
  // An export that is not a regular file would be replaced by one (the write renames a new file over it).
  refused("--export-json /dev/stdout", "output error: cannot write /dev/stdout: not a regular file");
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// LibTorch would try to allocate it and fail with a line about its allocator (exit 1), or the kernel would
// end the process; the config asks for it, so the config is what is wrong.
TEST_F(Cli, SyntheticDataLargerThanTheHostsMemoryIsRefusedBeforeAnythingIsMade) {
  auto config = tiny_config();
  config["data"]["synthetic"]["train_samples"] = int64_t{1'000'000'000'000};
  const auto path = write_config(config).string();
  for (const std::string extra : {"", " --dry-run"}) {
    auto result = run("--config " + path + extra);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_EQ(result.err.rfind("config error: /data/synthetic/train_samples: the data set needs 181.9 TiB of "
                               "host memory, and ",
                               0),
              0u)
        << result.err;
    EXPECT_NE(result.err.find(" is available"), std::string::npos) << result.err;
    EXPECT_TRUE(run_folders().empty());
  }
}

// Models (and their data) far larger than any machine: LibTorch would fail to allocate them after minutes
// of making data, or the kernel would end the process. Counted from the options, they are refused before
// anything is made, in one line with what training needs and what there is; a dry run says the same.
TEST_F(Cli, AModelTooLargeForTheMachineIsRefusedBeforeAnythingIsMade) {
  using namespace ampbench::test_data;
  fs::create_directories(dir_ / "mnist");
  write_bytes(dir_ / "mnist" / "train-images-idx3-ubyte", idx_images(32, 28, 28));
  write_bytes(dir_ / "mnist" / "train-labels-idx1-ubyte", idx_labels(std::vector<uint8_t>(32, 1)));
  write_bytes(dir_ / "mnist" / "t10k-images-idx3-ubyte", idx_images(16, 28, 28));
  write_bytes(dir_ / "mnist" / "t10k-labels-idx1-ubyte", idx_labels(std::vector<uint8_t>(16, 2)));
  const nlohmann::json tokens{{"train_samples", 32}, {"val_samples", 16}, {"context", 8}, {"vocab", 64}};
  auto config = [&](nlohmann::json model, nlohmann::json data) {
    auto out = tiny_config();
    out["model"] = std::move(model);
    out["data"] = std::move(data);
    return out;
  };
  auto wide_tokens = tokens;
  wide_tokens["vocab"] = 1 << 24;
  auto many_classes = tiny_config()["data"];
  many_classes["synthetic"]["classes"] = int64_t{1} << 40;
  const nlohmann::json mlp_64_deep{{"type", "mlp"}, {"options", {{"width", 65536}, {"depth", 64}}}};
  const nlohmann::json cases[] = {
      config({{"type", "gpt"}, {"options", {{"n_layer", 1024}, {"n_head", 1}, {"d_model", 65536}}}},
             {{"synthetic_tokens", tokens}}),
      config({{"type", "gpt"}, {"options", {{"n_layer", 1}, {"n_head", 1}, {"d_model", 65536}}}},
             {{"synthetic_tokens", wide_tokens}}),
      config(mlp_64_deep, tiny_config()["data"]),
      config(tiny_config()["model"], many_classes),
      config(mlp_64_deep,
             {{"mnist", {{"dir", (dir_ / "mnist").string()}}}}),  // known once the files are read
  };
  for (const auto& doc : cases) {
    const auto path = write_config(doc).string();
    for (const std::string extra : {"", " --dry-run"}) {
      auto result = run("--config " + path + extra);
      EXPECT_EQ(result.exit_code, 2) << doc.dump() << extra << ": " << result.err;
      EXPECT_EQ(line_count(result.err), 1u) << result.err;
      EXPECT_EQ(result.err.rfind("config error: /model: training needs at least ", 0), 0u) << result.err;
      EXPECT_NE(result.err.find(" of host memory ("), std::string::npos) << result.err;
      EXPECT_NE(result.err.find(" is available\n"), std::string::npos) << result.err;
      EXPECT_TRUE(run_folders().empty());
    }
  }
}

TEST_F(Cli, HostileConfigsExitTwoWithOneLineAndNeverCrash) {
  auto write_raw = [&](const std::string& name, const std::string& text) {
    auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  };
  std::string deep_open(100000, '['), deep_closed = deep_open + std::string(100000, ']');
  std::string deep_object = "{\"name\": \"x\", \"data\": ";
  for (int i = 0; i < 50000; ++i) deep_object += "{\"a\": ";
  deep_object += "1" + std::string(50000, '}') + "}";
  auto big = tiny_config();
  big["padding"] = std::string(4 << 20, 'x');  // a 4 MB config with one unknown key
  auto config = tiny_config();
  config["train"]["epochs"] = 1e300;
  for (const auto& path :
       {write_raw("not-json.json", "name: x"), write_raw("array.json", "[1, 2]"),
        write_raw("deep-open.json", deep_open), write_raw("deep-closed.json", deep_closed),
        write_raw("deep-object.json", deep_object), write_raw("bytes.json", "{\"name\": \"\xff\xfe\"}"),
        write_raw("nan.json", "{\"name\": NaN}"),
        write_raw("overflow.json", "{\"name\": \"x\", \"seed\": 1e3111}"), write_raw("empty.json", ""),
        write_raw("huge.json", config.dump()), write_config(big, "big.json").string(), dir_.string()}) {
    auto result = run("--config " + path);
    EXPECT_EQ(result.exit_code, 2) << path << ": " << result.err;
    EXPECT_EQ(line_count(result.err), 1u) << path << ": " << result.err;
    EXPECT_EQ(result.err.rfind("config error: ", 0), 0u) << path << ": " << result.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(Cli, ADataFolderThatIsMissingOrBadIsAConfigErrorBeforeAnythingIsWritten) {
  auto config = tiny_config();
  config["data"] = {{"mnist", {{"dir", (dir_ / "mnist").string()}}}};
  auto missing = run("--config " + write_config(config).string() + " -q");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "config error: /data/mnist/dir: missing data file " +
                             (dir_ / "mnist" / "train-images-idx3-ubyte").string() + "\n");
  EXPECT_TRUE(run_folders().empty());

  // Tiny but well-formed files train end to end; 8 training images are fewer than a batch of 16.
  using namespace ampbench::test_data;
  fs::create_directories(dir_ / "mnist");
  auto put = [&](const std::string& name, const std::vector<uint8_t>& bytes) {
    std::ofstream(dir_ / "mnist" / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  };
  put("train-images-idx3-ubyte", idx_images(8, 28, 28));
  put("train-labels-idx1-ubyte", idx_labels({0, 1, 2, 3, 4, 5, 6, 7}));
  put("t10k-images-idx3-ubyte", idx_images(4, 28, 28));
  put("t10k-labels-idx1-ubyte", idx_labels({8, 9, 0, 1}));
  auto too_small = run("--config " + write_config(config).string() + " -q");
  EXPECT_EQ(too_small.exit_code, 2);
  EXPECT_EQ(too_small.err,
            "config error: /train/batch_size: is larger than the training set (8 samples in /data/mnist)\n");
  EXPECT_TRUE(run_folders().empty());
  // More samples than the files hold: refused, not run on fewer while the report says more.
  auto asked = config;
  asked["data"]["mnist"]["train_samples"] = 100;
  auto too_many = run("--config " + write_config(asked).string() + " -q");
  EXPECT_EQ(too_many.exit_code, 2);
  EXPECT_EQ(too_many.err, "config error: /data/mnist/train_samples: is 100, but the files hold 8 samples\n");
  asked["data"]["mnist"] = {{"dir", (dir_ / "mnist").string()}, {"val_samples", 5}};
  EXPECT_NE(run("--config " + write_config(asked).string() + " -q")
                .err.find("/data/mnist/val_samples: is 5, but the files hold 4 samples"),
            std::string::npos);
  EXPECT_TRUE(run_folders().empty());
  config["train"]["batch_size"] = 4;
  config["train"]["warmup_steps"] = 0;
  auto ok = run("--config " + write_config(config).string() + " -q --modes fp32,bf16 --epochs 1");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  auto report = nlohmann::json::parse(read_file(run_folders().at(0) / "report.json"));
  EXPECT_EQ(report["trials"][0]["epochs"][0]["timed_samples"], 8);
  EXPECT_EQ(report["config"]["data"]["mnist"]["dir"], (dir_ / "mnist").string());
}

// Two outputs that are one file, or an output that is an input, would silently replace each other: refused
// before anything runs, however the path is spelled (./, a linked folder), and nothing is written.
TEST_F(Cli, TwoOutputsOnOneFileOrAnOutputOnAnInputAreRefusedBeforeAnythingRuns) {
  const auto config = write_config(tiny_config()).string();
  const auto p = (dir_ / "p.out").string();
  fs::create_directory_symlink(dir_, dir_ / "alias");  // the folder under another name
  const std::vector<std::pair<std::string, std::string>> cases{
      {"--export-json " + p + " --export-csv " + p, "--export-json and --export-csv are one file"},
      {"--export-json " + p + " --export-markdown " + (dir_ / "." / "p.out").string(),
       "--export-json and --export-markdown are one file"},
      {"--export-csv " + p + " --export-markdown " + (dir_ / "alias" / "p.out").string(),
       "--export-csv and --export-markdown are one file"},
      {"--export-json " + config, "--export-json " + config + " is the config file, which it would replace"}};
  const auto before = read_file(config);
  for (const auto& [exports, message] : cases) {
    auto result = run("--config " + config + " -q " + exports);
    EXPECT_EQ(result.exit_code, 2) << exports << ": " << result.err;
    EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(dir_ / "out")) << exports;
    EXPECT_FALSE(fs::exists(dir_ / "p.out")) << exports;
  }
  EXPECT_EQ(read_file(config), before);
  write_fp32_base_report();
  const auto base = (dir_ / "base.json").string();
  std::ofstream(dir_ / "new.json") << read_file(base);
  const auto next = (dir_ / "new.json").string();
  auto compared = run("compare " + base + " " + next + " --markdown " + next);
  EXPECT_EQ(compared.exit_code, 2) << compared.err;
  EXPECT_NE(compared.err.find("--markdown " + next + " is NEW, which it would replace"), std::string::npos)
      << compared.err;
  EXPECT_EQ(read_file(next), read_file(base));
}

// A config that is not a regular file, or too large to be one, is refused in one line before it is read:
// /dev/zero never ends and a FIFO would block (the shell's timeout would end it with 124).
TEST_F(Cli, AConfigThatIsNoRegularFileOrTooLargeIsRefusedWithoutReadingIt) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo.json").c_str(), 0600), 0);
  { std::ofstream big(dir_ / "big.json"); }
  std::filesystem::resize_file(dir_ / "big.json", int64_t(50) << 20);
  const std::vector<std::pair<std::string, std::string>> cases{
      {"/dev/zero", "/dev/zero: is a device, not a config file"},
      {(dir_ / "fifo.json").string(), "fifo.json: is a FIFO, not a config file"},
      {(dir_ / "big.json").string(), "big.json: is 50 MiB: a config file is at most 4 MiB"}};
  for (const auto& [path, message] : cases) {
    auto result = run("--config " + path + " --out " + (dir_ / "out").string(), "timeout 20 ");
    EXPECT_EQ(result.exit_code, 2) << path << ": " << result.err;
    EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_FALSE(fs::exists(dir_ / "out"));
  }
  auto compared = run("compare /dev/zero /dev/zero", "timeout 20 ");
  EXPECT_EQ(compared.exit_code, 2) << compared.err;
  EXPECT_NE(compared.err.find("/dev/zero: is a device, not a report file"), std::string::npos)
      << compared.err;
}

// User text in a config never reaches the terminal raw or whole: a control byte in a string is refused, and
// an error that quotes a key or value shortens and escapes it.
TEST_F(Cli, UserTextInAnErrorIsShortenedAndEscapedAndControlBytesAreRefused) {
  auto with_name = tiny_config();
  with_name["name"] = "run\x1b[2J";
  auto result = run("--config " + write_config(with_name).string());
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("config error: /name: contains a control character (byte 0x1b at offset 3)"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find('\x1b'), std::string::npos);
  auto with_nul = tiny_config();
  with_nul["output"]["dir"] = std::string("out\0put", 7);
  result = run("--config " + write_config(with_nul).string());
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("/output/dir: contains a control character (byte 0x00 at offset 3)"),
            std::string::npos)
      << result.err;
  auto with_key = tiny_config();
  with_key["train"][std::string(1 << 20, 'k') + "\x07"] = 1;
  result = run("--config " + write_config(with_key).string());
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("bytes) ..."), std::string::npos) << result.err.substr(0, 300);
  EXPECT_LT(result.err.size(), 1000u);
  EXPECT_EQ(line_count(result.err), 1u);
  // Text typed on the command line alike: its control bytes escaped, a 5,000-byte value shortened.
  const auto config = write_config(tiny_config()).string();
  const auto refused = [&](const std::string& args) {
    auto typed = run("--config " + config + " " + args);
    EXPECT_EQ(typed.exit_code, 2) << typed.err;
    EXPECT_EQ(typed.err.find_first_of("\x1b\t"), std::string::npos) << typed.err;
    EXPECT_LT(typed.err.size(), 1000u) << typed.err.substr(0, 300);
    EXPECT_EQ(line_count(typed.err), 1u) << typed.err.substr(0, 300);
    return typed.err;
  };
  const auto escaped = refused("--modes \"$(printf 'fp32,\\033[31mx\\tb')\"");
  EXPECT_NE(escaped.find("\\x1b[31mx\\x09b"), std::string::npos) << escaped;
  for (const std::string& args :
       {"--modes fp32," + std::string(5000, 'm'), "--sweep " + std::string(5000, 's'),
        "--sweep /train/" + std::string(5000, 'k') + "=1,2 --dry-run"})
    refused(args);
}

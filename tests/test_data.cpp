// The data readers on tiny files written here in each format, and the Markov-chain token data.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "data/file_readers.h"
#include "data/synthetic_dataset.h"
#include "data_files.h"
#include "temp_dir_test.h"
#include "util/input_error.h"

namespace fs = std::filesystem;
using ampbench::util::InputError;
using namespace ampbench::test_data;

namespace {

class DataFiles : public ampbench::testing::TempDirTest {
 protected:
  void write(const std::string& name, const std::vector<uint8_t>& bytes) {
    ampbench::test_data::write_bytes(dir_ / name, bytes);
  }
  // The message the reader gives, or "no error".
  template <typename Read>
  std::string error(Read read) {
    try {
      read();
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(DataFiles, MnistIdxFilesAreReadAndScaled) {
  write("train-images-idx3-ubyte", idx_images(3, 28, 28));
  write("train-labels-idx1-ubyte", idx_labels({7, 0, 9}));
  write("t10k-images-idx3-ubyte", idx_images(2, 28, 28));
  write("t10k-labels-idx1-ubyte", idx_labels({1, 2}));
  auto d = ampbench::data::read_mnist(dir_);
  EXPECT_EQ(d.train_inputs.sizes(), (std::vector<int64_t>{3, 1, 28, 28}));
  EXPECT_EQ(d.val_inputs.size(0), 2);
  EXPECT_EQ(d.train_labels[2].item<int64_t>(), 9);
  EXPECT_FLOAT_EQ(d.train_inputs[1][0][0][5].item<float>(), 6.0f / 255.0f);  // image 1, pixel 5: (1+5)
  EXPECT_EQ(d.num_classes, 10);
}

TEST_F(DataFiles, BadMnistFilesAreOneClearError) {
  EXPECT_EQ(error([&] { ampbench::data::read_mnist(dir_); }),
            "missing data file " + (dir_ / "train-images-idx3-ubyte").string());
  auto images = idx_images(3, 28, 28);
  images.resize(images.size() - 100);
  write("train-images-idx3-ubyte", images);
  write("train-labels-idx1-ubyte", idx_labels({7, 0, 9}));
  EXPECT_EQ(
      error([&] { ampbench::data::read_mnist(dir_); }),
      (dir_ / "train-images-idx3-ubyte").string() + " holds 2268 bytes; its header says 2368 (truncated)");
  auto wrong_magic = idx_images(3, 28, 28);
  wrong_magic[3] = 0x01;
  write("train-images-idx3-ubyte", wrong_magic);
  EXPECT_NE(error([&] { ampbench::data::read_mnist(dir_); }).find("has magic number 2049, expected 2051"),
            std::string::npos);
  write("train-images-idx3-ubyte", idx_images(3, 28, 28));
  write("train-labels-idx1-ubyte", idx_labels({7, 0}));
  EXPECT_NE(error([&] { ampbench::data::read_mnist(dir_); }).find("holds 3 images but"), std::string::npos);
}

TEST_F(DataFiles, Cifar10BinaryBatchesAreReadInOrder) {
  for (int i = 1; i <= 5; ++i)
    write("data_batch_" + std::to_string(i) + ".bin", cifar_records(2, uint8_t(i)));
  write("test_batch.bin", cifar_records(3, 0));
  auto d = ampbench::data::read_cifar10(dir_);
  EXPECT_EQ(d.train_inputs.sizes(), (std::vector<int64_t>{10, 3, 32, 32}));
  EXPECT_EQ(d.val_inputs.size(0), 3);
  EXPECT_EQ(d.train_labels[0].item<int64_t>(), 1);  // data_batch_1 first
  EXPECT_EQ(d.train_labels[9].item<int64_t>(), 5);
  EXPECT_FLOAT_EQ(d.train_inputs[0][1][0][0].item<float>(),
                  float(1024 % 251) / 255.0f);  // green plane first pixel
}

TEST_F(DataFiles, BadCifar10FilesAreOneClearError) {
  for (int i = 1; i <= 5; ++i) write("data_batch_" + std::to_string(i) + ".bin", cifar_records(1, 3));
  EXPECT_EQ(error([&] { ampbench::data::read_cifar10(dir_); }),
            "missing data file " + (dir_ / "test_batch.bin").string());
  auto records = cifar_records(2, 3);
  records.pop_back();
  write("test_batch.bin", records);
  EXPECT_EQ(error([&] { ampbench::data::read_cifar10(dir_); }),
            (dir_ / "test_batch.bin").string() +
                " holds 6145 bytes, not a whole number of 3,073-byte CIFAR-10 records");
  write("test_batch.bin", cifar_records(1, 12));
  EXPECT_EQ(error([&] { ampbench::data::read_cifar10(dir_); }),
            (dir_ / "test_batch.bin").string() + " has a label above 9");
}

TEST_F(DataFiles, TokenFilesAreCutIntoShiftedWindows) {
  write("train.bin", uint16_tokens({1, 2, 3, 4, 5, 6, 7, 300}));
  write("val.bin", uint16_tokens({9, 8, 7, 6}));
  auto d = ampbench::data::read_token_files(dir_, 3, 301, 0, 0);
  // 8 tokens make (8 - 1) / 3 = 2 windows of 3, targets shifted by one.
  EXPECT_TRUE(torch::equal(d.train_inputs, torch::tensor({1, 2, 3, 4, 5, 6}, torch::kInt64).view({2, 3})));
  EXPECT_TRUE(torch::equal(d.train_labels, torch::tensor({2, 3, 4, 5, 6, 7}, torch::kInt64).view({2, 3})));
  EXPECT_EQ(d.val_inputs.size(0), 1);
  EXPECT_EQ(d.sample_shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(d.num_classes, 301);
}

TEST_F(DataFiles, ALimitReadsOnlyTheTokensItsWindowsNeed) {
  // The out-of-range id 300 is the 6th token: all windows reach it, one window of 3 (4 tokens) does not.
  write("train.bin", uint16_tokens({1, 2, 3, 4, 5, 300, 7, 8}));
  write("val.bin", uint16_tokens({9, 8, 7, 6, 5, 4, 3}));
  EXPECT_NE(error([&] { ampbench::data::read_token_files(dir_, 3, 300, 0, 0); }), "no error");
  auto d = ampbench::data::read_token_files(dir_, 3, 300, 1, 1);
  EXPECT_TRUE(torch::equal(d.train_inputs, torch::tensor({1, 2, 3}, torch::kInt64).view({1, 3})));
  EXPECT_TRUE(torch::equal(d.train_labels, torch::tensor({2, 3, 4}, torch::kInt64).view({1, 3})));
  EXPECT_TRUE(torch::equal(d.val_inputs, torch::tensor({9, 8, 7}, torch::kInt64).view({1, 3})));
  // Inputs and targets share one buffer of the tokens read: 3 + 1 ids.
  EXPECT_EQ(d.train_inputs.storage().nbytes(), 4 * sizeof(int64_t));
  EXPECT_TRUE(d.train_inputs.storage().is_alias_of(d.train_labels.storage()));
  // A limit at or above what the file holds takes it all, as without one.
  EXPECT_EQ(ampbench::data::read_token_files(dir_, 3, 301, 5, 0).train_inputs.size(0), 2);
}

TEST_F(DataFiles, BadTokenFilesAreOneClearError) {
  write("train.bin", uint16_tokens({1, 2, 3, 4, 5, 300, 7, 8}));
  write("val.bin", uint16_tokens({9, 8, 7, 6}));
  EXPECT_EQ(
      error([&] { ampbench::data::read_token_files(dir_, 3, 300, 0, 0); }),
      (dir_ / "train.bin").string() + ": token id 300 at position 5 is not below the vocabulary size 300");
  EXPECT_EQ(error([&] { ampbench::data::read_token_files(dir_, 8, 301, 0, 0); }),
            (dir_ / "train.bin").string() + " holds 8 tokens; a sequence needs 9");
  auto odd = uint16_tokens({1, 2, 3});
  odd.pop_back();
  write("val.bin", odd);
  EXPECT_EQ(error([&] { ampbench::data::read_token_files(dir_, 1, 301, 0, 0); }),
            (dir_ / "val.bin").string() + " holds an odd number of bytes (5): not uint16 token ids");
}

TEST(SyntheticTokens, AFixedMarkovChainSeededAndLearnable) {
  ampbench::data::SyntheticTokensOptions options;
  options.train_samples = 64, options.val_samples = 16, options.context = 32, options.vocab = 50;
  options.branching = 3, options.seed = 5;
  auto a = ampbench::data::make_synthetic_tokens(options);
  auto b = ampbench::data::make_synthetic_tokens(options);
  EXPECT_TRUE(torch::equal(a.train_inputs, b.train_inputs));  // the seed fixes it
  EXPECT_TRUE(
      torch::equal(a.train_inputs.narrow(1, 1, 31), a.train_labels.narrow(1, 0, 31)));  // shifted by one
  EXPECT_LT(a.train_labels.max().item<int64_t>(), 50);
  // Each token is followed by at most `branching` distinct tokens: structure a model can learn.
  auto pairs = a.train_inputs.flatten() * 50 + a.train_labels.flatten();
  auto distinct_pairs = std::get<0>(at::_unique(pairs)).size(0);
  auto distinct_tokens = std::get<0>(at::_unique(a.train_inputs.flatten())).size(0);
  EXPECT_LE(distinct_pairs, 3 * distinct_tokens);
  options.seed = 6;
  EXPECT_FALSE(torch::equal(a.train_inputs, ampbench::data::make_synthetic_tokens(options).train_inputs));
}

// With classes, each sequence is labelled with the chain that made it: each chain's successors differ, so
// the label is in the sequence for a classifier to find; the next-token data of the same seed is unchanged.
TEST(SyntheticTokens, WithClassesEachSequenceIsLabelledWithTheChainThatMadeIt) {
  ampbench::data::SyntheticTokensOptions options;
  options.train_samples = 256, options.val_samples = 16, options.context = 16, options.vocab = 20;
  options.branching = 2, options.seed = 5;
  const auto next_token = ampbench::data::make_synthetic_tokens(options);
  options.classes = 3;
  const auto a = ampbench::data::make_synthetic_tokens(options);
  EXPECT_EQ(a.num_classes, 3);
  EXPECT_EQ(a.train_inputs.sizes(), torch::IntArrayRef({256, 16}));
  EXPECT_EQ(a.train_labels.sizes(), torch::IntArrayRef({256}));
  EXPECT_TRUE(torch::equal(a.train_labels, ampbench::data::make_synthetic_tokens(options).train_labels));
  EXPECT_EQ(std::get<0>(at::_unique(a.train_labels)).size(0), 3);  // every class drawn
  EXPECT_LT(a.train_inputs.max().item<int64_t>(), 20);
  // Within one class a token has at most `branching` successors; across the classes, more.
  auto distinct_successors = [&](const torch::Tensor& rows) {
    const auto inputs = a.train_inputs.index_select(0, rows);
    const auto pairs = inputs.narrow(1, 0, 15).flatten() * 20 + inputs.narrow(1, 1, 15).flatten();
    return std::get<0>(at::_unique(pairs)).size(0);
  };
  int64_t per_class = 0;
  for (int64_t k = 0; k < 3; ++k) {
    const auto rows = a.train_labels.eq(k).nonzero().flatten();
    EXPECT_LE(distinct_successors(rows), 2 * 20) << k;
    per_class = std::max(per_class, distinct_successors(rows));
  }
  EXPECT_GT(distinct_successors(torch::arange(256)), per_class);
  options.classes = 0;
  EXPECT_TRUE(
      torch::equal(ampbench::data::make_synthetic_tokens(options).train_inputs, next_token.train_inputs));
}

// What the host-memory check counts is what the made data set holds, byte for byte.
TEST(SyntheticData, ItsSizeIsKnownBeforeItIsMade) {
  auto bytes_of = [](const ampbench::data::Dataset& d) {
    return double(d.train_inputs.nbytes() + d.train_labels.nbytes() + d.val_inputs.nbytes() +
                  d.val_labels.nbytes());
  };
  ampbench::data::SyntheticOptions images;
  images.train_samples = 24, images.val_samples = 8, images.shape = {3, 4, 5}, images.classes = 4;
  EXPECT_EQ(ampbench::data::DataOptions{images}.synthetic_bytes(),
            bytes_of(ampbench::data::make_synthetic_dataset(images)));
  ampbench::data::SyntheticTokensOptions tokens;
  tokens.train_samples = 16, tokens.val_samples = 4, tokens.context = 12, tokens.vocab = 30;
  EXPECT_EQ(ampbench::data::DataOptions{tokens}.synthetic_bytes(),
            bytes_of(ampbench::data::make_synthetic_tokens(tokens)));
  tokens.classes = 5;
  EXPECT_EQ(ampbench::data::DataOptions{tokens}.synthetic_bytes(),
            bytes_of(ampbench::data::make_synthetic_tokens(tokens)));
  EXPECT_EQ(ampbench::data::DataOptions{ampbench::data::ImageFilesOptions{}}.synthetic_bytes(), 0.0);
}

// Headers are checked before any data is read, with sizes that cannot wrap; train and validation images
// must agree; and a path that is not a file says what it is.
TEST_F(DataFiles, HostileMnistFilesAreRefusedByTheirHeadersAndPaths) {
  const auto images = dir_ / "train-images-idx3-ubyte";
  write("train-labels-idx1-ubyte", idx_labels({7, 0, 9, 1}));
  write("t10k-images-idx3-ubyte", idx_images(2, 28, 28));
  write("t10k-labels-idx1-ubyte", idx_labels({1, 2}));
  const auto with_dims = [](uint32_t n, uint32_t rows, uint32_t cols) {  // a header alone
    std::vector<uint8_t> bytes;
    for (uint32_t v : {0x803u, n, rows, cols}) ampbench::test_data::put_u32(bytes, v);
    return bytes;
  };
  write("train-images-idx3-ubyte", with_dims(4, 0x80000000u, 0x80000000u));  // 4 x 2^31 x 2^31 wraps
  EXPECT_EQ(error([&] { ampbench::data::read_mnist(dir_); }),
            images.string() + ": its header's dimensions multiply past 2^64 bytes (not IDX)");
  write("train-images-idx3-ubyte", with_dims(64, 0, 8));
  EXPECT_EQ(error([&] { ampbench::data::read_mnist(dir_); }), images.string() + ": dimension 2 is 0");
  // A header that promises 4 images of 28x28 at the start of an 8 GiB sparse file: refused, not read.
  write("train-images-idx3-ubyte", with_dims(4, 28, 28));
  std::filesystem::resize_file(images, int64_t(8) << 30);
  EXPECT_EQ(error([&] { ampbench::data::read_mnist(dir_); }),
            images.string() + " holds 8589934592 bytes; its header says 3152");
  write("train-images-idx3-ubyte", idx_images(4, 8, 8));
  EXPECT_EQ(error([&] { ampbench::data::read_mnist(dir_); }), (dir_ / "t10k-images-idx3-ubyte").string() +
                                                                  " holds images of 28x28 pixels, but " +
                                                                  images.string() + " of 8x8");
  std::filesystem::remove(images);
  std::filesystem::create_directory(images);
  EXPECT_EQ(error([&] { ampbench::data::read_mnist(dir_); }),
            "data file " + images.string() + " is a directory");
  std::filesystem::remove(images);
  ASSERT_EQ(::mkfifo(images.c_str(), 0600), 0);
  EXPECT_EQ(error([&] { ampbench::data::read_mnist(dir_); }), "data file " + images.string() + " is a FIFO");
  std::filesystem::remove(images);
  std::filesystem::create_symlink(images, images);
  EXPECT_EQ(error([&] { ampbench::data::read_mnist(dir_); }),
            "data file " + images.string() + " is a loop of symbolic links");
}

// Hostile token files, table-driven: each case plants train.bin (beside a sound val.bin) and names what
// the one error line must say; none may crash, hang or read more than its header-free format promises.
TEST_F(DataFiles, HostileTokenFilesAreEachOneClearError) {
  const auto train = dir_ / "train.bin";
  struct Case {
    const char* what;
    std::function<void()> plant;
    std::string expected;  // a part of the message
  };
  const auto bytes = [&](std::vector<uint8_t> b) { return [this, b] { write("train.bin", b); }; };
  const std::vector<Case> cases = {
      {"empty", bytes({}), " holds 0 tokens; a sequence needs 4"},
      {"one byte", bytes({7}), " holds an odd number of bytes (1): not uint16 token ids"},
      {"too short for a window", bytes(uint16_tokens({1, 2, 3})), " holds 3 tokens; a sequence needs 4"},
      {"an id at the vocabulary", bytes(uint16_tokens({1, 2, 3, 301, 5})),
       ": token id 301 at position 3 is not below the vocabulary size 301"},
      {"the largest uint16", bytes(uint16_tokens({1, 65535, 3, 4})),
       ": token id 65535 at position 1 is not below the vocabulary size 301"},
      {"a directory", [&] { fs::create_directory(train); }, " is a directory"},
      {"a FIFO", [&] { ASSERT_EQ(::mkfifo(train.c_str(), 0600), 0); }, " is a FIFO"},
      {"a symlink loop", [&] { fs::create_symlink(train, train); }, " is a loop of symbolic links"},
      {"missing", [] {}, "train.bin"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    fs::remove_all(train);
    write("val.bin", uint16_tokens({9, 8, 7, 6, 5}));
    c.plant();
    const auto message = error([&] { ampbench::data::read_token_files(dir_, 3, 301, 0, 0); });
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
    EXPECT_NE(message.find(train.string()), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  // An 8 GiB sparse file with a limit of one window: only the 4 tokens it needs are read.
  fs::remove_all(train);
  write("train.bin", uint16_tokens({1, 2, 3, 4}));
  fs::resize_file(train, int64_t(8) << 30);
  EXPECT_EQ(ampbench::data::read_token_files(dir_, 3, 301, 1, 1).train_inputs.size(0), 1);
}

}  // namespace
